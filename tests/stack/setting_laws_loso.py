#!/usr/bin/env python3
"""Leave-one-setting-out check of the stacks' codec laws by setting (issue 43, docs/stacks.md
"Laws by setting"); no GPU needed, it reads the measured runs.

    python3 tests/stack/setting_laws_loso.py SOURCE_DIR

1. For every codec family with >= 3 measured settings in bench/gpu/results/
   h200-codec-settings.json and its repeats (-run2, -run3): each setting's cost, per size, is
   predicted by the family's law form (bench/gpu/make_stack_laws.py SETTING_LAWS: scale,
   behaviour beyond the settings) from the other settings only, and compared with the law
   of its own measurements; the quantity is what gcsim charges per call, max(host, GPU), on
   the measuring GPU. The issue's bar is 25% at every setting and size. A point over it by
   no more than its own run-to-run range over the three runs is counted as noise; the
   points over both are listed below (KNOWN_MISSES, each with why): the check fails when any
   other point misses, and when a listed point no longer misses (the list must shrink when a
   law form improves). The worst cases are printed.
2. The shipped stacks' laws are what make_stack_laws.py derives from the measured runs
   (nothing edited by hand, nothing fitted to end-to-end numbers): the script is rerun on
   copies of platforms/stacks/pytorch-ddp.json and horovod.json and the results compared.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BAR = 0.25

# (family, phase, setting, elements): the points over 25% beyond their own run-to-run spread
# (real misses of a law form), and why. A point over 25% but within the run-to-run range of
# its own measurement over the three runs (host times of ~50 us calls vary by up to 2x
# between runs) is reported, not listed: no law can be closer than the data agree.
KNOWN_MISSES = {
    # PowerSGD encode at 2^26: rank 2 takes 397 us of GPU time and rank 4 321 us. The
    # products' kernels, timed alone with their names (bench/gpu/codec_mechanisms.py,
    # h200-codec-mechanisms*.json), say why: rank 1's are cuBLAS GEMVs (M Q 96 us, M^T P 72:
    # near the HBM's rate for one read of the 256 MB matrix); at ranks 2-32 cuBLAS runs
    # sm80_xmma GEMMs, one launch each (141 + 126 us) except rank 2's M Q, split in two (247
    # us). Which kernel a rank gets changes with the shape (at 4096^2 rank 3 gets cutlass
    # split-K, 158 us, where 2 and 4-32 get xmma, 44-64 us), so no form in the rank predicts
    # it from the neighbours: rank 1 left out is extrapolated from rank 2's GEMM, rank 2
    # from rank 1's GEMV and rank 4's GEMM.
    ("powersgd", "encode", 1, 67108864): "rank 1's GEMV, rank 2's split GEMM",
    ("powersgd", "encode", 2, 67108864): "rank 1's GEMV, rank 2's split GEMM",
    # random-k's scatter at 50% on 6.5M elements: 104 us where 1-10% give 13 ps per kept
    # element (all in L2) and 0.5 costs 27 ps; its footprint (26 MB output, 26 MB int64
    # indices, 13 MB values: 65.5 MB) is just over the 62.9 MB the H200 reports. A random
    # scatter's L2 capacity measured alone (codec_mechanisms.py l2_probe: a scatter's time
    # per access against its buffer, warm) is about 50 MiB, but no residency form built on
    # it predicts this point without breaking others (2^24 at 0.5, 2^26 at 0.1; tried: the
    # footprint's share beyond 50 MiB, the fill's lines evicted by randint's indices; docs/
    # stacks.md "Held out"), so it stays a stated miss.
    ("randk", "decode", 0.5, 6553600): "L2 residency",
}
# Removed when the law forms were built from what sets the kernels' cost (docs/stacks.md,
# "Laws by setting"): DGC's decode at 0.5 (16M, 64M) and 0.001 (64M) (the sorted scatter's
# touched sectors, one table with top-k's decode: the same kernel), random-k's encode at 0.5
# on 6.5M (the gather's touched sectors and L2 re-reads), QSGD's decode at 16 bits (16M,
# 64M) (passes per code width: 16 bits has no offset pass).

STACKS = ("pytorch-ddp.json", "horovod.json", "horovod-tf.json")  # every shipped stack with laws
RUNS = ["h200-codec-settings.json", "h200-codec-settings-run2.json",
        "h200-codec-settings-run3.json"]


def main(argv):
    src = argv[1] if len(argv) > 1 else "."
    sys.path.insert(0, os.path.join(src, "bench", "gpu"))
    import make_stack_laws as m
    runs = []
    for name in RUNS:
        with open(os.path.join(src, "bench", "gpu", "results", name)) as f:
            runs.append(json.load(f))
    tables = m.settings_tables(runs)
    rows = m.leave_one_out(tables, [m.settings_tables([r]) for r in runs], m.l2_of(runs))
    failures = []
    families = sorted({(r[0], r[1]) for r in rows})
    if len(families) != 10:  # topk, dgc, randk, qsgd, powersgd x encode, decode
        failures.append("expected 10 family-phases with >= 3 settings, got %s" % families)
    over, noise = {}, {}
    for fam, phase, v, n, pred, meas, err, spread in rows:
        key = (fam, phase, v, n)
        if abs(err) > BAR and abs(err) <= spread:
            noise[key] = (pred, meas, err, spread)
        elif abs(err) > BAR:
            over[key] = (pred, meas, err, spread)
            if key not in KNOWN_MISSES:
                failures.append("%s %s at %g, %d elements: predicted %.1f us, measured %.1f "
                                "(%+.0f%%, run-to-run spread %.0f%%): over %.0f%% and not a "
                                "known miss" % (fam, phase, v, n, pred, meas, 100 * err,
                                                100 * spread, 100 * BAR))
        if key in KNOWN_MISSES and key not in over:
            failures.append("%s %s at %g, %d elements: %+.0f%% (spread %.0f%%) is no longer a "
                            "miss: take it off KNOWN_MISSES" % (fam, phase, v, n, 100 * err,
                                                                100 * spread))
    for key in KNOWN_MISSES:
        if not any(r[:4] == key for r in rows):
            failures.append("%s: listed, but not a measured point" % (key,))
    errs = sorted(abs(r[6]) for r in rows)
    print("leave-one-setting-out: %d points (family, phase, setting, size); median |error| "
          "%.1f%%; %d within %.0f%%, %d over it but within their run-to-run spread, %d over "
          "both (known misses of the law forms)"
          % (len(rows), 100 * errs[len(errs) // 2], len(rows) - len(over) - len(noise),
             100 * BAR, len(noise), len(over)))
    print("worst cases:")
    for r in sorted(rows, key=lambda r: -abs(r[6]))[:10]:
        print("  %-8s %-6s %-8g %9d: predicted %7.1f us, measured %7.1f (%+.0f%%, spread %.0f%%)"
              % (r[0], r[1], r[2], r[3], r[4], r[5], 100 * r[6], 100 * r[7]))
    for fam, phase in families:
        e = [abs(r[6]) for r in rows if (r[0], r[1]) == (fam, phase)]
        print("  %-8s %-6s worst %.0f%%" % (fam, phase, 100 * max(e)))

    # 2. the shipped laws are the derivation's
    results = "bench/gpu/results"  # as the shipped laws' sources name them (cwd: src)
    with tempfile.TemporaryDirectory() as tmp:
        copies = []
        for name in STACKS:
            shutil.copy(os.path.join(src, "platforms", "stacks", name), tmp)
            copies.append(os.path.join(tmp, name))
        cmd = [sys.executable, "bench/gpu/make_stack_laws.py",
               os.path.join(results, "h100-codec.json"), "--gpu", "h100", "--settings"] + \
              [os.path.join(results, r) for r in RUNS] + ["--update"] + copies
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=src)
        if done.returncode != 0:
            failures.append("make_stack_laws.py failed: %s" % done.stderr[-500:])
        for name, copy in zip(STACKS, copies):
            with open(os.path.join(src, "platforms", "stacks", name)) as f:
                shipped = json.load(f)
            with open(copy) as f:
                derived = json.load(f)
            if shipped.get("laws") != derived.get("laws"):
                bad = [k for k in set(shipped.get("laws", {})) | set(derived.get("laws", {}))
                       if shipped["laws"].get(k) != derived["laws"].get(k)]
                failures.append("platforms/stacks/%s: laws %s differ from make_stack_laws.py's"
                                % (name, ", ".join(sorted(bad)[:6])))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
