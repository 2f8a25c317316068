"""gcsim_capture: record gradients from a PyTorch training loop as safetensors files that
gcsim reads (`gcsim trace info`, `gcsim compress`, the payload model). Two recorders:

GradientDumper, the training-loop recorder: every parameter gradient after backward()::

    from gcsim_capture import GradientDumper
    dumper = GradientDumper("traces/mine", model_name="resnet20", every=100, rank=0)
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        dumper.maybe_dump(model, step, loss=loss.item(), lr=opt.param_groups[0]["lr"],
                          batch=x.shape[0])       # after backward, before opt.step()
        opt.step()

Under DistributedDataParallel the gradients are already averaged over the workers when
backward() returns: record inside ddp.no_sync(), or use DDPBucketRecorder, the comm-hook
recorder, which records each GradBucket DDP hands to the all-reduce (the real buckets,
their order and sizes) before the all-reduce, then performs it.

Each dump is one file, <dir>/<model>_step<step:06d>_rank<rank>.safetensors, holding every
parameter gradient (named as in model.named_parameters()) and a __metadata__ map of
strings: format, model, step, rank, batch, lr, loss, gradient_source, layer_kinds (JSON:
tensor name -> conv, fc, bn, layer-norm, group-norm, embedding, attention, lstm or other,
from the module that owns the parameter), param_roles (tensor name -> weight, bias,
norm-scale or norm-shift) and, when buckets are known, buckets (JSON list: index, bytes,
parameters), tensor_buckets (tensor name -> bucket index) and bucket_source.

The safetensors file is written here with struct + json + numpy (the `safetensors` pip
package is not needed): an 8-byte little-endian header length, the JSON header padded with
spaces to a multiple of 8 bytes, then the tensors back to back in little-endian order. The
file is written to a temporary name and renamed, so a crash never leaves half a file.
"""

import json
import os
import struct
import tempfile

import numpy as np

__all__ = ["GradientDumper", "DDPBucketRecorder", "write_safetensors", "layer_kinds",
           "parameter_info", "ddp_rule_buckets"]

_DTYPES = {"F32": "<f4", "F16": "<f2"}


def _to_bytes(array, dtype):
    """Little-endian bytes of a float array stored as dtype (F32, F16 or BF16)."""
    a = np.ascontiguousarray(np.asarray(array, dtype=np.float32))
    if dtype in _DTYPES:
        return a.astype(_DTYPES[dtype]).tobytes()
    if dtype == "BF16":
        # Round to nearest even on the upper 16 bits of the float32 pattern.
        u = a.view(np.uint32).astype(np.uint64)
        u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
        return u.astype("<u2").tobytes()
    raise ValueError("dtype must be F32, F16 or BF16, got %r" % (dtype,))


def write_safetensors(path, tensors, metadata=None, dtype="F32"):
    """Write {name: array-like} to path atomically. metadata: {str: str}."""
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs, offset = [], 0
    for name, value in tensors.items():
        a = np.asarray(value, dtype=np.float32)
        if not np.all(np.isfinite(a)):
            raise ValueError("tensor %r holds NaN or Inf" % (name,))
        blob = _to_bytes(a, dtype)
        header[name] = {"dtype": dtype, "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(text)))
            f.write(text)
            for blob in blobs:
                f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; traces are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES: DDP caps its first bucket at 1 MiB.
DDP_FIRST_BUCKET_BYTES = 1024 * 1024


def _module_kind(module, inside_attention):
    """The trace kind of the parameters a module owns directly."""
    import torch.nn as nn

    if isinstance(module, nn.MultiheadAttention) or (inside_attention and
                                                     isinstance(module, nn.Linear)):
        return "attention"  # in_proj, out_proj (a Linear inside the attention module)
    if isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d,
                           nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)):
        return "conv"
    if isinstance(module, nn.Linear):
        return "fc"
    if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm)):
        return "bn"
    if isinstance(module, nn.LayerNorm):
        return "layer-norm"
    if isinstance(module, nn.GroupNorm):
        return "group-norm"
    if isinstance(module, (nn.Embedding, nn.EmbeddingBag)):
        return "embedding"
    if isinstance(module, (nn.LSTM, nn.GRU, nn.RNN)):
        return "lstm"
    return "other"


_NORMS = ("bn", "layer-norm", "group-norm")


def _role(kind, param_name):
    """weight | bias | norm-scale | norm-shift: what the tensor is within its module."""
    bias = "bias" in param_name.rsplit(".", 1)[-1]  # bias, in_proj_bias, bias_ih_l0, bias_k
    if kind in _NORMS:
        return "norm-shift" if bias else "norm-scale"
    return "bias" if bias else "weight"


