#!/usr/bin/env python3
"""A GPU's measured training steps and codec ops against a reference GPU's (what a platform
that borrows the reference's profiles would predict), and what gcsim predicts for one GPU of
the platform today.

Written for the H200: until 2026-11-25 platforms/h200-ndr.json took the H100's measured
profiles (gpu.type "h100"); the H100 column is that prediction, the H200 column the
measurement, and the gcsim column checks that h200-ndr now reads the H200's own profiles
(gpu.type "h200", gpu.profile_as "h100" for the other models). Standard library only; no
GPU needed.

    python3 bench/gpu/compare_gpus.py build/sim/cli/gcsim platforms/h200-ndr.json \\
        bench/gpu/results/h200 bench/gpu/results/h100

(the last two are result prefixes: PREFIX-models.json and PREFIX-codec.json). With
--steps-only MODELS_JSON [REFERENCE_JSON] in place of the two prefixes, only the training
steps of that model run (against gcsim, and the reference run's when one is given):

    python3 bench/gpu/compare_gpus.py build/sim/cli/gcsim platforms/h100-ndr.json \\
        --steps-only bench/gpu/results/h100-models-more.json

Prints markdown tables; exits 1 when gcsim fails on a case.
"""

import json
import statistics
import subprocess
import sys

MODEL_FILES = {"resnet50": "models/resnet-50.json", "bert_base": "models/bert-base.json",
               "gpt2_small": "models/gpt2-small.json", "alexnet": "models/alexnet.json",
               "vgg11": "models/vgg-a.json", "vgg16": "models/vgg-16.json",
               "googlenet": "models/googlenet.json", "resnet101": "models/resnet-101.json",
               "vit_b_16": "models/vit-b16.json", "bert_large_squad": "models/bert-large.json"}
PRECISIONS = {"fp32_tf32": "tf32", "bf16_autocast": "bf16"}
BUCKET_ELEMENTS = 6553600  # the 25 MiB DDP bucket of codec_profile.py


def load(path):
    with open(path) as f:
        return json.load(f)


def predicted_step_ms(gcsim, platform, model, precision, batch):
    """gcsim's one-GPU iteration time in ms (analytic engine, CSV output)."""
    cmd = [gcsim, "predict", "--platform", platform, "--model", model, "--gpus", "1",
           "--batch", str(batch), "--precision", precision, "--format", "csv"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"compare_gpus: {' '.join(cmd)}: {out.stderr.strip()}")
    head, row = out.stdout.strip().splitlines()[:2]
    cells = dict(zip(head.split(","), row.split(",")))
    return 1e3 * float(cells["iteration_s"]), cells.get("compute_source", "")


def predicted_rows(gcsim, platform, measured):
    """(config, measured ms, gcsim ms, gcsim's compute source, gap %) for each configuration
    of a model run whose model the catalog has."""
    for c in measured["configs"]:
        if "error" in c or c["model"] not in MODEL_FILES:
            continue
        here = c["step_ms_median"]
        ms, source = predicted_step_ms(gcsim, platform, MODEL_FILES[c["model"]],
                                       PRECISIONS[c["precision"]], c["batch"])
        yield c, here, ms, source, 100.0 * (ms - here) / here


