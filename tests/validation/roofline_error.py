#!/usr/bin/env python3
"""Own-model compute error (issue 46): every measured compute profile point of the catalog,
predicted the way gcsim predicts a model of your own (no profile for the GPU), against the
measured step time.

    python3 tests/validation/roofline_error.py GCSIM REPO [--markdown FILE] [--check]

For every point of every profile in models/*.json whose source is measured ("measured: ..."
profiles, all their points; "batch 16 measured ..." profiles, that point only), the model is
written again with no profile at all (what traces/capture/gcsim_export.py writes without
--profile) and `gcsim predict --gpus 1 --batch B --precision P` runs on a catalog platform of
the profile's GPU type; its single-GPU step time (meta.single_gpu_iteration_s) is the
prediction, and meta.compute_profile says which path served it: "roofline"
(sim/config/roofline.c) or "transformer-efficiency" (16-bit transformers: the efficiency fitted
to published LLM training runs, sim/config/llm_efficiency_fit.h).

Fitted vs held out. The roofline's two efficiencies are **fitted** to these very points
(models/fit_roofline.py), so gcsim's own number is in-sample for them. A model of your own
was in no fit; the figure that stands for it is **held out**: the fit redone without any
point of the model being predicted (leave one model out: its other GPUs and precisions go
too), with models/fit_roofline.py's own functions, then applied to the point. The script
first checks that gcsim's roofline time equals fit_roofline.py's arithmetic with the shipped
efficiencies (sim/config/roofline_fit.h), so the held-out figure is gcsim's path with other
constants, not a second model. The transformer efficiency was fitted to none of these
profiles (tests/validation/sharded/measurements.tsv rows), so its points are held out as
gcsim gives them.

The headline (median |error| and range over the held-out errors) is one sentence; --check
fails when README.md or docs/catalog.md does not quote it word for word, when gcsim and
fit_roofline.py disagree, or when a gcsim run fails. --markdown writes the per-point table
that docs/catalog.md carries between its own-model-error markers (--write-doc rewrites it).
Points whose GPU type no catalog platform gives (no peak to run the roofline on) are listed
as skipped, not dropped silently.
"""
import argparse
import importlib.util
import json
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcsim_cli  # noqa: E402

DOC_START = "<!-- own-model-error:start -->\n"
DOC_END = "<!-- own-model-error:end -->"
# gcsim prints the step time to 17 digits; the header's efficiencies have 4 decimals, which
# fit_roofline.py's check reads back: anything above rounding is a disagreement.
AGREE_REL = 1e-6


