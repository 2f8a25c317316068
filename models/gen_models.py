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
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV_PATH = os.path.join(REPO, "models", "data", "per_layer_params.csv")
OUT_DIR = os.path.join(REPO, "models")

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
}

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


def bert_base_layers(vocab=30522, hidden=768, layers=12, ffn=3072, max_pos=512, seq=128):
    """BERT-base with its pre-training heads (BertForPreTraining: MLM decoder weight tied to
    the word embedding). One sample = one sequence of `seq` tokens; the MLM head runs on all
    tokens (as in the Hugging Face implementation)."""
    h = hidden
    out = [{"name": "embeddings", "kind": "embedding",
            "weights": vocab * h + max_pos * h + 2 * h, "bias": 0, "other_params": 2 * h,
            "fwd_flops": 0}]
    for i in range(layers):
        # Q, K, V, output projections; scores QK^T and weighted sum AV: 2 x seq x h MACs/token
        out.append({"name": "layer%d.attention" % i, "kind": "attention",
                    "weights": 4 * h * h, "bias": 4 * h, "other_params": 2 * h,
                    "fwd_flops": 2 * seq * (4 * h * h + 2 * seq * h)})
        out.append({"name": "layer%d.ffn" % i, "kind": "fc",
                    "weights": 2 * h * ffn, "bias": ffn + h, "other_params": 2 * h,
                    "fwd_flops": 2 * seq * (2 * h * ffn)})
    out.append({"name": "pooler", "kind": "fc", "weights": h * h, "bias": h,
                "fwd_flops": 2 * h * h})
    out.append({"name": "mlm.transform", "kind": "fc", "weights": h * h, "bias": h,
                "other_params": 2 * h, "fwd_flops": 2 * seq * h * h})
    out.append({"name": "mlm.decoder (weight tied to word embedding)", "kind": "fc",
                "weights": 0, "bias": vocab, "fwd_flops": 2 * seq * h * vocab})
    out.append({"name": "nsp", "kind": "fc", "weights": 2 * h, "bias": 2,
                "fwd_flops": 2 * 2 * h})
    return out


def total_flops(layers):
    return sum(l["fwd_flops"] for l in layers)


# --- profiles ----------------------------------------------------------------------------
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
    order = ["gtx1080", "titan-x-pascal", "titan-xp", "p100", "p40", "v100", "a100", "h100"]
    return [profs[g] for g in order if g in profs]


def flop_scaled_from(gpu, base, ratio, base_name):
    return scaled(gpu, base, ratio, "no public figure; %s time x fwd-FLOP ratio, same GPU"
                  % base_name)


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
def write(fname, doc):
    """One key per line, one layer or profile per line: diffs stay readable."""
    lines = []
    for k, v in doc.items():
        if isinstance(v, list):
            items = ",\n".join("    " + json.dumps(x) for x in v)
            lines.append('  "%s": [\n%s\n  ]' % (k, items))
        else:
            lines.append("  %s: %s" % (json.dumps(k), json.dumps(v)))
    with open(os.path.join(OUT_DIR, fname), "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


def model_doc(name, desc, source, batch, layers, profiles):
    params = sum(l["weights"] + l["bias"] + l.get("other_params", 0) for l in layers)
    return {"name": name,
            "description": desc % {"params": "{:,}".format(params),
                                   "mib": "%.2f MiB" % (params * 4 / 2**20)},
            "source": source, "batch_per_gpu": batch, "layers": layers,
            "profiles": profiles}


def main():
    csvsrc = "models/data/per_layer_params.csv (%s); fwd_flops = 2 x fwd_MACs"

    alex = csv_layers("alexnet_caffe_bvlc")
    txp = measured("titan-x-pascal", "alexnet", [16, 128])
    write("alexnet.json", model_doc(
        "alexnet", "BVLC AlexNet (groups=2), ImageNet, %(params)s parameters, %(mib)s fp32",
        csvsrc % "alexnet_caffe_bvlc" + "; batch 128 per GPU: TernGrad paper Fig. 5",
        128, alex, gpu_family("alexnet", gtx_from_txp_128("alexnet"), txp)))

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
        32, vgga, gpu_family("vgg-a", flop_scaled_from("gtx1080", gtx16, r, "VGG-16"),
                             flop_scaled_from("titan-x-pascal", txp16, r, "VGG-16"))))
    write("vgg-16.json", model_doc(
        "vgg-16", "VGG-16 (configuration D), ImageNet, %(params)s parameters, %(mib)s fp32",
        csvsrc % "vgg16_D" + "; batch 32 per GPU as VGG-A (no paper fixes one)",
        32, vgg16, gpu_family("vgg-16", gtx16, txp16)))

    rn50 = csv_layers("resnet50_torchvision")
    direct = {g: measured(g, "resnet50", [b]) for (g, m, b) in FIGURES
              if m == "resnet50" and g in ("p100", "v100", "a100")}
    write("resnet-50.json", model_doc(
        "resnet-50", "ResNet-50 v1.5 (torchvision), ImageNet, %(params)s parameters, %(mib)s fp32",
        csvsrc % "resnet50_torchvision" + "; batch 32 per GPU: Goyal et al. 2017",
        32, rn50, gpu_family("resnet-50", measured("gtx1080", "resnet50", [16]),
                             measured("titan-x-pascal", "resnet50", [16]), direct.items())))

    # Sequence models: no public training figure on these GPUs in models/data, so the
    # ResNet-50 profile on the same GPU is scaled by the forward-FLOP ratio per sample.
    rn50_profiles = gpu_family("resnet-50", measured("gtx1080", "resnet50", [16]),
                               measured("titan-x-pascal", "resnet50", [16]), direct.items())
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
        write(fname, model_doc(name, desc, src, batch, layers, profs))


if __name__ == "__main__":
    main()
