#!/usr/bin/env python3
"""Turn a measured GPU codec run (bench/gpu/codec_profile.py output) into a gcsim codec
profile (docs/codec.md, "Profile format").

    python3 bench/gpu/make_codec_profile.py bench/gpu/results/h100-codec.json \
        --gpu h100 --out platforms/codec/h100-pytorch.json

Per compressor spec the profile lists [elements, encode_us, decode_us] at the measured
sizes. encode_us is the measured median encode. decode_us is what gcsim charges per
received payload: decode it and add it into the fp32 sum. The run measured plain decode
at every size and "decode then add" (or index_add for top-k) only at one size, with N-1
payloads; the profile scales each size's decode by the ratio measured there (mean over
the worker counts measured), and for codecs without their own accumulate measurement
borrows the ratio of the closest measured one (named in measured_as). Times are medians
with a cold L2 (docs/gpu-measurements.md).
"""
import argparse
import json
import sys

# gcsim spec -> (name in the run, codec whose accumulate ratio applies, accumulate variant)
MAP = [
    ("fp16", "fp16", "fp16", "decode_then_add"),
    ("bf16", "bf16", "fp16", "decode_then_add"),
    ("signsgd", "sign_1bit", "sign_1bit", "decode_then_add"),
    ("terngrad", "terngrad_2bit", "terngrad_2bit", "decode_then_add"),
    ("qsgd:s=4", "qsgd_s4_int8", "qsgd_s4_int8", "decode_then_add"),
    ("qsgd:s=127", "qsgd_s127_int8", "qsgd_s4_int8", "decode_then_add"),
    ("topk:ratio=0.01", "topk_1pct", "topk_1pct", "index_add_into_accumulator"),
    ("topk:ratio=0.001", "topk_0.1pct", "topk_1pct", "index_add_into_accumulator"),
    ("dgc:ratio=0.001", "dgc_0.1pct", "topk_1pct", "index_add_into_accumulator"),
    ("randomk:ratio=0.01", "randk_1pct", "topk_1pct", "index_add_into_accumulator"),
    ("powersgd:rank=1", "powersgd_r1", "fp16", "decode_then_add"),
    ("powersgd:rank=2", "powersgd_r2", "fp16", "decode_then_add"),
    ("powersgd:rank=4", "powersgd_r4", "fp16", "decode_then_add"),
]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("--gpu", required=True, help="gcsim GPU type the run was on")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    with open(a.run) as f:
        run = json.load(f)
    ops = {(o["op"], o["elements"]): o["median_us"] for o in run["ops"] if "error" not in o}
    ratio = {}
    for codec, _, acc_codec, variant in MAP:
        per = [x["per_payload_us"] for x in run["decode_accumulate"]
               if x["codec"] == acc_codec and x.get("variant") == variant and "error" not in x]
        n = run["decode_accumulate"][0]["elements"]
        base = ops[(acc_codec + ".decode", n)]
        ratio[codec] = (sum(per) / len(per) / base, acc_codec, variant, n)
    prov = run["provenance"]
    entries = []
    for codec, name, acc_codec, variant in MAP:
        sizes = sorted(e for (op, e) in ops if op == name + ".encode")
        r, _, _, n = ratio[codec]
        points = [[e, ops[(name + ".encode", e)], round(ops[(name + ".decode", e)] * r, 3)]
                  for e in sizes if (name + ".decode", e) in ops]
        entries.append({
            "compressor": codec,
            "measured_as": "%s (PyTorch); decode x %.3f, the %s/decode ratio of %s at %d "
                           "elements" % (name, r, variant, acc_codec, n),
            "points": points})
    profile = {
        "schema": "gcsim-codec-profile/1",
        "gpu": a.gpu,
        "kind": "measured",
        "source": "%s, %s, torch %s: %s (docs/gpu-measurements.md); converted by "
                  "bench/gpu/make_codec_profile.py" % (
                      prov.get("gpu_name"), a.run, prov.get("torch"), prov.get("command_line")),
        "date": prov.get("date_utc"),
        "notes": "PyTorch implementations of the papers' codecs, one op after another, cold "
                 "L2; a fused kernel can be several times faster (docs/codec.md). decode_us: "
                 "decode one payload and add it into the fp32 sum (derived as described in "
                 "the script's header).",
        "entries": entries,
    }
    with open(a.out, "w") as f:
        json.dump(profile, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
