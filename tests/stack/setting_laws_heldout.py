#!/usr/bin/env python3
"""Held-out check of the codec laws by setting (issue 43, docs/stacks.md "Laws by setting",
"Held out"); no GPU needed, it reads measured runs.

    python3 tests/stack/setting_laws_heldout.py SOURCE_DIR

The laws' shape by setting is built from the H200 settings runs (bench/gpu/results/
h200-codec-settings*.json: random-k at densities 0.001-0.5, PowerSGD at ranks 1-32). A later
run on another H200 (bench/gpu/codec_mechanisms.py, h200-codec-mechanisms*.json, three
runs) measured settings those laws never saw: random-k's encode and decode at densities
0.05, 0.2, 0.3, 0.7 (and 0.5) on seven sizes from 3M to 16.8M elements, and PowerSGD's encode
at ranks 3, 5, 6, 12, 24 and 64. Each such point is predicted by the law built from the
settings runs (make_stack_laws.setting_law / at_setting, sim/stack/stack_law.c's
arithmetic line for line) and compared with its measured GPU time (the profiler's summed
kernel time after an L2 flush, the median of the three runs): the GPU part, which is what
the setting changes (host time is per setting only for PowerSGD and varies up to 2x run to
run). The bar is the issue's, 25% at every point. A point over it by no more than its own
run-to-run range is noise; the points over both are listed below with why, the check
failing when any other point misses and when a listed one no longer does.

The points at a setting and size the settings runs did measure (PowerSGD ranks 1, 2, 4, 8,
16, 32; random-k 0.5 on 6.5M and 16.8M elements) are a reproduction across machines and days
instead: each must be within REPRO of the law at its own measured point. (Random-k 0.5 at
the other sizes is held out: the law interpolates it between measured sizes.)
"""
import json
import os
import statistics
import sys

BAR = 0.25
# Two H200s, three days apart (settings runs 2026-11-28, mechanisms runs 2026-12-01): the
# re-measured settings agree within 4% (printed); 10% allows clock and thermal drift.
REPRO = 0.10

SETTINGS_RUNS = ["h200-codec-settings.json", "h200-codec-settings-run2.json",
                 "h200-codec-settings-run3.json"]
HELD_OUT_RUNS = ["h200-codec-mechanisms.json", "h200-codec-mechanisms-run2.json",
                 "h200-codec-mechanisms-run3.json"]

# (family, phase, setting, elements): held-out points over 25% beyond their run-to-run
# spread, and why (kernel names in the runs' "kernels").
KNOWN_MISSES = {
    # cuBLAS picks its kernel for the tall-skinny products by shape: at 2560 x 2560 (6.5M)
    # ranks 3 and 5 run one sm80_xmma GEMM for M Q (25 us) where ranks 2 and 4 run cutlass
    # split-K plus a reduction (72 us); at 4096 x 4096 (16.8M) rank 3 runs split-K (158 us)
    # where ranks 2 and 4-32 run xmma (44-64 us). A law linear in rank between measured
    # ranks carries its neighbours' kernel, not this one's.
    ("powersgd", "encode", 3, 6553600): "cuBLAS kernel choice by shape",
    ("powersgd", "encode", 5, 6553600): "cuBLAS kernel choice by shape",
    ("powersgd", "encode", 3, 16777216): "cuBLAS kernel choice by shape",
    # random-k's decode (fill, randint, scatter) where the fill's 4n bytes and randint's 8k
    # bytes of indices together pass ~50 MiB, the L2's random-access capacity measured by the
    # same run's l2_probe: 0.3 on 6.5M (25 + 15 MiB) costs less per kept element than the
    # law's line from 0.1 to 0.5 (which crosses the capacity at 0.5), and 0.7 on 8.4M less
    # than the line continued beyond 0.5. No residency form tried predicts both sides
    # (docs/stacks.md, "Held out").
    ("randk", "decode", 0.3, 6553600): "L2 residency near its capacity",
    ("randk", "decode", 0.7, 8388608): "L2 residency near its capacity",
}


