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
- forward FLOPs per sample: PyTorch's own count where it applies (matrix products and
  convolutions attributed to the layer whose forward ran them), from
  torch.utils.flop_counter.FlopCounterMode (PyTorch >= 2.1) or, before it existed,
  torch.profiler's with_flops estimate; a layer the counter saw no such work in (e.g.
  an LSTM run by cuDNN's fused kernel, which torch.profiler does not count) gets the
  analytic count, 2 x multiply-
  accumulates from the shapes seen (Linear, ConvNd, MultiheadAttention, LSTM). Each layer
  says which in fwd_flops_source. Element-wise work (norms, activations, residual adds)
  counts 0, as in the catalog;
- an activation estimate: the bytes of every leaf module's output per sample (what
  autograd may keep for backward; an upper-end figure for fp32, without in-place reuse).

Beside the model it writes OUT.buckets.json: the gradient buckets DDP would form
(torch.nn.parallel.DistributedDataParallel: parameters in reverse registration order,
the first bucket capped at 1 MiB, the others at bucket_cap_mb, 25 by default).

With --profile it times --steps training steps (forward, loss = output sum, backward) at
the example batch on --device after 3 warm-up steps and writes their median as a
**measured** profile for --gpu-type, with the torch version, device name, date, batch and
precision in its source, and the measured backward share. It then times each layer's
forward and backward with hooks (time.perf_counter, after torch.cuda.synchronize() on a
GPU): forward from the layer's pre-hook to its hook, backward from the gradient of its
output to the last gradient of its parameters; the medians go into the profile's
layer_times, which gcsim uses to share backward time between gradient buckets. These
per-layer times include the hooks' own cost and leave out work between layers
(activations, residual adds), so they are shares, not a second step time.

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

from gcsim_capture import DDP_FIRST_BUCKET_BYTES, ddp_rule_buckets


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


# Operators whose FLOPs count: matrix products and convolutions (what the catalog counts;
# element-wise work is 0 there). Names as torch.profiler reports them.
_PROFILER_COUNTED = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul",
                     "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::convolution",
                     "aten::_convolution")
_SCOPE = "gcsim_layer::"


