#!/usr/bin/env python3
"""`gcsim predict --tensors` (docs/schema.md) against the iteration's totals.

    tensors_check.py GCSIM REPO

For ResNet-50 on cloud-v100-25gbe at 16 GPUs (analytic engine), checks that
- the rows are the model's layers in forward order, their elements add up to
  meta model.parameters and dense_bytes is 4 bytes per element;
- buckets fill from the last layer backwards: bucket 0 holds the last layer, the bucket
  never decreases towards the first layer, and there are meta buckets of them;
- fp32: payload = dense bytes, no codec seconds;
- QSGD (all-gather): the layers' encode_s add up to predict's encode_s and 15 x their
  decode_s (N-1 = 15 payloads decoded) to predict's decode_s;
- fp16 (all-reduce, one decode): decode_s adds up to predict's decode_s, and the payload of
  every layer is 2 bytes per element plus a small per-tensor header.
"""
import json
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def gcsim_json(gcsim, repo, args):
    r = subprocess.run([gcsim, "predict", "--platform", "platforms/cloud-v100-25gbe.json",
                        "--model", "models/resnet-50.json", "--stack", "fused",
                        "--format", "json"] + args,
                       capture_output=True, text=True, cwd=repo, timeout=60)
    if r.returncode != 0:
        print("gcsim predict %s -> %d: %s" % (" ".join(args), r.returncode, r.stderr))
        sys.exit(1)
    return json.loads(r.stdout)


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def one(gcsim, repo, compressor, decodes):
    doc = gcsim_json(gcsim, repo, ["--compressor", compressor, "--tensors"])
    rows, meta = doc["rows"], doc["meta"]
    check(meta["table"] == "tensors", "%s: table %r" % (compressor, meta["table"]))
    check([r["layer"] for r in rows] == list(range(len(rows))), "%s: forward order" % compressor)
    check(sum(r["elements"] for r in rows) == meta["model"]["parameters"],
          "%s: elements add up to the parameters" % compressor)
    check(all(r["dense_bytes"] == 4 * r["elements"] for r in rows), "%s: 4 B/elem" % compressor)
    buckets = [r["bucket"] for r in rows]
    check(buckets[-1] == 0 and all(a >= b for a, b in zip(buckets, buckets[1:]))
          and max(buckets) == meta["buckets"] - 1,
          "%s: buckets fill backwards: %r, %d buckets" % (compressor, buckets, meta["buckets"]))
    pred = gcsim_json(gcsim, repo, ["--compressor", compressor, "--gpus", "16"])
    enc, dec = pred["rows"][0]["encode_s"], pred["rows"][0]["decode_s"]
    check(close(sum(r["encode_s"] for r in rows), enc),
          "%s: encode_s %r vs predict %r" % (compressor, sum(r["encode_s"] for r in rows), enc))
    check(close(decodes * sum(r["decode_s"] for r in rows), dec),
          "%s: %d x decode_s %r vs predict %r" % (compressor, decodes,
                                                 sum(r["decode_s"] for r in rows), dec))
    return rows, pred


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    gcsim, repo = argv[1], argv[2]
    rows, pred = one(gcsim, repo, "none", 1)
    check(all(r["payload_bytes"] == r["dense_bytes"] and r["encode_s"] == 0 and r["decode_s"] == 0
              for r in rows), "fp32: payload = dense, no codec")
    rows, pred = one(gcsim, repo, "qsgd", 15)
    check(pred["meta"]["exchange"] == "allgather", "qsgd exchanges by all-gather")
    check(all(r["encode_s"] > 0 and r["decode_s"] > 0 and r["payload_bytes"] < r["dense_bytes"]
              for r in rows), "qsgd: every layer compressed, with codec seconds")
    rows, pred = one(gcsim, repo, "fp16", 1)
    check(pred["meta"]["exchange"] == "allreduce", "fp16 exchanges by all-reduce")
    # 2 bytes per element plus the format's small per-tensor header (6-8 B with padding)
    header = {r["payload_bytes"] - 2 * r["elements"] for r in rows}
    check(0 <= min(header) and max(header) < 64, "fp16: 2 B/elem + a header: %r" % header)
    print("ok" if not failures else "%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
