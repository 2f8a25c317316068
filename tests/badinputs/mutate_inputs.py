#!/usr/bin/python3
"""The hostile-input harness of issue 29: every field of real inputs, broken one at a time.

Two families of cases, generated rather than listed, so that a field added to a platform or
a model, or an option added to a command, is attacked without anyone writing a case:

  json     each leaf of a few catalog platforms and models (the first two items of every
           array) is deleted, retyped (null, a number for a string, a string for a number,
           an array, an object) and pushed to hostile values (0, -1, 1e308, 2^63, a unit
           string with a NaN or an infinite number, 5,000 characters); then
           `gcsim predict --platform P --model M --output O` runs on the file.
  options  each option of each command that takes a value gets hostile values ("", "-1",
           "0", "nan", "1e999", 40 digits, "abc", "1,,2", a 5,000-character word).

Every case must end in one of two ways:
  exit 0   the input was legal after all: --output written, nothing on stdout (json);
  exit 2   refused: nothing on stdout, no --output file, one message on stderr that names
           the file (json) and the field or option that was broken.
Anything else fails: another exit code, a signal, more than TIMEOUT_S seconds, a refusal
that does not name what was broken. Some mutations must be refused (a string where a number
belongs, null, a missing required field); those that a strict reader may accept (a free-text
field retyped as text) are listed in MAY_ACCEPT with the reason.

usage: mutate_inputs.py GCSIM SOURCE_DIR SCRATCH_DIR [--list] [--stride K]
  --stride K: run every K-th case only (the sanitizer build, where each run costs more).
Prints one line per failure and a summary; exits 1 when any case failed.
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys

TIMEOUT_S = 20
WORKERS = 2  # gcsim processes at once

PLATFORMS = ["a100-hdr.json", "terngrad-fig5a.json", "h100-ndr.json"]
# Each model with the other inputs it needs to be legal as shipped (llama-7b fits 80 GB
# GPUs only sharded).
MODELS = {"resnet-50.json": ["--platform", "a100-hdr"],
          "alexnet.json": [],
          "llama-7b.json": ["--platform", "h100-ndr", "--sharding", "fsdp"]}

# Text fields: any string is a legal value, so only retyping or deleting them may be refused.
FREE_TEXT = {"name", "description", "source", "framework", "type", "kind"}
# Fields a reader may leave out (documented optional in DESIGN/docs): deleting them is legal.
OPTIONAL = {"description", "source", "sources", "price", "usd_per_gpu_hour", "gpu.memory",
            "memory", "memory_bandwidth", "speed_16bit", "oversubscription", "nodes_per_leaf",
            "switch_latency", "profiles", "bias", "other_params", "stack", "collective",
            "precision", "optimizer", "tokens_per_sample", "activation_bytes_per_sample",
            "matrices", "rows", "framework", "fwd_flops", "name", "per_node", "latency",
            "codec_profile", "nvls_bandwidth",
            # transports and PCIe topology (docs/formats.md): all optional
            "transport", "gpudirect", "channels", "message_overhead", "socket_threads",
            "sockets_per_thread", "stream_bandwidth", "thread_bandwidth", "mtu", "flow_balance",
            "proxy_bandwidth",
            "pcie",
            "sockets", "socket_link", "p2p", "p2p_level", "host_memory_bandwidth"}

NUMBER_VALUES = [0, -1, 1e308, 2**63, 0.5, "12", None, [], {}, True]
STRING_VALUES = ["", "x" * 5000, 7, None, [], {}, "nan Gb/s", "inf us", "1e999 GB/s",
                 "-3 us", "12 parsecs"]
TEXT_VALUES = ["", "x" * 5000, 7, None, []]
OPTION_VALUES = ["", "-1", "0", "nan", "1e999", "9" * 40, "abc", "1,,2", "x" * 5000]


def leaves(node, path):
    """(path, key) of every scalar under node; arrays contribute their first two items."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, path + [k])
    elif isinstance(node, list):
        for i, v in enumerate(node[:2]):
            yield from leaves(v, path + [i])
    else:
        yield path


