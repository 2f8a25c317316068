#!/usr/bin/env python3
"""Generate models/*.json from public figures.

Run from anywhere:  python3 models/gen_models.py   (Debian's /usr/bin/python3, stdlib only)

Layers of the CNNs come from models/data/per_layer_params.csv (its sources are in
models/data/README.md); the PTB LSTM and BERT-base layers are
computed here, with the arithmetic in docs/catalog.md. Every compute-profile point is either
a published figure (FIGURES below, each with its source) or derived from published figures
by a rule written next to it (derive_*); the rule and the inputs end up in the profile's
"source" text. docs/catalog.md explains each derivation. Re-running the script rewrites the
JSON files byte for byte the same. (models/alexnet-terngrad-fitted.json is not written here
but by models/fit_terngrad_alexnet.py, which needs a built gcsim.)
"""
import csv
import glob
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV_PATH = os.path.join(REPO, "models", "data", "per_layer_params.csv")
OUT_DIR = os.path.join(REPO, "models")
VALIDATION_MODELS = os.path.join(REPO, "tests", "validation", "models")

# --- public figures ---------------------------------------------------------------------
# Peak fp32 speeds (TFLOP/s), vendor spec sheets; used only for same-architecture scaling.
PEAK_TFLOPS = {
    "titan-x-pascal": 10.97,  # 3584 cores x 1531 MHz boost x 2 (NVIDIA Titan X Pascal spec)
    "titan-xp": 12.15,        # 3840 cores x 1582 MHz boost x 2 (NVIDIA Titan Xp spec)
    "p40": 11.76,             # calibration notes, models/data/README.md (3840 x 1531 MHz x 2)
    "p100": 10.6,             # NVIDIA Tesla P100 SXM2 (NVLink) datasheet
}
# HBM bandwidth, for A100 -> H100 (ResNet-50 on A100 uses ~15% of TF32 peak: memory bound)
A100_80G_TBPS = 2.039   # NVIDIA A100 80GB SXM datasheet
H100_SXM_TBPS = 3.35    # NVIDIA H100 SXM5 80GB datasheet

JCJ = "jcjohnson/cnn-benchmarks"
# jcjohnson's harness rerun on a Tesla V100 16 GB (AWS P3 / Paperspace), same Torch models and
# settings (batch 16, 224x224, forward + backward, no optimizer step): dmikushin/cnn-benchmarks
# README.md @1a67201 (2019-10-23), V100 rows (cuDNN 7.0.04)
DMK = "dmikushin/cnn-benchmarks README @1a67201 (2019-10-23), jcjohnson's harness"
CHAINER = "chainer-performance-improvements BENCHMARK.md"

# Measured single-GPU fp32 forward+backward times, seconds per batch: (gpu, model, batch).
# All listed with their sources in models/data/README.md.
FIGURES = {
    ("gtx1080", "alexnet", 16): (20.74e-3, "Torch7, cuDNN 5.1", JCJ),
    ("gtx1080", "googlenet", 16): (56.16e-3, "Torch, cuDNN 5.0", JCJ + " (Inception-V1)"),
    ("gtx1080", "vgg16", 16): (182.79e-3, "Torch, cuDNN 5.1", JCJ),
    ("gtx1080", "resnet50", 16): (149.82e-3, "Torch, cuDNN 5.1", JCJ),
    ("titan-x-pascal", "alexnet", 16): (14.56e-3, "Torch, cuDNN 5.1", JCJ),
    ("titan-x-pascal", "googlenet", 16): (39.14e-3, "Torch, cuDNN 5.1", JCJ + " (Inception-V1)"),
    ("titan-x-pascal", "vgg16", 16): (128.62e-3, "Torch, cuDNN 5.1", JCJ),
    ("titan-x-pascal", "resnet50", 16): (103.58e-3, "Torch, cuDNN 5.1", JCJ),
    ("titan-x-pascal", "alexnet", 128): (46.35e-3, "Torch, cuDNN 5.1", CHAINER),
    ("titan-x-pascal", "googlenet", 128): (244.74e-3, "Torch, cuDNN 5.1", CHAINER),
    ("p100", "resnet50", 32): (32 / 195.0, "TensorFlow, synthetic data",
                               "tensorflow.org benchmarks page, 195 img/s"),
    ("v100", "resnet50", 112): (112 / 367.0, "PyTorch, NGC 21.03, FP32",
                                "NVIDIA DeepLearningExamples RN50v1.5 README, 367 img/s; "
                                "batch 112 from its configs.yml (DGX1V FP32)"),
    ("a100", "resnet50", 256): (256 / 938.0, "PyTorch, NGC 21.03, TF32",
                                "NVIDIA DeepLearningExamples RN50v1.5 README, 938 img/s; "
                                "batch 256 from its configs.yml (DGXA100 TF32)"),
    # GeForce RTX 2080 Ti (issue 24's validation cases): Lambda's run of NVIDIA's
    # DeepLearningExamples (pytorch:20.01 container, the largest batch that fits) and
    # ryujaehun/pytorch-gpu-benchmark (torchvision models, synthetic data, forward + loss +
    # backward without the optimizer step, median of 50 iterations at batch 12)
    ("rtx2080ti", "resnet50", 100): (100 / 275.0, "PyTorch, NGC 20.01, FP32",
                                     "lambdal/deeplearning-benchmark pytorch-train-throughput-"
                                     "fp32.csv and -bs-fp32.csv @000bc82, RTX 2080Ti: 275 img/s, "
                                     "batch 100"),
    ("rtx2080ti", "vgg16", 12): (85.36e-3, "PyTorch, CUDA 10.0, cuDNN 7.6",
                                 "ryujaehun/pytorch-gpu-benchmark new_results (RTX 2080 Ti, "
                                 "float, train): VGG-16 85.36 ms at batch 12"),
    # the same run's vgg16_bn column (torchvision vgg16_bn, what DGC's ImageNet VGG trains:
    # synxlin/deep-gradient-compression@b929ca7 configs/imagenet/vgg16_bn.py): median of its 50
    # iterations, new_results/GeForce RTX 2080 Ti_1_gpus__float_model_train_benchmark.csv
    # @3f47a9e
    ("rtx2080ti", "vgg16_bn", 12): (98.52e-3, "PyTorch, CUDA 10.0, cuDNN 7.6",
                                    "ryujaehun/pytorch-gpu-benchmark new_results @3f47a9e (RTX "
                                    "2080 Ti, float, train): vgg16_bn 98.52 ms at batch 12"),
    # Tesla V100 16 GB, the models the validation cases run on V100 (issue 24/43: Bagua,
    # BytePS VGG-16; MergeComp ResNet-101); chosen over the other public V100 VGG-16 figure
    # (tensorlayer/TensorLayer tests/performance_test/vgg: PyTorch 1.0.1, batch 32 with Adam,
    # 41-43 s for 300 host-timed steps including the first, i.e. 137-143 ms, no
    # cudnn.benchmark) because it is the harness of the Titan X Pascal / GTX 1080 figures
    # above, excludes warm-up and states its cuDNN; the two agree within ~10% per image.
    ("v100", "vgg16", 16): (76.45e-3, "Torch, cuDNN 7.0.04, FP32", DMK + ": VGG-16 76.45 ms"),
    ("v100", "resnet101", 16): (113.75e-3, "Torch, cuDNN 7.0.04, FP32",
                                DMK + ": ResNet-101 (fb.resnet.torch) 113.75 ms"),
    ("rtx2080ti", "resnet101", 12): (92.66e-3, "PyTorch, CUDA 10.0, cuDNN 7.6",
                                     "ryujaehun/pytorch-gpu-benchmark new_results (RTX 2080 Ti, "
                                     "float, train): ResNet-101 92.66 ms at batch 12"),
}

