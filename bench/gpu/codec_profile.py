"""GPU time of gradient-compressor encode and decode kernels as written here in PyTorch.

Inputs to gcsim's codec cost model (issue "Fidelity II"). Each codec is implemented below
from its paper's description (signSGD / 1-bit SGD, TernGrad, QSGD, top-k, DGC's sampled
threshold, random-k, PowerSGD); these are straightforward PyTorch versions, not any
framework's production kernels, which can be an order of magnitude faster or slower.

Run from the repository root on a machine with a CUDA GPU:
    python3 bench/gpu/codec_profile.py --out bench/gpu/results/h100-codec.json
"""

import argparse
import math
import sys
import time

import torch

import gpu_common as common

MIB25 = 25 * 1024 * 1024 // 4  # PyTorch DDP's default bucket: 25 MiB of fp32 = 6,553,600
DEFAULT_SIZES = [2**12, 2**16, 2**20, 2**22, MIB25, 2**24, 2**26]

# Bit positions inside a packed byte, shared by the packers and unpackers below.
_SHIFT1 = None
_SHIFT2 = None


def shifts():
    global _SHIFT1, _SHIFT2
    if _SHIFT1 is None:
        _SHIFT1 = torch.arange(8, dtype=torch.uint8, device="cuda")
        _SHIFT2 = torch.arange(0, 8, 2, dtype=torch.uint8, device="cuda")
    return _SHIFT1, _SHIFT2


# ---------------------------------------------------------------- half precision

def enc_cast(dtype):
    return lambda g: g.to(dtype)


def dec_cast(h):
    return h.to(torch.float32)


# ---------------------------------------------------------------- 1-bit sign

def pack_bits(bits_u8):
    """n values in {0,1} (uint8) -> n/8 bytes, element 8i+j in bit j of byte i."""
    s1, _ = shifts()
    return torch.sum(bits_u8.view(-1, 8) << s1, dim=1, dtype=torch.uint8)


def unpack_bits(packed):
    s1, _ = shifts()
    return ((packed.unsqueeze(1) >> s1) & 1).view(-1)


def enc_sign(g):
    scale = g.abs().mean()
    return pack_bits((g >= 0).to(torch.uint8)), scale


def dec_sign(payload):
    packed, scale = payload
    bits = unpack_bits(packed)
    return (bits.to(torch.float32) * 2.0 - 1.0) * scale


def bytes_sign(payload):
    return payload[0].numel() + 4


# ---------------------------------------------------------------- TernGrad

def enc_terngrad(g):
    a = g.abs()
    scale = a.max()
    keep = torch.rand_like(g) < a / scale          # Bernoulli(|g| / max|g|)
    code = (torch.sign(g) * keep + 1).to(torch.uint8)  # {-1,0,1} -> {0,1,2}
    _, s2 = shifts()
    packed = torch.sum(code.view(-1, 4) << s2, dim=1, dtype=torch.uint8)
    return packed, scale


def dec_terngrad(payload):
    packed, scale = payload
    _, s2 = shifts()
    code = ((packed.unsqueeze(1) >> s2) & 3).view(-1)
    return (code.to(torch.float32) - 1.0) * scale


def bytes_terngrad(payload):
    return payload[0].numel() + 4


# ---------------------------------------------------------------- QSGD

def enc_qsgd(s):
    def enc(g):
        norm = torch.linalg.vector_norm(g)
        r = g.abs() * (s / norm)
        low = torch.floor(r)
        level = low + (torch.rand_like(g) < (r - low))  # unbiased random rounding
        q = (torch.sign(g) * level).to(torch.int8)
        return q, norm
    return enc


def dec_qsgd(s):
    def dec(payload):
        q, norm = payload
        return q.to(torch.float32) * (norm / s)
    return dec


def bytes_qsgd(payload):
    return payload[0].numel() + 4


# ---------------------------------------------------------------- sparsifiers

def enc_topk(frac):
    def enc(g):
        k = max(1, math.ceil(frac * g.numel()))
        idx = torch.topk(g.abs(), k, sorted=False).indices
        return g[idx], idx.to(torch.int32), g.numel()
    return enc


