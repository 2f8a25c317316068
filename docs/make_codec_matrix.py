#!/usr/bin/env python3
"""docs/make_codec_matrix.py: "Does it pay? the matrix" of docs/codec.md.

For ResNet-50 and BERT-base on cloud-v100-25gbe and a100-hdr at 8 and 64 GPUs, each
compressor's predicted throughput by both engines with the NIC at its own rate and at a
tenth of it (a temporary copy of the platform with nic.bandwidth / 10), under one training
stack (default pytorch-ddp, gcsim's default; docs/stacks.md), the codec time per iteration
(encode and decode ms under that stack) and the break-even NIC bandwidth of `gcsim
breakeven` under the stack and under fused (the bandwidth below which the compressor beats
fp32; it does not depend on the NIC's own rate, so it is computed once per platform).

usage: python3 docs/make_codec_matrix.py GCSIM [REPO] [--stack NAME]   (prints Markdown)
Runs about 80 gcsim commands, both engines (a minute or two; run it under nice).
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

MODELS = ["resnet-50", "bert-base"]
PLATFORMS = ["cloud-v100-25gbe", "a100-hdr"]
GPUS = [8, 64]
COMPRESSORS = ["none", "fp16", "terngrad", "qsgd", "signsgd", "topk:ratio=0.01",
               "dgc:ratio=0.001", "randomk:ratio=0.01", "powersgd"]
LABEL = {"topk:ratio=0.01": "topk 1%", "dgc:ratio=0.001": "dgc 0.1%",
         "randomk:ratio=0.01": "randomk 1%", "powersgd": "powersgd r1"}


def run(gcsim, args):
    r = subprocess.run([gcsim] + args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("gcsim %s -> exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return list(csv.DictReader(io.StringIO(r.stdout)))


def tenth(platform_path, tmp):
    """A copy of the platform with its NIC at a tenth of its bandwidth."""
    with open(platform_path) as f:
        p = json.load(f)
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([A-Za-z/]+)\s*", p["nic"]["bandwidth"])
    if not m:
        sys.exit("%s: nic.bandwidth: cannot read \"%s\"" % (platform_path, p["nic"]["bandwidth"]))
    p["nic"]["bandwidth"] = "%.9g%s" % (float(m.group(1)) / 10, m.group(2))
    p["name"] = p["name"] + "-nic-tenth"
    out = os.path.join(tmp, os.path.basename(platform_path))
    with open(out, "w") as f:
        json.dump(p, f)
    return out, "%.9g %s" % (float(m.group(1)) / 10, m.group(2))


def fmt(x, digits=0):
    return "-" if x is None else ("{:,.%df}" % digits).format(x)


def main():
    args = sys.argv[1:]
    stack = "pytorch-ddp"
    if "--stack" in args:
        i = args.index("--stack")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        stack = args[i + 1]
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    gcsim = os.path.abspath(args[0])
    repo = args[1] if len(args) > 1 else os.path.join(os.path.dirname(__file__), "..")
    os.chdir(repo)
    gpus = ",".join(str(g) for g in GPUS)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in MODELS:
            mpath = "models/%s.json" % model
            for plat in PLATFORMS:
                ppath = "platforms/%s.json" % plat
                slow, slow_bw = tenth(ppath, tmp)
                be = {}
                for r in run(gcsim, ["breakeven", "--platform", ppath, "--model", mpath,
                                     "--gpus", gpus, "--compressor",
                                     ",".join(c for c in COMPRESSORS if c != "none"),
                                     "--stack", stack, "--format", "csv"]):
                    key = (int(r["gpus"]), r["compressor"])
                    be[key] = tuple(
                        ("%.3g Gb/s" % (float(r[p + "breakeven_Bps"]) * 8 / 1e9)
                         if r[p + "status"] == "found" else r[p + "status"])
                        for p in ("", "fused_"))
                for comp in COMPRESSORS:
                    pred = {}
                    for tag, path in (("own", ppath), ("tenth", slow)):
                        for r in run(gcsim, ["predict", "--platform", path, "--model", mpath,
                                             "--gpus", gpus, "--engine", "both",
                                             "--compressor", comp, "--stack", stack,
                                             "--format", "csv"]):
                            pred[(tag, int(r["gpus"]), r["engine"])] = r
                    for g in GPUS:
                        a = pred[("own", g, "analytic")]
                        # breakeven names compressors by their normalized spec
                        norm = [k for k in be if k[0] == g and
                                k[1].split(":")[0] == comp.split(":")[0]]
                        rows.append([
                            model, plat, str(g), LABEL.get(comp, comp), a["exchange"],
                            fmt(float(a["throughput_samples_per_s"])),
                            fmt(float(pred[("own", g, "des")]["throughput_samples_per_s"])),
                            fmt(float(pred[("tenth", g, "analytic")]["throughput_samples_per_s"])),
                            fmt(float(pred[("tenth", g, "des")]["throughput_samples_per_s"])),
                            fmt(float(a["encode_s"]) * 1e3, 2), fmt(float(a["decode_s"]) * 1e3, 2),
                            "fp32" if comp == "none" else be[norm[0]][0] if norm else "-",
                            "fp32" if comp == "none" else be[norm[0]][1] if norm else "-"])
                print("%s on %s: done (NIC at a tenth: %s)" % (model, plat, slow_bw),
                      file=sys.stderr)
    head = ["model", "platform", "GPUs", "compressor", "exchange",
            "samples/s analytic", "samples/s DES", "NIC/10 analytic", "NIC/10 DES",
            "encode ms", "decode ms", "break-even NIC (%s)" % stack, "break-even NIC (fused)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
