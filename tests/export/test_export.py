#!/usr/bin/env python3
"""tests/export: traces/capture/gcsim_export.py end to end on CPU (issue 17).

    test_export.py GCSIM SOURCE_DIR WORK_DIR

Exports a small CNN and a small transformer (tests/export/small_models.py), checks the
layers, parameter counts and FLOPs against the hand arithmetic below and the DDP buckets
against PyTorch's own parameter list, then has gcsim load and predict with them: the CNN on
a platform it has no profile for (roofline), the transformer with the profile measured on
this CPU. Fails (never skips) without PyTorch.
"""
import json
import os
import subprocess
import sys

gcsim, src, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
export = os.path.join(src, "traces", "capture", "gcsim_export.py")
models = os.path.join(src, "tests", "export", "small_models.py")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args, expect_rc=0):
    # no __pycache__ in the source tree (the exporter imports tests/export/small_models.py)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    check(r.returncode == expect_rc, "%s exited %d: %s" % (" ".join(args[:3]), r.returncode,
                                                        r.stderr[-2000:]))
    return r


# --- the CNN ------------------------------------------------------------------------------
cnn_json = os.path.join(work, "small-cnn.json")
run([sys.executable, export, "--model", models + ":cnn", "--input-shape", "4,3,16,16",
     "--out", cnn_json])
d = json.load(open(cnn_json))
layers = {l["name"]: l for l in d["layers"]}
check([l["name"] for l in d["layers"]] == ["conv", "bn", "fc"], "CNN layer order %s" % list(layers))
# conv: 8 x 3 x 3 x 3 = 216 weights, 8 biases; MACs per sample 3*9 x 8*16*16 = 55,296
check(layers["conv"] == {"name": "conv", "kind": "conv", "weights": 216, "bias": 8,
                         "fwd_flops": 110592}, "conv %s" % layers["conv"])
# batch norm: scale 8 (other_params) and shift 8 (bias), no FLOPs counted
check(layers["bn"]["kind"] == "bn" and layers["bn"]["other_params"] == 8 and
      layers["bn"]["bias"] == 8 and layers["bn"]["fwd_flops"] == 0, "bn %s" % layers["bn"])
# fc: 512 x 10 weights, 10 biases, 5,120 MACs
check(layers["fc"] == {"name": "fc", "kind": "fc", "weights": 5120, "bias": 10,
                       "fwd_flops": 10240}, "fc %s" % layers["fc"])
check(d["batch_per_gpu"] == 4 and d["profiles"] == [], "CNN header")
# activations per sample, fp32: conv 8x16x16 + bn 8x16x16 + pool 8x8x8 + fc 10 = 4,618
# floats (the ReLU and flatten are tensor methods, not modules) = 18,472 bytes
check(d["activation_bytes_per_sample"] == 18472, "CNN activations %s" % d["activation_bytes_per_sample"])
b = json.load(open(cnn_json + ".buckets.json"))
# 5,370 parameters = 21,480 bytes < 1 MiB: one bucket, fc first (reverse order)
check(len(b["buckets"]) == 1 and b["buckets"][0]["bytes"] == 21480 and
      b["buckets"][0]["parameters"] == ["fc.bias", "fc.weight", "bn.bias", "bn.weight",
                                        "conv.bias", "conv.weight"], "CNN buckets %s" % b)

# Loaded by gcsim's C loader and predicted on the A100 cluster, which it has no profile
# for: the roofline model, said so.
r = run([gcsim, "predict", "--platform", os.path.join(src, "platforms", "a100-hdr.json"),
         "--model", cnn_json, "--gpus", "1,8"])
check("ROOFLINE MODEL" in r.stdout, "CNN predict did not use the roofline:\n" + r.stdout)

# --- the transformer ----------------------------------------------------------------------
lm_json = os.path.join(work, "small-lm.json")
run([sys.executable, export, "--model", models + ":lm", "--input-shape", "4,16",
     "--input-dtype", "long", "--input-high", "100", "--tokens-per-sample", "16",
     "--optimizer", "adam", "--out", lm_json, "--profile", "--gpu-type", "cpu-test",
     "--steps", "5"])
