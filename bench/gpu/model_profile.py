"""Single-GPU training-step time of ResNet-50, BERT-base and GPT-2 small (and, with --models,
the catalog's other image models and BERT-large on SQuAD), fp32 (TF32) and bf16.

Forward + backward + SGD-with-momentum step on synthetic data already on the GPU (no data
loader), timed with CUDA events; also the forward / backward / optimizer split, peak memory
and, for the largest batch of each model and precision, when each parameter's gradient is
ready during backward (what overlapping the gradient exchange with backward depends on).

Run from the repository root on a machine with a CUDA GPU:
    python3 bench/gpu/model_profile.py --out bench/gpu/results/h100-models.json
"""

import argparse
import statistics
import sys
import time

import torch

import gpu_common as common


# ---------------------------------------------------------------- the models

def build_resnet50():
    import torchvision
    return torchvision.models.resnet50(weights=None)


def build_bert():
    from transformers import BertConfig, BertForMaskedLM
    return BertForMaskedLM(BertConfig())  # BERT-base: 12 layers, 768 hidden, 12 heads


def build_gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    return GPT2LMHeadModel(GPT2Config())  # GPT-2 small: 12 layers, 768 hidden, 1024 ctx


def torchvision_model(name, **kwargs):
    """A torchvision ImageNet classifier with random weights (224x224 inputs, 1000 classes)."""
    def build():
        import torchvision
        return getattr(torchvision.models, name)(weights=None, **kwargs)
    return build


def build_bert_large_squad():
    from transformers import BertConfig, BertForQuestionAnswering
    # BERT-large (Devlin et al.): 24 layers, 1024 hidden, 16 heads, FFN 4096; the SQuAD span
    # head, as models/bert-large.json
    return BertForQuestionAnswering(BertConfig(hidden_size=1024, num_hidden_layers=24,
                                               num_attention_heads=16, intermediate_size=4096))


class Workload:
    def __init__(self, name, build, batches, seq, channels_last_amp):
        self.name, self.build, self.batches, self.seq = name, build, batches, seq
        self.channels_last_amp = channels_last_amp

    def data(self, model, batch, channels_last):
        gen = torch.Generator(device="cuda")
        gen.manual_seed(batch)
        if self.seq is None:  # an image classifier
            x = torch.randn(batch, 3, 224, 224, device="cuda", generator=gen)
            if channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            y = torch.randint(1000, (batch,), device="cuda", generator=gen)
            crit = torch.nn.CrossEntropyLoss()
            return lambda: crit(model(x), y)
        vocab = model.config.vocab_size
        ids = torch.randint(vocab, (batch, self.seq), device="cuda", generator=gen)
        if self.name == "bert_large_squad":
            # answer spans: a start and an end position per sequence
            start = torch.randint(self.seq, (batch,), device="cuda", generator=gen)
            end = torch.randint(self.seq, (batch,), device="cuda", generator=gen)
            return lambda: model(input_ids=ids, start_positions=start, end_positions=end).loss
        if self.name == "bert_base":
            # masked-LM labels on 15% of positions; the head computes logits for all of them
            labels = torch.where(torch.rand(batch, self.seq, device="cuda", generator=gen) < 0.15,
                                 ids, torch.full_like(ids, -100))
        else:
            labels = ids  # causal LM: the model shifts labels itself
        return lambda: model(input_ids=ids, labels=labels).loss

    def items_per_sample(self):
        return 1 if self.seq is None else self.seq


WORKLOADS = {
    "resnet50": Workload("resnet50", build_resnet50, [32, 64, 128, 256], None, True),
    "bert_base": Workload("bert_base", build_bert, [32, 64], 128, False),
    "gpt2_small": Workload("gpt2_small", build_gpt2, [8, 16], 1024, False),
    # the catalog's other models (2026-11-25), each around its models/*.json batch
    "alexnet": Workload("alexnet", torchvision_model("alexnet"), [64, 128, 256], None, True),
    "vgg11": Workload("vgg11", torchvision_model("vgg11"), [16, 32, 64], None, True),
    "vgg16": Workload("vgg16", torchvision_model("vgg16"), [16, 32, 64], None, True),
    "googlenet": Workload("googlenet", torchvision_model("googlenet", aux_logits=False,
                                                         init_weights=True),
                          [32, 64, 128], None, True),
    "resnet101": Workload("resnet101", torchvision_model("resnet101"), [32, 64, 128], None,
                          True),
    "vit_b_16": Workload("vit_b_16", torchvision_model("vit_b_16"), [32, 64, 128], None,
                         False),
    "bert_large_squad": Workload("bert_large_squad", build_bert_large_squad, [4, 8, 16], 384,
                                 False),
}