def get_parent(doc, path):
    for p in path[:-1]:
        doc = doc[p]
    return doc


def key_of(path):
    """The last object key on the path: what a message about this leaf must name."""
    for p in reversed(path):
        if isinstance(p, str):
            return p
    return None


def json_path(path):
    """The path as gcsim's messages write it: $.layers[0].weights."""
    return "$" + "".join("[%d]" % p if isinstance(p, int) else "." + p for p in path)


def dotted(path):
    return ".".join(str(p) for p in path)


def json_cases(src):
    """(label, file name, text, names, must_refuse, argv) for every mutated platform and
    model; names: what a refusal must mention (the key, or else the JSON path of the object
    holding it)."""
    for folder, names, flag in (("platforms", {p: [] for p in PLATFORMS}, "--platform"),
                                ("models", MODELS, "--model")):
        for name, extra in names.items():
            with open(os.path.join(src, folder, name)) as f:
                doc = json.load(f)
            # the copy lives in a scratch folder: its codec profile (read when the platform
            # loads) is named by its absolute path, as the original resolves it
            if "codec_profile" in doc.get("gpu", {}):
                doc["gpu"]["codec_profile"] = os.path.abspath(
                    os.path.join(src, folder, doc["gpu"]["codec_profile"]))
            for path in leaves(doc, []):
                key = key_of(path)
                in_sources = "sources" in path or key == "source"
                value = get_parent(doc, path)[path[-1]]
                muts = []
                if isinstance(path[-1], str):
                    muts.append(("delete", "<deleted>"))
                pool = STRING_VALUES if isinstance(value, str) else NUMBER_VALUES
                if in_sources or key in FREE_TEXT:  # text: only retyping can be wrong
                    pool = TEXT_VALUES
                muts += [("set", v) for v in pool]
                for kind, v in muts:
                    mutated = json.loads(json.dumps(doc))
                    parent = get_parent(mutated, path)
                    if kind == "delete":
                        del parent[path[-1]]
                    else:
                        parent[path[-1]] = v
                    retyped = kind == "set" and (v is None or type(v) is not type(value))
                    if isinstance(value, (int, float)) and isinstance(v, (int, float)) \
                            and not isinstance(v, bool) and not isinstance(value, bool):
                        retyped = False
                    must_refuse = not in_sources and (
                        retyped or (kind == "delete" and key not in OPTIONAL
                                    and dotted(path[-2:]) not in OPTIONAL))
                    if key in FREE_TEXT and kind == "set" and isinstance(v, str):
                        must_refuse = False
                    label = "%s/%s:%s:%s=%s" % (folder, name, dotted(path), kind,
                                                json.dumps(v)[:24] if kind == "set" else "")
                    yield (label, name, json.dumps(mutated), (key, json_path(path[:-1])),
                           must_refuse, extra + [flag])


def command_options(gcsim, command):
    """The long options of `gcsim COMMAND --help` that take a value (--name VALUE)."""
    out = subprocess.run([gcsim, command, "--help"], capture_output=True, text=True,
                         timeout=TIMEOUT_S).stdout
    opts = []
    for line in out.splitlines():
        for word_at, word in enumerate(line.split()):
            if word.startswith("--") and len(word) > 2:
                name = word.rstrip(",").split("=")[0]
                rest = line.split()[word_at + 1:word_at + 2]
                takes_value = bool(rest) and rest[0].isupper() and not rest[0].endswith(":")
                if takes_value and name not in opts and name not in ("--output", "--help"):
                    opts.append(name)
    return opts


BASE_ARGS = {
    "predict": [], "sweep": ["--gpus", "8"],
    "plan": ["--gpus", "8,16", "--target-throughput", "1000"],
    "breakeven": ["--compressor", "fp16"], "collective": ["--gpus", "8"],
}


