"""GPU time of gradient codecs at several settings of the parameter that sets their cost.

Inputs to gcsim's codec laws by setting (issue "Fidelity VI"): top-k, DGC's sampled
threshold and random-k at densities from 0.01% to 50%; QSGD at 1 to 32,767 levels with its
codes bit-packed at the width the levels need (2, 4, 8 or 16 bits); PowerSGD at ranks 1 to
32; sign and TernGrad (no parameter) as anchors; a few codecs on bf16 gradients. Each op is
timed three ways:

  median_us            CUDA events around one call, cold L2 (as codec_profile.py);
  host_back_to_back_us host clock over back-to-back eager calls (Python and launches);
  graph_replay_us      the same call captured once in a CUDA graph and replayed back to
                       back: no Python or per-kernel launch cost, what a graph-compiled
                       framework pays (absent where the op syncs with the host: DGC's
                       data-dependent count);
and gpu_busy_us, the summed kernel time from torch.profiler (cold L2).

The codecs are the ones of codec_profile.py (imported), with QSGD's packing and the
density / rank parameters added here. Run from the repository root:

    python3 bench/gpu/codec_settings.py --out bench/gpu/results/h200-codec-settings.json
"""

import argparse
import math
import sys
import time

import torch

import codec_profile as cp
import gpu_common as common

SIZES = [2**16, 2**20, 2**22, cp.MIB25, 2**24, 2**26]
DENSITIES = {"topk": [0.0001, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5],
             "dgc": [0.001, 0.01, 0.1, 0.5],
             "randk": [0.001, 0.01, 0.1, 0.5]}
QSGD_LEVELS = [1, 4, 16, 127, 255, 1023, 32767]
POWERSGD_RANKS = [1, 2, 4, 8, 16, 32]


# ---------------------------------------------------------------- QSGD, bit-packed

def qsgd_width_bits(levels):
    """Bits per code: a sign and a level in 0..s, rounded up to 2, 4, 8 or 16 so that codes
    never straddle a byte (what packed implementations do)."""
    need = 1 + math.ceil(math.log2(levels + 1))
    for w in (2, 4, 8, 16):
        if need <= w:
            return w
    raise ValueError("more than 32,767 levels")


def enc_qsgd_packed(s):
    w = qsgd_width_bits(s)

    def enc(g):
        norm = torch.linalg.vector_norm(g)
        r = g.abs() * (s / norm)
        low = torch.floor(r)
        level = low + (torch.rand_like(g) < (r - low))
        if w == 16:
            return (torch.sign(g) * level).to(torch.int16), norm
        # offset code in 0 .. 2s (fits in w bits: 2s + 1 <= 2^w), per = 8 / w codes per byte
        code = (torch.sign(g) * level + s).to(torch.uint8)
        per = 8 // w
        if per == 1:
            return code, norm
        shift = torch.arange(0, 8, w, dtype=torch.uint8, device=g.device)
        return torch.sum(code.view(-1, per) << shift, dim=1, dtype=torch.uint8), norm
    return enc


def dec_qsgd_packed(s):
    w = qsgd_width_bits(s)

    def dec(payload):
        q, norm = payload
        if w == 16:
            return q.to(torch.float32) * (norm / s)
        per = 8 // w
        if per == 1:
            code = q
        else:
            shift = torch.arange(0, 8, w, dtype=torch.uint8, device=q.device)
            code = ((q.unsqueeze(1) >> shift) & ((1 << w) - 1)).view(-1)
        return (code.to(torch.float32) - s) * (norm / s)
    return dec


def bytes_qsgd_packed(payload):
    return payload[0].numel() * payload[0].element_size() + 4


def dec_scatter_any(payload):
    """codec_profile's scatter decode for values of any dtype (bf16 gradients)."""
    vals, idx, n = payload
    return cp.dec_scatter((vals.to(torch.float32), idx, n))


# ---------------------------------------------------------------- the settings

def settings(n):
    """(family, parameter name, value, dtype, encode, decode, payload bytes) for n elements."""
    out = [("sign", "none", 0, "fp32", cp.enc_sign, cp.dec_sign, cp.bytes_sign),
           ("terngrad", "none", 0, "fp32", cp.enc_terngrad, cp.dec_terngrad, cp.bytes_terngrad)]
    for d in DENSITIES["topk"]:
        out.append(("topk", "density", d, "fp32", cp.enc_topk(d), cp.dec_scatter, cp.bytes_sparse))
    for d in DENSITIES["dgc"]:
        out.append(("dgc", "density", d, "fp32", cp.enc_dgc(d), cp.dec_scatter, cp.bytes_sparse))
    for d in DENSITIES["randk"]:
        rk = cp.RandK(d)
        out.append(("randk", "density", d, "fp32", rk.enc, rk.dec, cp.bytes_randk))
    for s in QSGD_LEVELS:
        out.append(("qsgd", "levels", s, "fp32", enc_qsgd_packed(s), dec_qsgd_packed(s),
                    bytes_qsgd_packed))
    for r in POWERSGD_RANKS:
        if r <= cp.square_shape(n)[0]:
            ps = cp.PowerSGD(n, r)
            out.append(("powersgd", "rank", r, "fp32", ps.enc, ps.dec, cp.bytes_powersgd))
    # bf16 gradients (mixed-precision training hands the hook bf16 buckets)
    out.append(("topk", "density", 0.01, "bf16", cp.enc_topk(0.01), dec_scatter_any, cp.bytes_sparse))
    out.append(("sign", "none", 0, "bf16", cp.enc_sign, cp.dec_sign, cp.bytes_sign))
    out.append(("qsgd", "levels", 4, "bf16", enc_qsgd_packed(4), dec_qsgd_packed(4),
                bytes_qsgd_packed))
    return out