def step_table(gcsim, platform, measured, reference):
    if reference is None:
        return gcsim_table(gcsim, platform, measured)
    ref = {(c["model"], c["precision"], c["batch"]): c["step_ms_median"]
           for c in reference["configs"] if "error" not in c}
    gpu, ref_gpu = measured["provenance"]["gpu_name"], reference["provenance"]["gpu_name"]
    lines = [f"| model | precision | batch | measured {gpu}, ms | measured {ref_gpu}, ms "
             f"| {ref_gpu}'s time as this GPU's: error | gcsim `{platform}` now, ms | gap |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    borrowed, gaps = [], []
    for c, here, ms, source, gap in predicted_rows(gcsim, platform, measured):
        gaps.append(gap)
        r = ref.get((c["model"], c["precision"], c["batch"]))
        if r is None:
            ref_ms = err = ""
        else:
            borrowed.append(100.0 * (r - here) / here)
            ref_ms, err = f"{r:.2f}", f"{borrowed[-1]:+.1f}%"
        lines.append(f"| {c['model']} | {c['precision']} | {c['batch']} | {here:.2f} | {ref_ms} "
                     f"| {err} | {ms:.2f} ({source}) | {gap:+.1f}% |")
    lines.append("")
    lines.append(f"The {ref_gpu}'s step time taken as this GPU's, over {len(borrowed)} "
                 f"configurations: median {statistics.median(borrowed):+.1f}%, range "
                 f"{min(borrowed):+.1f}% to {max(borrowed):+.1f}% (positive: slower than "
                 f"measured). gcsim now: median {statistics.median(gaps):+.1f}%, range "
                 f"{min(gaps):+.1f}% to {max(gaps):+.1f}%.")
    return "\n".join(lines)


def gcsim_table(gcsim, platform, measured):
    gpu = measured["provenance"]["gpu_name"]
    lines = [f"| model | precision | batch | measured {gpu}, ms | gcsim `{platform}`, ms | gap |",
             "|---|---|---:|---:|---:|---:|"]
    gaps = []
    for c, here, ms, source, gap in predicted_rows(gcsim, platform, measured):
        gaps.append(gap)
        lines.append(f"| {c['model']} | {c['precision']} | {c['batch']} | {here:.2f} "
                     f"| {ms:.2f} ({source}) | {gap:+.1f}% |")
    lines.append("")
    lines.append(f"gcsim over {len(gaps)} configurations: median {statistics.median(gaps):+.1f}%, "
                 f"median |gap| {statistics.median(abs(g) for g in gaps):.1f}%, range "
                 f"{min(gaps):+.1f}% to {max(gaps):+.1f}% (positive: gcsim predicts a slower "
                 f"step).")
    return "\n".join(lines)


def codec_table(measured, reference):
    def at_bucket(d):
        return {o["op"]: o["median_us"] for o in d["ops"]
                if "error" not in o and o["elements"] == BUCKET_ELEMENTS}
    now, ref = at_bucket(measured), at_bucket(reference)
    gpu, ref_gpu = measured["provenance"]["gpu_name"], reference["provenance"]["gpu_name"]
    lines = [f"| op at the 25 MiB bucket | {ref_gpu}, us | {gpu}, us | {ref_gpu} / this GPU |",
             "|---|---:|---:|---:|"]
    ratios = []
    for op in sorted(now):
        if op not in ref:
            continue
        ratio = ref[op] / now[op]
        ratios.append(ratio)
        lines.append(f"| {op} | {ref[op]:.1f} | {now[op]:.1f} | {ratio:.2f}x |")
    lines.append("")
    lines.append(f"{len(ratios)} ops: {ref_gpu} time over this GPU's, median "
                 f"{statistics.median(ratios):.2f}x, range {min(ratios):.2f}x to "
                 f"{max(ratios):.2f}x.")
    return "\n".join(lines)


def main():
    if len(sys.argv) in (5, 6) and sys.argv[3] == "--steps-only":
        gcsim, platform, models = sys.argv[1], sys.argv[2], sys.argv[4]
        reference = load(sys.argv[5]) if len(sys.argv) == 6 else None
        print(step_table(gcsim, platform, load(models), reference))
        return
    if len(sys.argv) != 5:
        sys.exit("usage: compare_gpus.py GCSIM PLATFORM MEASURED_PREFIX REFERENCE_PREFIX\n"
                 "       compare_gpus.py GCSIM PLATFORM --steps-only MODELS_JSON [REFERENCE_JSON]")
    gcsim, platform, prefix, ref_prefix = sys.argv[1:]
    print("#### Training step: the reference GPU's time, and gcsim's, against the measurement\n")
    print(step_table(gcsim, platform, load(prefix + "-models.json"),
                     load(ref_prefix + "-models.json")))
    print("\n#### Codec ops: the reference GPU's time against this GPU's\n")
    print(codec_table(load(prefix + "-codec.json"), load(ref_prefix + "-codec.json")))


if __name__ == "__main__":
    main()
