"""Step-to-step spread of one GPU's training-step time (input to gcsim's variable compute).

A synchronous data-parallel step waits for its slowest GPU, so the spread of one GPU's step
time over many steps is the floor of the compute variability a cluster sees (a cluster adds
thermals across cards, host noise and stragglers). Each step's time is taken with CUDA
events around forward, backward and the optimizer, with no host sync between steps, as in
model_profile.py (whose workloads this imports). Run from the repository root:

    python3 bench/gpu/step_variability.py --out bench/gpu/results/h200-step-variability.json
"""

import argparse
import statistics
import sys
import time

import torch

import gpu_common as common
import model_profile as mp

CONFIGS = [("resnet50", "bf16_autocast", 128), ("gpt2_small", "bf16_autocast", 8)]


def spread(wl, precision, batch, warmup, steps):
    torch.manual_seed(0)
    amp = precision == "bf16_autocast"
    channels_last = amp and wl.channels_last_amp
    model = wl.build().cuda().train()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=1e-4, momentum=0.9)
    loss_fn = wl.data(model, batch, channels_last)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            loss = loss_fn()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    evs = [torch.cuda.Event(enable_timing=True) for _ in range(steps + 1)]
    for i in range(steps):
        evs[i].record()
        step()
    evs[steps].record()
    torch.cuda.synchronize()
    ms = [evs[i].elapsed_time(evs[i + 1]) for i in range(steps)]
    s = sorted(ms)
    q = lambda p: s[min(steps - 1, int(round(p * (steps - 1))))]
    mean = statistics.fmean(ms)
    sd = statistics.pstdev(ms)
    # lag-1 autocorrelation: whether slow steps come in runs (thermal, clocks) or alone
    lag1 = (sum((ms[i] - mean) * (ms[i + 1] - mean) for i in range(steps - 1)) /
            (sd * sd * (steps - 1))) if sd > 0 else 0.0
    del model, opt, params, loss_fn
    torch.cuda.empty_cache()
    return {"model": wl.name, "precision": precision, "batch": batch, "warmup_steps": warmup,
            "steps": steps, "step_ms_mean": round(mean, 4), "step_ms_sd": round(sd, 4),
            "cv": round(sd / mean, 5), "step_ms_p50": round(q(0.5), 4),
            "step_ms_p90": round(q(0.9), 4), "step_ms_p99": round(q(0.99), 4),
            "step_ms_max": round(s[-1], 4), "step_ms_min": round(s[0], 4),
            "p99_over_p50": round(q(0.99) / q(0.5), 5), "lag1_autocorrelation": round(lag1, 4),
            "step_ms": [round(x, 4) for x in ms]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--source-rev", default="unknown")
    args = ap.parse_args()
    result = {"schema": "gcsim-gpu-step-variability/1",
              "provenance": common.provenance(args, args.source_rev),
              "settings": {"timing": "CUDA events between consecutive step starts, no host sync "
                                     "inside the timed loop; cv = population sd / mean"},
              "runs": []}
    t0 = time.time()
    for name, precision, batch in CONFIGS:
        try:
            r = spread(mp.WORKLOADS[name], precision, batch, args.warmup, args.steps)
        except Exception as exc:
            r = {"model": name, "precision": precision, "batch": batch, "error": repr(exc)[:300]}
        result["runs"].append(r)
        print({k: v for k, v in r.items() if k != "step_ms"})
        common.write_json(args.out, result)
    result["provenance"]["nvidia_smi_state_at_end"] = common.nvidia_smi_state()
    result["provenance"]["wall_s"] = round(time.time() - t0, 1)
    common.write_json(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