def dec_scatter(payload):
    vals, idx, n = payload
    out = torch.zeros(n, dtype=torch.float32, device=vals.device)
    out.scatter_(0, idx.long(), vals)
    return out


def bytes_sparse(payload):
    vals, idx, _ = payload
    return vals.numel() * 4 + idx.numel() * 4


def enc_dgc(frac, sample_frac=0.01):
    """DGC's threshold estimate: top-k on a random sample, then one pass selecting >= thr."""
    def enc(g):
        n = g.numel()
        a = g.abs()
        m = max(1, math.ceil(sample_frac * n))
        sample = a[torch.randint(n, (m,), device=g.device)]
        k_sample = max(1, math.ceil(frac * m))
        thr = torch.topk(sample, k_sample, sorted=False).values.min()
        idx = torch.nonzero(a >= thr).squeeze(1)  # host sync: the count is data-dependent
        return g[idx], idx.to(torch.int32), n
    return enc


class RandK:
    """Random-k with a seed both sides share: only the values travel."""

    def __init__(self, frac):
        self.frac = frac
        self.gen = torch.Generator(device="cuda")
        self.seed = 1234

    def indices(self, n):
        self.gen.manual_seed(self.seed)
        k = max(1, math.ceil(self.frac * n))
        return torch.randint(n, (k,), device="cuda", generator=self.gen)

    def enc(self, g):
        return g[self.indices(g.numel())], g.numel()

    def dec(self, payload):
        vals, n = payload
        out = torch.zeros(n, dtype=torch.float32, device=vals.device)
        out.scatter_(0, self.indices(n), vals)
        return out


def bytes_randk(payload):
    return payload[0].numel() * 4


# ---------------------------------------------------------------- PowerSGD

def square_shape(n):
    """The most square (m, c) with m * c == n and m <= c."""
    m = int(math.isqrt(n))
    while n % m:
        m -= 1
    return m, n // m


def gram_schmidt_(p):
    """Orthonormalise the columns of p in place, one column at a time (PowerSGD's choice)."""
    r = p.shape[1]
    for i in range(r):
        col = p[:, i:i + 1]
        col.div_(torch.linalg.vector_norm(col) + 1e-8)
        if i + 1 < r:
            rest = p[:, i + 1:]
            rest.sub_(col @ (col.t() @ rest))
    return p


class PowerSGD:
    """One power-iteration step with a warm-started Q, as PowerSGD runs it each iteration."""

    def __init__(self, n, rank, ortho="gram_schmidt"):
        self.m, self.c = square_shape(n)
        self.rank = rank
        self.ortho = ortho
        gen = torch.Generator(device="cuda")
        gen.manual_seed(7)
        self.q0 = torch.randn(self.c, rank, device="cuda", generator=gen)

    def enc(self, g):
        mat = g.view(self.m, self.c)
        p = mat @ self.q0            # (all-reduce of P goes here in training)
        if self.ortho == "qr":
            p = torch.linalg.qr(p, mode="reduced").Q
        else:
            gram_schmidt_(p)
        q = mat.t() @ p              # (all-reduce of Q goes here in training)
        return p, q

    @staticmethod
    def dec(payload):
        p, q = payload
        return (p @ q.t()).view(-1)

    def flops(self):
        m, c, r = self.m, self.c, self.rank
        # two m x c x r products; Gram-Schmidt: per column a norm (2m) and a projection of
        # the remaining columns (4m per remaining column)
        gs = sum(2 * m + 4 * m * (r - 1 - i) for i in range(r))
        if self.ortho == "qr":
            gs = 4 * m * r * r  # Householder QR of m x r plus forming Q, leading terms
        return {"encode": 2 * m * c * r * 2 + gs, "decode": 2 * m * c * r}


def bytes_powersgd(payload):
    p, q = payload
    return (p.numel() + q.numel()) * 4


# ---------------------------------------------------------------- the catalogue

