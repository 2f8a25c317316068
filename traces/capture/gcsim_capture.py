"""gcsim_capture: dump gradients from a PyTorch training loop to safetensors files that
gcsim reads (`gcsim trace info`, `gcsim compress`).

Usage, a few lines in any training loop::

    from gcsim_capture import GradientDumper
    dumper = GradientDumper("traces/mine", model_name="resnet20", every=100, rank=0)
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        dumper.maybe_dump(model, step, loss=loss.item(), lr=opt.param_groups[0]["lr"],
                          batch=x.shape[0])       # after backward, before opt.step()
        opt.step()

Each dump is one file, <dir>/<model>_step<step:06d>_rank<rank>.safetensors, holding every
parameter gradient (named as in model.named_parameters()) and a __metadata__ map of
strings: format, model, step, rank, batch, lr, loss, and layer_kinds (a JSON map from
tensor name to conv / fc / bn / other, taken from the module that owns the parameter).

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

__all__ = ["GradientDumper", "write_safetensors", "layer_kinds"]

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


def layer_kinds(model):
    """{parameter name: conv | fc | bn | other} from the module owning each parameter."""
    import torch.nn as nn

    kinds = {}
    for mod_name, module in model.named_modules():
        if isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            kind = "conv"
        elif isinstance(module, nn.Linear):
            kind = "fc"
        elif isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d,
                                 nn.LayerNorm, nn.GroupNorm)):
            kind = "bn"
        else:
            kind = "other"
        for p_name, _ in module.named_parameters(recurse=False):
            kinds[(mod_name + "." if mod_name else "") + p_name] = kind
    return kinds


class GradientDumper:
    """Dump model gradients every `every` steps (or at the explicit `steps`)."""

    def __init__(self, out_dir, model_name, every=100, steps=None, rank=0, dtype="F32"):
        if dtype not in ("F32", "F16", "BF16"):
            raise ValueError("dtype must be F32, F16 or BF16")
        self.out_dir, self.model_name, self.every = out_dir, model_name, int(every)
        self.steps = None if steps is None else set(int(s) for s in steps)
        self.rank, self.dtype = int(rank), dtype
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
        grads = {}
        for name, p in model.named_parameters():
            if p.grad is not None:
                grads[name] = p.grad.detach().cpu().float().numpy()
        kinds = layer_kinds(model)
        meta = {"format": "gcsim-trace-1", "model": self.model_name, "step": str(int(step)),
                "rank": str(self.rank), "batch": str(int(batch)), "lr": repr(float(lr)),
                "loss": repr(float(loss)),
                "layer_kinds": json.dumps({k: kinds.get(k, "other") for k in grads},
                                          separators=(",", ":"))}
        if extra:
            meta.update({str(k): str(v) for k, v in extra.items()})
        path = os.path.join(self.out_dir, "%s_step%06d_rank%d.safetensors"
                            % (self.model_name, step, self.rank))
        write_safetensors(path, grads, meta, self.dtype)
        self.written.append(path)
        return path