# GeForce RTX 3090 (issue 24's validation cases from the CGX benchmarks): the page's figures
# (pytorch-cgx.github.io/benchmarks, assets/images/*_comparison.png) show weak scaling on one
# server of 8 RTX 3090 with a red "Ideal" bar at 8 GPUs, 8 x the single-GPU throughput; read
# off the figures by pixel (+-1-2%). Neither the batch per GPU nor the precision is stated.
# BERT's figure is read as tokens/s (of 384-token sequences: 12.5 TFLOP/s, 35% of the fp32
# peak); 6,513 sequences/s of BERT-large on one GPU would need 4.8 PFLOP/s, 135x the peak.
CGX_BENCHMARKS = "CGX benchmarks page (pytorch-cgx.github.io/benchmarks"
CGX_IDEAL_8 = {"resnet50": (3119, "RN50", "img/s"), "vit": (1995, "ViT", "img/s"),
               "bert": (52101, "BERT", "tokens/s")}

# One NVIDIA A40 (issue 24's validation case from EgoVerse): GaTech-RL2/EgoVerse pull
# request #667 (2026-09-19, measured 2026-09-16) states 1.4 s/step on a single GPU at batch
# 16 for its ~1.2B-parameter policy (fp32 weights and optimizer).
# Marked derived: measured on the PR's policy, carried to the stand-in model below.
EGOVERSE_A40 = (16, 1.4, "derived: the step time GaTech-RL2/EgoVerse PR #667 measured "
                "(2026-09-16) for its ~1.2B-parameter policy, 1.4 s/step on a single A40 at "
                "batch 16 (the trainer's whole step), carried to this stand-in")


def cgx_rtx3090(key, batch, units_per_sample=1):
    """The RTX 3090 profile a CGX figure implies: the Ideal bar / 8 per GPU, at `batch`."""
    total, fig, unit = CGX_IDEAL_8[key]
    per_gpu = total / 8.0
    src = ("derived: %s, %s figure): Ideal bar at 8 GPUs ~%d %s / 8 = %.1f per GPU; batch "
           "and precision not stated: the model's default batch, fp32"
           % (CGX_BENCHMARKS, fig, total, unit, per_gpu))
    assert len(src) < 256, src
    return {"gpu": "rtx3090", "framework": "PyTorch DDP (CGX benchmarks; versions not stated)",
            "source": src,
            "points": [{"batch": batch, "time": ms(batch * units_per_sample / per_gpu)}]}


# Throughput ratio of a GPU against the Titan X Pascal, measured on ResNet-50 (the only model
# with a figure on every data-center GPU). Batches differ (16 on the Titan X, 32/112/256 on
# the others): the ratio includes some batch-size gain and a framework difference.
def rn50_ratio(gpu):
    b, = [k[2] for k in FIGURES if k[0] == gpu and k[1] == "resnet50"]
    t, _, _ = FIGURES[(gpu, "resnet50", b)]
    return (b / t) / (16 / FIGURES[("titan-x-pascal", "resnet50", 16)][0])


def ms(t):
    return "%.2fms" % (t * 1e3)


# --- layers ------------------------------------------------------------------------------
def csv_layers(model_key):
    """Layers of one CSV model: bias and batch-norm counts kept apart, FLOPs = 2 x MACs."""
    if not os.path.isfile(CSV_PATH):
        sys.exit("gen_models.py: calibration CSV not found at %s" % CSV_PATH)
    layers = []
    with open(CSV_PATH, newline="") as f:
        for row in csv.DictReader(f):
            if row["model"] != model_key:
                continue
            l = {"name": row["layer"], "kind": row["type"], "weights": int(row["weights"]),
                 "bias": int(row["bias"])}
            if int(row["bn_params"]):
                l["other_params"] = int(row["bn_params"])
            l["fwd_flops"] = 2 * int(row["fwd_MACs"])
            assert l["weights"] + l["bias"] + int(row["bn_params"]) == int(row["params"])
            layers.append(l)
    if not layers:
        sys.exit("gen_models.py: no rows for %s in %s" % (model_key, CSV_PATH))
    return layers


