#!/usr/bin/env python3
"""1-bit Adam against Adam, end to end and in the compression stage: gcsim's predicted speedup
against the published one (issue 43).

    onebit_adam.py [--gcsim PATH] [--engine analytic|des] [--markdown [FILE]]

Every row of tests/validation/onebit_adam.tsv is a published pair (DeepSpeed's 1-bit Adam blog,
https://www.deepspeed.ai/2020/09/08/onebit-adam-news.html and its long post,
docs/_posts/2020-09-09-onebit-adam-blog-post.md in deepspeedai/DeepSpeed, read 2026-11-28):
the same model, GPUs and network trained with DeepSpeed's Adam and with its 1-bit Adam.
gcsim predicts it with `gcsim predict --optimizer onebit-adam:freeze=F --steps-total T`
(sim/planning/run_phases.h): F uncompressed steps, then 1-bit steps, each costed by the
engine. An end_to_end row compares the run's end-to-end speedup; a compression_stage row
compares one 1-bit step against one Adam step (full step time / 1-bit step time). The error
is predicted / published - 1, signed. These rows are validation data: nothing in gcsim is
fitted to them, and this script asserts no accuracy (it fails only when gcsim fails or a
row does not parse).

Inputs, each marked:
  - network (measured, the blog, sec. 3): "the effective bandwidth on 40 Gigabit Ethernet is
    4.1 Gbps based on iperf benchmarks whereas InfiniBand provides near-peak bandwidth of
    32Gbps based on InfiniBand perftest": the NIC's bandwidth is set to those figures;
    latency 30 us Ethernet, 2 us InfiniBand (assumed);
  - nodes of 4 V100 (assumed: the paper's Ethernet cluster, Tang et al. 2021 sec. 3.1, and
    the tutorial's "32 GPUs (4GPUs/node, 8 nodes in total)" InfiniBand example), NVLink
    inside the node (assumed), 32 GB, 125 TFLOP/s fp16 (V100 SXM2 datasheet);
  - GPU count (assumed): 64 for BERT-Large pre-training (the paper's 64-GPU runs; the blog
    says "up to"), 32 for SQuAD (the blog and tutorial: batch 96 = 3 per GPU on 32 GPUs);
  - batch (published): pre-training 4096 sequences of 128 tokens, 16 per GPU (tutorial's
    bsz4k_seq128 config and the blog's Figure 3), so 4 micro-batches per step at 64 GPUs;
    SQuAD 3 per GPU of 384 tokens (tutorial), one micro-batch;
  - warm-up (published): freeze_step 23000 (tutorial), 15% of the run (blog: "the warmup stage
    to be just 15%"), so 153333 steps in all (derived); SQuAD freeze_step 400 (tutorial),
    "25% warmup plus 75% compression stage" (blog), 1600 steps (derived);
  - compute, pre-training (measured, not fitted to these rows): Tang et al. 2021 Table 1
    (arXiv 2102.02888; the 64-GPU, 16 per GPU, accumulation 4 rows), forward + backward of
    four micro-batches 137.80 + 243.72 ms (Ethernet cluster) and 131.04 + 237.92 ms
    (InfiniBand cluster), per micro-batch 95.38 and 92.24 ms (--step-time); the table's
    "other" (optimizer) time, about 75 ms a step, is not charged (gcsim has no optimizer
    step time): it would lower both step times equally;
  - compute, SQuAD (derived): gcsim's roofline model of BERT-Large at fp16 on the V100;
  - fp16 (the blog: 1-bit Adam verified under fp16), Adam, DeepSpeed's all-reduce after
    backward (deepspeed/runtime/engine.py _backward_epilogue: --no-overlap), the fused stack
    (one set of kernels per tensor, no framework cost; DeepSpeed's cupy packbits);
  - 1-bit steps: DeepSpeed's compressed all-reduce priced as ef+signsgd by all-reduce
    (sim/planning/run_phases.h).
Standard library only; exit 0 unless gcsim fails (1) or a file is bad (2).
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

TSV = os.path.join(HERE, "onebit_adam.tsv")
NETWORK = {"40GbE": ("ethernet", "30us"), "40G-IB-QDR": ("infiniband", "2us")}


def model_file(task, seq, folder):
    head = "squad" if task == "bert-large-squad" else "pretraining"
    layers = gen_models.bert_base_layers(30522, 1024, 24, 4096, 512, seq, head=head)
    doc = gen_models.model_doc(
        "%s-%d" % (task, seq), "BERT-Large, %s head, %d tokens" % (head, seq),
        "tests/validation/onebit_adam.py: Devlin et al. 2019 BERT-Large", 16, layers, [],
        {"precision": "fp16", "optimizer": "adam", "tokens_per_sample": seq,
         "activation_bytes_per_sample": gen_models.transformer_activation_bytes(
             seq, 1024, 24, 2 if head == "squad" else 30522, False)})
    path = os.path.join(folder, "model-%s-%d.json" % (task, seq))
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def platform_file(r, folder):
    kind, latency = NETWORK[r["network"]]
    per_node = int(r["gpus_per_node"])
    nodes = max(1, int(r["gpus"]) // per_node)
    p = {"name": "onebit-adam-%s" % r["network"].lower(),
         "description": "%d nodes of %d V100 32GB, %s at %s Gbps effective"
                        % (nodes, per_node, r["network"], r["effective_gbps"]),
         "sources": {"all": "tests/validation/onebit_adam.py docstring"},
         "nodes": nodes, "gpus_per_node": per_node,
         "gpu": {"type": "v100", "speed": "15.7Tflops", "memory": "32GB",
                 "memory_bandwidth": "900GBps", "speed_16bit": "125Tflops"},
         "intra_node": {"kind": "nvlink", "gpu_to_host": "12.15GBps", "links_per_pair": 1,
                        "link_bandwidth": "25GBps", "latency": "10us"},
         "nic": {"kind": kind, "bandwidth": "%sGbps" % r["effective_gbps"], "latency": latency,
                 "per_node": 1},
         "fabric": {"topology": "star", "switch_latency": "1us"}}
    path = os.path.join(folder, "platform-%s.json" % r["id"])
    with open(path, "w") as f:
        json.dump(p, f)
    return path


def predict(gcsim, r, engine, tmp):
    argv = [gcsim, "predict", "--model", model_file(r["task"], int(r["seq"]), tmp),
            "--platform", platform_file(r, tmp), "--gpus", r["gpus"],
            "--batch", r["batch_per_gpu"], "--grad-accum", r["grad_accum"],
            "--precision", "fp16", "--stack", "fused", "--no-overlap", "--no-memory-check",
            "--optimizer", "onebit-adam:freeze=%s" % r["freeze_step"],
            "--steps-total", r["total_steps"], "--engine", engine, "--format", "json"]
    if r["step_time_ms"] != "?":
        argv += ["--step-time", "%sms" % r["step_time_ms"]]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (r["id"], p.stderr.strip() or "exit %d" % p.returncode))
    row = json.loads(p.stdout)["rows"][-1]
    if r["metric"] == "end_to_end":
        return row["speedup"], row
    return row["full_step_s"] / row["onebit_step_s"], row


def check_rows(rows):
    for r in rows:
        if r["metric"] not in ("end_to_end", "compression_stage") or r["network"] not in NETWORK:
            sys.exit("%s: row %s: metric or network not known" % (TSV, r["id"]))
        try:
            float(r["published"]), int(r["gpus"]), int(r["freeze_step"])
        except ValueError:
            sys.exit("%s: row %s: a number does not parse" % (TSV, r["id"]))


def report(rows, now, engine):
    lines = ["| row | task | network (effective) | GPUs | metric | published | gcsim (%s) | "
             "error | full / 1-bit step ms |" % engine,
             "|---|---|---|---:|---|---:|---:|---:|---:|"]
    errs = []
    for r in rows:
        pred, row = now[r["id"]]
        err = pred / float(r["published"]) - 1.0
        errs.append(err)
        lines.append("| %s | %s | %s (%s Gb/s) | %s | %s | %.2fx | %.2fx | %+.0f%% | %.0f / %.0f |"
                     % (r["id"], r["task"], r["network"], r["effective_gbps"], r["gpus"],
                        r["metric"].replace("_", " "), float(r["published"]), pred, 100 * err,
                        1e3 * row["full_step_s"], 1e3 * row["onebit_step_s"]))
    lines.append("")
    lines.append("%d pairs; median |error| %.0f%%; signed errors %s." % (
        len(errs), 100 * statistics.median(abs(e) for e in errs),
        ", ".join("%+.0f%%" % (100 * e) for e in errs)))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gcsim", default=os.path.join(REPO, "build", "sim", "cli", "gcsim"))
    ap.add_argument("--engine", default="analytic")
    ap.add_argument("--markdown", nargs="?", const="-")
    a = ap.parse_args()
    rows = sharded.read_rows(TSV)
    check_rows(rows)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            now = {r["id"]: predict(a.gcsim, r, a.engine, tmp) for r in rows}
    except RuntimeError as e:
        print("gcsim failed: %s" % e, file=sys.stderr)
        return 1
    text = "\n".join(report(rows, now, a.engine)) + "\n"
    if a.markdown and a.markdown != "-":
        with open(a.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
