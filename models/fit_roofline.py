#!/usr/bin/env python3
"""Fit the roofline compute model's efficiencies to the catalog's measured profiles.

Run from anywhere:  python3 models/fit_roofline.py   (stdlib only; rewrites
sim/config/roofline_fit.h and the leave-one-out table in docs/catalog.md; with --check it
only verifies that the header is what the catalog gives, for CTest)

The model (sim/config/roofline.c computes the same): one training step of a batch b is
    T(b) = sum over layers  max(3 F_l b / P, 3 W_l e / B) / eff(kind_l)
with F_l the layer's forward FLOPs per sample (backward is twice forward), W_l its
parameters, e the gradient element size of the precision (4 or 2 bytes: weights read
forward and backward, gradient written), P the GPU's peak for the precision (gpu.speed
for fp32/tf32, gpu.speed_16bit for bf16/fp16), B gpu.memory_bandwidth (the bytes term is
left out where a platform does not give it). Activation traffic is not counted: the
efficiencies absorb it. Two efficiencies are fitted, one for convolutions and one for
matrix products (fc, attention, lstm; the parameter-only kinds take it too), by least
squares on log(T_model / T_measured) over every measured point, each profile weighing as
much as any other (a point of a profile with n points weighs 1/n).

Measured points: profiles whose "source" starts with "measured" (all their points), and
"batch 16 measured" (that point only); a GPU enters when a platform in platforms/ gives its
peak and LEFT_OUT (below) does not name it. Derived profiles never enter.
"""
import glob
import json
import math
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join(REPO, "sim", "config", "roofline_fit.h")
CATALOG_DOC = os.path.join(REPO, "docs", "catalog.md")
MATMUL = {"fc", "attention", "lstm", "bn", "norm", "embedding", "other"}

UNITS = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def quantity(text, unit):
    m = re.fullmatch(r"([0-9.eE+-]+)([kMGT]?)" + unit, text)
    return float(m.group(1)) * UNITS.get(m.group(2), 1.0)


# Where platforms of one GPU type differ in memory bandwidth (the A100 40 and 80 GB), the fit
# takes the platform of the variant the measured profiles ran on: NVIDIA's DGX A100 80GB run
# (docs/catalog.md) and bench/gpu's H100 80GB HBM3. Every other type takes its first
# platform by file name.
MEASURED_ON = {"a100": "a100-hdr.json", "h100": "h100-ndr.json"}

# GPU types whose measured profiles stay out of the fit, and why. The H200 is the H100's die
# with the same peaks, measured here on the H100's three models (bench/gpu/results/
# h200-models.json): counting it would give those three models twice the weight of any
# other in a fit meant to span GPUs and models.
LEFT_OUT = {"h200": "the H100's die and peaks again, on the H100's three models"}


def gpu_peaks():
    peaks = {}
    files = sorted(glob.glob(os.path.join(REPO, "platforms", "*.json")))
    # the measured variants first, so that they win over other platforms of their type
    files.sort(key=lambda f: os.path.basename(f) not in MEASURED_ON.values())
    for f in files:
        g = json.load(open(f))["gpu"]
        pk = {"fp32": quantity(g["speed"], "flops"),
              "16bit": quantity(g["speed_16bit"], "flops") if "speed_16bit" in g else None,
              "bw": quantity(g["memory_bandwidth"], "Bps") if "memory_bandwidth" in g else None}
        if g["type"] in peaks:
            # one GPU type, one compute: a profile of the type must mean the same speed
            if (pk["fp32"], pk["16bit"]) != (peaks[g["type"]]["fp32"], peaks[g["type"]]["16bit"]):
                sys.exit("fit_roofline.py: %s: gpu.type %s with other peaks than another "
                         "platform of that type" % (f, g["type"]))
            continue
        peaks[g["type"]] = pk
    return peaks


def time_s(x):
    return quantity(x, "ms") * 1e-3 if x.endswith("ms") else quantity(x, "s")


def points():
    """(label, model layers, gpu, 16-bit?, batch, measured seconds) for every measured point."""
    out = []
    for f in sorted(glob.glob(os.path.join(REPO, "models", "*.json"))):
        d = json.load(open(f))
        for p in d["profiles"]:
            src = p["source"]
            if p["gpu"] in LEFT_OUT:
                continue
            if src.startswith("measured"):
                pts = p["points"]
            elif src.startswith("batch 16 measured"):
                pts = [q for q in p["points"] if q["batch"] == 16]
            else:
                continue
            prec = p.get("precision", d.get("precision", "fp32"))
            for q in pts:
                out.append(("%s %s %s b%d" % (d["name"], p["gpu"], prec, q["batch"]),
                            d["layers"], p["gpu"], prec in ("bf16", "fp16"), q["batch"],
                            time_s(q["time"]), 1.0 / len(pts)))
    return out


