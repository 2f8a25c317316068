#!/usr/bin/env python3
"""tests/export: traces/capture/gcsim_export.py end to end on CPU (issue 17).

    test_export.py GCSIM SOURCE_DIR WORK_DIR

Exports a small CNN and a small transformer (tests/export/small_models.py), checks the
layers, parameter counts and FLOPs (PyTorch's own counter, equal to the hand arithmetic
below) and the DDP buckets against PyTorch's own parameter list, then has gcsim load and
predict with them: the CNN on a platform it has no profile for (roofline), the transformer
with the profile and per-layer times measured on this CPU, whose backward shares gcsim
uses. Fails (never skips) without PyTorch.
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


try:
    from torch.utils.flop_counter import FlopCounterMode  # noqa: F401  PyTorch >= 2.1
    COUNTER = "torch.utils.flop_counter"
except ImportError:
    COUNTER = "torch.profiler"


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
                         "fwd_flops": 110592, "fwd_flops_source": COUNTER},
      "conv %s" % layers["conv"])
# batch norm: scale 8 (other_params) and shift 8 (bias), no FLOPs counted
check(layers["bn"]["kind"] == "bn" and layers["bn"]["other_params"] == 8 and
      layers["bn"]["bias"] == 8 and layers["bn"]["fwd_flops"] == 0 and
      layers["bn"]["fwd_flops_source"] == "analytic", "bn %s" % layers["bn"])
# fc: 512 x 10 weights, 10 biases, 5,120 MACs
check(layers["fc"] == {"name": "fc", "kind": "fc", "weights": 5120, "bias": 10,
                       "fwd_flops": 10240, "fwd_flops_source": COUNTER}, "fc %s" % layers["fc"])
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
                                    "weights": 4096, "bias": 128, "fwd_flops": 163840,
                                    "fwd_flops_source": COUNTER},
      "attention %s" % layers["block.self_attn"])
check(layers["embed"]["fwd_flops_source"] == "analytic" and
      layers["block.norm1"]["fwd_flops_source"] == "analytic", "embedding and norm sources")
# FFN: 32 x 64 x 16 = 32,768 MACs each way
check(layers["block.linear1"]["fwd_flops"] == 65536 and layers["block.linear2"]["fwd_flops"] == 65536
      and layers["block.linear1"]["fwd_flops_source"] == COUNTER, "FFN flops")
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
# per-layer times: one entry per layer, in order, positive, with their source
lt = p["layer_times"]
check([e["name"] for e in lt["layers"]] == [l["name"] for l in d["layers"]], "layer_times order")


def us(text):
    check(text.endswith("us"), "time %r not in us" % text)
    return float(text[:-2])


fwd_us = [us(e["forward"]) for e in lt["layers"]]
bwd_us = [us(e["backward"]) for e in lt["layers"]]
check(all(t > 0 for t in fwd_us + bwd_us), "layer times %s" % lt["layers"])
check(lt["source"].startswith("measured: forward/backward hooks") and "batch 4" in lt["source"] and
      "fp32" in lt["source"] and "PyTorch " in lt["source"], "layer_times source %s" % lt["source"])
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
r = run([gcsim, "predict", "--platform", plat, "--model", lm_json, "--gpus", "1",
         "--wide"])  # the notes whole
check("profile for cpu-test at fp32" in r.stdout and "measured: traces/capture" in r.stdout and
      "backward shared between buckets by per-layer times, measured: forward/backward hooks"
      in r.stdout,
      "LM predict did not use its measured profile:\n" + r.stdout)


# The measured backward times share out backward between buckets: bucket 0 (the layers
# from the head back to where 16 KiB is reached) is ready at forward + backward x its
# layers' share of the measured backward time.
def bucket_rows(model):
    r = run([gcsim, "predict", "--platform", plat, "--model", model, "--gpus", "4",
             "--engine", "des", "--bucket", "16KiB", "--buckets", "--wide"])
    rows = [l.split() for l in r.stdout.splitlines() if l.strip()[:1].isdigit()]
    return [(row[1], row[2], float(row[5])) for row in rows]


rows = bucket_rows(lm_json)
names = [l["name"] for l in d["layers"]]
step_s = float(p["points"][0]["time"][:-2]) * 1e-3
bf = p["backward_fraction"]
if rows:
    first, last = names.index(rows[0][0]), names.index(rows[0][1])
    share = sum(bwd_us[first:last + 1]) / sum(bwd_us)
    want_ms = (step_s * (1 - bf) + step_s * bf * share) * 1e3
    check(abs(rows[0][2] - want_ms) < 0.0015, "bucket 0 ready %.3f ms, want %.3f ms (%s)"
          % (rows[0][2], want_ms, rows))
else:
    check(False, "no bucket rows")
no_times = dict(d)
no_times["profiles"] = [{k: v for k, v in p.items() if k != "layer_times"}]
no_times_json = os.path.join(work, "small-lm-no-layer-times.json")
with open(no_times_json, "w") as f:
    json.dump(no_times, f)
rows_flops = bucket_rows(no_times_json)
if rows and rows_flops:
    share = sum(l["fwd_flops"] for l in d["layers"][first:last + 1]) / \
        sum(l["fwd_flops"] for l in d["layers"])
    want_ms = (step_s * (1 - bf) + step_s * bf * share) * 1e3
    check(abs(rows_flops[0][2] - want_ms) < 0.0015, "without layer times: bucket 0 ready %.3f "
          "ms, want %.3f ms (FLOP shares)" % (rows_flops[0][2], want_ms))

# The C loader refuses layer times that do not match the layers.
bad = json.loads(json.dumps(d))
bad["profiles"][0]["layer_times"]["layers"][2]["name"] = "not-a-layer"
bad_json = os.path.join(work, "bad-layer-times.json")
with open(bad_json, "w") as f:
    json.dump(bad, f)
r = run([gcsim, "predict", "--platform", plat, "--model", bad_json, "--gpus", "1"], expect_rc=2)
check("layer_times.layers[2].name" in r.stderr and r.stdout == "", "bad layer_times: %s" % r.stderr)
bad["profiles"][0]["layer_times"]["layers"][2]["name"] = names[2]
bad["layers"][0]["fwd_flops_source"] = "guessed"
with open(bad_json, "w") as f:
    json.dump(bad, f)
r = run([gcsim, "predict", "--platform", plat, "--model", bad_json, "--gpus", "1"], expect_rc=2)
check("fwd_flops_source" in r.stderr, "bad fwd_flops_source: %s" % r.stderr)

# issue 46: the export records the batch it traced and timed (profiled_batch), equal to its
# profile's batch; the C loader reads it back (a predict at another batch_per_gpu keeps it),
# and refuses a value that is not a positive integer, naming the field.
check(d["profiled_batch"] == 4 and p["points"][0]["batch"] == d["profiled_batch"],
      "LM profiled_batch %r, profile batch %r" % (d.get("profiled_batch"), p["points"][0]["batch"]))
moved = dict(d, batch_per_gpu=8)
moved_json = os.path.join(work, "small-lm-batch8.json")
with open(moved_json, "w") as f:
    json.dump(moved, f)
r = run([gcsim, "predict", "--platform", plat, "--model", moved_json, "--gpus", "1",
         "--format", "json"])
if r.returncode == 0:
    check(json.loads(r.stdout)["meta"]["batch"] == 8, "batch_per_gpu 8 with profiled_batch 4")
for value, want in ((0, "$.profiled_batch"), ("4", "$.profiled_batch"), (2.5, "$.profiled_batch")):
    with open(bad_json, "w") as f:
        json.dump(dict(d, profiled_batch=value), f)
    r = run([gcsim, "predict", "--platform", plat, "--model", bad_json, "--gpus", "1"],
            expect_rc=2)
    check(want in r.stderr and r.stdout == "", "profiled_batch %r: %s" % (value, r.stderr))

# PyTorch's counter agrees with the exporter's analytic count on every layer it counts
# (the fallback), here on an LSTM model too.
sys.path.insert(0, os.path.join(src, "traces", "capture"))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(src, "tests", "export"))
import torch  # noqa: E402
import gcsim_export  # noqa: E402
import small_models  # noqa: E402
for factory, example in ((small_models.cnn, torch.randn(4, 3, 16, 16)),
                         (small_models.lm, torch.randint(0, 100, (4, 16))),
                         (small_models.rnn, torch.randint(0, 50, (2, 8)))):
    m = factory().train()
    order, mnames, macs, per_layer, _ = gcsim_export.trace_layers(m, example)
    mods = [x for x in order if per_layer[x]]
    counted, counter = gcsim_export.counted_flops(m, example, mods)
    check(counter == COUNTER, "counter %s" % counter)
    for x in mods:
        if macs[x]:
            check(counted[x] == 2 * macs[x], "%s %s: counter %d, analytic %d"
                  % (factory.__name__, mnames[x], counted[x], 2 * macs[x]))
    fallback = gcsim_export.make_layers(order, mnames, macs, per_layer, example.shape[0])
    check(all(l["fwd_flops_source"] == "analytic" for l in fallback), "fallback sources")
    check([l["fwd_flops"] for l in fallback] ==
          [l["fwd_flops"] for l in gcsim_export.make_layers(order, mnames, macs, per_layer,
                                                            example.shape[0], counted, counter)],
          "%s: counted and analytic FLOPs differ" % factory.__name__)

if failures:
    sys.exit("%d check(s) failed" % len(failures))
print("export end to end: ok")