def codecs(n):
    """(name, encode, decode, payload_bytes, flops) for a tensor of n elements."""
    out = [
        ("fp16", enc_cast(torch.float16), dec_cast, lambda p: p.numel() * 2, None),
        ("bf16", enc_cast(torch.bfloat16), dec_cast, lambda p: p.numel() * 2, None),
        ("sign_1bit", enc_sign, dec_sign, bytes_sign, None),
        ("terngrad_2bit", enc_terngrad, dec_terngrad, bytes_terngrad, None),
        ("qsgd_s4_int8", enc_qsgd(4), dec_qsgd(4), bytes_qsgd, None),
        # s = 127 rather than 256: sign and level must share the 8 bits of an int8.
        ("qsgd_s127_int8", enc_qsgd(127), dec_qsgd(127), bytes_qsgd, None),
        ("topk_1pct", enc_topk(0.01), dec_scatter, bytes_sparse, None),
        ("topk_0.1pct", enc_topk(0.001), dec_scatter, bytes_sparse, None),
        ("dgc_0.1pct", enc_dgc(0.001), dec_scatter, bytes_sparse, None),
    ]
    rk = RandK(0.01)
    out.append(("randk_1pct", rk.enc, rk.dec, bytes_randk, None))
    for r in (1, 2, 4):
        ps = PowerSGD(n, r)
        out.append((f"powersgd_r{r}", ps.enc, ps.dec, bytes_powersgd, ps.flops()))
    for r in (2, 4):  # the same step orthogonalised by cuSOLVER's QR instead
        ps = PowerSGD(n, r, ortho="qr")
        out.append((f"powersgd_qr_r{r}", ps.enc, ps.dec, bytes_powersgd, ps.flops()))
    return out


def gradient(n, seed):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    # Gradient-like: heavy-tailed magnitudes (Student-t-ish via normal / sqrt(chi2)) so
    # that top-k and thresholds see a realistic spread, never all-equal or zero values.
    z = torch.randn(n, device="cuda", generator=gen)
    d = torch.randn(n, 3, device="cuda", generator=gen).pow(2).mean(1).sqrt() + 1e-3
    return (z / d) * 1e-3


# ---------------------------------------------------------------- correctness checks

def checks():
    """Each codec on fresh random data against a direct reference; results go into the JSON."""
    res = []
    n = 2**16
    g = gradient(n, seed=int(time.time()) % 100000)

    def add(name, ok, detail):
        res.append({"check": name, "ok": bool(ok), "detail": detail})

    for name, enc, dec, nbytes, _ in codecs(n):
        try:
            pl = enc(g)
            y = dec(pl)
            if y.shape != (n,) or not torch.isfinite(y).all():
                add(name, False, "decoded shape or finiteness wrong")
                continue
            if name in ("fp16", "bf16"):
                rel = ((y - g).norm() / g.norm()).item()
                add(name, rel < (1e-3 if name == "fp16" else 1e-2), f"rel err {rel:.2e}")
            elif name == "sign_1bit":
                ref = torch.where(g >= 0, 1.0, -1.0) * g.abs().mean()
                add(name, torch.equal(y, ref), "decode == sign(g) * mean|g| exactly")
            elif name == "terngrad_2bit":
                s = g.abs().max()
                vals_ok = bool(((y == 0) | (y == s) | (y == -s)).all())
                sign_ok = bool(((y == 0) | (torch.sign(y) == torch.sign(g))).all())
                # Unbiased: the mean of independent draws differs from g by its variance
                # alone, sum(s|g| - g^2) / draws; a bias would add to that.
                acc = torch.zeros_like(g)
                draws = 200
                for _ in range(draws):
                    acc += dec(enc(g))
                seen = (acc / draws - g).pow(2).sum().item()
                expected = ((s * g.abs() - g * g).sum() / draws).item()
                add(name, vals_ok and sign_ok and 0.8 < seen / expected < 1.25,
                    f"values in {{-s,0,s}}: {vals_ok}; signs agree: {sign_ok}; squared error "
                    f"of the mean of {draws} draws / its variance = {seen / expected:.3f}")
            elif name.startswith("qsgd"):
                s = 4 if "s4_" in name else 127
                err = (y - g).abs().max().item()
                bound = (g.norm() / s).item()
                add(name, err <= bound * (1 + 1e-5), f"max |y-g| {err:.3e} <= norm/s {bound:.3e}")
            elif name.startswith("topk"):
                frac = 0.01 if name == "topk_1pct" else 0.001
                k = math.ceil(frac * n)
                nz = (y != 0)
                sel_min = g.abs()[nz].min().item()
                unsel_max = g.abs()[~nz].max().item()
                exact = torch.equal(y[nz], g[nz])
                add(name, int(nz.sum()) == k and sel_min >= unsel_max and exact,
                    f"k={k}, nnz={int(nz.sum())}, min sel {sel_min:.3e} >= max unsel "
                    f"{unsel_max:.3e}, values exact {exact}")
            elif name.startswith("dgc"):
                nz = (y != 0)
                exact = torch.equal(y[nz], g[nz])
                kept = int(nz.sum())
                sel_min = g.abs()[nz].min().item()
                unsel_max = g.abs()[~nz].max().item()
                add(name, exact and sel_min >= unsel_max and kept > 0,
                    f"selected {kept} (target {math.ceil(0.001 * n)}), threshold "
                    f"consistent {sel_min >= unsel_max}, values exact {exact}")
            elif name.startswith("randk"):
                nz = (y != 0)
                exact = torch.equal(y[nz], g[nz])
                y2 = dec(enc(g))  # same seed -> same indices on both sides
                add(name, exact and torch.equal(y, y2),
                    f"nnz {int(nz.sum())} (<= k={math.ceil(0.01 * n)}, duplicates "
                    f"possible), values exact {exact}, seed reproducible")
            elif name.startswith("powersgd"):
                p, q = pl
                r = p.shape[1]
                orth = (p.t() @ p - torch.eye(r, device="cuda")).abs().max().item()
                dec_ok = torch.allclose(y, (p @ q.t()).view(-1))
                # rank-r projection never increases the error of the zero approximation
                rel = ((y - g).norm() / g.norm()).item()
                add(name, orth < 1e-4 and dec_ok and rel <= 1.0 + 1e-5,
                    f"max |P^T P - I| {orth:.1e}, rel err {rel:.4f}")
        except Exception as exc:  # a broken codec is recorded, the others still run
            add(name, False, f"exception {exc!r}")

    bits = (torch.rand(n, device="cuda") < 0.5).to(torch.uint8)
    add("pack_bits_roundtrip", torch.equal(unpack_bits(pack_bits(bits)), bits),
        "unpack(pack(b)) == b")
    return res


