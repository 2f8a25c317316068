"""The shipped catalog as the validation scripts see it: platform and model files of a
repository checkout, read with the standard library only (no gcsim code)."""
import glob
import json
import os
import re


class InputError(Exception):
    """Bad input: the message names the file and the JSON path."""


def _load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError("%s: %s" % (path, e))


def _get(doc, path, keys):
    node = doc
    for k in keys:
        if not isinstance(node, dict) or k not in node:
            raise InputError("%s: missing %s" % (path, "." + ".".join(keys)))
        node = node[k]
    return node


class Platform:
    def __init__(self, path):
        doc = _load(path)
        self.path = path
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.nodes = _get(doc, path, ["nodes"])
        self.gpus_per_node = _get(doc, path, ["gpus_per_node"])
        if not isinstance(self.nodes, int) or not isinstance(self.gpus_per_node, int):
            raise InputError("%s: .nodes and .gpus_per_node must be integers" % path)
        self.gpus = self.nodes * self.gpus_per_node
        self.gpu_type = _get(doc, path, ["gpu", "type"])
        # the GPU type whose profiles serve this one where a model has none (docs/formats.md)
        self.profile_as = doc["gpu"].get("profile_as")
        # The kinds a validation subset has to cover (docs/formats.md).
        self.intra = _get(doc, path, ["intra_node", "kind"])
        self.nic = _get(doc, path, ["nic", "kind"])
        self.fabric = _get(doc, path, ["fabric", "topology"])

    def kinds(self):
        return {"intra:" + self.intra, "nic:" + self.nic, "fabric:" + self.fabric}


_TIME_UNITS_S = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def parse_time_s(text, where):
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(s|ms|us|ns)\s*", str(text))
    if not m:
        raise InputError("%s: %r is not a time such as \"66.02ms\"" % (where, text))
    return float(m.group(1)) * _TIME_UNITS_S[m.group(2)]


class Model:
    def __init__(self, path):
        doc = _load(path)
        self.path = path
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.batch_per_gpu = _get(doc, path, ["batch_per_gpu"])
        # {gpu type: [(batch, seconds), ...]}: the measured (or derived) points themselves,
        # so that checks compare against the file rather than against gcsim's interpolation;
        # only the profiles gcsim uses at the model's own precision (fp32 and tf32 are one
        # class, bf16 and fp16 the other; a profile without "precision" has the model's).
        own = doc.get("precision", "fp32")
        four_bytes = ("fp32", "tf32")
        self.profiles = {}
        for n, prof in enumerate(_get(doc, path, ["profiles"])):
            if (prof.get("precision", own) in four_bytes) != (own in four_bytes):
                continue
            gpu = _get(prof, path, ["gpu"])
            pts = []
            for k, pt in enumerate(_get(prof, path, ["points"])):
                where = "%s: .profiles[%d].points[%d]" % (path, n, k)
                pts.append((int(_get(pt, where, ["batch"])),
                            parse_time_s(_get(pt, where, ["time"]), where + ".time")))
            self.profiles[gpu] = pts

    def profile_for(self, platform):
        """The points gcsim uses on the platform's GPU: its type's, else its profile_as's."""
        pts = self.profiles.get(platform.gpu_type)
        if pts is None and platform.profile_as:
            pts = self.profiles.get(platform.profile_as)
        return pts or []


def platforms(repo):
    paths = sorted(glob.glob(os.path.join(repo, "platforms", "*.json")))
    if not paths:
        raise InputError("%s: no platforms/*.json" % repo)
    return [Platform(p) for p in paths]


def models(repo, names=None):
    paths = sorted(glob.glob(os.path.join(repo, "models", "*.json")))
    out = [Model(p) for p in paths]
    if names is not None:
        by_name = {m.name: m for m in out}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise InputError("%s/models: no %s" % (repo, ", ".join(n + ".json" for n in missing)))
        out = [by_name[n] for n in names]
    return out