def parts(layers, peak, bw, elem, batch):
    """Seconds at efficiency 1, split into (conv, matmul)."""
    conv = mm = 0.0
    for l in layers:
        w = l["weights"] + l["bias"] + l.get("other_params", 0)
        t = 3.0 * l["fwd_flops"] * batch / peak
        if bw:
            t = max(t, 3.0 * w * elem / bw)
        if l["kind"] == "conv":
            conv += t
        else:
            mm += t
    return conv, mm


def fit(rows):
    """Efficiencies minimising the squared log error, on a log grid, then refined."""
    def loss(ec, em):
        return sum(w * math.log((c / ec + m / em) / t) ** 2 for c, m, t, w in rows)
    has_conv = any(r[0] > 0 for r in rows)
    has_mm = any(r[1] > 0 for r in rows)
    # a coarse log grid over 0.001 .. 1, then a fine one around its best cell
    lo_c = lo_m = -3.0
    step = 0.05
    best = None
    for _ in range(2):
        cs = [lo_c + step * i for i in range(61 if best is None else 21)] if has_conv else [0.0]
        ms = [lo_m + step * i for i in range(61 if best is None else 21)] if has_mm else [0.0]
        for lc in cs:
            for lm in ms:
                if lc > 0.0 or lm > 0.0:
                    continue
                v = loss(10 ** lc, 10 ** lm)
                if best is None or v < best[0]:
                    best = (v, lc, lm)
        lo_c, lo_m = best[1] - step, best[2] - step
        step /= 10.0
    best = (best[0], 10 ** best[1], 10 ** best[2])
    return best[1], best[2]


def main():
    peaks = gpu_peaks()
    data = []
    for label, layers, gpu, half, batch, t, w in points():
        pk = peaks.get(gpu)
        if not pk or (half and not pk["16bit"]):
            continue
        c, m = parts(layers, pk["16bit"] if half else pk["fp32"], pk["bw"], 2 if half else 4, batch)
        data.append((label, c, m, t, w))
    rows = [(c, m, t, w) for _, c, m, t, w in data]
    ec, em = fit(rows)
    loo = []
    # Leave one profile out: a held-out point's own profile (its other batches) is left out
    # of the fit too.
    def profile_of(label):
        return label.rsplit(" b", 1)[0]
    for i, (label, c, m, t, _) in enumerate(data):
        ec_i, em_i = fit([r for r, d in zip(rows, data) if profile_of(d[0]) != profile_of(label)])
        pred = c / ec_i + m / em_i
        loo.append((label, t, pred, ec_i, em_i))
    text = ("/* sim/config/roofline_fit.h: written by models/fit_roofline.py, do not edit.\n"
                " * Fitted: efficiencies of the roofline compute model (roofline.h), least squares\n"
            " * on log time over %d measured points of the catalog's profiles:\n" % len(data))
    for label, *_ in data:
        text += " *   %s\n" % label
    text += (" * Leave-one-out errors are tabulated in docs/catalog.md. */\n"
             "#ifndef GCSIM_CONFIG_ROOFLINE_FIT_H\n#define GCSIM_CONFIG_ROOFLINE_FIT_H\n\n"
             "#define GCSIM_ROOFLINE_EFF_CONV %.4f\n#define GCSIM_ROOFLINE_EFF_MATMUL %.4f\n"
             "#define GCSIM_ROOFLINE_FIT_POINTS %d\n\n#endif\n" % (ec, em, len(data)))
    if "--check" in sys.argv[1:]:
        # CTest: the committed fit must be the one today's catalog gives.
        if open(HEADER).read() != text:
            sys.exit("fit_roofline.py: %s is stale: re-run models/fit_roofline.py" % HEADER)
        print("roofline fit up to date (%d points)" % len(data))
        return
    with open(HEADER, "w") as f:
        f.write(text)
    table = ["| measured point | measured ms | roofline ms (fit without its profile) | error % | "
             "eff conv, matmul without it |", "|---|---|---|---|---|"]
    errs = []
    for label, t, pred, ec_i, em_i in loo:
        e = 100.0 * (pred / t - 1.0)
        errs.append(abs(e))
        table.append("| %s | %.2f | %.2f | %+.0f | %.3f, %.3f |" % (label, t * 1e3, pred * 1e3,
                                                                     e, ec_i, em_i))
    errs.sort()
    summary = ("Fitted on all %d points: conv %.4f, matmul %.4f of peak. Leave-one-out "
               "absolute error: median %.0f%%, max %.0f%%." % (len(data), ec, em,
                                                              errs[len(errs) // 2], errs[-1]))
    block = "\n".join(table) + "\n\n" + summary + "\n"
    doc = open(CATALOG_DOC).read()
    start, end = "<!-- roofline-loo:start -->\n", "<!-- roofline-loo:end -->"
    if start in doc:
        a = doc.index(start) + len(start)
        doc = doc[:a] + block + doc[doc.index(end):]
        open(CATALOG_DOC, "w").write(doc)
    print(block)


if __name__ == "__main__":
    main()