# ---------------------------------------------------------------- one configuration

def run_config(wl, precision, batch, warmup, steps, grad_timeline):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    torch.manual_seed(0)
    amp = precision == "bf16_autocast"
    channels_last = amp and wl.channels_last_amp
    model = wl.build().cuda().train()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    params = [p for p in model.parameters() if p.requires_grad]
    # Small learning rate: timing must not be disturbed by a diverging run's NaNs.
    opt = torch.optim.SGD(params, lr=1e-4, momentum=0.9)
    loss_fn = wl.data(model, batch, channels_last)

    def forward():
        if amp:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                return loss_fn()
        return loss_fn()

    def step(evs=None):
        if evs:
            evs[0].record()
        loss = forward()
        if evs:
            evs[1].record()
        loss.backward()
        if evs:
            evs[2].record()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if evs:
            evs[3].record()
        return loss

    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    evs = [[torch.cuda.Event(enable_timing=True) for _ in range(4)] for _ in range(steps)]
    t0 = time.perf_counter()
    for e in evs:
        loss = step(e)
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    step_ms = [e[0].elapsed_time(e[3]) for e in evs]
    fwd_ms = [e[0].elapsed_time(e[1]) for e in evs]
    bwd_ms = [e[1].elapsed_time(e[2]) for e in evs]
    opt_ms = [e[2].elapsed_time(e[3]) for e in evs]
    # Consecutive steps' start events: the period including any gap between steps.
    period_ms = [evs[i][0].elapsed_time(evs[i + 1][0]) for i in range(steps - 1)]
    med = statistics.median(step_ms)
    res = {
        "model": wl.name, "precision": precision, "batch": batch, "seq_len": wl.seq,
        "channels_last": channels_last,
        "parameters": sum(p.numel() for p in params),
        "warmup_steps": warmup, "timed_steps": steps,
        "step_ms_median": round(med, 3),
        "step_ms_min": round(min(step_ms), 3),
        "step_ms_p90": round(sorted(step_ms)[int(round(0.9 * (steps - 1)))], 3),
        "step_period_ms_median": round(statistics.median(period_ms), 3) if period_ms else None,
        "host_wall_ms_per_step": round(wall * 1000 / steps, 3),
        "forward_ms_median": round(statistics.median(fwd_ms), 3),
        "backward_ms_median": round(statistics.median(bwd_ms), 3),
        "optimizer_ms_median": round(statistics.median(opt_ms), 3),
        "samples_per_s": round(batch * 1000.0 / med, 1),
        "peak_memory_bytes": torch.cuda.max_memory_allocated(),
        "final_loss": round(float(loss.item()), 4),
    }
    if wl.seq:
        res["tokens_per_s"] = round(batch * wl.seq * 1000.0 / med, 0)
    if hasattr(model, "config"):
        res["attn_implementation"] = getattr(model.config, "_attn_implementation", None)
    if grad_timeline:
        res["grad_ready"] = grad_ready_timeline(model, params, step, reps=3)
        try:
            # One profiled step: how many kernels a step launches. Times the host cost of
            # launching them (see the codec run's launch-latency reference) against the GPU
            # time, which tells whether small batches are limited by the host.
            kc = common.count_kernels(step)
            res["kernels_per_step"] = kc["kernels"]
            res["memcpy_memset_per_step"] = kc["memcpy_memset"]
        except Exception as exc:
            res["kernels_per_step_error"] = repr(exc)[:300]
    del model, opt, params, loss_fn
    torch.cuda.empty_cache()
    return res


def grad_ready_timeline(model, params, step, reps):
    """Per parameter, ms from the start of backward until its gradient is accumulated."""
    names = {id(p): n for n, p in model.named_parameters()}
    ready = [[torch.cuda.Event(enable_timing=True) for _ in params] for _ in range(reps)]
    fired = [[False] * len(params) for _ in range(reps)]
    cur = {"r": 0}

    def hook(i):
        def record(_param):
            ready[cur["r"]][i].record()
            fired[cur["r"]][i] = True
        return record

    handles = [p.register_post_accumulate_grad_hook(hook(i)) for i, p in enumerate(params)]
    evs = [[torch.cuda.Event(enable_timing=True) for _ in range(4)] for _ in range(reps)]
    try:
        for r in range(reps):
            cur["r"] = r
            step(evs[r])
        torch.cuda.synchronize()
    finally:
        for h in handles:
            h.remove()
    # None where a parameter got no gradient (unused in this model's forward)
    ms = [round(statistics.median(evs[r][1].elapsed_time(ready[r][i]) for r in range(reps)), 3)
          if all(fired[r][i] for r in range(reps)) else None
          for i in range(len(params))]
    return {"param_names": [names[id(p)] for p in params],
            "param_numel": [p.numel() for p in params],
            "ready_ms_after_backward_start": ms,
            "backward_ms_median": round(statistics.median(
                evs[r][1].elapsed_time(evs[r][2]) for r in range(reps)), 3),
            "steps": reps}


