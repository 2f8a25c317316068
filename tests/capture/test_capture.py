#!/usr/bin/python3
"""tests/capture: both gradient recorders of traces/capture/gcsim_capture.py with Debian's
python3-torch on CPU, a small CNN and a small transformer (issue 16, "Capture").

    test_capture.py GCSIM SOURCE_DIR WORK_DIR

One process forms a gloo process group of world size 1. For each model, three copies with
the same initial weights train 3 SGD steps on the same batches:
  hooked  DDP with DDPBucketRecorder's comm hook, recording steps 1 and 2;
  plain   DDP without a hook, GradientDumper recording inside no_sync() at steps 1 and 2;
  bare    the model without DDP, GradientDumper after backward() at steps 1 and 2.
Checks: the hook changes no weight (hooked == plain, bit for bit); every gradient the
hook recorded equals the bare model's; the real buckets (several, bucket_cap_mb 0.25)
hold every parameter once with bytes = their tensors' bytes; kinds are truthful
(LayerNorm is layer-norm, attention projections attention, the embedding embedding);
gcsim reads the files; and a prediction with these traces as GCSIM_TRACE_DIR sizes
attention, embedding and conv layers from their own traces and says so.
"""
import copy
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

gcsim, src, work = sys.argv[1:4]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(src, "traces", "capture"))
sys.path.insert(0, os.path.join(src, "tests", "capture"))
sys.path.insert(0, os.path.join(src, "tests", "export"))
from gcsim_capture import DDPBucketRecorder, GradientDumper  # noqa: E402
from capture_models import CaptureCNN, CaptureLM  # noqa: E402

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
CAP_MB = 0.25


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__")
    base = 8 + n
    tensors = {k: np.frombuffer(data[base + v["data_offsets"][0]:base + v["data_offsets"][1]],
                                dtype="<f4").reshape(v["shape"]) for k, v in header.items()}
    return tensors, meta


def run_model(name, factory, batches, loss_fn):
    torch.manual_seed(0)
    bare = factory()
    hooked, plain = DDP(copy.deepcopy(bare), bucket_cap_mb=CAP_MB), \
        DDP(copy.deepcopy(bare), bucket_cap_mb=CAP_MB)
    d = os.path.join(work, "traces", name)
    rec = DDPBucketRecorder(d, name, hooked, steps=[1, 2])
    plain_dump = GradientDumper(os.path.join(work, "no_sync", name), name, steps=[1, 2])
    bare_dump = GradientDumper(os.path.join(work, "bare", name), name, steps=[1, 2],
                               bucket_cap_mb=CAP_MB)
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (hooked, plain, bare)]
    for step, (x, y) in enumerate(batches):
        for o in opts:
            o.zero_grad()
        rec.start(step)
        loss = loss_fn(hooked(x), y)
        loss.backward()
        rec.maybe_dump(step, loss=loss.item(), lr=0.1, batch=x.shape[0])
        if plain_dump.wants(step):
            with plain.no_sync():
                lp = loss_fn(plain(x), y)
                lp.backward()
        else:
            lp = loss_fn(plain(x), y)
            lp.backward()
        plain_dump.maybe_dump(plain, step, loss=lp.item(), lr=0.1, batch=x.shape[0])
        lb = loss_fn(bare(x), y)
        lb.backward()
        bare_dump.maybe_dump(bare, step, loss=lb.item(), lr=0.1, batch=x.shape[0])
        for o in opts:
            o.step()
    # The hook changes nothing: same weights as DDP's own all-reduce, bit for bit.
    for (n, a), (_, b) in zip(hooked.module.named_parameters(), plain.module.named_parameters()):
        check(torch.equal(a, b), "%s: %s differs with the recorder's hook" % (name, n))
    check(len(rec.written) == 2 and len(plain_dump.written) == 2 and len(bare_dump.written) == 2,
          "%s: files written %s" % (name, rec.written))
    params = dict(bare.named_parameters())
    for path, ref_path, ns_path in zip(rec.written, bare_dump.written, plain_dump.written):
        t, meta = read_safetensors(path)
        ref, _ = read_safetensors(ref_path)
        ns, ns_meta = read_safetensors(ns_path)
        check(set(t) == set(params) == set(ref) == set(ns), "%s: tensor names %s" % (name, list(t)))
        for k in params:
            check(np.allclose(t[k], ref[k], rtol=1e-5, atol=1e-7),
                  "%s %s: hook-recorded %s differs from the bare model's gradient" % (name, path, k))
            check(np.allclose(ns[k], ref[k], rtol=1e-5, atol=1e-7),
                  "%s %s: no_sync-recorded %s differs from the bare model's gradient" % (name, path, k))
        buckets = json.loads(meta["buckets"])
        names = [n for b in buckets for n in b["parameters"]]
        check(len(buckets) >= 2, "%s: %d bucket(s) at bucket_cap_mb %g" % (name, len(buckets), CAP_MB))
        check(sorted(names) == sorted(params), "%s: each parameter in exactly one bucket" % name)
        check(sorted(b["index"] for b in buckets) == list(range(len(buckets))), "%s: bucket indices" % name)
        for b in buckets:
            check(b["bytes"] == sum(4 * params[n].numel() for n in b["parameters"]),
                  "%s: bucket %d bytes %d" % (name, b["index"], b["bytes"]))
        for b in buckets[:-1]:  # a bucket closes once it reaches its cap
            check(b["bytes"] >= CAP_MB * 1024 * 1024, "%s: bucket %d below the cap" % (name, b["index"]))
        tb = json.loads(meta["tensor_buckets"])
        check(all(tb[n] == b["index"] for b in buckets for n in b["parameters"]), "%s: tensor_buckets" % name)
        check(meta["bucket_source"].startswith("ddp comm hook") and
              meta["gradient_source"].startswith("ddp comm hook"), "%s: sources %s" % (name, meta))
        check(ns_meta["gradient_source"] == "after backward()" and "buckets" not in ns_meta,
              "%s: no_sync metadata" % name)
        r = subprocess.run([gcsim, "trace", "info", path], capture_output=True, text=True)
        check(r.returncode == 0 and "layer_kinds" in r.stdout, "gcsim trace info %s: %s" % (path, r.stderr))
    _, bare_meta = read_safetensors(bare_dump.written[0])
    rule = json.loads(bare_meta["buckets"])
    check(bare_meta["bucket_source"].startswith("rule") and
          sorted(n for b in rule for n in b["parameters"]) == sorted(params),
          "%s: rule buckets %s" % (name, rule))
    return meta