def layer_kinds(model):
    """{parameter name: kind} from the module owning each parameter.

    Kinds: conv, fc (nn.Linear), bn (batch norm), layer-norm, group-norm, embedding,
    attention (nn.MultiheadAttention's projections, including its out_proj Linear), lstm
    (LSTM, GRU, RNN), other. A parameter shared by several modules (tied weights) is named
    and kinded as model.named_parameters() names it: at its first owner.
    """
    return {name: kind for name, (kind, _) in parameter_info(model).items()}


def parameter_info(model):
    """{parameter name: (kind, role)} in model.named_parameters() order."""
    import torch.nn as nn

    owner = {}
    attention_paths = [n for n, m in model.named_modules() if isinstance(m, nn.MultiheadAttention)]
    for mod_name, module in model.named_modules():
        inside = any(mod_name.startswith(a + ".") for a in attention_paths)
        kind = _module_kind(module, inside)
        for p_name, p in module.named_parameters(recurse=False):
            owner.setdefault(id(p), (kind, _role(kind, p_name)))
    return {name: owner[id(p)] for name, p in model.named_parameters()}


def ddp_rule_buckets(named_params, bucket_cap_mb=25.0):
    """The buckets DistributedDataParallel forms at construction, by its rule: parameters
    that need gradients in reverse registration order, a bucket closing once it holds
    1 MiB (the first) or bucket_cap_mb MiB (the others). DDP may rebuild them after the
    first iteration in the order gradients became ready; the comm-hook recorder sees the
    real ones. Returns [{"index", "bytes", "parameters": [names]}]."""
    buckets, cur, cur_bytes = [], [], 0
    cap = DDP_FIRST_BUCKET_BYTES
    for name, p in reversed([(n, p) for n, p in named_params if p.requires_grad]):
        cur.append(name)
        cur_bytes += p.numel() * p.element_size()
        if cur_bytes >= cap:
            buckets.append({"index": len(buckets), "bytes": cur_bytes, "parameters": cur})
            cur, cur_bytes = [], 0
            cap = int(bucket_cap_mb * 1024 * 1024)
    if cur:
        buckets.append({"index": len(buckets), "bytes": cur_bytes, "parameters": cur})
    return buckets


def _compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def _metadata(model_name, step, rank, batch, lr, loss, info, names, source, buckets,
              bucket_source, extra):
    meta = {"format": "gcsim-trace-1", "model": model_name, "step": str(int(step)),
            "rank": str(int(rank)), "batch": str(int(batch)), "lr": repr(float(lr)),
            "loss": repr(float(loss)), "gradient_source": source,
            "layer_kinds": _compact({n: info.get(n, ("other", "weight"))[0] for n in names}),
            "param_roles": _compact({n: info.get(n, ("other", "weight"))[1] for n in names})}
    if buckets is not None:
        meta["buckets"] = _compact(buckets)
        meta["bucket_source"] = bucket_source
        meta["tensor_buckets"] = _compact({n: b["index"] for b in buckets
                                           for n in b["parameters"] if n in names})
    if extra:
        meta.update({str(k): str(v) for k, v in extra.items()})
    return meta


class GradientDumper:
    """The training-loop recorder: every parameter's gradient after loss.backward(),
    every `every` steps (or at the explicit `steps`).

    Without DDP these are the worker's own gradients. Under DistributedDataParallel they
    are already averaged over the workers when backward() returns, which is not what a
    compressor sees: run that step's forward and backward inside `ddp_model.no_sync()`
    (the local gradients; nothing is exchanged that step, so the replicas drift apart
    unless optimizer.step() is skipped there: docs/traces.md), or use DDPBucketRecorder. Pass the DDP module itself (or its .module): names are those of the
    underlying model. bucket_cap_mb, if given, records the buckets DDP's construction rule
    forms (bucket_source "rule"), not observed ones.
    """

    def __init__(self, out_dir, model_name, every=100, steps=None, rank=0, dtype="F32",
                 bucket_cap_mb=None):
        if dtype not in ("F32", "F16", "BF16"):
            raise ValueError("dtype must be F32, F16 or BF16")
        self.out_dir, self.model_name, self.every = out_dir, model_name, int(every)
        self.steps = None if steps is None else set(int(s) for s in steps)
        self.rank, self.dtype = int(rank), dtype
        self.bucket_cap_mb = bucket_cap_mb
        self.written = []
        os.makedirs(out_dir, exist_ok=True)

    def wants(self, step):
        if self.steps is not None:
            return step in self.steps
        return self.every > 0 and step % self.every == 0

    def maybe_dump(self, model, step, loss, lr, batch, extra=None):
        """Call after loss.backward() and before optimizer.step(). Returns the path or None."""
        if not self.wants(step):
            return None
        model = getattr(model, "module", model)  # DistributedDataParallel wraps the model
        grads = {}
        for name, p in model.named_parameters():
            if p.grad is not None:
                grads[name] = p.grad.detach().cpu().float().numpy()
        buckets = None
        if self.bucket_cap_mb is not None:
            buckets = ddp_rule_buckets(list(model.named_parameters()), self.bucket_cap_mb)
        meta = _metadata(self.model_name, step, self.rank, batch, lr, loss,
                         parameter_info(model), list(grads), "after backward()", buckets,
                         "rule: DistributedDataParallel construction, bucket_cap_mb %s"
                         % self.bucket_cap_mb, extra)
        path = os.path.join(self.out_dir, "%s_step%06d_rank%d.safetensors"
                            % (self.model_name, step, self.rank))
        write_safetensors(path, grads, meta, self.dtype)
        self.written.append(path)
        return path


