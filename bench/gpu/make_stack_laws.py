#!/usr/bin/env python3
"""Derive the op-cost laws of gcsim's training stacks from a measured GPU codec run
(bench/gpu/codec_profile.py output), and check them against the same run.

    python3 bench/gpu/make_stack_laws.py bench/gpu/results/h100-codec.json --gpu h100 \
        [--update platforms/stacks/pytorch-ddp.json platforms/stacks/horovod.json]

A law is one op's cost per call by tensor size, in two parts (docs/stacks.md):
  gpu_us   the GPU's busy time (torch.profiler: the op's kernels, cold L2), measured;
  host_us  the host's time per call (Python, dispatch, launches): the back-to-back wall
           time per call where that is host-bound (over 1.25 x the GPU's busy time); at
           sizes where the GPU sets the pace, the host's time at the largest host-bound
           size (a call's host work does not shrink as the tensor grows).
gcsim charges max(host, GPU) per call, and on another GPU scales the GPU part above the
smallest size's (the launch-bound floor) by the datasheet memory bandwidths.

Laws fitted to nothing but these micro-benchmarks:
  X.encode, X.decode     per codec, as measured;
  copy                   a device-to-device copy (elementwise passes: error-feedback add,
                         clone, division, fusion-buffer copies, with a gpu_scale per op);
  X.decode_add           decoding one received payload and adding it into the sum:
                         X.decode plus an add (copy x 1.5 bytes, one more op of host time),
                         scaled so that it equals the run's decode-then-add measurement
                         (mean per payload over the worker counts measured) at the one size
                         that was measured; the scale is printed;
  powersgd_rK.gs         Gram-Schmidt of one rank-K factor, from the run's PowerSGD
                         breakdown (two sizes: its time does not depend on them).
Without --update the laws are printed as JSON after the check table (on stderr).
"""
import argparse
import json
import sys

CODECS = [  # law prefix, op name in the run
    ("fp16", "fp16"), ("bf16", "bf16"), ("sign", "sign_1bit"), ("terngrad", "terngrad_2bit"),
    ("qsgd", "qsgd_s4_int8"), ("topk", "topk_1pct"), ("dgc", "dgc_0.1pct"),
    ("randomk", "randk_1pct"), ("powersgd_r1", "powersgd_r1"), ("powersgd_r2", "powersgd_r2"),
    ("powersgd_r4", "powersgd_r4"),
]
# decode-then-add measured for these; the others borrow the nearest one's scale
ACCUMULATE = {"fp16": "fp16", "bf16": "fp16", "sign": "sign_1bit",
              "terngrad": "terngrad_2bit", "qsgd": "qsgd_s4_int8", "topk": "topk_1pct",
              "dgc": "topk_1pct", "randomk": "topk_1pct"}
HOST_BOUND = 1.25
ADD_BYTES_OVER_COPY = 1.5  # an add reads two fp32 arrays and writes one; a copy one and one


def law_from_run(ops, name):
    sizes = sorted(e for (op, e) in ops if op == name)
    host, gpu, last_host = [], [], None
    for e in sizes:
        o = ops[(name, e)]
        b2b, busy = o["host_back_to_back_us"], o["gpu_busy_us"]
        if b2b > HOST_BOUND * busy:
            last_host = b2b
        host.append(last_host)
        gpu.append(busy)
    first = next((h for h in host if h is not None), 0.0)
    host = [first if h is None else h for h in host]
    return {"elements": sizes, "host_us": host, "gpu_us": gpu}


def evaluate(law, n):
    """The law on its own GPU: max(host, gpu), linear between points, clamped below."""
    xs = law["elements"]

    def interp(ys, grows):
        if n <= xs[0]:
            return ys[0]
        if n >= xs[-1]:
            return ys[-1] * n / xs[-1] if grows else ys[-1]
        i = 1
        while xs[i] < n:
            i += 1
        return ys[i - 1] + (ys[i] - ys[i - 1]) * (n - xs[i - 1]) / (xs[i] - xs[i - 1])
    return max(interp(law["host_us"], False), interp(law["gpu_us"], True))


