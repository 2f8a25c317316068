#!/usr/bin/env python3
"""Export a PyTorch nn.Module as a gcsim model JSON (docs/formats.md, "Model").

    python3 traces/capture/gcsim_export.py --model MODULE:FACTORY --input-shape 8,3,32,32 \
        --out my-model.json [--input-dtype long --input-high 1000] [--tokens-per-sample N]
        [--optimizer adam] [--profile --gpu-type TYPE --device cpu --steps 10]

FACTORY is a callable in an importable module (a file's directory is put on sys.path)
returning the nn.Module. One forward pass over a random example input of the given shape
(batch first) records, with forward hooks:

- the layers in forward order: every module that owns parameters, in the order its forward
  ran; parameters of a module whose forward never ran (e.g. nn.MultiheadAttention's
  out_proj, used through its weight) go to the nearest ancestor that ran; a parameter
  shared by several modules (tied weights) is counted once, where it is first used, as
  DDP counts it;
- kinds (conv, fc, bn, norm, embedding, attention, lstm, other) from the module class;
- forward FLOPs per sample, 2 x multiply-accumulates, from the shapes seen (Linear, ConvNd,
  MultiheadAttention, LSTM); element-wise work (norms, activations) counts 0, as in the
  catalog;
- an activation estimate: the bytes of every leaf module's output per sample (what
  autograd may keep for backward; an upper-end figure for fp32, without in-place reuse).

Beside the model it writes OUT.buckets.json: the gradient buckets DDP would form
(torch.nn.parallel.DistributedDataParallel: parameters in reverse registration order,
the first bucket capped at 1 MiB, the others at bucket_cap_mb, 25 by default).

With --profile it times --steps training steps (forward, loss = output sum, backward) at
the example batch on --device after 3 warm-up steps and writes their median as a
**measured** profile for --gpu-type, with the torch version, device, date, batch and
precision in its source, and the measured backward share.

Needs PyTorch (Debian 12: apt-get install python3-torch). gcsim's C loader validates the
output (tests/export).
"""
import argparse
import copy
import datetime
import importlib
import json
import os
import platform
import statistics
import sys
import time

import torch
from torch import nn

DDP_FIRST_BUCKET_BYTES = 1024 * 1024  # torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES


def kind_of(m):
    if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        return "conv"
    if isinstance(m, nn.Linear):
        return "fc"
    if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
        return "bn"
    if isinstance(m, (nn.LayerNorm, nn.GroupNorm)):
        return "norm"
    if isinstance(m, (nn.Embedding, nn.EmbeddingBag)):
        return "embedding"
    if isinstance(m, nn.MultiheadAttention):
        return "attention"
    if isinstance(m, (nn.LSTM, nn.GRU, nn.RNN)):
        return "lstm"
    return "other"


def first_tensor(x):
    if torch.is_tensor(x):
        return x
    if isinstance(x, (list, tuple)):
        for v in x:
            t = first_tensor(v)
            if t is not None:
                return t
    return None


def all_tensors(x):
    if torch.is_tensor(x):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in all_tensors(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in all_tensors(v)]
    return []