def held_out_points(runs):
    """{(family, phase, setting, elements): [gpu_busy_us per run]} from codec_mechanisms.py runs."""
    pts = {}
    for run in runs:
        for o in run["ops"]:
            if "error" in o:
                continue
            if o["part"] == "randk_grid":
                key = ("randk", o["phase"], o["value"], o["elements"])
            elif o["part"] == "powersgd" and o["op"] == "encode":
                key = ("powersgd", "encode", o["rank"], o["elements"])
            else:
                continue
            pts.setdefault(key, []).append(o["gpu_busy_us"])
    return pts


def main(argv):
    src = argv[1] if len(argv) > 1 else "."
    sys.path.insert(0, os.path.join(src, "bench", "gpu"))
    import make_stack_laws as m

    def load(names):
        out = []
        for name in names:
            with open(os.path.join(src, "bench", "gpu", "results", name)) as f:
                out.append(json.load(f))
        return out

    settings_runs, held_runs = load(SETTINGS_RUNS), load(HELD_OUT_RUNS)
    tables = m.settings_tables(settings_runs)
    l2 = m.l2_of(settings_runs)
    prefix_of = {fam: prefix for prefix, (fam, _, _, _) in m.SETTING_LAWS.items()}
    failures, held, repro = [], [], []
    for (fam, phase, v, n), samples in sorted(held_out_points(held_runs).items()):
        _, parameter, forms, _ = m.SETTING_LAWS[prefix_of[fam]]
        table = tables[(fam, phase)]
        scale, beyond = forms[phase]
        law = m.setting_law(table, parameter, scale, beyond, l2)
        pred = m.at_setting(law, v, n)[1]
        meas = statistics.median(samples)
        spread = max(samples) / min(samples) - 1
        row = (fam, phase, v, n, pred, meas, pred / meas - 1, spread)
        measured = v in table and n in table[v]["elements"]
        (repro if measured else held).append(row)
    if len(held) < 90 or len(repro) < 25:
        failures.append("expected >= 90 held-out and >= 25 re-measured points, got %d and %d"
                        % (len(held), len(repro)))
    over = set()
    for fam, phase, v, n, pred, meas, err, spread in held:
        key = (fam, phase, v, n)
        if abs(err) > BAR and abs(err) > spread:
            over.add(key)
            if key not in KNOWN_MISSES:
                failures.append("%s %s at %g, %d elements: law %.1f us, measured %.1f (%+.0f%%, "
                                "run-to-run spread %.0f%%): held-out point over %.0f%%"
                                % (fam, phase, v, n, pred, meas, 100 * err, 100 * spread, 100 * BAR))
    for key in KNOWN_MISSES:
        if key not in over:
            failures.append("%s: listed as a miss but within the bar (or not measured): take it "
                            "off KNOWN_MISSES" % (key,))
    for fam, phase, v, n, pred, meas, err, _ in repro:
        if abs(err) > REPRO:
            failures.append("%s %s at %g, %d elements: re-measured %.1f us against the settings "
                            "runs' %.1f (%+.1f%%), over %.0f%%" % (fam, phase, v, n, meas, pred,
                                                                  100 * err, 100 * REPRO))
    for fam, phase in sorted({r[:2] for r in held}):
        e = sorted(abs(r[6]) for r in held if r[:2] == (fam, phase))
        print("held out: %-8s %-6s %3d points, median |error| %4.1f%%, worst %3.0f%%, %d within %.0f%%"
              % (fam, phase, len(e), 100 * e[len(e) // 2], 100 * e[-1],
                 sum(x <= BAR for x in e), 100 * BAR))
    e = sorted(abs(r[6]) for r in held)
    print("held out: all %d points, median |error| %.1f%%, %d within %.0f%%, %d over it beyond "
          "their run-to-run spread (listed misses)"
          % (len(e), 100 * e[len(e) // 2], sum(x <= BAR for x in e), 100 * BAR, len(over)))
    r = sorted(abs(x[6]) for x in repro)
    print("re-measured settings (another H200, three days later): %d points, median |difference| "
          "%.1f%%, worst %.1f%%" % (len(r), 100 * r[len(r) // 2], 100 * r[-1]))
    print("worst held-out points:")
    for fam, phase, v, n, pred, meas, err, spread in sorted(held, key=lambda r: -abs(r[6]))[:8]:
        print("  %-8s %-6s %-5g %9d: law %7.1f us, measured %7.1f (%+.0f%%, spread %.0f%%)"
              % (fam, phase, v, n, pred, meas, 100 * err, 100 * spread))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