def counted_flops(model, example, layers):
    """PyTorch's own FLOP count of one forward, per layer module (whole batch), and the
    counter's name; a layer gets the work that ran inside its forward and not inside
    another layer's. None when neither counter is available."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        FlopCounterMode = None
    layer_set = set(layers)
    if FlopCounterMode is not None:
        # One mode for the whole forward; a layer's share is the growth of the total
        # between its pre-hook and its hook, less that of layers nested in it.
        mode = FlopCounterMode(display=False)
        own, stack = {m: 0 for m in layers}, []

        def pre(m, inputs):
            stack.append((m, mode.get_total_flops(), 0))

        def post(m, inputs, output):
            mod, start, nested = stack.pop()
            grown = mode.get_total_flops() - start
            own[mod] += grown - nested
            if stack:
                parent, pstart, pnested = stack[-1]
                stack[-1] = (parent, pstart, pnested + grown)

        handles = [m.register_forward_pre_hook(pre) for m in layers] + \
                  [m.register_forward_hook(post) for m in layers]
        try:
            with mode, torch.enable_grad():
                model(example)
        finally:
            for h in handles:
                h.remove()
        return own, "torch.utils.flop_counter"
    try:
        from torch.profiler import ProfilerActivity, profile, record_function
    except ImportError:
        return None, None
    index = {m: i for i, m in enumerate(layers)}
    scopes = {}

    def pre_scope(m, inputs):
        r = record_function("%s%d" % (_SCOPE, index[m]))
        r.__enter__()
        scopes.setdefault(m, []).append(r)

    def post_scope(m, inputs, output):
        scopes[m].pop().__exit__(None, None, None)

    handles = [m.register_forward_pre_hook(pre_scope) for m in layer_set] + \
              [m.register_forward_hook(post_scope) for m in layer_set]
    try:
        with profile(activities=[ProfilerActivity.CPU], with_flops=True) as prof, \
                torch.enable_grad():
            model(example)
    finally:
        for h in handles:
            h.remove()
    own = {m: 0 for m in layers}
    for e in prof.events():
        if not e.flops or e.name not in _PROFILER_COUNTED:
            continue
        parent, nested = e.cpu_parent, False
        while parent is not None and not parent.name.startswith(_SCOPE):
            nested = nested or (parent.flops and parent.name in _PROFILER_COUNTED)
            parent = parent.cpu_parent
        if parent is not None and not nested:
            own[layers[int(parent.name[len(_SCOPE):])]] += e.flops
    return own, "torch.profiler"


def make_layers(order, names, macs, per_layer, batch, counted=None, counter=None):
    layers = []
    for m in order:
        params = per_layer[m]
        if not params:
            continue
        kind = kind_of(m)
        w = b = o = 0
        for pname, p, owner_kind in params:
            n = p.numel()
            if "bias" in pname:  # bias, in_proj_bias, an LSTM's bias_ih_l0 and bias_hh_l0
                b += n
            elif owner_kind in ("bn", "norm") or (owner_kind == "other" and kind != "other"):
                o += n
            else:
                w += n
        flops, source = 2 * macs[m] // batch, "analytic"
        if counted and counted.get(m, 0) > 0:
            flops, source = int(counted[m]) // batch, counter
        layers.append({"name": names[m], "kind": kind, "weights": w, "bias": b,
                       "other_params": o, "fwd_flops": flops, "fwd_flops_source": source})
    return layers


def time_layers(model, example, layers, per_layer, steps, device):
    """Median forward and backward seconds of each layer module over `steps` training
    steps after 3 warm-up steps, by hooks: forward from its pre-hook to its hook;
    backward from the gradient of its output to the last gradient of its parameters."""
    cuda = device.startswith("cuda")

    def now():
        if cuda:
            torch.cuda.synchronize()
        return time.perf_counter()

    fwd_start, fwd, bwd_start, bwd_end = {}, {}, {}, {}

    def pre(m, inputs):
        fwd_start[m] = now()

    def output_grad(m):
        def hook(g):
            if m not in bwd_start:  # the first gradient reaching the layer's output
                bwd_start[m] = now()
        return hook

    def post(m, inputs, output):
        fwd[m] = fwd.get(m, 0.0) + now() - fwd_start[m]
        for t in all_tensors(output):
            if t.requires_grad:
                t.register_hook(output_grad(m))

    def param_done(m):
        def hook(g):
            bwd_end[m] = now()
        return hook

    handles = [m.register_forward_pre_hook(pre) for m in layers] + \
              [m.register_forward_hook(post) for m in layers]
    handles += [p.register_hook(param_done(m)) for m in layers for _, p, _ in per_layer[m]]
    samples = {m: ([], []) for m in layers}
    try:
        for i in range(3 + steps):
            model.zero_grad(set_to_none=True)
            fwd_start.clear(), fwd.clear(), bwd_start.clear(), bwd_end.clear()
            first_tensor(model(example)).float().sum().backward()
            now()
            if i < 3:
                continue
            for m in layers:
                samples[m][0].append(fwd.get(m, 0.0))
                samples[m][1].append(bwd_end.get(m, 0.0) - bwd_start.get(m, bwd_end.get(m, 0.0)))
    finally:
        for h in handles:
            h.remove()
    return {m: (statistics.median(f), statistics.median(b)) for m, (f, b) in samples.items()}


def device_name(device):
    if device.startswith("cuda"):
        return torch.cuda.get_device_name(device)
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def time_string(seconds):
    # json_time_s needs a positive time: a layer faster than the clock shows 1 ns
    return "%.3fus" % max(seconds * 1e6, 1e-3)


def ddp_buckets(model, cap_mb):
    """DDP's buckets: parameters in reverse registration order, first bucket 1 MiB."""
    return ddp_rule_buckets(list(model.named_parameters()), cap_mb)


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
    layer_modules = [m for m in order if per_layer[m]]
    counted, counter = counted_flops(traced, example, layer_modules)
    layers = make_layers(order, names, macs, per_layer, batch, counted, counter)
    for l in layers:
        if l["other_params"] == 0:
            del l["other_params"]
    if profile is not None and profile.pop("_time_layers", None):
        steps, device = profile.pop("_steps"), profile.pop("_device")
        times = time_layers(traced, example, layer_modules, per_layer, steps, device)
        profile["layer_times"] = {
            "source": "measured: forward/backward hooks, time.perf_counter%s, median of %d "
                      "steps after 3 warm-up, batch %d, fp32, PyTorch %s on %s (%s), %s"
                      % (" after torch.cuda.synchronize()" if device.startswith("cuda") else "",
                         steps, batch, torch.__version__, device, device_name(device),
                         datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")),
            "layers": [{"name": names[m], "forward": time_string(times[m][0]),
                        "backward": time_string(times[m][1])} for m in layer_modules]}
    doc = {"name": name,
           "description": description or "%s exported from PyTorch" % type(model).__name__,
           "source": "traces/capture/gcsim_export.py, torch %s, example input %s"
                     % (torch.__version__, "x".join(str(s) for s in example.shape)),
           "batch_per_gpu": batch,
           # the batch this export traced (FLOPs per sample and activation bytes divided
           # by it) and, with --profile, timed: batch_per_gpu is the user's to change
           "profiled_batch": batch, "precision": "fp32", "optimizer": optimizer,
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


def refuse(message):
    """Bad input: the reason on stderr, exit 2, no file written (gcsim's rule)."""
    sys.stderr.write("gcsim_export: %s\n" % message)
    sys.exit(2)


def refuse_untrainable(model, spec):
    """A model without trainable parameters has no gradient to exchange: its export was
    written (exit 0) and then refused by gcsim as a model whose layers have no parameters."""
    if not any(p.requires_grad for p in model.parameters()):
        refuse("%s: the model has no trainable parameters (none with requires_grad): "
               "data-parallel training would exchange no gradient" % spec)


def refuse_output_is_input(spec, out):
    """--out naming the --model source file (or OUT.buckets.json naming it) truncated the
    model's code with the export (issue 45): refused before the model is even loaded."""
    source = spec.partition(":")[0]
    if not (os.path.sep in source or source.endswith(".py")):
        return
    for path, option in ((out, "--out"), (out + ".buckets.json", "--out's .buckets.json")):
        try:
            same = os.path.samefile(source, path)
        except OSError:  # one of them does not exist: not one file
            same = False
        if same:
            refuse("%s and --model name the same file, %s: the export would replace the "
                   "model's code" % (option, path))


def check_forward(model, example, spec):
    """One forward pass before any export work: an input the model cannot take (a wrong
    rank or size) is named with PyTorch's reason instead of a traceback."""
    try:
        with torch.no_grad():
            model(example)
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        refuse("%s: the forward pass fails on an input of shape %s: %s"
               % (spec, "x".join(str(d) for d in example.shape), str(e).splitlines()[0]))


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
    ap.add_argument("--no-layer-times", dest="layer_times", action="store_false",
                    help="with --profile: skip the per-layer forward/backward times")
    a = ap.parse_args()
    if a.profile and not a.gpu_type:
        ap.error("--profile needs --gpu-type")
    try:
        shape = [int(s) for s in a.input_shape.split(",")]
    except ValueError:
        ap.error("--input-shape: expected integers separated by commas, got %r" % a.input_shape)
    # A 0 batch divided by zero deep in the export (a Python traceback, issue 29).
    if any(d < 1 for d in shape):
        ap.error("--input-shape: every dimension must be at least 1 (batch first), got %r"
                 % a.input_shape)
    refuse_output_is_input(a.model, a.out)
    torch.manual_seed(0)
    model = load_factory(a.model)().to(a.device)
    refuse_untrainable(model, a.model)
    example = example_input(shape, a.input_dtype, a.input_high, a.device)
    check_forward(model, example, a.model)
    prof = None
    if a.profile:
        model.train()
        step, fwd, bwd = time_steps(model, example, a.steps, a.device)
        dev = device_name(a.device)
        prof = {"gpu": a.gpu_type, "precision": "fp32",
                "framework": "PyTorch %s on %s (%s)" % (torch.__version__, a.device, dev),
                "source": "measured: traces/capture/gcsim_export.py --profile, %s, batch %d, "
                          "fp32, median of %d steps (forward, sum loss, backward)"
                          % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
                             shape[0], a.steps),
                "points": [{"batch": shape[0], "time": "%.4fms" % (step * 1e3)}],
                "backward_fraction": round(bwd / (fwd + bwd), 4)}
        if a.layer_times:
            prof.update(_time_layers=True, _steps=a.steps, _device=a.device)
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