d = json.load(open(lm_json))
names = [l["name"] for l in d["layers"]]
check(names == ["embed", "block.self_attn", "block.linear1", "block.linear2", "block.norm1",
                "block.norm2", "head"] or
      names == ["embed", "block.self_attn", "block.norm1", "block.linear1", "block.linear2",
                "block.norm2", "head"], "LM layer order %s" % names)
layers = {l["name"]: l for l in d["layers"]}
# embedding 100 x 32 = 3,200 (the head's tied weight is counted here, once)
check(layers["embed"]["weights"] == 3200 and layers["embed"]["fwd_flops"] == 0, "embed")
# attention: in_proj 3 x 32 x 32 + out_proj 32 x 32 = 4,096 weights, 96 + 32 biases;
# MACs per 16-token sample: projections 4 x 16 x 32 x 32 = 65,536, scores and weighted sum
# 2 x 16 x 16 x 32 = 16,384 -> 163,840 FLOPs
check(layers["block.self_attn"] == {"name": "block.self_attn", "kind": "attention",
                                    "weights": 4096, "bias": 128, "fwd_flops": 163840},
      "attention %s" % layers["block.self_attn"])
# FFN: 32 x 64 x 16 = 32,768 MACs each way
check(layers["block.linear1"]["fwd_flops"] == 65536 and layers["block.linear2"]["fwd_flops"] == 65536,
      "FFN flops")
# head: weight tied (0 here), 100 biases, 32 x 100 x 16 = 51,200 MACs
check(layers["head"]["weights"] == 0 and layers["head"]["bias"] == 100 and
      layers["head"]["fwd_flops"] == 102400, "head %s" % layers["head"])
total = sum(l["weights"] + l["bias"] + l.get("other_params", 0) for l in d["layers"])
# 3,200 + 4,224 + 2,112 + 2,080 + 2 x 64 + 100 = 11,844 = the model's unique parameters
check(total == 11844, "LM parameters %d" % total)
check(d["tokens_per_sample"] == 16 and d["optimizer"] == "adam", "LM header")
p = d["profiles"][0]
check(p["gpu"] == "cpu-test" and p["source"].startswith("measured: ") and
      p["points"][0]["batch"] == 4 and 0 < p["backward_fraction"] < 1, "LM profile %s" % p)
b = json.load(open(lm_json + ".buckets.json"))
names = [n for k in b["buckets"] for n in k["parameters"]]
check(names[0] == "head.bias" and names[-1] == "embed.weight" and len(names) == len(set(names)),
      "LM bucket order %s" % names)
check(sum(k["bytes"] for k in b["buckets"]) == 4 * 11844, "LM bucket bytes")

# gcsim uses the measured CPU profile on a platform whose gpu.type is cpu-test.
plat = os.path.join(work, "cpu-test.json")
with open(plat, "w") as f:
    json.dump({"name": "cpu-test", "nodes": 2, "gpus_per_node": 2,
               "gpu": {"type": "cpu-test", "speed": "1Tflops", "memory": "16GB"},
               "intra_node": {"kind": "pcie-switch", "gpu_to_host": "10GBps",
                              "gpu_to_gpu": "10GBps"},
               "nic": {"kind": "ethernet", "bandwidth": "10Gbps", "latency": "20us"},
               "fabric": {"topology": "star"}}, f)
r = run([gcsim, "predict", "--platform", plat, "--model", lm_json, "--gpus", "1,4",
         "--format", "csv"])
check("tokens_per_s" in r.stdout, "LM predict has no tokens/s:\n" + r.stdout)
r = run([gcsim, "predict", "--platform", plat, "--model", lm_json, "--gpus", "1"])
check("profile for cpu-test at fp32" in r.stdout and "measured: traces/capture" in r.stdout,
      "LM predict did not use its measured profile:\n" + r.stdout)

if failures:
    sys.exit("%d check(s) failed" % len(failures))
print("export end to end: ok")