# ---------------------------------------------------------------- references

def launch_latency(n_calls):
    x = torch.zeros(1, device="cuda")
    for _ in range(100):
        x.add_(0)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n_calls):
        x.add_(0)
    t_enq = time.perf_counter()
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    out = {"empty_op": "x.add_(0) on a 1-element fp32 tensor",
           "calls": n_calls,
           "per_call_us_host_incl_sync": round((t1 - t0) * 1e6 / n_calls, 3),
           "per_call_us_enqueue_only": round((t_enq - t0) * 1e6 / n_calls, 3)}

    # One call timed alone on the GPU, start event to end event.
    tm = common.Timer(warmup=10, reps=200, flush=False)
    out["single_op_event_timed"] = tm.time(lambda: x.add_(0))

    # A loop of distinct small ops, no CUDA graph: what a Python codec of many tiny
    # kernels pays per launch.
    y = torch.randn(1024, device="cuda")
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    iters = n_calls // 4
    for _ in range(iters):
        z = y * 2.0
        z = z + 1.0
        z = z.abs()
        y.copy_(z).mul_(0.25)
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    out["small_op_loop"] = {"ops_per_iter": 5, "iters": iters, "tensor_elements": 1024,
                            "per_op_us": round((t1 - t0) * 1e6 / (iters * 5), 3)}

    # The same empty op replayed from a CUDA graph: the GPU-side floor per kernel.
    try:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                x.add_(0)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        per_graph = 200
        with torch.cuda.graph(graph):
            for _ in range(per_graph):
                x.add_(0)
        tg = common.Timer(warmup=3, reps=20, flush=False).time(graph.replay)
        out["cuda_graph_replay"] = {"kernels_per_graph": per_graph,
                                    "per_kernel_us_median": round(tg["median_us"] / per_graph, 3)}
    except Exception as exc:
        out["cuda_graph_replay"] = {"error": repr(exc)}
    return out