def run(gcsim, argv, out_path):
    try:
        p = subprocess.run([gcsim] + argv, capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, b"", b"", False
    made = os.path.exists(out_path)
    if made:
        os.unlink(out_path)
    return p.returncode, p.stdout, p.stderr, made


def check(label, rc, out, err, made, must_name, must_refuse, expect_output, may_be_infeasible=False):
    """The failure text of one case, or None when it ended in one of the legal ways. Each
    item of must_name is a word or a tuple of words, one of which the message must hold.
    may_be_infeasible: exit 1 with "no feasible" is plan's documented answer to a target
    nothing meets (docs/planning.md)."""
    if rc == 1 and may_be_infeasible and b"no feasible" in err and not out:
        return None
    if rc is None:
        return "%s: no answer within %d s" % (label, TIMEOUT_S)
    if rc == 0:
        if must_refuse:
            return "%s: accepted (exit 0), must be refused" % label
        if out:
            return "%s: exit 0 but wrote %d bytes on stdout (with --output)" % (label, len(out))
        if expect_output and not made:
            return "%s: exit 0 without writing --output" % label
        return None
    if rc != 2:
        return "%s: exit %d (%s)" % (label, rc, err.decode(errors="replace").strip()[:200])
    text = err.decode(errors="replace")
    if out:
        return "%s: refused but wrote %d bytes on stdout" % (label, len(out))
    if made:
        return "%s: refused but left an --output file" % label
    for words in must_name:
        words = words if isinstance(words, tuple) else (words,)
        if not any(w and w in text for w in words):
            return "%s: the message does not name %r: %s" % (label, words, text.strip()[:300])
    return None


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    gcsim, src, scratch = sys.argv[1:4]
    listing = "--list" in sys.argv[4:]
    stride = int(sys.argv[sys.argv.index("--stride") + 1]) if "--stride" in sys.argv else 1
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    failures, cases, refused = [], 0, 0

    def json_case(k, case):
        label, name, text, field, must_refuse, args = case
        folder = os.path.join(scratch, "c%d" % k)  # the file keeps its own name
        os.makedirs(folder)
        path, out_path = os.path.join(folder, name), os.path.join(folder, "out.csv")
        with open(path, "w") as f:
            f.write(text)
        argv = ["predict", "--gpus", "16", "--format", "csv", "--output", out_path] + args + [path]
        rc, out, err, made = run(gcsim, argv, out_path)
        shutil.rmtree(folder)
        return label, rc, check(label, rc, out, err, made, [name, field], must_refuse, True)

    def option_case(k, case):
        command, base, opt, value = case
        out_path = os.path.join(scratch, "o%d.csv" % k)
        argv = [command] + base + [opt, value, "--output", out_path]
        rc, out, err, made = run(gcsim, argv, out_path)
        label = "%s %s %r" % (command, opt, value[:24])
        # "--compressors" may be spoken of as "compressor", "--platform" as "platform"
        return label, rc, check(label, rc, out, err, made, [(opt[2:].rstrip("s"),)], False,
                                False, command == "plan")

    options = [(command, base, opt, value) for command, base in BASE_ARGS.items()
               for opt in command_options(gcsim, command) for value in OPTION_VALUES]
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        jsons = list(json_cases(src))[::stride]
        results = list(pool.map(json_case, range(len(jsons)), jsons))
        results += list(pool.map(option_case, range(len(options)), options[::stride]))
    for label, rc, fail in results:
        cases += 1
        refused += rc == 2
        if listing:
            print("%s exit %s" % (label, rc))
        if fail:
            failures.append(fail)

    for f in failures:
        print("FAIL " + f)
    print("mutate_inputs: %d cases, %d refused (exit 2), %d accepted, %d failed"
          % (cases, refused, cases - refused - len(failures), len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