def forward_macs(m, inputs, output):
    """Multiply-accumulates of one forward call over the whole batch."""
    out = first_tensor(output)
    if isinstance(m, nn.Linear):
        return m.in_features * out.numel()
    if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        k = 1
        for s in m.kernel_size:
            k *= s
        return (m.in_channels // m.groups) * k * out.numel()
    if isinstance(m, nn.MultiheadAttention):
        q, k = inputs[0], inputs[1]
        e = m.embed_dim
        if m.batch_first:
            b, lq, s = q.shape[0], q.shape[1], k.shape[1]
        else:
            lq, b, s = q.shape[0], q.shape[1], k.shape[0]
        proj = b * (lq * e * e + 2 * s * e * e + lq * e * e)  # Q; K and V; output
        return proj + 2 * b * lq * s * e                     # scores and weighted sum
    if isinstance(m, (nn.LSTM, nn.GRU, nn.RNN)):
        gates = {nn.LSTM: 4, nn.GRU: 3}.get(type(m), 1)
        x = inputs[0]
        steps = x.shape[1] if m.batch_first else x.shape[0]
        batch = x.shape[0] if m.batch_first else x.shape[1]
        dirs = 2 if m.bidirectional else 1
        macs, width = 0, m.input_size
        for _ in range(m.num_layers):
            macs += dirs * gates * m.hidden_size * (width + m.hidden_size) * steps * batch
            width = m.hidden_size * dirs
        return macs
    return 0


def trace_layers(model, example):
    """Run one forward; return (layers, per-sample activation bytes, owner of each param)."""
    names = {m: n or type(m).__name__ for n, m in model.named_modules()}
    parents = {}
    for n, m in model.named_modules():
        for c in m.children():
            parents.setdefault(c, m)
    order, macs, act_bytes = [], {}, [0]

    def hook(m, inputs, output):
        if m not in macs:
            order.append(m)
            macs[m] = 0
        macs[m] += forward_macs(m, inputs, output)
        if not list(m.children()):
            act_bytes[0] += sum(t.numel() * t.element_size() for t in all_tensors(output))

    handles = [m.register_forward_hook(hook) for m in model.modules()]
    try:
        # Training mode with autograd on: PyTorch's inference fast paths (fused
        # TransformerEncoderLayer, MultiheadAttention) would hide the submodules.
        with torch.enable_grad():
            model(example)
    finally:
        for h in handles:
            h.remove()
    ran = set(order)
    # Parameters go to the module that owns them directly, or the nearest ancestor that ran.
    owner = {}
    for m in model.modules():
        for pname, p in m.named_parameters(recurse=False):
            target = m
            while target is not None and target not in ran:
                target = parents.get(target)
            owner.setdefault(m, []).append((pname, p, target))
    assigned = {}  # id(param) -> layer module, first use in forward order wins
    per_layer = {m: [] for m in order}
    ordered_owned = []
    for m in model.modules():
        for pname, p, target in owner.get(m, []):
            ordered_owned.append((order.index(target) if target in ran else len(order),
                                  m, pname, p, target))
    for _, m, pname, p, target in sorted(ordered_owned, key=lambda r: r[0]):
        if id(p) in assigned or not p.requires_grad:
            continue
        if target is None:
            raise SystemExit("gcsim_export: parameter %s.%s is not used by any module that "
                             "ran in the forward pass" % (names[m], pname))
        assigned[id(p)] = target
        per_layer[target].append((pname, p, kind_of(m)))
    return order, names, macs, per_layer, act_bytes[0]


def make_layers(order, names, macs, per_layer, batch):
    layers = []
    for m in order:
        params = per_layer[m]
        if not params:
            continue
        kind = kind_of(m)
        w = b = o = 0
        for pname, p, owner_kind in params:
            n = p.numel()
            if pname.endswith("bias"):
                b += n
            elif owner_kind in ("bn", "norm") or (owner_kind == "other" and kind != "other"):
                o += n
            else:
                w += n
        layers.append({"name": names[m], "kind": kind, "weights": w, "bias": b,
                       "other_params": o, "fwd_flops": 2 * macs[m] // batch})
    return layers


def ddp_buckets(model, cap_mb):
    """DDP's buckets: parameters in reverse registration order, first bucket 1 MiB."""
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    buckets, cur, cur_bytes = [], [], 0
    cap = DDP_FIRST_BUCKET_BYTES
    for n, p in reversed(params):
        size = p.numel() * p.element_size()
        cur.append(n)
        cur_bytes += size
        if cur_bytes >= cap:
            buckets.append({"bytes": cur_bytes, "parameters": cur})
            cur, cur_bytes = [], 0
            cap = cap_mb * 1024 * 1024
    if cur:
        buckets.append({"bytes": cur_bytes, "parameters": cur})
    return buckets


def example_input(shape, dtype, high, device):
    if dtype == "long":
        return torch.randint(0, high, shape, device=device)
    return torch.randn(shape, device=device)


def time_steps(model, example, steps, device):
    """Median seconds of forward, backward and the step, after 3 warm-up steps."""
    def sync():
        if device.startswith("cuda"):
            torch.cuda.synchronize()
    fwd, bwd = [], []
    for i in range(3 + steps):
        model.zero_grad(set_to_none=True)
        sync()
        t0 = time.perf_counter()
        loss = first_tensor(model(example)).float().sum()
        sync()
        t1 = time.perf_counter()
        loss.backward()
        sync()
        t2 = time.perf_counter()
        if i >= 3:
            fwd.append(t1 - t0)
            bwd.append(t2 - t1)
    return statistics.median(f + b for f, b in zip(fwd, bwd)), statistics.median(fwd), \
        statistics.median(bwd)


def load_factory(spec):
    mod_name, _, fn = spec.partition(":")
    if os.path.sep in mod_name or mod_name.endswith(".py"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(mod_name)))
        mod_name = os.path.splitext(os.path.basename(mod_name))[0]
    return getattr(importlib.import_module(mod_name), fn or "model")


def export(model, example, out, name, description="", optimizer="momentum",
           tokens_per_sample=0, bucket_cap_mb=25, profile=None):
    """Write OUT (model JSON) and OUT.buckets.json; return the model document."""
    batch = example.shape[0]
    traced = copy.deepcopy(model).train()  # the user's model (batch-norm statistics) untouched
    order, names, macs, per_layer, act = trace_layers(traced, example)
    layers = make_layers(order, names, macs, per_layer, batch)
    for l in layers:
        if l["other_params"] == 0:
            del l["other_params"]
    doc = {"name": name,
           "description": description or "%s exported from PyTorch" % type(model).__name__,
           "source": "traces/capture/gcsim_export.py, torch %s, example input %s"
                     % (torch.__version__, "x".join(str(s) for s in example.shape)),
           "batch_per_gpu": batch, "precision": "fp32", "optimizer": optimizer,
           "activation_bytes_per_sample": act // batch}
    if tokens_per_sample:
        doc["tokens_per_sample"] = tokens_per_sample
    doc["layers"] = layers
    doc["profiles"] = [profile] if profile else []
    with open(out, "w") as f:
        f.write("{\n" + ",\n".join(
            '  "%s": [\n%s\n  ]' % (k, ",\n".join("    " + json.dumps(x) for x in v))
            if isinstance(v, list) else "  %s: %s" % (json.dumps(k), json.dumps(v))
            for k, v in doc.items()) + "\n}\n")
    with open(out + ".buckets.json", "w") as f:
        json.dump({"bucket_cap_mb": bucket_cap_mb,
                   "first_bucket_bytes": DDP_FIRST_BUCKET_BYTES,
                   "order": "reverse of model.parameters(), as DistributedDataParallel",
                   "buckets": ddp_buckets(model, bucket_cap_mb)}, f, indent=1)
        f.write("\n")
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="MODULE:FACTORY (a .py path works)")
    ap.add_argument("--input-shape", required=True, help="batch first, e.g. 8,3,32,32")
    ap.add_argument("--input-dtype", choices=("float", "long"), default="float")
    ap.add_argument("--input-high", type=int, default=1000, help="token ids below this")
    ap.add_argument("--out", required=True)
    ap.add_argument("--name")
    ap.add_argument("--optimizer", choices=("sgd", "momentum", "adam"), default="momentum")
    ap.add_argument("--tokens-per-sample", type=int, default=0)
    ap.add_argument("--bucket-cap-mb", type=float, default=25)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--gpu-type", help="gpu.type the measured profile is for")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--steps", type=int, default=10)
    a = ap.parse_args()
    if a.profile and not a.gpu_type:
        ap.error("--profile needs --gpu-type")
    try:
        shape = [int(s) for s in a.input_shape.split(",")]
    except ValueError:
        ap.error("--input-shape: expected integers separated by commas, got %r" % a.input_shape)
    torch.manual_seed(0)
    model = load_factory(a.model)().to(a.device)
    example = example_input(shape, a.input_dtype, a.input_high, a.device)
    prof = None
    if a.profile:
        model.train()
        step, fwd, bwd = time_steps(model, example, a.steps, a.device)
        dev = torch.cuda.get_device_name(a.device) if a.device.startswith("cuda") else \
            platform.processor() or platform.machine()
        prof = {"gpu": a.gpu_type, "precision": "fp32",
                "framework": "PyTorch %s on %s (%s)" % (torch.__version__, a.device, dev),
                "source": "measured: traces/capture/gcsim_export.py --profile, %s, batch %d, "
                          "fp32, median of %d steps (forward, sum loss, backward)"
                          % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
                             shape[0], a.steps),
                "points": [{"batch": shape[0], "time": "%.4fms" % (step * 1e3)}],
                "backward_fraction": round(bwd / (fwd + bwd), 4)}
    model.eval()
    doc = export(model, example, a.out, a.name or os.path.splitext(os.path.basename(a.out))[0],
                 optimizer=a.optimizer, tokens_per_sample=a.tokens_per_sample,
                 bucket_cap_mb=a.bucket_cap_mb, profile=prof)
    n = sum(l["weights"] + l["bias"] + l.get("other_params", 0) for l in doc["layers"])
    print("%s: %d layers, %d parameters, %.4g forward GFLOP per sample%s" % (
        a.out, len(doc["layers"]), n, sum(l["fwd_flops"] for l in doc["layers"]) / 1e9,
        ", profile %s" % prof["points"][0]["time"] if prof else ""))


if __name__ == "__main__":
    main()
