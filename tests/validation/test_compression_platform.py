#!/usr/bin/env python3
"""A compression case's per-run platform (compression_cases.py, `compressed_platform`).

Checked: platform_of by hand (the column absent, '-', a file); the platform each run of a
case is predicted on, through a stand-in gcsim that records its --platform; and the shipped
published_compression.tsv: every row has every column, a compressed_platform is an existing
file, and it is used only where its source says the compressed system drove the network
differently from the baseline's (Bagua over Bagua-Net against another system over NCCL's
sockets). Exit 1 on the first failure.
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compression_cases as cc  # noqa: E402
from unit_checks import check  # noqa: E402

FAKE_GCSIM = r'''#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(a[a.index("--platform") + 1] + "\n")
print(json.dumps({"rows": [{"throughput_samples_per_s": 1.0}]}))
'''


def main():
    base = {"case": "X", "platform": "base.json", "model": "m", "gpus": "8", "batch": "32",
            "args": "-", "compressed_args": "-"}
    check(cc.platform_of(base, True) == "base.json", "no column: the case's platform")
    check(cc.platform_of(dict(base, compressed_platform="-"), True) == "base.json",
          "'-': the case's platform")
    other = dict(base, compressed_platform="other.json")
    check(cc.platform_of(other, True) == "other.json", "compressed run: compressed_platform")
    check(cc.platform_of(other, False) == "base.json", "baseline run: the case's platform")

    with tempfile.TemporaryDirectory() as tmp:
        fake, log = os.path.join(tmp, "gcsim"), os.path.join(tmp, "log")
        with open(fake, "w") as f:
            f.write(FAKE_GCSIM)
        os.chmod(fake, 0o755)
        os.environ["FAKE_LOG"] = log
        cc.throughput(fake, tmp, other, "qsgd", "bagua", "auto", compressed=True)
        cc.throughput(fake, tmp, other, "none", "pytorch-ddp", "auto", compressed=False)
        cc.throughput(fake, tmp, other, "qsgd", "bagua", "auto")  # compressed by its compressor
        with open(log) as f:
            seen = f.read().split()
        check(seen == ["other.json", "base.json", "other.json"],
              "platforms gcsim was run on: %s" % seen)

    repo = os.path.dirname(os.path.dirname(HERE))
    rows = cc.read_cases(repo)
    header = None
    with open(os.path.join(repo, "tests", "validation", "published_compression.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            header = header or fields
            check(len(fields) == len(header), "%s: %d fields, the header has %d"
                  % (fields[0], len(fields), len(header)))
    check(header[-1] == "compressed_platform", "the last column is compressed_platform")
    used = [r for r in rows if r["compressed_platform"] != "-"]
    check(len(used) >= 6, "the Bagua-Net rows use compressed_platform (%d)" % len(used))
    for r in used:
        check(os.path.isfile(os.path.join(repo, r["compressed_platform"])),
              "%s: %s is not a file" % (r["case"], r["compressed_platform"]))
        check(r["stack"] == "bagua" and r["baseline_stack"] != "bagua",
              "%s: a compressed platform of its own for Bagua against another system only"
              % r["case"])
        check(r["compressed_platform"] != r["platform"], "%s: the same platform twice" % r["case"])
    for r in rows:  # Bagua against its own all-reduce: one transport for both runs
        if r["stack"] == r["baseline_stack"] == "bagua":
            check(r["compressed_platform"] == "-", "%s: Bagua against Bagua on two platforms"
                  % r["case"])
    print("test_compression_platform: all checks passed (%d rows, %d with a compressed "
          "platform)" % (len(rows), len(used)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