dist.init_process_group("gloo", init_method="file://" + os.path.join(work, "pg"), rank=0,
                        world_size=1)
g = torch.Generator().manual_seed(1)
ce = torch.nn.functional.cross_entropy
meta = run_model("cnn", CaptureCNN, [(torch.randn(8, 3, 16, 16, generator=g),
                                      torch.randint(0, 300, (8,), generator=g)) for _ in range(3)], ce)
kinds, roles = json.loads(meta["layer_kinds"]), json.loads(meta["param_roles"])
check(kinds == {"conv.weight": "conv", "conv.bias": "conv", "bn.weight": "bn", "bn.bias": "bn",
                "fc.weight": "fc", "fc.bias": "fc"}, "CNN kinds %s" % kinds)
check(roles["conv.bias"] == "bias" and roles["bn.weight"] == "norm-scale" and
      roles["bn.bias"] == "norm-shift" and roles["fc.weight"] == "weight", "CNN roles %s" % roles)

meta = run_model("lm", CaptureLM, [(torch.randint(0, 2000, (4, 16), generator=g),
                                    torch.randint(0, 2000, (4, 16), generator=g)) for _ in range(3)],
                 lambda out, y: ce(out.flatten(0, 1), y.flatten()))
kinds, roles = json.loads(meta["layer_kinds"]), json.loads(meta["param_roles"])
check(kinds["embed.weight"] == "embedding" and "head.weight" not in kinds, "LM embedding %s" % kinds)
for n in ("block.self_attn.in_proj_weight", "block.self_attn.in_proj_bias",
          "block.self_attn.out_proj.weight", "block.self_attn.out_proj.bias"):
    check(kinds[n] == "attention", "LM %s is %s" % (n, kinds[n]))
check(kinds["block.norm1.weight"] == "layer-norm" and kinds["block.norm2.bias"] == "layer-norm",
      "LM layer norms %s" % kinds)
check(kinds["block.linear1.weight"] == "fc" and roles["block.linear1.bias"] == "bias" and
      roles["block.self_attn.in_proj_bias"] == "bias" and roles["block.norm1.weight"] == "norm-scale",
      "LM fc and roles %s" % roles)
dist.destroy_process_group()

# The payload model sizes each kind from its own traces when they exist, and says which.
model = os.path.join(work, "kinds.json")
with open(model, "w") as f:
    json.dump({"name": "kinds", "batch_per_gpu": 8, "profiles": [], "layers": [
        {"name": "embed", "kind": "embedding", "weights": 256000, "bias": 0, "fwd_flops": 0},
        {"name": "attn", "kind": "attention", "weights": 65536, "bias": 512, "fwd_flops": 2e6},
        {"name": "conv", "kind": "conv", "weights": 432, "bias": 16, "fwd_flops": 2e5},
        {"name": "lstm", "kind": "lstm", "weights": 10000, "bias": 40, "fwd_flops": 2e4},
        {"name": "fc", "kind": "fc", "weights": 300000, "bias": 300, "fwd_flops": 6e5}]}, f)
r = subprocess.run([gcsim, "predict", "--platform", os.path.join(src, "platforms", "a100-hdr.json"),
                    "--model", model, "--compressor", "qsgd:code=elias", "--gpus", "2",
                    "--wide"],  # the notes whole, one line each
                   capture_output=True, text=True,
                   env=dict(os.environ, GCSIM_TRACE_DIR=os.path.join(work, "traces")))
line = next((l for l in r.stdout.splitlines() if l.startswith("compressor:")), "")
check(r.returncode == 0, "predict failed: %s" % r.stderr)
for want in ("embedding from embedding traces (2 tensors: lm)",
             "attention from attention traces (8 tensors: lm)",
             "conv from conv traces (4 tensors: cnn)",
             "lstm from fc traces, no lstm traces", "fc from fc traces (14 tensors: cnn, lm)"):
    check(want in line, "compressor line lacks %r: %s" % (want, line))
if failures:
    sys.exit("%d check(s) failed" % len(failures))
print(line)
print("capture: ok")
