#!/usr/bin/env python3
"""The batched-decode law of the stacks ("gathered_decode": "batched", docs/stacks.md) against
the measured looped and batched decodes of bench/gpu/results/h200-gathered-decode.json.

    python3 bench/gpu/batched_decode_law.py [STACK_JSON] [GATHERED_JSON]

The law (sim/collectives/program_stack.c, batched_extra_s) is derived, not fitted: decoding
P payloads batched costs one call of the per-payload decode law (host and GPU, the larger)
plus (P - 1) times its GPU part x share (1 for quantized payloads, unpacked over every
element; the payload's share of the dense bytes for sparse ones: top-k 1% sends values and
indices, 2%). Looped: P calls. The laws are horovod.json's (measured on an H100, eager host)
moved to the H200 as gcsim moves them (GPU part above the smallest size's by memory
bandwidth, 3.35 / 4.8 TB/s); the measurement is on an H200 host, so the absolute times differ
with the host: this compares the ratio batched / looped, what the option changes.
Prints, per run, the measured and the law's ratio, and law / measured over all runs.
"""
import json
import statistics
import sys

LAWS = {"sign": "sign.decode_add", "terngrad": "terngrad.decode_add",
        "qsgd_s4": "qsgd.decode_add", "topk_1pct": "topk.decode_add"}
SHARE = {"topk_1pct": 0.02}  # sparse: values + indices of 1%; the quantizers: 1
BANDWIDTH_RATIO = 3.35 / 4.8  # H100 over H200 datasheet memory bandwidth (sim/codec/gpu_params.c)


def interpolate(law, key, n, grows):
    xs, ys = law["elements"], law[key]
    if n <= xs[0]:
        return ys[0]
    if n >= xs[-1]:
        return ys[-1] * (n / xs[-1] if grows else 1)
    i = 1
    while xs[i] < n:
        i += 1
    return ys[i - 1] + (ys[i] - ys[i - 1]) * (n - xs[i - 1]) / (xs[i] - xs[i - 1])


def parts(law, n):
    host = interpolate(law, "host_us", n, False)
    busy, floor = interpolate(law, "gpu_us", n, True), law["gpu_us"][0]
    return host, min(busy, floor) + max(busy - floor, 0) * BANDWIDTH_RATIO


def main():
    stack = sys.argv[1] if len(sys.argv) > 1 else "platforms/stacks/horovod.json"
    runs = sys.argv[2] if len(sys.argv) > 2 else "bench/gpu/results/h200-gathered-decode.json"
    laws = json.load(open(stack))["laws"]
    errors = []
    print("codec\telements\tworkers\tmeasured batched/looped\tlaw\tlaw/measured")
    for r in json.load(open(runs))["runs"]:
        host, gpu = parts(laws[LAWS[r["codec"]]], r["elements"])
        p = r["workers"] - 1
        looped = p * max(host, gpu)
        batched = max(host, gpu) + (p - 1) * SHARE.get(r["codec"], 1.0) * gpu
        measured = r["batched_us"] / r["looped_us"]
        errors.append(batched / looped / measured)
        print("%s\t%d\t%d\t%.3f\t%.3f\t%.2f" % (r["codec"], r["elements"], r["workers"], measured,
                                               batched / looped, errors[-1]))
    print("law / measured: median %.2f, from %.2f to %.2f over %d runs"
          % (statistics.median(errors), min(errors), max(errors), len(errors)))


if __name__ == "__main__":
    main()
