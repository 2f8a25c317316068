"""Shared helpers for the GPU profiling scripts: provenance, CUDA-event timing, JSON output.

Only the two profiling scripts in this folder import it; nothing in gcsim's build or tests
does (gcsim is C and never needs a GPU).
"""

import datetime
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import torch

# Larger than the L2 cache of any current NVIDIA GPU (H100: 50 MB), so writing it before a
# timed repetition evicts the previous repetition's data and each repetition reads from HBM.
L2_FLUSH_BYTES = 256 * 1024 * 1024


def _run(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return {"cmd": " ".join(cmd), "rc": out.returncode,
                "stdout": out.stdout.strip(), "stderr": out.stderr.strip()[-500:]}
    except Exception as exc:  # nvidia-smi missing or hung: record why, keep measuring
        return {"cmd": " ".join(cmd), "error": repr(exc)}


def nvidia_smi_state():
    """Clocks, temperature and power as found: the card's settings are never changed."""
    return _run(["nvidia-smi",
                 "--query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,pstate",
                 "--format=csv"])


def script_hashes():
    """sha256 of this folder's scripts: ties the data to the exact code that produced it."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = {}
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            with open(os.path.join(here, name), "rb") as f:
                out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


def provenance(args, source_rev):
    props = torch.cuda.get_device_properties(0)
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command_line": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "arguments": vars(args),
        "source_rev": source_rev,
        "script_sha256": script_hashes(),
        "gpu_name": torch.cuda.get_device_name(0),
        "gpu_multiprocessors": props.multi_processor_count,
        "gpu_total_memory_bytes": props.total_memory,
        "gpu_l2_cache_bytes": getattr(props, "L2_cache_size", None),
        "gpu_compute_capability": f"{props.major}.{props.minor}",
        "nvidia_smi": _run(["nvidia-smi",
                            "--query-gpu=driver_version,clocks.max.sm,memory.total",
                            "--format=csv"]),
        "nvidia_smi_extra": _run(["nvidia-smi",
                                  "--query-gpu=name,clocks.max.mem,power.limit,"
                                  "clocks.applications.graphics,persistence_mode",
                                  "--format=csv"]),
        "nvidia_smi_state_at_start": nvidia_smi_state(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "host": platform.platform(),
        "cpu_count": os.cpu_count(),
    }


class Timer:
    """Times a callable on the GPU with CUDA events, one event pair per repetition.

    Before each repetition a 256 MiB buffer is overwritten (outside the timed region), so
    every repetition starts with a cold L2: the figures are HBM-bound, as for a gradient
    bucket that backward wrote a while ago. Warm-up calls come first so that allocation,
    library handles and kernel loading are not timed.
    """

    def __init__(self, warmup, reps, flush=True):
        self.warmup = warmup
        self.reps = reps
        self.flush_buf = (torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device="cuda")
                          if flush else None)

    def time(self, fn, reps=None):
        reps = reps or self.reps
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        for i in range(reps):
            if self.flush_buf is not None:
                self.flush_buf.zero_()
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
        us = sorted(s.elapsed_time(e) * 1000.0 for s, e in zip(starts, ends))
        # Back-to-back calls timed on the host: includes launch overhead, which dominates
        # for small tensors; no flush between calls, so small inputs stay in L2.
        n_b2b = max(5, reps // 2)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n_b2b):
            fn()
        torch.cuda.synchronize()
        b2b_us = (time.perf_counter() - t0) * 1e6 / n_b2b
        return summarize(us, b2b_us)


def summarize(us, b2b_us=None):
    us = sorted(us)
    p90_index = min(len(us) - 1, int(round(0.9 * (len(us) - 1))))
    out = {"median_us": round(statistics.median(us), 3),
           "min_us": round(us[0], 3),
           "p90_us": round(us[p90_index], 3),
           "reps": len(us)}
    if b2b_us is not None:
        out["host_back_to_back_us"] = round(b2b_us, 3)
    return out


def count_kernels(fn):
    """Kernels and memcpy/memset operations that one call of fn launches, per torch.profiler."""
    from torch.profiler import profile, ProfilerActivity
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    cuda = torch.autograd.DeviceType.CUDA
    names = [e.name for e in prof.events() if e.device_type == cuda]
    if not names:  # older layouts keep device activity only in the raw kineto results
        names = [e.name() for e in prof.profiler.kineto_results.events()
                 if e.device_type() == cuda]
    names = [n[:120] for n in names]  # templated kernel names run to many hundreds of chars
    kernels = [n for n in names if not n.startswith(("Memcpy", "Memset"))]
    copies = [n for n in names if n.startswith(("Memcpy", "Memset"))]
    return {"kernels": len(kernels), "memcpy_memset": len(copies), "kernel_names": kernels}


def add_run_arguments(ap, budget_s, budget_help):
    """The options every timing script of this folder takes: output, repetitions, the
    profiler's calls, the source revision (the device copy has no .git) and a time budget."""
    ap.add_argument("--out", required=True)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--profile-calls", type=int, default=3)
    ap.add_argument("--source-rev", default="unknown")
    ap.add_argument("--budget-s", type=float, default=budget_s, help=budget_help)


def start_codec_run(schema, args, settings, *lists):
    """A codec timing run's result: seeded, TF32 off (PyTorch's default for fp32 matmuls, which
    PowerSGD's products run), with its schema, provenance and settings, and an empty list per
    name in `lists` for the records to come."""
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    result = {"schema": schema, "provenance": provenance(args, args.source_rev),
              "settings": dict(settings, warmup=args.warmup, reps=args.reps)}
    result.update({name: [] for name in lists})
    return result


def write_json(path, obj):
    """Write atomically so that a run cut off mid-way leaves the last complete file."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)