def resnet_bottleneck_layers(blocks, classes=1000, image=224):
    """torchvision's ResNet v1.5 with bottleneck blocks (stride on the 3x3 convolution), for
    224x224 inputs: conv and batch norm as one layer, FLOPs = 2 x MACs. blocks = [3, 4, 6, 3]
    reproduces the calibration CSV's ResNet-50 row for row (checked in main)."""
    out = []

    def conv(name, cin, cout, k, hw):
        w = cin * cout * k * k
        out.append({"name": name, "kind": "conv", "weights": w, "bias": 0,
                    "other_params": 2 * cout, "fwd_flops": 2 * w * hw * hw})
    hw = image // 2
    conv("conv1", 3, 64, 7, hw)
    hw //= 2  # max pool
    cin = 64
    for stage, n in enumerate(blocks):
        width = 64 * 2 ** stage
        for b in range(n):
            stride = 2 if stage > 0 and b == 0 else 1
            name = "layer%d.%d." % (stage + 1, b)
            conv(name + "conv1", cin, width, 1, hw)
            conv(name + "conv2", width, width, 3, hw // stride)
            conv(name + "conv3", width, 4 * width, 1, hw // stride)
            if b == 0:
                conv(name + "downsample", cin, 4 * width, 1, hw // stride)
            hw //= stride
            cin = 4 * width
    out.append({"name": "fc", "kind": "fc", "weights": cin * classes, "bias": classes,
                "fwd_flops": 2 * cin * classes})
    return out


def lstm_ptb_layers(vocab=10000, hidden=1500, bptt=35):
    """DGC's PTB model: 2-layer LSTM, 1500 hidden, tied encoder/decoder (PyTorch layout:
    W_ih, W_hh and two bias vectors per layer). One sample = one sequence of `bptt` tokens."""
    g = 4 * hidden
    emb = {"name": "encoder", "kind": "embedding", "weights": vocab * hidden, "bias": 0,
           "fwd_flops": 0}
    lstm = [{"name": "lstm%d" % i, "kind": "lstm", "weights": g * hidden + g * hidden,
             "bias": 2 * g, "fwd_flops": 2 * (g * hidden + g * hidden) * bptt}
            for i in (1, 2)]
    dec = {"name": "decoder (weight tied to encoder)", "kind": "fc", "weights": 0,
           "bias": vocab, "fwd_flops": 2 * hidden * vocab * bptt}
    return [emb] + lstm + [dec]


def bert_base_layers(vocab=30522, hidden=768, layers=12, ffn=3072, max_pos=512, seq=128,
                     head="pretraining"):
    """BERT-base with its pre-training heads (BertForPreTraining: MLM decoder weight tied to
    the word embedding). One sample = one sequence of `seq` tokens; the MLM head runs on all
    tokens (as in the Hugging Face implementation). head="squad": the SQuAD span head instead
    (BertForQuestionAnswering: a linear layer to start and end logits per token), the pooler
    kept as BertModel holds it (pytorch-pretrained-BERT, NVIDIA DeepLearningExamples; Hugging
    Face transformers >= 4 builds the QA model without it)."""
    h = hidden
    out = [{"name": "embeddings", "kind": "embedding",
            "weights": vocab * h + max_pos * h + 2 * h, "bias": 0, "other_params": 2 * h,
            "fwd_flops": 0}]
    for i in range(layers):
        # Q, K, V, output projections; scores QK^T and weighted sum AV: 2 x seq x h MACs/token
        # four h x h weight tensors; two of h x ffn (each h + ffn as rows + columns)
        out.append({"name": "layer%d.attention" % i, "kind": "attention",
                    "weights": 4 * h * h, "bias": 4 * h, "other_params": 2 * h,
                    "fwd_flops": 2 * seq * (4 * h * h + 2 * seq * h),
                    "matrices": 4, "rows": h})
        out.append({"name": "layer%d.ffn" % i, "kind": "fc",
                    "weights": 2 * h * ffn, "bias": ffn + h, "other_params": 2 * h,
                    "fwd_flops": 2 * seq * (2 * h * ffn), "matrices": 2, "rows": h})
    out.append({"name": "pooler", "kind": "fc", "weights": h * h, "bias": h,
                "fwd_flops": 2 * h * h})
    if head == "squad":
        out.append({"name": "qa_outputs", "kind": "fc", "weights": 2 * h, "bias": 2,
                    "fwd_flops": 2 * seq * h * 2})
        return out
    assert head == "pretraining", head
    out.append({"name": "mlm.transform", "kind": "fc", "weights": h * h, "bias": h,
                "other_params": 2 * h, "fwd_flops": 2 * seq * h * h})
    out.append({"name": "mlm.decoder (weight tied to word embedding)", "kind": "fc",
                "weights": 0, "bias": vocab, "fwd_flops": 2 * seq * h * vocab})
    out.append({"name": "nsp", "kind": "fc", "weights": 2 * h, "bias": 2,
                "fwd_flops": 2 * 2 * h})
    return out


def decoder_layers(vocab, ctx, hidden, layers, ffn, seq, gpt2, heads=None, kv_heads=None):
    """A decoder-only transformer, one sample = one sequence of `seq` tokens.
    gpt2=True: GPT-2 (learned positions, LayerNorm with bias, biased projections, GELU MLP
    of two matrices, LM head tied to the token embedding). gpt2=False: Llama (rotary
    positions, RMSNorm weights only, no biases, SwiGLU MLP of three matrices, untied head).
    kv_heads < heads: grouped-query attention (Ainslie et al. 2023; Llama 2 70B, Llama 3):
    the K and V projections are h x kv with kv = h * kv_heads / heads; without them (or
    with kv_heads == heads) every projection is h x h, as before."""
    h = hidden
    kv = h if kv_heads is None else h * kv_heads // heads
    assert kv_heads is None or (h * kv_heads) % heads == 0, (h, heads, kv_heads)
    assert kv == h or not gpt2, "GPT-2's fused c_attn has no grouped-query form here"
    emb_w = vocab * h + (ctx * h if gpt2 else 0)
    out = [{"name": "embeddings", "kind": "embedding", "weights": emb_w, "bias": 0,
            "fwd_flops": 0}]
    norm = 2 * h if gpt2 else h
    mlp_mats = 2 if gpt2 else 3
    for i in range(layers):
        # Q, K, V, output projections by their sizes (2h^2 + 2h kv); scores QK^T and
        # weighted sum AV over the full square for every query head, 2 seq h per token
        # with or without grouped-query attention (what a dense kernel computes; a causal
        # kernel skips half of it)
        # weight tensors: GPT-2's c_attn (h x 3h) and c_proj (h x h) hold 4h^2 in two of
        # 2h^2 with the same rows + columns sum (6h); Llama's q, k, v, o are h x h; with
        # grouped-query attention q and o are h x h and k and v kv x h, written the same
        # way as four equal matrices of (h^2 + h kv) / 2, h rows each: the same total and
        # the same rows + columns sum (6h + 2kv), the mean size per matrix (docs/catalog.md);
        # the MLPs' are h x ffn each
        attn = 2 * h * h + 2 * h * kv
        out.append({"name": "layer%d.attention" % i, "kind": "attention",
                    "weights": attn, "bias": 4 * h if gpt2 else 0,
                    "other_params": norm,
                    "fwd_flops": 2 * seq * (attn + 2 * seq * h),
                    "matrices": 2 if gpt2 else 4, "rows": h})
        out.append({"name": "layer%d.mlp" % i, "kind": "fc",
                    "weights": mlp_mats * h * ffn, "bias": ffn + h if gpt2 else 0,
                    "other_params": norm,
                    "fwd_flops": 2 * seq * (mlp_mats * h * ffn),
                    "matrices": mlp_mats, "rows": h})
    head = {"name": "lm_head (weight tied to the token embedding)" if gpt2 else "lm_head",
            "kind": "fc", "weights": 0 if gpt2 else vocab * h, "bias": 0,
            "other_params": norm, "fwd_flops": 2 * seq * h * vocab}
    out.append(head)  # the final norm rides with the head
    return out


def vit_layers(image=224, patch=16, hidden=768, layers=12, ffn=3072, classes=1000):
    """ViT-B/16 (Dosovitskiy et al. 2021, torchvision vit_b_16): one sample = one image,
    (224/16)^2 = 196 patches + the class token."""
    h = hidden
    seq = (image // patch) ** 2 + 1
    patches = seq - 1
    out = [{"name": "patch_embed", "kind": "conv", "weights": 3 * patch * patch * h,
            "bias": h, "other_params": h + seq * h,  # class token and position embedding
            "fwd_flops": 2 * patches * 3 * patch * patch * h}]
    for i in range(layers):
        out.append({"name": "layer%d.attention" % i, "kind": "attention",
                    "weights": 4 * h * h, "bias": 4 * h, "other_params": 2 * h,
                    "fwd_flops": 2 * seq * (4 * h * h + 2 * seq * h),
                    "matrices": 4, "rows": h})
        out.append({"name": "layer%d.mlp" % i, "kind": "fc", "weights": 2 * h * ffn,
                    "bias": ffn + h, "other_params": 2 * h,
                    "fwd_flops": 2 * seq * (2 * h * ffn), "matrices": 2, "rows": h})
    out.append({"name": "head", "kind": "fc", "weights": h * classes, "bias": classes,
                "other_params": 2 * h, "fwd_flops": 2 * h * classes})
    return out


# Activations kept for backward, bytes per sample at 16 bits: Korthikanti et al. 2022
# ("Reducing Activation Recomputation in Large Transformer Models", Sec. 4.1) count
# s*h*(34 + 5*a*s/h) bytes per layer; the 5*a*s^2 attention-matrix term is left out because
# fused attention (PyTorch SDPA, FlashAttention) does not store it. Plus the logits, kept in
# fp32 for the loss (s x vocab x 4 bytes). fp32 training doubles the per-layer part. A
# lower bound: workspace, autocast's weight copies and the allocator come on top
# (docs/catalog.md compares with the measured peaks).
def transformer_activation_bytes(seq, hidden, layers, vocab_or_classes, fp32):
    per_layer = seq * hidden * 34 * (2 if fp32 else 1)
    return layers * per_layer + seq * vocab_or_classes * 4


def total_flops(layers):
    return sum(l["fwd_flops"] for l in layers)


# --- profiles ----------------------------------------------------------------------------
# every model run of a GPU: GPU-models.json (ResNet-50, BERT-base, GPT-2 small) and
# GPU-models-more.json (the catalog's other models, 2026-11-25)
GPU_RESULTS = os.path.join(REPO, "bench", "gpu", "results", "%s-models*.json")
BENCH_PRECISIONS = {"fp32_tf32": "tf32", "bf16_autocast": "bf16"}
# where the network measured is not exactly the catalog's
BENCH_NOTES = {"alexnet": "; torchvision's AlexNet: BVLC's layers without the two channel "
                          "groups (0.71 against 0.72 billion multiply-adds a sample)"}


def gpu_measured(gpu, bench_model):
    """Profiles measured in this repository on one GPU of type `gpu` (an H100 on 2026-11-22,
    an H200 on 2026-11-25; docs/gpu-measurements.md): one per precision, every batch
    measured, time = median training step (forward, loss, backward and the SGD step, whose
    ~0.3-2.5 ms is included); backward share from the largest batch."""
    runs = []
    for path in sorted(glob.glob(GPU_RESULTS % gpu)):
        with open(path) as f:
            d = json.load(f)
        if any(c["model"] == bench_model for c in d["configs"]):
            runs.append((path, d))
    if len(runs) != 1:
        sys.exit("gen_models.py: %s on %s: in %d result files, expected 1"
                 % (bench_model, gpu, len(runs)))
    path, d = runs[0]
    prov = d["provenance"]
    out = []
    for prec, name in BENCH_PRECISIONS.items():
        rows = sorted((c for c in d["configs"]
                       if c["model"] == bench_model and c["precision"] == prec),
                      key=lambda c: c["batch"])
        # A batch that took longer than a larger one was host-bound (launch overhead,
        # noisy: see the p90 in the results); it is left out so that time grows with batch.
        rows = [c for i, c in enumerate(rows)
                if all(c["step_ms_median"] < r["step_ms_median"] for r in rows[i + 1:])]
        if not rows:
            continue
        big = rows[-1]
        bf = big["backward_ms_median"] / (big["forward_ms_median"] + big["backward_ms_median"])
        fw = "PyTorch %s, cuDNN %d, %s; %s" % (prov["torch"], prov["cudnn"],
                                                prov["gpu_name"], d["settings"][prec])
        src = ("measured: bench/gpu/results/%s (%s, %s), median step time over %d steps"
               % (os.path.basename(path), bench_model, prov["date_utc"][:10], big["timed_steps"])
               + BENCH_NOTES.get(bench_model, ""))
        if len(fw) > 127:  # the field's room: whole clauses only
            fw = fw[:127][:fw[:127].rfind("; ") + 2]
        out.append({"gpu": gpu, "precision": name, "framework": fw, "source": src,
                    "points": [{"batch": c["batch"], "time": "%.3fms" % c["step_ms_median"]}
                               for c in rows],
                    "backward_fraction": round(bf, 4)})
    return out


def h100_measured(bench_model):
    return gpu_measured("h100", bench_model)


def h200_measured(bench_model):
    """The H200's own measurements; platforms/h200-ndr.json takes the H100's profiles
    (gpu.profile_as) for the models that have none of these."""
    return gpu_measured("h200", bench_model)


def with_h100(profiles, measured_h100):
    """Measured H100 profiles replace a derived one (a measured profile always wins)."""
    return [p for p in profiles if p["gpu"] != "h100"] + measured_h100


def derived_from(base, ratio, base_name):
    p = scaled(base["gpu"], base, ratio, "no public figure; %s time x fwd-FLOP ratio, same GPU "
               "and precision" % base_name)
    p["precision"] = base["precision"]
    return p


def measured(gpu, model, batches):
    pts, fw = [], None
    for b in batches:
        t, fw, _ = FIGURES[(gpu, model, b)]
        pts.append({"batch": b, "time": ms(t)})
    srcs = sorted({FIGURES[(gpu, model, b)][2] for b in batches})
    return {"gpu": gpu, "framework": fw, "source": "measured: " + "; ".join(srcs),
            "points": pts}


def scaled(gpu, base_profile, factor, why):
    """Every point of base_profile with its time multiplied by `factor`."""
    pts = [{"batch": p["batch"], "time": ms(float(p["time"][:-2]) * 1e-3 * factor)}
           for p in base_profile["points"]]
    src = "derived: %s profile x %.4f (%s)" % (base_profile["gpu"], factor, why)
    assert len(src) < 256, src
    fw = base_profile["framework"]
    if gpu != base_profile["gpu"] and not fw.startswith("as "):
        fw = "as %s: %s" % (base_profile["gpu"], fw)
    return {"gpu": gpu, "framework": fw, "source": src, "points": pts}


def same_arch_from_txp(gpu, txp):
    f = PEAK_TFLOPS["titan-x-pascal"] / PEAK_TFLOPS[gpu]
    return scaled(gpu, txp, f, "no public figure; same Pascal architecture: Titan X Pascal/%s "
                  "peak fp32 %.2f/%.2f TFLOP/s" % (gpu, PEAK_TFLOPS["titan-x-pascal"],
                                                 PEAK_TFLOPS[gpu]))


def from_txp_by_rn50(gpu, txp):
    r = rn50_ratio(gpu)
    return scaled(gpu, txp, 1 / r, "no public figure; %s/Titan X Pascal ResNet-50 throughput "
                  "ratio %.3f applied, see docs/catalog.md" % (gpu, r))


def gpu_family(model, gtx, txp, direct=()):
    """Profiles on every GPU for a CNN, given its GTX 1080 and Titan X Pascal profiles;
    GPUs in `direct` have a measured profile already in the dict."""
    profs = {"gtx1080": gtx, "titan-x-pascal": txp}
    # Pascal GPUs: the Titan X Pascal scaled by peak fp32 (same architecture). The P100's
    # measured ResNet-50 ratio (1.26, TensorFlow on a DGX-1 against Torch) is not used for
    # other models: applied to VGG it would imply 1.4x the P100's peak.
    for g in ("titan-xp", "p40", "p100"):
        profs[g] = same_arch_from_txp(g, txp)
    # Volta and Ampere: no same-architecture baseline; the measured ResNet-50 ratio (which
    # includes newer software and larger batches, and TF32 on the A100).
    for g in ("v100", "a100"):
        profs[g] = from_txp_by_rn50(g, txp)
    profs.update(dict(direct))
    if "a100" in profs:
        f = A100_80G_TBPS / H100_SXM_TBPS
        profs["h100"] = scaled("h100", profs["a100"], f,
                               "no public figure; A100/H100 HBM bandwidth %.3f/%.2f TB/s "
                               "(ResNet-50 on A100 is memory bound)" % (A100_80G_TBPS,
                                                                         H100_SXM_TBPS))
    order = ["gtx1080", "titan-x-pascal", "titan-xp", "p100", "p40", "v100", "a100", "h100",
             "rtx2080ti"]
    return [profs[g] for g in order if g in profs]


def flop_scaled_from(gpu, base, ratio, base_name):
    return scaled(gpu, base, ratio, "no public figure; %s time x fwd-FLOP ratio, same GPU"
                  % base_name)


# Batch effect on the V100 in the same harness (dmikushin/cnn-benchmarks README, "The effect
# of varying minibatch size", total ms at batch 16 / 32 / 64): VGG-19 87.97 / 166.77 /
# 327.46, ResNet-34 32.51 / 56.43 / 108.50. Only batch 16 was measured for VGG-16 and
# ResNet-101; their larger batches take the nearest measured relative's time ratio.
V100_BATCH_CURVE = {"vgg19": {16: 87.97e-3, 32: 166.77e-3, 64: 327.46e-3},
                    "resnet34": {16: 32.51e-3, 32: 56.43e-3, 64: 108.50e-3}}


def v100_with_batch_curve(model, relative):
    """The V100's measured batch-16 point, and batches 32 and 64 derived from it by the
    time ratio `relative` shows in the same harness on the same GPU (an assumption: the
    two networks gain alike from a larger batch)."""
    p = measured("v100", model, [16])
    t16 = FIGURES[("v100", model, 16)][0]
    curve = V100_BATCH_CURVE[relative]
    for b in (32, 64):
        p["points"].append({"batch": b, "time": ms(t16 * curve[b] / curve[16])})
    p["source"] = ("batch 16 measured (%s); batches 32, 64 derived: x its %s time ratios "
                   "32/16, 64/16 on that V100 (%.4f, %.4f)"
                   % (FIGURES[("v100", model, 16)][2], relative, curve[32] / curve[16],
                      curve[64] / curve[16]))
    assert len(p["source"]) < 256, p["source"]
    return p


def gtx_from_txp_128(model):
    """GTX 1080 at batch 128: Titan X Pascal at 128 x the GTX/Titan time ratio at batch 16."""
    g16 = FIGURES[("gtx1080", model, 16)][0]
    t16 = FIGURES[("titan-x-pascal", model, 16)][0]
    t128 = FIGURES[("titan-x-pascal", model, 128)][0]
    f = g16 / t16
    p = measured("gtx1080", model, [16])
    p["points"].append({"batch": 128, "time": ms(t128 * f)})
    p["source"] = ("batch 16 measured (%s); batch 128 derived: Titan X Pascal at 128 (%s) x "
                   "GTX/Titan time ratio at 16, %.4f" % (JCJ, CHAINER, f))
    assert len(p["source"]) < 256, p["source"]
    return p


# --- the catalog -------------------------------------------------------------------------
def write(fname, doc, folder=OUT_DIR):
    """One key per line, one layer or profile per line: diffs stay readable."""
    lines = []
    for k, v in doc.items():
        if isinstance(v, list) and not v:
            lines.append('  "%s": []' % k)
        elif isinstance(v, list):
            items = ",\n".join("    " + json.dumps(x) for x in v)
            lines.append('  "%s": [\n%s\n  ]' % (k, items))
        else:
            lines.append("  %s: %s" % (json.dumps(k), json.dumps(v)))
    with open(os.path.join(folder, fname), "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


def model_doc(name, desc, source, batch, layers, profiles, extra=None):
    params = sum(l["weights"] + l["bias"] + l.get("other_params", 0) for l in layers)
    doc = {"name": name,
           "description": desc % {"params": "{:,}".format(params),
                                  "mib": "%.2f MiB" % (params * 4 / 2**20)},
           "source": source, "batch_per_gpu": batch}
    doc.update(extra or {})
    doc["layers"] = layers
    doc["profiles"] = profiles
    return doc


def main():
    csvsrc = "models/data/per_layer_params.csv (%s); fwd_flops = 2 x fwd_MACs"

    alex = csv_layers("alexnet_caffe_bvlc")
    txp = measured("titan-x-pascal", "alexnet", [16, 128])
    write("alexnet.json", model_doc(
        "alexnet", "BVLC AlexNet (groups=2), ImageNet, %(params)s parameters, %(mib)s fp32",
        csvsrc % "alexnet_caffe_bvlc" + "; batch 128 per GPU: TernGrad paper Fig. 5",
        128, alex, with_h100(gpu_family("alexnet", gtx_from_txp_128("alexnet"), txp),
                             h100_measured("alexnet")) + h200_measured("alexnet")))

    goog = csv_layers("googlenet_caffe_bvlc_noaux")
    txp = measured("titan-x-pascal", "googlenet", [16, 128])
    write("googlenet.json", model_doc(
        "googlenet", "BVLC GoogLeNet without auxiliary heads, %(params)s parameters, %(mib)s fp32",
        csvsrc % "googlenet_caffe_bvlc_noaux" + "; batch 64 per GPU: TernGrad paper Fig. 5",
        64, goog, gpu_family("googlenet", gtx_from_txp_128("googlenet"), txp)))

    vgg16 = csv_layers("vgg16_D")
    vgga = csv_layers("vgg11_A_torchvision")
    r = total_flops(vgga) / total_flops(vgg16)
    gtx16 = measured("gtx1080", "vgg16", [16])
    txp16 = measured("titan-x-pascal", "vgg16", [16])
    write("vgg-a.json", model_doc(
        "vgg-a", "VGG-A (VGG-11, conv biases), ImageNet, %(params)s parameters, %(mib)s fp32",
        csvsrc % "vgg11_A_torchvision" + "; batch 32 per GPU: TernGrad paper Fig. 5",
        32, vgga, with_h100(gpu_family("vgg-a", flop_scaled_from("gtx1080", gtx16, r, "VGG-16"),
                                       flop_scaled_from("titan-x-pascal", txp16, r, "VGG-16")),
                            h100_measured("vgg11")) + h200_measured("vgg11")))
    write("vgg-16.json", model_doc(
        "vgg-16", "VGG-16 (configuration D), ImageNet, %(params)s parameters, %(mib)s fp32",
        csvsrc % "vgg16_D" + "; batch 32 per GPU as VGG-A (no paper fixes one)",
        32, vgg16, with_h100(gpu_family("vgg-16", gtx16, txp16,
                                        [("rtx2080ti", measured("rtx2080ti", "vgg16", [12])),
                                         ("v100", v100_with_batch_curve("vgg16", "vgg19"))]),
                             h100_measured("vgg16")) + h200_measured("vgg16")))

    # Not a catalog model (profiled on one GPU only): the validation cases of DGC's figure
    # (tests/validation/published_*.tsv), which train torchvision's vgg16_bn on RTX 2080 Ti
    write("vgg-16-bn.json", model_doc(
        "vgg-16-bn", "VGG-16 with batch normalisation (torchvision vgg16_bn), ImageNet, "
        "%(params)s parameters, %(mib)s fp32",
        csvsrc % "vgg16_bn_torchvision" + "; batch 32 per GPU (DGC's ImageNet runs: "
        "synxlin/deep-gradient-compression@b929ca7 configs/imagenet/__init__.py)", 32,
        csv_layers("vgg16_bn_torchvision"), [measured("rtx2080ti", "vgg16_bn", [12])]),
        VALIDATION_MODELS)

    rn50 = csv_layers("resnet50_torchvision")
    direct = {g: measured(g, "resnet50", [b]) for (g, m, b) in FIGURES
              if m == "resnet50" and g in ("p100", "v100", "a100", "rtx2080ti")}
    write("resnet-50.json", model_doc(
        "resnet-50", "ResNet-50 v1.5 (torchvision), ImageNet, %(params)s parameters, %(mib)s fp32",
        csvsrc % "resnet50_torchvision" + "; batch 32 per GPU: Goyal et al. 2017",
        32, rn50, with_h100(gpu_family("resnet-50", measured("gtx1080", "resnet50", [16]),
                                       measured("titan-x-pascal", "resnet50", [16]),
                                       direct.items()), h100_measured("resnet50"))
        + h200_measured("resnet50") + [cgx_rtx3090("resnet50", 32)]))

    # Sequence models: no public training figure on these GPUs in models/data, so the
    # ResNet-50 profile on the same GPU is scaled by the forward-FLOP ratio per sample.
    rn50_profiles = gpu_family("resnet-50", measured("gtx1080", "resnet50", [16]),
                               measured("titan-x-pascal", "resnet50", [16]), direct.items())
    # ResNet-101 (issue 24's validation cases): the same blocks, [3, 4, 23, 3]; compute
    # derived from ResNet-50's profile on each GPU by the forward-FLOP ratio, except on the
    # RTX 2080 Ti and the V100, where it was measured
    assert resnet_bottleneck_layers([3, 4, 6, 3]) == rn50, "the ResNet generator drifted"
    rn101 = resnet_bottleneck_layers([3, 4, 23, 3])
    r101 = total_flops(rn101) / total_flops(rn50)
    rn101_measured = {"rtx2080ti": measured("rtx2080ti", "resnet101", [12]),
                      "v100": v100_with_batch_curve("resnet101", "resnet34")}
    rn101_profiles = [rn101_measured.get(p["gpu"])
                      or flop_scaled_from(p["gpu"], p, r101, "ResNet-50") for p in rn50_profiles]
    rn101_profiles = (with_h100(rn101_profiles, h100_measured("resnet101"))
                      + h200_measured("resnet101"))
    write("resnet-101.json", model_doc(
        "resnet-101", "ResNet-101 v1.5 (torchvision), ImageNet, %(params)s parameters, %(mib)s "
        "fp32",
        "computed: torchvision's bottleneck ResNet with blocks [3, 4, 23, 3] "
        "(models/gen_models.py resnet_bottleneck_layers, which reproduces the CSV's ResNet-50); "
        "fwd_flops = 2 x MACs at 224x224; batch 32 per GPU as ResNet-50", 32, rn101,
        rn101_profiles))
    for fname, name, desc, src, batch, layers in (
            ("lstm-ptb.json", "lstm-ptb",
             "DGC PTB language model: 2-layer LSTM, 1500 hidden, vocabulary 10,000, tied "
             "encoder/decoder, %(params)s parameters, %(mib)s fp32; one sample = 35 tokens",
             "computed, docs/catalog.md (DGC paper Sec. 4.1; Press & Wolf 2016); batch 20 "
             "sequences of 35 tokens per GPU (Zaremba et al. 2014 PTB setting)", 20,
             lstm_ptb_layers()),
            ("bert-base.json", "bert-base",
             "BERT-base uncased with pre-training heads, %(params)s parameters, %(mib)s fp32; "
             "one sample = one 128-token sequence",
             "computed, docs/catalog.md (Devlin et al. 2018, BERT-base: L=12, H=768, A=12, "
             "vocab 30,522); batch 32 sequences of 128 tokens per GPU", 32,
             bert_base_layers())):
        ratio = total_flops(layers) / total_flops(rn50)
        profs = [flop_scaled_from(p["gpu"], p, ratio, "ResNet-50")
                 for p in rn50_profiles]
        extra = None
        if name == "bert-base":
            profs = with_h100(profs, h100_measured("bert_base")) + h200_measured("bert_base")
            extra = {"optimizer": "adam", "tokens_per_sample": 128,
                     "activation_bytes_per_sample":
                         transformer_activation_bytes(128, 768, 12, 30522, True)}
        write(fname, model_doc(name, desc, src, batch, layers, profs, extra))

    # Today's transformers (issue 17). Architectures: GPT-2 (Radford et al. 2019, Table 2;
    # vocabulary 50,257, context 1,024), LLaMA-7B (Touvron et al. 2023, Table 2: d=4096,
    # 32 layers, 32 heads, context 2,048; SwiGLU width 11,008 and vocabulary 32,000 from the
    # released configuration), ViT-B/16 (Dosovitskiy et al. 2021, Table 1). Parameter counts
    # are checked against the public figures in docs/catalog.md. Optimizer: AdamW, as all
    # four papers train. Compute: GPT-2 small measured on an H100 here; the others derived
    # from a measured model on the same GPU by the forward-FLOP ratio.
    gpt2s = decoder_layers(50257, 1024, 768, 12, 3072, 1024, True)
    gpt2s_h100 = h100_measured("gpt2_small")
    gpt2s_h200 = h200_measured("gpt2_small")
    write("gpt2-small.json", model_doc(
        "gpt2-small", "GPT-2 small (124M): 12 layers, d=768, 12 heads, %(params)s parameters, "
        "%(mib)s fp32; one sample = one 1,024-token sequence",
        "computed, docs/catalog.md (Radford et al. 2019); batch 16 sequences per GPU, the "
        "largest measured on the H100", 16, gpt2s, gpt2s_h100 + gpt2s_h200,
        {"optimizer": "adam", "tokens_per_sample": 1024,
         "activation_bytes_per_sample": transformer_activation_bytes(1024, 768, 12, 50257, True)}))
    gpt2xl = decoder_layers(50257, 1024, 1600, 48, 6400, 1024, True)
    write("gpt2-xl.json", model_doc(
        "gpt2-xl", "GPT-2 XL (1.5B): 48 layers, d=1600, 25 heads, %(params)s parameters, "
        "%(mib)s fp32; one sample = one 1,024-token sequence",
        "computed, docs/catalog.md (Radford et al. 2019); batch 4 sequences per GPU (choice: "
        "fits 80 GB with Adam in fp32 by gcsim's estimate)", 4, gpt2xl,
        # No profile: GPT-2 small's measured time scaled by the FLOP ratio ran at 9.5% MFU,
        # a small model's efficiency; the transformer efficiency model (bf16) or the
        # roofline (fp32/tf32) gives the time instead (sim/config/roofline.h).
        [],
        {"optimizer": "adam", "tokens_per_sample": 1024,
         "activation_bytes_per_sample": transformer_activation_bytes(1024, 1600, 48, 50257, True)}))
    llama = decoder_layers(32000, 2048, 4096, 32, 11008, 2048, False)
    write("llama-7b.json", model_doc(
        "llama-7b", "Llama-style 7B decoder (LLaMA-7B shape): 32 layers, d=4096, 32 heads, "
        "SwiGLU 11,008, %(params)s parameters, %(mib)s fp32; one sample = one 2,048-token "
        "sequence",
        "computed, docs/catalog.md (Touvron et al. 2023); batch 1 sequence per GPU; plain data "
        "parallelism with Adam needs 16 B per parameter, more than an 80 GB GPU holds",
        1, llama, [],  # no profile, as GPT-2 XL
        {"precision": "bf16", "optimizer": "adam", "tokens_per_sample": 2048,
         "activation_bytes_per_sample": transformer_activation_bytes(2048, 4096, 32, 32000, False)}))
    vit = vit_layers()
    # Measured on the H100 and the H200 (torchvision vit_b_16, 2026-11-25). Never derived
    # from BERT-base on the H200: its small batches are host-bound and noisy
    # (docs/gpu-measurements.md), and its two batches would extrapolate ViT's 128 images to a
    # slower step than the H100's.
    bert_h100 = h100_measured("bert_base")
    r = total_flops(vit) / total_flops(bert_base_layers())
    write("vit-b16.json", model_doc(
        "vit-b16", "ViT-B/16, ImageNet 224x224: 12 layers, d=768, 12 heads, %(params)s "
        "parameters, %(mib)s fp32; one sample = one image (197 tokens)",
        "computed, docs/catalog.md (Dosovitskiy et al. 2021); batch 128 images per GPU "
        "(choice)", 128, vit,
        with_h100([derived_from(p, r, "BERT-base (128 tokens)") for p in bert_h100],
                  h100_measured("vit_b_16")) + h200_measured("vit_b_16")
        + [cgx_rtx3090("vit", 128)],
        {"optimizer": "adam",
         "activation_bytes_per_sample": transformer_activation_bytes(197, 768, 12, 1000, True)}))

    # BERT-large fine-tuned on SQuAD (issue 24's validation cases from the CGX benchmarks,
    # "BERT (335M parameters) on SQuAD"): Devlin et al. 2019, L=24, H=1024, A=16, FFN 4096,
    # 384-token sequences (the paper's SQuAD setting). Compute: measured on no GPU here; the
    # RTX 3090 profile from the CGX figure, the H100 one from BERT-base's measured profile by
    # the forward-FLOP ratio (as ViT-B/16).
    bert_large = bert_base_layers(30522, 1024, 24, 4096, 512, 384, head="squad")
    r = total_flops(bert_large) / total_flops(bert_base_layers())
    write("bert-large.json", model_doc(
        "bert-large", "BERT-large uncased with the SQuAD span head (pooler kept): 24 layers, "
        "d=1024, 16 heads, %(params)s parameters, %(mib)s fp32; one sample = one 384-token "
        "sequence",
        "computed, models/gen_models.py bert_base_layers(head=\"squad\") (Devlin et al. 2019: "
        "BERT-large L=24, H=1024, A=16; SQuAD max sequence 384); batch 4 sequences per GPU "
        "(choice: the paper's SQuAD batch of 32 over 8 GPUs)", 4, bert_large,
        # tf32 measured on the H100 and the H200 (2026-11-25); bf16 stays derived: its
        # measured batches are host-bound (on the H100 4 and 8 took longer than 16), which
        # would leave one point to scale
        [p for p in h100_measured("bert_large_squad") + h200_measured("bert_large_squad")
         if p["precision"] == "tf32"]
        + [derived_from(p, r, "BERT-base (128 tokens)") for p in bert_h100
           if p["precision"] != "tf32"]
        + [cgx_rtx3090("bert", 4, 384)],
        {"optimizer": "adam", "tokens_per_sample": 384,
         "activation_bytes_per_sample": transformer_activation_bytes(384, 1024, 24, 2, True)}))

    # A generic ~1.2B-parameter transformer (issue 24's validation case from EgoVerse PR
    # #667, whose policy architecture is not published): a GPT-2-style body, d=2048, 24
    # layers, MLP 8192, over 256-token samples, with learned positions and no vocabulary or
    # output head. Only the parameter count (~1.2B) and the single-A40 step time come from the
    # PR; the H100 and H200 profiles are GPT-2 small's measured ones (GPU-bound at every
    # batch) scaled by the forward-FLOP ratio.
    t12 = decoder_layers(0, 256, 2048, 24, 8192, 256, True)
    t12[0]["name"] = "positions"
    t12[-1]["name"] = "final_norm"
    r = total_flops(t12) / total_flops(gpt2s)
    b, t, src = EGOVERSE_A40
    write("transformer-1200m.json", model_doc(
        "transformer-1200m", "Generic 1.2B transformer standing in for EgoVerse's ~1.2B policy "
        "(architecture not published: only its parameter count and single-A40 step time are "
        "the PR's): GPT-2-style, 24 layers, d=2048, MLP 8192, no vocabulary, %(params)s "
        "parameters, %(mib)s fp32; one sample = 256 tokens (assumption)",
        "computed, models/gen_models.py decoder_layers (GPT-2 layout, no token embedding or "
        "head); batch 16 per GPU as GaTech-RL2/EgoVerse PR #667", 16, t12,
        [derived_from(p, r, "GPT-2 small") for p in gpt2s_h100 + gpt2s_h200]
        + [{"gpu": "a40", "precision": "fp32",
            "framework": "PyTorch Lightning DDP trainer (versions not stated)", "source": src,
            "points": [{"batch": b, "time": ms(t)}]}],
        {"optimizer": "adam", "tokens_per_sample": 256,
         "activation_bytes_per_sample": transformer_activation_bytes(256, 2048, 24, 0, True)}))


    # Large language models for sharded data parallelism (FSDP / ZeRO). No compute profile:
    # gcsim computes their time from the layers' FLOPs and the platform's peaks (no single-
    # GPU training time of these shapes is in the repository's sources, and no GPU holds
    # them in plain data parallelism). bf16, Adam, one sequence of the model's training
    # context per GPU. Activations: transformer_activation_bytes as llama-7b (34 s h bytes
    # per layer). Grouped-query attention would shrink the stored K and V (4 s h of the 34)
    # to kv_heads/heads of that, but the SwiGLU MLP stores more than the GELU MLP the
    # formula counts (gate, up, their product: 3 x 2 s ffn bytes against 16 s h), so the
    # formula is kept unchanged, a lower bound either way (docs/catalog.md).
    # Architectures: Llama 2 (Touvron et al. 2023b, Table 1: context 4k, GQA for 70B) with
    # the shapes of the released Hugging Face configurations (meta-llama/Llama-2-{7b,13b,
    # 70b}-hf config.json: hidden 4096/5120/8192, layers 32/40/80, heads 32/40/64, KV heads
    # 32/40/8, intermediate 11008/13824/28672, vocabulary 32,000, untied head); Llama 3
    # (Meta-Llama-3-{8B,70B} config.json: hidden 4096/8192, layers 32/80, heads 32/64, 8 KV
    # heads, intermediate 14336/28672, vocabulary 128,256, context 8,192); GPT-3 (Brown et
    # al. 2020, Table 2.1: 175B 96 layers, d_model 12,288, 96 heads; 13B 40 layers, d_model
    # 5,140, 40 heads; context 2,048; the GPT-2 architecture and vocabulary 50,257; MLP 4d).
    # The totals are checked against the published counts in tests/catalog.
    def llm(fname, name, desc, src, seq, layers_, h, L, vocab):
        write(fname, model_doc(
            name, desc + ", %(params)s parameters, %(mib)s fp32; one sample = one "
            "{:,}-token sequence".format(seq),
            "computed, docs/catalog.md (" + src + "); batch 1 sequence per GPU; no compute "
            "profile: time from the layers' FLOPs and the platform's peaks",
            1, layers_, [],
            {"precision": "bf16", "optimizer": "adam", "tokens_per_sample": seq,
             "activation_bytes_per_sample": transformer_activation_bytes(seq, h, L, vocab,
                                                                         False)}))

    llm("llama-2-7b.json", "llama-2-7b", "Llama 2 7B: 32 layers, d=4096, 32 heads, SwiGLU "
        "11,008, vocabulary 32,000", "Touvron et al. 2023b; meta-llama/Llama-2-7b-hf "
        "config.json", 4096, decoder_layers(32000, 4096, 4096, 32, 11008, 4096, False),
        4096, 32, 32000)
    llm("llama-2-13b.json", "llama-2-13b", "Llama 2 13B: 40 layers, d=5120, 40 heads, SwiGLU "
        "13,824, vocabulary 32,000", "Touvron et al. 2023b; meta-llama/Llama-2-13b-hf "
        "config.json", 4096, decoder_layers(32000, 4096, 5120, 40, 13824, 4096, False),
        5120, 40, 32000)
    llm("llama-2-70b.json", "llama-2-70b", "Llama 2 70B: 80 layers, d=8192, 64 heads, "
        "grouped-query attention with 8 KV heads, SwiGLU 28,672, vocabulary 32,000",
        "Touvron et al. 2023b; meta-llama/Llama-2-70b-hf config.json", 4096,
        decoder_layers(32000, 4096, 8192, 80, 28672, 4096, False, 64, 8), 8192, 80, 32000)
    llm("llama-3-8b.json", "llama-3-8b", "Llama 3 8B: 32 layers, d=4096, 32 heads, "
        "grouped-query attention with 8 KV heads, SwiGLU 14,336, vocabulary 128,256",
        "Meta Llama 3 model card; meta-llama/Meta-Llama-3-8B config.json", 8192,
        decoder_layers(128256, 8192, 4096, 32, 14336, 8192, False, 32, 8), 4096, 32, 128256)
    llm("llama-3-70b.json", "llama-3-70b", "Llama 3 70B: 80 layers, d=8192, 64 heads, "
        "grouped-query attention with 8 KV heads, SwiGLU 28,672, vocabulary 128,256",
        "Meta Llama 3 model card; meta-llama/Meta-Llama-3-70B config.json", 8192,
        decoder_layers(128256, 8192, 8192, 80, 28672, 8192, False, 64, 8), 8192, 80, 128256)
    llm("gpt3-175b.json", "gpt3-175b", "GPT-3 175B: 96 layers, d=12288, 96 heads, MLP "
        "49,152, GPT-2 layout (learned positions, tied head), vocabulary 50,257, dense "
        "attention in every layer", "Brown et al. 2020, Table 2.1", 2048,
        decoder_layers(50257, 2048, 12288, 96, 4 * 12288, 2048, True), 12288, 96, 50257)
    llm("gpt3-13b.json", "gpt3-13b", "GPT-3 13B: 40 layers, d=5140 (the paper's Table 2.1; "
        "40 heads of 128 would be 5,120), 40 heads, MLP 20,560, GPT-2 layout, vocabulary "
        "50,257, dense attention in every layer", "Brown et al. 2020, Table 2.1", 2048,
        decoder_layers(50257, 2048, 5140, 40, 4 * 5140, 2048, True), 5140, 40, 50257)

if __name__ == "__main__":
    main()