def gemm_ceilings():
    out = {}
    for label, dtype in (("bf16", torch.bfloat16), ("fp32_tf32", torch.float32)):
        a = torch.randn(8192, 8192, device="cuda", dtype=dtype)
        b = torch.randn(8192, 8192, device="cuda", dtype=dtype)
        st = common.Timer(warmup=3, reps=10).time(lambda: a @ b)
        st["tflops"] = round(2 * 8192**3 / (st["median_us"] * 1e-6) / 1e12, 1)
        out[label] = st
        del a, b
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="JSON file to write")
    ap.add_argument("--models", default="resnet50,bert_base,gpt2_small")
    ap.add_argument("--precisions", default="fp32_tf32,bf16_autocast")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--source-rev", default="unknown",
                    help="git revision of the scripts (the device copy has no .git)")
    ap.add_argument("--quick", action="store_true", help="smoke test: small batches, few steps")
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = True   # as NVIDIA's training examples set
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    result = {"schema": "gcsim-gpu-model-profile/1",
              "provenance": common.provenance(args, args.source_rev),
              "settings": {
                  "step": "forward + loss, backward, SGD(lr=1e-4, momentum=0.9) step, "
                          "zero_grad(set_to_none=True); synthetic data resident on the GPU",
                  "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
                  "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
                  "cudnn_benchmark": torch.backends.cudnn.benchmark,
                  "fp32_tf32": "fp32 weights and activations, TF32 tensor-core matmul/conv",
                  "bf16_autocast": "fp32 weights, torch.autocast(cuda, bfloat16); no grad "
                                   "scaler (bf16); CNNs (ResNet-50 and the others but ViT) in "
                                   "channels_last",
                  "timing": "CUDA events at step start, after loss, after backward, after "
                            "optimizer step; medians over timed steps after warm-up",
                  "samples_per_s": "batch / median step time; tokens_per_s = samples * seq_len",
                  "peak_memory": "torch.cuda.max_memory_allocated over warm-up and timed steps"},
              "gemm_ceilings": {}, "configs": []}
    import torchvision
    import transformers
    result["provenance"]["torchvision"] = torchvision.__version__
    result["provenance"]["transformers"] = transformers.__version__
    t_start = time.time()
    if not args.quick:
        result["gemm_ceilings"] = gemm_ceilings()
        print("gemm ceilings:", result["gemm_ceilings"])
    common.write_json(args.out, result)

    for mname in args.models.split(","):
        wl = WORKLOADS[mname]
        batches = wl.batches
        if args.quick:
            batches = [min(wl.batches) // 4 or 1]
            args.warmup, args.steps = 2, 3
        for precision in args.precisions.split(","):
            for batch in batches:
                try:
                    r = run_config(wl, precision, batch, args.warmup, args.steps,
                                   grad_timeline=(batch == batches[-1]))
                    print(f"{mname:11s} {precision:14s} b={batch:4d} "
                          f"{r['step_ms_median']:8.2f} ms/step (fwd {r['forward_ms_median']:.2f} "
                          f"bwd {r['backward_ms_median']:.2f} opt {r['optimizer_ms_median']:.2f}) "
                          f"{r['samples_per_s']:9.1f} samples/s  "
                          f"peak {r['peak_memory_bytes'] / 2**30:.1f} GiB  loss {r['final_loss']}")
                except Exception as exc:
                    r = {"model": mname, "precision": precision, "batch": batch,
                         "error": repr(exc)[:500]}
                    print(f"{mname} {precision} b={batch} FAILED {exc!r}"[:800])
                    torch.cuda.empty_cache()
                result["configs"].append(r)
                common.write_json(args.out, result)
                print(f"  elapsed {time.time() - t_start:.0f} s", flush=True)

    result["provenance"]["nvidia_smi_state_at_end"] = common.nvidia_smi_state()
    result["provenance"]["wall_s"] = round(time.time() - t_start, 1)
    common.write_json(args.out, result)
    errors = [(c["model"], c["precision"], c["batch"]) for c in result["configs"] if "error" in c]
    print(f"done in {time.time() - t_start:.0f} s; errors {errors}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
