#!/usr/bin/env python3
"""ZeRO++ against ZeRO-3: gcsim's predicted speedup against the published one.

    zeropp.py [--gcsim PATH] [--before PATH] [--engine analytic|des] [--markdown [FILE]]

Every row of tests/validation/zeropp/speedups.tsv (DeepSpeed's ZeRO++ blog, Figs. 6-8, and
its tutorial; sources per row) is a pair of published throughputs, ZeRO-3 and ZeRO++
(qwZ + hpZ + qgZ), on the same model, GPUs and network. gcsim predicts both
(`--sharding zero3` and `zero3+qwz+hpz+qgz`, hpZ inside the 16-GPU node as the tutorial's
zero_hpz_partition_size 16) and the speedup is ZeRO-3's iteration time over ZeRO++'s (the
same work per iteration). The error is predicted / published speedup - 1, signed.
These rows are validation data: nothing in gcsim is fitted to them.

Inputs, each marked:
  - platform (assumed, DGX-2 class, as the tutorial's 16 x V100-SXM3 32GB nodes): 16 V100
    per node on NVSwitch (150 GB/s per direction per GPU: 6 NVLink 2 links of 25 GB/s,
    NVIDIA DGX-2 datasheet), PCIe 3.0 x16 to the NICs (12.15 GB/s, as
    platforms/cloud-v100-100gbe.json), N x 100 Gb/s InfiniBand per node where the source
    says "IB: N" (measured setting of the row), 125 TFLOP/s fp16 (V100 SXM3 datasheet);
  - compute (derived, not fitted to these rows): --mfu 0.48, Megatron-LM's single-V100
    baseline, 62.4 TFLOP/s on a 1.2B GPT-2 = 48% of the DGX-2H's peak
    (https://nv-adlr.github.io/MegatronLMV1); Megatron counts the recomputed forward, as
    gcsim's --mfu does;
  - models (assumed): GPT-2 style, 12 L h^2 at the named size: 18B 40 x 6144 (the
    tutorial's 18B), 49B 60 x 8192, 91B 72 x 10240, 138B 76 x 12288 (the blog gives no
    architecture); sequence 512 (the tutorial's), micro-batch tokens / 512; fp16, Adam,
    activation checkpointing (the tutorial's);
  - Fig. 8 gives no GPU count: 384, as Figs. 6 and 7 (assumed). The tutorial row gives no
    network: not predicted.

The memory column is gcsim's estimate for ZeRO++ (GB per GPU) against the 32 GB V100: the
run is published, so "no fit" is gcsim's error. Predictions use --no-memory-check so that
both are shown. Standard library only; exit 0 unless gcsim fails (1) or a file is bad (2).

--bounds (a diagnostic, not a prediction; the default table is unchanged) adds, per pair,
the speedup gcsim's own step would give at the two extremes of overlap: "overlapped" is
gcsim's prediction (communication behind compute as DeepSpeed's fetch schedule allows),
"serial" is (compute + comm + codec) of ZeRO-3 over the same of ZeRO++, i.e. no
communication hidden at all, from the same run's compute_s, comm_s (the analytic engine's:
the calls' durations summed; --bounds needs --engine analytic) and compress_s. Nothing
is fitted: where the published speedups fall between the two says how much of the
communication the real runs hid (docs/sharding.md, "ZeRO++ against ZeRO-3"). Under the
analytic engine every run is also checked never to take longer than that serial sum (exit
1 otherwise).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "models"))
import gen_models  # noqa: E402
sys.path.insert(0, HERE)
import sharded  # noqa: E402  (read_rows: the tab-separated reader)

TSV = os.path.join(HERE, "zeropp", "speedups.tsv")
ARCH = {18: (40, 6144), 49: (60, 8192), 91: (72, 10240), 138: (76, 12288)}
SEQ, VOCAB, MFU, GPU_MEMORY_GB = 512, 50257, 0.48, 32.0
ZEROPP = "zero3+qwz+hpz+qgz"




def model_file(size, folder):
    L, h = ARCH[size]
    layers = gen_models.decoder_layers(VOCAB, 0, h, L, 4 * h, SEQ, True)
    doc = gen_models.model_doc(
        "zeropp-%db" % size, "GPT %dB (%d x %d, assumed)" % (size, L, h),
        "tests/validation/zeropp.py: assumed architecture", 1, layers, [],
        {"precision": "fp16", "optimizer": "adam", "tokens_per_sample": SEQ,
         "activation_bytes_per_sample": gen_models.transformer_activation_bytes(SEQ, h, L, VOCAB,
                                                                                False)})
    path = os.path.join(folder, "model-%d.json" % size)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def platform_file(gbps, gpus, folder):
    nics = int(gbps) // 100
    p = {"name": "dgx2-v100-%dx100g" % nics,
         "description": "DGX-2 class: 16 V100-SXM3 32GB on NVSwitch, %d x 100 Gb/s IB" % nics,
         "sources": {"all": "tests/validation/zeropp.py docstring (assumed platform)"},
         "nodes": max(1, (gpus + 15) // 16), "gpus_per_node": 16,
         "gpu": {"type": "v100", "speed": "15.7Tflops", "memory": "32GB",
                 "memory_bandwidth": "900GBps", "speed_16bit": "125Tflops"},
         "intra_node": {"kind": "nvswitch", "gpu_to_host": "12.15GBps",
                        "gpu_to_gpu": "150GBps", "latency": "10us"},
         "nic": {"kind": "infiniband", "bandwidth": "100Gbps", "latency": "1us",
                 "per_node": nics},
         "fabric": {"topology": "star", "switch_latency": "1us"}}
    path = os.path.join(folder, "platform-%d-%d.json" % (nics, gpus))
    with open(path, "w") as f:
        json.dump(p, f)
    return path


def predict(gcsim, model, platform, gpus, batch, sharding, engine):
    argv = [gcsim, "predict", "--model", model, "--platform", platform, "--gpus", str(gpus),
            "--sharding", sharding, "--batch", str(batch), "--act-ckpt", "--mfu", str(MFU),
            "--engine", engine, "--no-memory-check", "--format", "json"]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip() or "exit %d" % p.returncode)
    row = json.loads(p.stdout)["rows"][-1]
    serial = row["compute_s"] + row["comm_s"] + (row.get("compress_s") or 0.0)
    if engine == "analytic" and row["iteration_s"] > serial * (1 + 1e-9):
        # one stream that waits only for compute cannot take longer than running every
        # call and every codec step after all of the compute
        raise RuntimeError("%s on %s: iteration %.6f s exceeds compute + calls + codec "
                           "%.6f s" % (sharding, platform, row["iteration_s"], serial))
    return row["iteration_s"], row.get("memory_bytes_per_gpu", 0) / 1e9, serial


def run(gcsim, rows, engine, tmp, serial=None):
    """{id: (speedup, ZeRO++ GB per GPU)}; serial, a dict, also gets {id: no-overlap
    speedup} (--bounds)."""
    out = {}
    for r in rows:
        if r["internode_gbps_per_node"] == "?":
            continue
        size, gpus = int(r["params_b"]), 384 if r["gpus"] == "?" else int(r["gpus"])
        model = model_file(size, tmp)
        plat = platform_file(int(r["internode_gbps_per_node"]), gpus, tmp)
        batch = int(r["tokens_per_gpu"]) // SEQ
        z3, _, z3_serial = predict(gcsim, model, plat, gpus, batch, "zero3", engine)
        zp, mem, zp_serial = predict(gcsim, model, plat, gpus, batch, ZEROPP, engine)
        out[r["id"]] = (z3 / zp, mem)
        if serial is not None:
            serial[r["id"]] = z3_serial / zp_serial
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gcsim", default=os.path.join(REPO, "build", "sim", "cli", "gcsim"))
    ap.add_argument("--before", help="another gcsim to compare with (e.g. the base commit's)")
    ap.add_argument("--engine", default="analytic")
    ap.add_argument("--markdown", nargs="?", const="-")
    ap.add_argument("--bounds", action="store_true",
                    help="also the no-overlap (serial) speedup of gcsim's own step per pair")
    a = ap.parse_args()
    rows = sharded.read_rows(TSV)
    if a.bounds and a.engine != "analytic":
        print("zeropp.py: --bounds reads the analytic engine's comm_s (the calls' durations "
              "summed); the DES's spans each program with its codec steps: give --engine "
              "analytic", file=sys.stderr)
        return 2
    serial = {} if a.bounds else None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            now = run(a.gcsim, rows, a.engine, tmp, serial)
            before = run(a.before, rows, a.engine, tmp) if a.before else {}
    except RuntimeError as e:
        print("gcsim failed: %s" % e, file=sys.stderr)
        return 1
    lines = report(rows, now, before)
    if serial is not None:
        lines += [""] + bounds_report(rows, now, serial)
    text = "\n".join(lines) + "\n"
    if a.markdown and a.markdown != "-":
        with open(a.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def summary(e):
    """Median signed and absolute error and range of a list of signed errors."""
    return "median signed error %+.1f%%, median |error| %.1f%%, range %+.0f%% to %+.0f%%" % (
        100 * statistics.median(e), 100 * statistics.median([abs(x) for x in e]),
        100 * min(e), 100 * max(e))


def bounds_report(rows, now, serial):
    """Markdown lines: per pair, the published speedup, gcsim's (overlapped) and the
    no-overlap one from the same runs, and where the published one falls between them
    (0: at gcsim's overlapped step, 1: at no overlap; outside 0..1 beyond either)."""
    lines = ["| row | published | overlapped (gcsim) | serial (no overlap) | serial error | "
             "position |", "|---|---:|---:|---:|---:|---:|"]
    errs = []
    for r in rows:
        if r["id"] not in serial:
            continue
        pub, sp, ser = float(r["speedup"]), now[r["id"]][0], serial[r["id"]]
        errs.append(ser / pub - 1)
        pos = (pub - sp) / (ser - sp) if abs(ser - sp) > 1e-9 else float("nan")
        lines.append("| %s | %.2f | %.2f | %.2f | %+.0f%% | %.2f |" % (
            r["id"], pub, sp, ser, 100 * (ser / pub - 1), pos))
    lines += ["", "No-overlap bound, %d pairs: %s." % (len(errs), summary(errs))]
    return lines


def report(rows, now, before):
    """Markdown lines: one per pair, then the median and signed errors."""
    cols = "| row | source | model | GPUs | Gb/s per node | tokens/GPU | published | gcsim |"
    sep = "|---|---|---|---:|---:|---:|---:|---:|"
    if before:
        cols += " before |"
        sep += "---:|"
    lines = [cols + " error | ZeRO++ GB/GPU |", sep + "---:|---:|"]
    errs, errs_before = [], []
    for r in rows:
        pub = float(r["speedup"])
        if r["id"] not in now:
            lines.append("| %s | %s | %s | %s | not stated | %s | %.2f | not predicted |%s - | - |"
                         % (r["id"], r["figure"], r["model"], r["gpus"], r["tokens_per_gpu"], pub,
                            " - |" if before else ""))
            continue
        sp, mem = now[r["id"]]
        err = sp / pub - 1
        errs.append(err)
        cell = ""
        if before:
            b = before[r["id"]][0]
            errs_before.append(b / pub - 1)
            cell = " %.2f (%+.0f%%) |" % (b, 100 * (b / pub - 1))
        lines.append("| %s | %s | %s | %s | %s | %s | %.2f | %.2f |%s %+.0f%% | %.1f%s |" % (
            r["id"], r["figure"], r["model"], "384 (assumed)" if r["gpus"] == "?" else r["gpus"],
            r["internode_gbps_per_node"], r["tokens_per_gpu"], pub, sp, cell, 100 * err, mem,
            " (no fit)" if mem > GPU_MEMORY_GB else ""))
    lines.append("")
    if errs:
        lines.append("%d pairs: %s." % (len(errs), summary(errs)))
        if errs_before:
            lines.append("Before (--before): %s." % summary(errs_before))
    return lines


if __name__ == "__main__":
    sys.exit(main())