def gemm_reference(timer):
    """fp32 matmul ceiling, the unit PowerSGD's products run on (TF32 off, PyTorch's default)."""
    a = torch.randn(8192, 8192, device="cuda")
    b = torch.randn(8192, 8192, device="cuda")
    st = timer.time(lambda: a @ b, reps=10)
    st["tflops"] = round(2 * 8192**3 / (st["median_us"] * 1e-6) / 1e12, 2)
    st["shape"] = "8192x8192x8192 fp32"
    return st


def powersgd_breakdown(timer, n):
    """Where PowerSGD's encode time goes: the two products and the orthogonalisation."""
    out = []
    g = gradient(n, seed=n + 1)
    for r in (1, 2, 4):
        ps = PowerSGD(n, r)
        mat = g.view(ps.m, ps.c)
        p = mat @ ps.q0
        parts = [("M_times_Q", lambda: mat @ ps.q0),
                 ("gram_schmidt", lambda: gram_schmidt_(p.clone())),
                ("linalg_qr", lambda: torch.linalg.qr(p, mode="reduced").Q),
                 ("clone_of_P_alone", lambda: p.clone()),
                 ("Mt_times_P", lambda: mat.t() @ p)]
        for part, fn in parts:
            st = timer.time(fn)
            out.append(dict(rank=r, part=part, elements=n, shape=[ps.m, ps.c], **st))
            print(f"powersgd r={r} n={n} {part:18s} {st['median_us']:9.1f} us")
    return out


PROFILED_CALLS = 5
FLUSH_MARK = "bitwise_not"  # the flush kernel's name; no codec here calls bitwise_not


def kernel_profile(fn, flush_buf, calls):
    """Per call of fn: kernels, memcpy/memset operations and the sum of their GPU durations.

    Each call follows an L2 flush done with bitwise_not_, a kernel no codec launches, so
    that its events can be told apart and dropped. The busy time leaves out the gaps
    between kernels: it is what the GPU spends, where the event time is what the op takes.
    """
    from torch.profiler import profile, ProfilerActivity
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            flush_buf.bitwise_not_()
            fn()
        torch.cuda.synchronize()
    cuda = torch.autograd.DeviceType.CUDA
    evs = [(e.name, e.time_range.elapsed_us()) for e in prof.events() if e.device_type == cuda]
    if not evs:  # older layouts keep device activity only in the raw kineto results
        evs = [(e.name(), e.duration_ns() / 1000.0)
               for e in prof.profiler.kineto_results.events() if e.device_type() == cuda]
    evs = [(name, us) for name, us in evs if FLUSH_MARK not in name]
    is_copy = [name.startswith(("Memcpy", "Memset")) for name, _ in evs]
    kernels = [name[:120] for (name, _), c in zip(evs, is_copy) if not c]
    per_call = len(kernels) // calls
    return {"kernels": round(len(kernels) / calls, 2),
            "memcpy_memset": round(sum(is_copy) / calls, 2),
            "gpu_busy_us": round(sum(us for _, us in evs) / calls, 3),
            "kernel_names": kernels[:per_call]}


# ---------------------------------------------------------------- main