def check(family, value, g, enc, dec):
    """A decoded payload's defining property; recorded, never fatal."""
    y = dec(enc(g)).to(torch.float32)
    gf = g.to(torch.float32)
    if y.shape != gf.shape or not torch.isfinite(y).all():
        return False, "decoded shape or finiteness wrong"
    if family == "qsgd":
        err = (y - gf).abs().max().item()
        bound = (torch.linalg.vector_norm(gf) / value).item()
        return err <= bound * 1.01, f"max |y-g| {err:.3e} <= norm/s {bound:.3e}"
    if family in ("topk", "dgc", "randk"):
        nz = y != 0
        exact = bool(torch.allclose(y[nz], gf[nz]))
        kept = int(nz.sum())
        return exact and kept > 0, f"kept {kept} of {g.numel()} (density {value}), values exact {exact}"
    if family == "powersgd":
        rel = ((y - gf).norm() / gf.norm()).item()
        return rel <= 1.0 + 1e-4, f"rel err {rel:.4f}"
    return True, "ran"


def graph_replay_us(fn, reps):
    """Back-to-back replay time of fn captured in a CUDA graph, or None if it cannot be."""
    try:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
        for _ in range(3):
            graph.replay()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            graph.replay()
        torch.cuda.synchronize()
        return round((time.perf_counter() - t0) * 1e6 / reps, 3), None
    except Exception as exc:  # a host sync inside the op, or an uncapturable kernel
        torch.cuda.synchronize()
        return None, repr(exc)[:200]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    common.add_run_arguments(ap, 400, "stop starting new sizes after this many seconds "
                                      "(the JSON stays whole)")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.reps, args.warmup = "65536", 3, 1
    sizes = [int(x) for x in args.sizes.split(",")]
    result = common.start_codec_run(
        "gcsim-gpu-codec-settings/1", args,
        {"timing": "median_us: CUDA events, cold L2 (256 MiB flush); "
                   "host_back_to_back_us: eager back-to-back on the host clock; "
                   "graph_replay_us: one CUDA-graph capture replayed back to back; "
                   "gpu_busy_us: torch.profiler kernel time after an L2 flush",
         "qsgd_packing": "sign+level bits rounded up to 2, 4, 8 or 16"},
        "ops", "checks")
    timer = common.Timer(args.warmup, args.reps)
    t_start = time.time()
    for n in sizes:
        if time.time() - t_start > args.budget_s:
            print(f"budget reached before n={n}")
            result["stopped_before_elements"] = n
            break
        g32 = cp.gradient(n, seed=n)
        dst = torch.empty_like(g32)
        copy = timer.time(lambda: dst.copy_(g32))
        result["ops"].append(dict(family="copy", param="none", value=0, dtype="fp32", phase="copy",
                                  elements=n, **copy))
        for family, pname, value, dtype, enc, dec, nbytes in settings(n):
            g = g32 if dtype == "fp32" else g32.to(torch.bfloat16)
            if n == sizes[0]:
                try:
                    ok, detail = check(family, value, g, enc, dec)
                except Exception as exc:
                    ok, detail = False, repr(exc)[:200]
                result["checks"].append(dict(family=family, value=value, dtype=dtype, ok=ok,
                                             detail=detail))
            for phase in ("encode", "decode"):
                rec = dict(family=family, param=pname, value=value, dtype=dtype, phase=phase,
                           elements=n)
                try:
                    if phase == "encode":
                        fn = (lambda enc=enc, g=g: enc(g))
                    else:
                        payload = enc(g)
                        fn = (lambda dec=dec, payload=payload: dec(payload))
                    rec.update(timer.time(fn))
                    rec["payload_bytes"] = int(nbytes(enc(g)))
                    if family in ("dgc", "randk"):
                        # DGC's count syncs with the host; random-k reseeds its generator per
                        # call: neither can be captured as it runs here
                        rec["graph_replay_us"], rec["graph_error"] = None, "not captured"
                    else:
                        rec["graph_replay_us"], why = graph_replay_us(fn, max(5, args.reps // 2))
                        if why:
                            rec["graph_error"] = why
                    kp = cp.kernel_profile(fn, timer.flush_buf, calls=args.profile_calls)
                    rec["kernels"] = kp["kernels"]
                    rec["gpu_busy_us"] = kp["gpu_busy_us"]
                    rec["ratio_to_copy"] = round(rec["median_us"] / copy["median_us"], 3)
                except Exception as exc:
                    rec["error"] = repr(exc)[:300]
                    torch.cuda.synchronize()
                result["ops"].append(rec)
                print(f"n={n:>9d} {family:9s} {pname}={value:<7g} {dtype} {phase:6s} "
                      f"{rec.get('median_us', float('nan')):10.1f} us  b2b "
                      f"{rec.get('host_back_to_back_us', float('nan')):10.1f}  graph "
                      f"{rec.get('graph_replay_us') or float('nan'):10.1f}  busy "
                      f"{rec.get('gpu_busy_us', float('nan')):10.1f}  {rec.get('error', '')}")
        del g32, dst
        torch.cuda.empty_cache()
        result["provenance"]["wall_s"] = round(time.time() - t_start, 1)
        common.write_json(args.out, result)
        print(f"  elapsed {time.time() - t_start:.0f} s")
    result["provenance"]["nvidia_smi_state_at_end"] = common.nvidia_smi_state()
    result["provenance"]["wall_s"] = round(time.time() - t_start, 1)
    common.write_json(args.out, result)
    bad = [c for c in result["checks"] if not c["ok"]]
    errors = [(o["family"], o["value"], o["phase"], o["elements"]) for o in result["ops"] if "error" in o]
    print(f"done in {time.time() - t_start:.0f} s; failed checks {bad}; errors {errors}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