def dumps(value, indent=0):
    """JSON with one key per line, but lists of numbers and flat objects (an op) on one
    line, so that a stack file reads as a table."""
    pad = " " * indent
    flat = lambda v: not isinstance(v, (list, dict))
    if isinstance(value, dict):
        if all(flat(v) for v in value.values()) and len(json.dumps(value)) < 110:
            return json.dumps(value)
        items = ['%s"%s": %s' % (pad + " ", k, dumps(v, indent + 1)) for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        if all(flat(v) for v in value):
            return json.dumps(value)
        items = [pad + " " + dumps(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("--gpu", required=True, help="gcsim GPU type the run was on")
    ap.add_argument("--update", nargs="*", default=[], help="stack files whose laws to replace")
    a = ap.parse_args(argv)
    with open(a.run) as f:
        run = json.load(f)
    ops = {(o["op"], o["elements"]): o for o in run["ops"] if "error" not in o}
    prov = run["provenance"]
    where = "%s (%s, torch %s, %s)" % (a.run, prov.get("gpu_name"), prov.get("torch"),
                                       prov.get("date_utc"))
    one_op_us = run["references"]["launch_latency"]["per_call_us_enqueue_only"]
    laws = {}

    def add(key, law, how):
        laws[key] = {"gpu": a.gpu, "elements": law["elements"],
                     "host_us": [round(x, 1) for x in law["host_us"]],
                     "gpu_us": [round(x, 1) for x in law["gpu_us"]],
                     "source": "measured: %s; %s (bench/gpu/make_stack_laws.py)" % (where, how)}

    copy = law_from_run(ops, "copy_d2d")
    add("copy", copy, "copy_d2d, device-to-device copy of the fp32 tensor")
    for prefix, name in CODECS:
        for part in ("encode", "decode"):
            add("%s.%s" % (prefix, part), law_from_run(ops, "%s.%s" % (name, part)),
                "%s.%s" % (name, part))
    # decode + add per received payload, scaled to the measured decode-then-add
    acc = run["decode_accumulate"]
    scales = {}
    for prefix, name in CODECS:
        if prefix not in ACCUMULATE:
            continue
        dec = law_from_run(ops, "%s.decode" % name)
        composed = {"elements": dec["elements"],
                    "host_us": [h + one_op_us for h in dec["host_us"]],
                    "gpu_us": [g + ADD_BYTES_OVER_COPY * c for g, c in zip(dec["gpu_us"], copy["gpu_us"])]}
        ref = ACCUMULATE[prefix]
        per = [x["per_payload_us"] for x in acc
               if x["codec"] == ref and x.get("variant") == "decode_then_add" and "error" not in x]
        n = acc[0]["elements"]
        ref_dec = law_from_run(ops, "%s.decode" % ref)
        i, j = ref_dec["elements"].index(n), copy["elements"].index(n)
        ref_host = ref_dec["host_us"][i] + one_op_us
        ref_gpu = ref_dec["gpu_us"][i] + ADD_BYTES_OVER_COPY * copy["gpu_us"][j]
        k = sum(per) / len(per) / max(ref_host, ref_gpu)
        # the scale goes to the part that sets the time at the measured size
        bound = "host_us" if ref_host >= ref_gpu else "gpu_us"
        scales[prefix] = (k, ref, n, bound)
        composed[bound] = [x * k for x in composed[bound]]
        add("%s.decode_add" % prefix, composed,
            "%s.decode + an add (one op of host time, copy x %.1f of GPU time); its %s x %.3f to "
            "match the measured decode-then-add of %s at %d elements (mean per payload over %d "
            "worker counts), where that part sets the time" %
            (name, ADD_BYTES_OVER_COPY, bound.split("_")[0], k, ref, n, len(per)))
    for r in (1, 2, 4):
        t = [b["median_us"] for b in run["powersgd_breakdown"]
             if b["rank"] == r and b["part"] == "gram_schmidt"]
        e = sorted(b["elements"] for b in run["powersgd_breakdown"]
                   if b["rank"] == r and b["part"] == "gram_schmidt")
        m = sorted(t)[len(t) // 2]
        add("powersgd_r%d.gs" % r, {"elements": e, "host_us": [m] * len(e), "gpu_us": [m] * len(e)},
            "powersgd_breakdown gram_schmidt, rank %d: %s us at %s elements (the median of "
            "both as host and GPU time: it does not depend on the size)" %
            (r, ", ".join("%.1f" % x for x in t), ", ".join(str(x) for x in e)))

    # the check: each law against the run's back-to-back and event-timed medians
    print("law | elements | law us | back-to-back us | law/b2b | event median us", file=sys.stderr)
    ratios = []
    for prefix, name in [("copy", "copy_d2d")] + [(p + "." + s, n + "." + s) for p, n in CODECS
                                                   for s in ("encode", "decode")]:
        for e in laws[prefix]["elements"]:
            o = ops[(name, e)]
            v = evaluate(laws[prefix], e)
            ratios.append(v / o["host_back_to_back_us"])
            print("%s | %d | %.1f | %.1f | %.2f | %.1f" % (prefix, e, v, o["host_back_to_back_us"],
                                                           v / o["host_back_to_back_us"],
                                                           o["median_us"]), file=sys.stderr)
    ratios.sort()
    print("law / back-to-back over %d points: median %.2f, min %.2f, max %.2f" %
          (len(ratios), ratios[len(ratios) // 2], ratios[0], ratios[-1]), file=sys.stderr)
    for p, (k, ref, n, bound) in sorted(scales.items()):
        print("decode_add scale %s: %s x %.3f (from %s at %d elements)" % (p, bound, k, ref, n),
              file=sys.stderr)

    if not a.update:
        json.dump(laws, sys.stdout, indent=1)
        print()
        return 0
    for path in a.update:
        with open(path) as f:
            stack = json.load(f)
        stack["laws"] = laws
        with open(path, "w") as f:
            f.write(dumps(stack) + "\n")
        print("updated the laws of %s" % path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