def payload_bytes_of(nbytes, payload):
    try:
        return int(nbytes(payload))
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="JSON file to write")
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                    help="comma-separated element counts")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--accum-size", type=int, default=2**22)
    ap.add_argument("--accum-n", default="8,64", help="worker counts N for decode of N-1")
    ap.add_argument("--latency-calls", type=int, default=20000)
    ap.add_argument("--source-rev", default="unknown",
                    help="git revision of the scripts (the device copy has no .git)")
    ap.add_argument("--quick", action="store_true", help="smoke test: tiny sizes, few reps")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.reps, args.warmup = "4096,65536", 3, 1
        args.accum_size, args.accum_n, args.latency_calls = 65536, "4", 400
    sizes = [int(s) for s in args.sizes.split(",")]

    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    result = {"schema": "gcsim-gpu-codec-profile/1",
              "provenance": common.provenance(args, args.source_rev),
              "settings": {
                  "dtype": "float32 gradients",
                  "timing": "CUDA events per repetition; median/min/p90 over reps after warm-up",
                  "l2": "256 MiB buffer overwritten before each timed repetition (cold L2)",
                  "host_back_to_back_us": "host clock over back-to-back calls then sync; "
                                          "no L2 flush; includes launch overhead",
                  "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
                  "gbps_fp32": "fp32 tensor bytes (elements*4) / median time",
                  "ratio_to_copy": "median time / median time of a device-to-device copy "
                                   "of the same fp32 tensor",
                  "gpu_busy_us": f"torch.profiler: summed GPU durations of the op's kernels "
                                 f"and memcpy/memset, mean of {PROFILED_CALLS} calls each after "
                                 f"an L2 flush; gaps between kernels not counted",
                  "event_over_busy": "median_us / gpu_busy_us: well over 1 means the op is "
                                     "bound by host-side launches or a host sync",
                  "warmup": args.warmup, "reps": args.reps},
              "checks": [], "references": {}, "ops": [], "decode_accumulate": [],
              "kernel_names_at_bucket": {}}
    out_path = args.out
    t_start = time.time()

    result["checks"] = checks()
    for c in result["checks"]:
        print(f"check {c['check']:18s} {'ok ' if c['ok'] else 'FAIL'} {c['detail']}")
    common.write_json(out_path, result)

    result["references"]["launch_latency"] = launch_latency(args.latency_calls)
    print("launch latency:", result["references"]["launch_latency"])
    timer = common.Timer(args.warmup, args.reps)
    if not args.quick:
        result["references"]["fp32_gemm"] = gemm_reference(timer)
        print("fp32 gemm:", result["references"]["fp32_gemm"])
    common.write_json(out_path, result)

    kernel_jobs = []  # counted after all timing, so the profiler never overlaps a timed run
    for n in sizes:
        g = gradient(n, seed=n)
        dst = torch.empty_like(g)
        base = {"elements": n, "fp32_bytes": 4 * n}
        copy = timer.time(lambda: dst.copy_(g))
        copy_us = copy["median_us"]
        rec = dict(op="copy_d2d", codec="reference", phase="reference", **base,
                   payload_bytes=4 * n, **copy)
        rec["gbps_fp32"] = round(4 * n / (copy_us * 1e-6) / 1e9, 2)
        rec["gbps_read_plus_write"] = round(8 * n / (copy_us * 1e-6) / 1e9, 2)
        rec["ratio_to_copy"] = 1.0
        result["ops"].append(rec)
        kernel_jobs.append((len(result["ops"]) - 1, lambda g=g, dst=dst: dst.copy_(g), n, "copy_d2d"))
        print(f"n={n:>9d} copy {copy_us:9.1f} us  {rec['gbps_read_plus_write']:.0f} GB/s r+w")

        for name, enc, dec, nbytes, flops in codecs(n):
            for phase in ("encode", "decode"):
                try:
                    if phase == "encode":
                        fn = (lambda enc=enc, g=g: enc(g))
                    else:
                        payload = enc(g)
                        fn = (lambda dec=dec, payload=payload: dec(payload))
                    st = timer.time(fn)
                    pl = enc(g)
                    rec = dict(op=f"{name}.{phase}", codec=name, phase=phase, **base,
                               payload_bytes=payload_bytes_of(nbytes, pl), **st)
                    rec["gbps_fp32"] = round(4 * n / (st["median_us"] * 1e-6) / 1e9, 2)
                    rec["ratio_to_copy"] = round(st["median_us"] / copy_us, 3)
                    if flops:
                        rec["flops"] = flops[phase]
                        rec["tflops"] = round(flops[phase] / (st["median_us"] * 1e-6) / 1e12, 3)
                    result["ops"].append(rec)
                    kernel_jobs.append((len(result["ops"]) - 1, fn, n, rec["op"]))
                    print(f"n={n:>9d} {rec['op']:24s} {st['median_us']:9.1f} us "
                          f"(p90 {st['p90_us']:9.1f}, b2b {st['host_back_to_back_us']:9.1f}) "
                          f"{rec['gbps_fp32']:8.1f} GB/s  x{rec['ratio_to_copy']:.2f} copy  "
                          f"payload {rec['payload_bytes']}")
                except Exception as exc:
                    result["ops"].append(dict(op=f"{name}.{phase}", codec=name, phase=phase,
                                              **base, error=repr(exc)))
                    print(f"n={n} {name}.{phase} FAILED {exc!r}")
        del g, dst
        torch.cuda.empty_cache()
        common.write_json(out_path, result)
        print(f"  elapsed {time.time() - t_start:.0f} s")

    result["powersgd_breakdown"] = []
    for n in sizes:
        if n in (MIB25, 2**26) or args.quick:
            result["powersgd_breakdown"] += powersgd_breakdown(timer, n)
    common.write_json(out_path, result)

    # Decode and sum the N-1 payloads an all-gather delivers.
    n = args.accum_size
    accum_codecs = {c[0]: c for c in codecs(n)
                    if c[0] in ("sign_1bit", "terngrad_2bit", "qsgd_s4_int8", "topk_1pct",
                                "fp16")}
    copy_ref = next((o["median_us"] for o in result["ops"]
                     if o["op"] == "copy_d2d" and o["elements"] == n), None)
    for n_workers in [int(s) for s in args.accum_n.split(",")]:
        for name, (_, enc, dec, nbytes, _) in accum_codecs.items():
            try:
                payloads = [enc(gradient(n, seed=1000 + w)) for w in range(n_workers - 1)]
                acc = torch.zeros(n, device="cuda")
                variants = [("decode_then_add", lambda: [acc.add_(dec(p)) for p in payloads])]
                if name == "topk_1pct":
                    variants.append(("index_add_into_accumulator",
                                     lambda: [acc.index_add_(0, p[1].long(), p[0])
                                              for p in payloads]))
                for variant, fn in variants:
                    st = timer.time(fn, reps=max(5, args.reps // 2))
                    rec = dict(codec=name, variant=variant, workers=n_workers,
                               payloads=n_workers - 1, elements=n, fp32_bytes=4 * n,
                               payload_bytes_each=payload_bytes_of(nbytes, payloads[0]), **st)
                    rec["per_payload_us"] = round(st["median_us"] / (n_workers - 1), 3)
                    if copy_ref:
                        rec["per_payload_ratio_to_copy"] = round(rec["per_payload_us"] / copy_ref, 3)
                    result["decode_accumulate"].append(rec)
                    print(f"accum N={n_workers:3d} {name:14s} {variant:26s} "
                          f"{st['median_us']:10.1f} us  ({rec['per_payload_us']:.1f} per payload)")
                del payloads, acc
            except Exception as exc:
                result["decode_accumulate"].append(dict(codec=name, workers=n_workers,
                                                        error=repr(exc)))
                print(f"accum N={n_workers} {name} FAILED {exc!r}")
            torch.cuda.empty_cache()
    common.write_json(out_path, result)

    # Kernel counts and GPU busy time, from the profiler (which only runs now).
    names_at = MIB25 if MIB25 in sizes else sizes[-1]
    for i, fn, n, op in kernel_jobs:
        try:
            kp = kernel_profile(fn, timer.flush_buf, calls=PROFILED_CALLS)
            rec = result["ops"][i]
            rec["kernels"] = kp["kernels"]
            rec["memcpy_memset"] = kp["memcpy_memset"]
            rec["gpu_busy_us"] = kp["gpu_busy_us"]
            # > 1: the GPU idles between this op's kernels, waiting for the host to launch
            # them (or for a host sync), so the event time is set by the host, not the GPU
            rec["event_over_busy"] = (round(rec["median_us"] / kp["gpu_busy_us"], 2)
                                      if kp["gpu_busy_us"] else None)
            if n == names_at:
                result["kernel_names_at_bucket"][op] = kp["kernel_names"]
        except Exception as exc:
            result["ops"][i]["kernels_error"] = repr(exc)
    result["kernel_names_at_bucket_elements"] = names_at
    result["provenance"]["nvidia_smi_state_at_end"] = common.nvidia_smi_state()
    result["provenance"]["wall_s"] = round(time.time() - t_start, 1)
    common.write_json(out_path, result)
    failed = [c["check"] for c in result["checks"] if not c["ok"]]
    errors = [o["op"] for o in result["ops"] if "error" in o]
    print(f"done in {time.time() - t_start:.0f} s; failed checks {failed}; op errors {errors}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