class DDPBucketRecorder:
    """The DDP communication-hook recorder: the GradBuckets DistributedDataParallel really
    exchanges, in the order it hands them over, each tensor as this worker computed it
    (before any averaging), then the default all-reduce, so training is unchanged.

        ddp = DistributedDataParallel(model, bucket_cap_mb=25)
        rec = DDPBucketRecorder("traces/mine", "resnet20", ddp, every=100)
        for step, (x, y) in enumerate(loader):
            opt.zero_grad()
            rec.start(step)                       # before backward
            loss = loss_fn(ddp(x), y)
            loss.backward()                       # the hook records, then all-reduces
            rec.maybe_dump(step, loss=loss.item(), lr=opt.param_groups[0]["lr"],
                           batch=x.shape[0])
            opt.step()

    Each dump holds every gradient tensor of the recorded buckets (named as in
    model.named_parameters()), with metadata buckets (a JSON list in arrival order: index,
    bytes, parameters), tensor_buckets (tensor name -> bucket index), bucket_source
    "ddp comm hook", layer_kinds and param_roles. The hook replaces DDP's built-in
    all-reduce with torch's allreduce_hook, which computes the same average.
    """

    def __init__(self, out_dir, model_name, ddp_model, every=100, steps=None, rank=None,
                 dtype="F32", process_group=None):
        import torch.distributed as dist

        if dtype not in ("F32", "F16", "BF16"):
            raise ValueError("dtype must be F32, F16 or BF16")
        self.out_dir, self.model_name, self.every = out_dir, model_name, int(every)
        self.steps = None if steps is None else set(int(s) for s in steps)
        self.rank = dist.get_rank(process_group) if rank is None else int(rank)
        self.dtype, self.process_group = dtype, process_group
        module = ddp_model.module
        self.names = {id(p): n for n, p in module.named_parameters()}
        self.info = parameter_info(module)
        self.written, self._armed, self._buckets = [], None, []
        os.makedirs(out_dir, exist_ok=True)
        ddp_model.register_comm_hook(self, DDPBucketRecorder._hook)

    def wants(self, step):
        if self.steps is not None:
            return step in self.steps
        return self.every > 0 and step % self.every == 0

    def start(self, step):
        """Arm the hook for this step's backward if the step is to be recorded."""
        self._armed = int(step) if self.wants(step) else None
        self._buckets = []

    @staticmethod
    def _hook(state, bucket):  # DDP checks these two names
        self = state
        from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook

        if self._armed is not None:
            params = bucket.parameters()
            grads = bucket.gradients()
            names = [self.names[id(p)] for p in params]
            buf = bucket.buffer()
            self._buckets.append({
                "index": int(bucket.index()),
                "bytes": int(buf.numel() * buf.element_size()),
                "parameters": names,
                # copied before the all-reduce averages the buffer in place
                "tensors": [g.detach().cpu().float().numpy().copy() for g in grads]})
        return allreduce_hook(self.process_group, bucket)

    def maybe_dump(self, step, loss, lr, batch, extra=None):
        """Call after loss.backward(). Writes the recorded buckets; returns the path or None."""
        if not self.wants(step):
            return None
        if self._armed != int(step):
            raise RuntimeError("DDPBucketRecorder: start(%d) was not called before backward"
                               % step)
        if not self._buckets:
            raise RuntimeError("DDPBucketRecorder: no bucket reached the comm hook at step %d "
                               "(was backward run inside no_sync()?)" % step)
        grads, buckets = {}, []
        for b in self._buckets:
            for name, t in zip(b["parameters"], b["tensors"]):
                grads[name] = t
            buckets.append({k: b[k] for k in ("index", "bytes", "parameters")})
        meta = _metadata(self.model_name, step, self.rank, batch, lr, loss, self.info,
                         list(grads), "ddp comm hook, before all-reduce", buckets,
                         "ddp comm hook (GradBucket index, buffer bytes, parameters; arrival "
                         "order)", extra)
        path = os.path.join(self.out_dir, "%s_step%06d_rank%d.safetensors"
                            % (self.model_name, step, self.rank))
        write_safetensors(path, grads, meta, self.dtype)
        self.written.append(path)
        self._armed, self._buckets = None, []
        return path
