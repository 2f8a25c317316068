"""Decoding the N-1 payloads an all-gather delivers: one decode per payload vs one batched.

A stack that all-gathers compressed payloads must decode and sum N-1 of them per bucket.
PyTorch-eager hooks (and GRACE's Horovod helpers) loop over the payloads, paying the
decode's launches N-1 times; a vectorised decoder stacks the payloads and decodes them in
one pass, paying the launches once. This measures both for the codecs that all-gather
(sign, TernGrad, QSGD at 4 levels packed, top-k 1%) at several worker counts. Run from the
repository root:

    python3 bench/gpu/gathered_decode.py --out bench/gpu/results/h200-gathered-decode.json
"""

import argparse
import sys
import time

import torch

import codec_profile as cp
import codec_settings as cs
import gpu_common as common


def looped(dec, payloads, acc):
    for p in payloads:
        acc.add_(dec(p))


def batched_sign(payloads, n, acc):
    packed = torch.stack([p[0] for p in payloads])            # (N-1, n/8)
    scale = torch.stack([p[1] for p in payloads])             # (N-1,)
    bits = ((packed.unsqueeze(2) >> cp.shifts()[0]) & 1).view(len(payloads), n)
    acc.add_(((bits.to(torch.float32) * 2.0 - 1.0) * scale[:, None]).sum(0))


def batched_terngrad(payloads, n, acc):
    packed = torch.stack([p[0] for p in payloads])
    scale = torch.stack([p[1] for p in payloads])
    code = ((packed.unsqueeze(2) >> cp.shifts()[1]) & 3).view(len(payloads), n)
    acc.add_(((code.to(torch.float32) - 1.0) * scale[:, None]).sum(0))


def batched_qsgd4(payloads, n, acc):
    s, w = 4, cs.qsgd_width_bits(4)
    packed = torch.stack([p[0] for p in payloads])
    norm = torch.stack([p[1] for p in payloads])
    shift = torch.arange(0, 8, w, dtype=torch.uint8, device=packed.device)
    code = ((packed.unsqueeze(2) >> shift) & ((1 << w) - 1)).view(len(payloads), n)
    acc.add_(((code.to(torch.float32) - s) * (norm[:, None] / s)).sum(0))


def batched_topk(payloads, n, acc):
    vals = torch.cat([p[0] for p in payloads])
    idx = torch.cat([p[1] for p in payloads]).long()
    acc.index_add_(0, idx, vals)


CODECS = [("sign", cp.enc_sign, cp.dec_sign, batched_sign),
          ("terngrad", cp.enc_terngrad, cp.dec_terngrad, batched_terngrad),
          ("qsgd_s4", cs.enc_qsgd_packed(4), cs.dec_qsgd_packed(4), batched_qsgd4),
          ("topk_1pct", cp.enc_topk(0.01), cp.dec_scatter, batched_topk)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="1048576,6553600")
    ap.add_argument("--workers", default="8,16,64")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--source-rev", default="unknown")
    args = ap.parse_args()
    result = {"schema": "gcsim-gpu-gathered-decode/1",
              "provenance": common.provenance(args, args.source_rev),
              "settings": {"timing": "CUDA events, cold L2; per_payload_us = median / (N-1); "
                                     "looped: decode + add per payload; batched: one stacked "
                                     "decode and a sum (top-k: one index_add_ of all pairs)"},
              "runs": []}
    timer = common.Timer(3, args.reps)
    t0 = time.time()
    for n in [int(x) for x in args.sizes.split(",")]:
        for workers in [int(x) for x in args.workers.split(",")]:
            for name, enc, dec, batched in CODECS:
                rec = {"codec": name, "elements": n, "workers": workers}
                try:
                    payloads = [enc(cp.gradient(n, seed=100 + w)) for w in range(workers - 1)]
                    acc = torch.zeros(n, device="cuda")
                    ref = torch.zeros(n, device="cuda")
                    looped(dec, payloads, ref)
                    batched(payloads, n, acc)
                    # same sum both ways (top-k: float order differs, so a tolerance)
                    rec["max_rel_diff"] = float((acc - ref).abs().max() / ref.abs().max().clamp_min(1e-30))
                    for variant, fn in (("looped", lambda: looped(dec, payloads, acc)),
                                        ("batched", lambda: batched(payloads, n, acc))):
                        st = timer.time(fn)
                        rec[variant + "_us"] = st["median_us"]
                        rec[variant + "_b2b_us"] = st["host_back_to_back_us"]
                        rec[variant + "_per_payload_us"] = round(st["median_us"] / (workers - 1), 3)
                    del payloads, acc, ref
                except Exception as exc:
                    rec["error"] = repr(exc)[:300]
                torch.cuda.empty_cache()
                result["runs"].append(rec)
                print(rec)
            common.write_json(args.out, result)
    result["provenance"]["wall_s"] = round(time.time() - t0, 1)
    common.write_json(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
