#!/usr/bin/env python3
"""DES against the analytic engine under the training stacks (docs/stacks.md).

    stack_agreement.py GCSIM REPO [--check]

engine_agreement.py compares the engines on every collective with --no-overlap. This runs
what that grid leaves out: each stack's own programs as users run them, with overlap (codec
work sharing the GPU with backward), the stacks' exchanges chosen by themselves and their
all-reduce algorithms by the tuner: the PowerSGD hook's three dependent all-reduces, Horovod's
fused groups, deferred decodes and blocking calls (GRACE's PowerSGD, DGC's size exchange),
DeepSpeed's one buffer exchanged after backward (a codec-model stack's own bucket).
Gap = DES throughput / analytic throughput - 1, `gcsim predict --engine both`. With --check
it exits 1 when a gap exceeds 3% or a case fails; the engines share one timeline model, so a
larger gap is a bug or an unlisted mechanism, not noise.
"""
import json
import subprocess
import sys

STACKS = ["pytorch-ddp", "horovod", "horovod-tf", "deepspeed"]
COMPRESSORS = ["none", "fp16", "topk:ratio=0.01", "dgc:ratio=0.001", "powersgd:rank=1",
               "qsgd"]
PLATFORMS = ["platforms/cloud-v100-25gbe.json", "platforms/a100-hdr.json"]
MODELS = ["models/resnet-50.json", "models/bert-base.json"]
GPUS = "8,32"
LIMIT_PCT = 3.0
# Stacks of one validation source, on its own platform (stack, platform, model, compressor):
# the DGC implementation's all-gather staged through host memory and OpenMPI
# (sim/collectives/mpi_host_allgather.c), with its copies on the GPU's stream.
EXTRA = [("tests/validation/stacks/horovod-dgc.json",
          "tests/validation/platforms/dgc-rtx2080ti-25gbe.json",
          "tests/validation/models/vgg-16-bn.json", "dgc:ratio=0.001")]


def run(gcsim, repo, stack, platform, model, comp):
    argv = [gcsim, "predict", "--engine", "both", "--stack", stack, "--platform", platform,
            "--model", model, "--compressor", comp, "--gpus", GPUS, "--format", "json"]
    r = subprocess.run(argv, capture_output=True, text=True, cwd=repo, timeout=600)
    if r.returncode != 0:
        return None, "%s -> exit %d: %s" % (" ".join(argv[1:]), r.returncode, r.stderr.strip())
    rows = json.loads(r.stdout)["rows"]
    out = []
    for a, d in zip(rows[0::2], rows[1::2]):
        gap = 100.0 * (d["throughput_samples_per_s"] / a["throughput_samples_per_s"] - 1)
        out.append((a["gpus"], a["throughput_samples_per_s"], d["throughput_samples_per_s"], gap))
    return out, None


def main(argv):
    check = "--check" in argv
    args = [a for a in argv[1:] if a != "--check"]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    gcsim, repo = args
    worst, failures, cases = 0.0, [], 0
    print("| stack | platform | model | compressor | GPUs | analytic samples/s | DES samples/s | gap % |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    grid = [(stack, platform, model, comp) for stack in STACKS for platform in PLATFORMS
            for model in MODELS for comp in COMPRESSORS] + EXTRA
    for stack, platform, model, comp in grid:
        rows, err = run(gcsim, repo, stack, platform, model, comp)
        if err:
            failures.append(err)
            continue
        for g, a, d, gap in rows:
            cases += 1
            worst = max(worst, abs(gap))
            if abs(gap) > LIMIT_PCT:
                failures.append("%s %s %s %s %d GPUs: gap %+.2f%%" %
                                (stack, platform, model, comp, g, gap))
            print("| %s | %s | %s | %s | %d | %.1f | %.1f | %+.2f |" %
                  (stack.split("/")[-1].replace(".json", ""), platform.split("/")[-1][:-5],
                   model.split("/")[-1][:-5], comp, g, a, d, gap))
    print("\n%d cases, largest |gap| %.2f%%, %d beyond %.0f%% or failed" %
          (cases, worst, len(failures), LIMIT_PCT))
    for f in failures:
        print("FAIL:", f)
    return 1 if check and failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
