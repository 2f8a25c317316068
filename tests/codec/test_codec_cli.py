"""The codec cost and the exchange through the command line (docs/codec.md).

    test_codec_cli.py GCSIM REPO

- predict says which exchange and codec cost source it used, in every format, and encode
  and decode appear as columns (JSON rows, CSV header);
- the TernGrad paper's platforms keep its codec-free model unless --exchange is given;
- under the fused stack, h100-ndr's compressors come from its measured profile, the others
  from the model; under the default stack (pytorch-ddp) the stack's measured op costs;
- the DES timeline has the buckets' encode and decode;
- breakeven: just below the break-even NIC bandwidth the compressor beats fp32 in
  `gcsim predict`, just above it does not (both runs on a copy of the platform).
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def run(gcsim, *args):
    r = subprocess.run([gcsim, *args], capture_output=True, text=True)
    if r.returncode != 0:
        print("gcsim", " ".join(args), "->", r.returncode, r.stderr)
        sys.exit(1)
    return r.stdout


def main(gcsim, repo):
    os.chdir(repo)
    base = ["--model", "models/resnet-50.json", "--gpus", "64"]
    j = json.loads(run(gcsim, "predict", "--platform", "platforms/h100-ndr.json", *base,
                       "--compressor", "topk:ratio=0.01", "--stack", "fused", "--format", "json"))
    row = j["rows"][0]
    check(row["exchange"] == "allgather", "topk defaults to all-gather")
    check(row["encode_s"] > 0 and row["decode_s"] > 0, "encode and decode columns")
    check(abs(row["compress_s"] - row["encode_s"] - row["decode_s"]) < 1e-12,
          "codec = encode + decode")
    cost = j["meta"]["codec_cost"]
    check("h100-pytorch.json" in cost["description"] and cost["source"] == "profile",
          "profile named: %s" % cost)
    check(j["meta"]["exchange"] == "allgather", "exchange in meta")
    check(j["notes"]["exchange"].startswith("allgather"), "exchange in the notes")
    j = json.loads(run(gcsim, "predict", "--platform", "platforms/h100-ndr.json", *base,
                       "--compressor", "ecq", "--stack", "fused", "--format", "json"))
    check(j["meta"]["codec_cost"]["source"] == "model", "ecq: model (not in the profile)")
    j = json.loads(run(gcsim, "predict", "--platform", "platforms/h100-ndr.json", *base,
                       "--compressor", "topk:ratio=0.01", "--format", "json"))
    check(j["meta"]["stack"]["name"] == "pytorch-ddp" and j["meta"]["codec_cost"]["source"] == "stack"
          and "pytorch-ddp.json" in j["meta"]["codec_cost"]["description"],
          "default stack's op costs named: %s" % j["meta"]["codec_cost"])
    # the TernGrad paper's platforms keep its model, codec-free; --exchange charges it
    j = json.loads(run(gcsim, "predict", "--platform", "platforms/terngrad-fig5a.json",
                       "--model", "models/alexnet.json", "--gpus", "8", "--compressor",
                       "terngrad", "--format", "json"))
    check(j["rows"][0]["exchange"] == "terngrad-pattern" and j["rows"][0]["compress_s"] == 0,
          "terngrad pattern: no codec time")
    check("none charged" in j["notes"]["codec cost"], "pattern's codec line: %s" % j["notes"]["codec cost"])
    j = json.loads(run(gcsim, "predict", "--platform", "platforms/terngrad-fig5a.json",
                       "--model", "models/alexnet.json", "--gpus", "8", "--compressor",
                       "terngrad", "--exchange", "allgather", "--format", "json"))
    check(j["rows"][0]["exchange"] == "allgather" and j["rows"][0]["compress_s"] > 0,
          "terngrad platform with --exchange allgather: codec charged")
    c = list(csv.DictReader(io.StringIO(run(gcsim, "predict", "--platform",
                                            "platforms/cloud-v100-25gbe.json", *base,
                                            "--compressor", "fp16", "--format", "csv"))))
    check(c[0]["exchange"] == "allreduce" and float(c[0]["encode_s"]) > 0, "csv columns")

    # plan: the exchange each ranked configuration uses, at the position it had when it was
    # added (column 17: readers by position keep working; later columns go after it) and in
    # its JSON rows: a named all-reduce
    # collective keeps all-reduce even for qsgd; the allgather collective all-gathers
    plan = ["plan", "--platform", "platforms/cloud-v100-25gbe.json", "--model",
            "models/resnet-50.json", "--compressors", "none,qsgd", "--collectives",
            "ring,allgather", "--target-throughput", "1000", "--top", "0"]
    text = run(gcsim, *plan, "--format", "csv")
    check(text.splitlines()[0].split(",").index("exchange") == 16, "plan csv: exchange is column 17")
    rows = list(csv.DictReader(io.StringIO(text)))
    check(len(rows) == 4, "plan csv: 2 compressors x 2 collectives, got %d rows" % len(rows))
    for r in rows:
        want = "allgather" if r["collective"] == "allgather" else "allreduce"
        check(r["exchange"] == want, "plan csv: %s by %s used %s, expected %s"
              % (r["compressor"], r["collective"], r["exchange"], want))
    j = json.loads(run(gcsim, *plan, "--format", "json"))
    check(sorted(r["exchange"] for r in j["rows"]) == sorted(r["exchange"] for r in rows),
          "plan json: the same exchanges as the csv")

    with tempfile.TemporaryDirectory() as tmp:
        tl = os.path.join(tmp, "t.json")
        run(gcsim, "predict", "--platform", "platforms/cloud-v100-25gbe.json",
            "--model", "models/resnet-50.json", "--gpus", "16", "--engine", "des",
            "--compressor", "qsgd", "--timeline", tl)
        names = {e.get("name", "") for e in json.load(open(tl))["traceEvents"]}
        check(any(n.startswith("encode bucket") for n in names), "timeline encode")
        check(any(n.startswith("decode bucket") for n in names), "timeline decode")

        j = json.loads(run(gcsim, "breakeven", "--platform", "platforms/a100-hdr.json",
                           *base, "--compressor", "topk:ratio=0.01", "--format", "json"))
        r = j["rows"][0]
        check(r["status"] == "found", "a100-hdr topk break-even found: %s" % r["reason"])
        be = r["breakeven_Bps"] * 8 / 1e9  # the platform file's unit: Gb/s
        plat = json.load(open("platforms/a100-hdr.json"))
        for factor, wins in ((0.98, True), (1.02, False)):
            plat["nic"]["bandwidth"] = "%.9gGbps" % (be * factor)
            path = os.path.join(tmp, "p.json")
            json.dump(plat, open(path, "w"))
            t = {}
            for comp in ("none", "topk:ratio=0.01"):
                t[comp] = json.loads(run(gcsim, "predict", "--platform", path, *base,
                                         "--compressor", comp, "--format", "json")
                                     )["rows"][0]["throughput_samples_per_s"]
            check((t["topk:ratio=0.01"] > t["none"]) == wins,
                  "at %.3g x break-even: topk %g vs none %g" % (factor, t["topk:ratio=0.01"], t["none"]))
    print("ok" if failures == 0 else "%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