def load_fit_module(repo):
    path = os.path.join(repo, "models", "fit_roofline.py")
    spec = importlib.util.spec_from_file_location("fit_roofline", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.REPO = repo
    return mod


def shipped_efficiencies(repo):
    text = open(os.path.join(repo, "sim", "config", "roofline_fit.h")).read()
    conv = float(re.search(r"GCSIM_ROOFLINE_EFF_CONV ([0-9.]+)", text).group(1))
    mm = float(re.search(r"GCSIM_ROOFLINE_EFF_MATMUL ([0-9.]+)", text).group(1))
    return conv, mm


def platform_per_type(repo, fit):
    """gpu.type -> platform file: fit_roofline.py's choice (the variant the measured
    profiles ran on, else the first by name)."""
    import glob
    files = sorted(glob.glob(os.path.join(repo, "platforms", "*.json")))
    files.sort(key=lambda f: os.path.basename(f) not in fit.MEASURED_ON.values())
    out = {}
    for f in files:
        out.setdefault(json.load(open(f))["gpu"]["type"], f)
    return out


def measured_points(repo):
    """(model name, model file, model doc, gpu, precision, batch, measured s) per point."""
    import glob
    out = []
    for f in sorted(glob.glob(os.path.join(repo, "models", "*.json"))):
        d = json.load(open(f))
        for p in d["profiles"]:
            src = p["source"]
            if src.startswith("measured"):
                pts = p["points"]
            elif src.startswith("batch 16 measured"):
                pts = [q for q in p["points"] if q["batch"] == 16]
            else:
                continue
            prec = p.get("precision", d.get("precision", "fp32"))
            for q in pts:
                out.append((d["name"], f, d, p["gpu"], prec, q["batch"],
                            gcsim_cli_time_s(q["time"])))
    return out


def gcsim_cli_time_s(text):
    m = re.fullmatch(r"([0-9.eE+-]+)(ms|s)", text)
    return float(m.group(1)) * (1e-3 if m.group(2) == "ms" else 1.0)


def pct(pred, meas):
    return 100.0 * (pred / meas - 1.0)


def headline(errs, n_points, n_gpus):
    a = sorted(abs(e) for e in errs)
    return ("median |error| %.0f%%, range %+.0f%% to %+.0f%%, over %d measured points on %d "
            "GPU types, each predicted without its model's profiles"
            % (statistics.median(a), min(errs), max(errs), n_points, n_gpus))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("gcsim")
    ap.add_argument("repo")
    ap.add_argument("--markdown")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write-doc", action="store_true",
                    help="rewrite the table between docs/catalog.md's own-model-error markers")
    a = ap.parse_args()
    repo = os.path.abspath(a.repo)
    fit = load_fit_module(repo)
    eff_conv, eff_mm = shipped_efficiencies(repo)
    peaks = fit.gpu_peaks()
    plat = platform_per_type(repo, fit)
    failures = []
    rows, skipped = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, mfile, doc, gpu, prec, batch, meas in measured_points(repo):
            label = "%s %s %s b%d" % (name, gpu, prec, batch)
            if gpu not in plat:
                skipped.append((label, "no catalog platform has gpu.type %s" % gpu))
                continue
            own = dict(doc)
            own["profiles"] = []  # a model of your own: no profile on any GPU
            path = os.path.join(tmp, os.path.basename(mfile))
            with open(path, "w") as f:
                json.dump(own, f)
            argv = [a.gcsim, "predict", "--model", path, "--platform", plat[gpu], "--gpus", "1",
                    "--batch", str(batch), "--precision", prec]
            try:
                js = gcsim_cli.run_json(argv, cwd=repo, timeout_s=120)
            except gcsim_cli.GcsimError as e:
                failures.append("%s: %s\n%s" % (label, e, e.stderr.strip()))
                continue
            meta = js["meta"]
            pred = meta["single_gpu_iteration_s"]
            path_kind = meta.get("compute_profile", "?")
            held = pred
            if path_kind == "roofline":
                pk = peaks[gpu]
                half = prec in ("bf16", "fp16")
                c, m = fit.parts(doc["layers"], pk["16bit"] if half else pk["fp32"], pk["bw"],
                                 2 if half else 4, batch)
                mine = c / eff_conv + m / eff_mm
                if abs(mine / pred - 1.0) > AGREE_REL:
                    failures.append("%s: gcsim's roofline %.9g s, fit_roofline.py's arithmetic "
                                    "%.9g s with the same efficiencies" % (label, pred, mine))
                # leave one model out: refit on every other model's points
                train = []
                for lab, layers, g, h, b, t, w in fit.points():
                    q = peaks.get(g)
                    if lab.split(" ")[0] == name or not q or (h and not q["16bit"]):
                        continue
                    cc, mm = fit.parts(layers, q["16bit"] if h else q["fp32"], q["bw"],
                                       2 if h else 4, b)
                    train.append((cc, mm, t, w))
                ec, em = fit.fit(train)
                held = c / ec + m / em
            rows.append((label, gpu, meas, pred, held, path_kind))
    errs = [pct(r[4], r[2]) for r in rows]
    in_sample = [pct(r[3], r[2]) for r in rows]
    head = headline(errs, len(rows), len({r[1] for r in rows}))
    lines = ["| measured point | measured ms | gcsim ms (shipped fit) | error % | held-out ms | "
             "held-out error % | path |", "|---|---|---|---|---|---|---|"]
    for (label, _, meas, pred, held, kind), e_in, e in zip(rows, in_sample, errs):
        lines.append("| %s | %.2f | %.2f | %+.0f | %.2f | %+.0f | %s |"
                     % (label, meas * 1e3, pred * 1e3, e_in, held * 1e3, e, kind))
    for label, why in skipped:
        lines.append("| %s | | | | | | skipped: %s |" % (label, why))
    by_kind = {}
    for r, e in zip(rows, errs):
        by_kind.setdefault(r[5], []).append(abs(e))
    split = "; ".join("%s: %d points, median |error| %.0f%%" % (k, len(v), statistics.median(v))
                      for k, v in sorted(by_kind.items()))
    table = ("\n".join(lines) + "\n\nHeld out: %s (%s). In-sample, gcsim as shipped (the "
             "roofline fitted to these points): median |error| %.0f%%, range %+.0f%% to %+.0f%%."
             "\n" % (head, split, statistics.median(sorted(abs(e) for e in in_sample)),
                     min(in_sample), max(in_sample)))
    print(table)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(table)
    cat_path = os.path.join(repo, "docs", "catalog.md")
    if a.write_doc:
        text = open(cat_path).read()
        i = text.index(DOC_START) + len(DOC_START)
        text = text[:i] + table + text[text.index(DOC_END):]
        with open(cat_path, "w") as f:
            f.write(text)
    if a.check:
        for doc_path in (os.path.join(repo, "README.md"), cat_path):
            body = " ".join(open(doc_path).read().split())  # line breaks as spaces
            if head not in body:
                failures.append("%s does not quote the own-model compute error as computed: "
                                "\"%s\"" % (doc_path, head))
    for f in failures:
        print("roofline_error: %s" % f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
