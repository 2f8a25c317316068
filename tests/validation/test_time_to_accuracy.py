#!/usr/bin/env python3
"""time_to_accuracy.py's arithmetic and row checks, by hand (no gcsim): the speedup formula
against hand-computed values, a published miss scored against a predicted gain, and the
data file's refusals (a bad warm-up, a non-number). Exit 1 on the first failure."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from unit_checks import check, close  # noqa: E402
import time_to_accuracy as tta  # noqa: E402


def main():
    # 1 / (w + (1 - w) f / r): no warm-up, factor 1 -> the per-step ratio itself
    close(tta.tta_speedup(0.0, 1.0, 2.0), 2.0, "no warm-up")
    # DeepSpeed's blog: 15% warm-up, 6.6x per step -> 1 / (0.15 + 0.85 / 6.6)
    close(tta.tta_speedup(0.15, 1.0, 6.6), 1.0 / (0.15 + 0.85 / 6.6), "15% warm-up")
    close(round(tta.tta_speedup(0.15, 1.0, 6.6), 2), 3.59, "15% warm-up, rounded")
    # a factor of 2 halves a compressed-only run's gain
    close(tta.tta_speedup(0.0, 2.0, 3.0), 1.5, "factor 2")
    # bounded by 1 / w however fast the compressed step
    check(tta.tta_speedup(0.2, 1.0, 1e12) < 5.0 + 1e-9, "bound 1 / w")

    # a published miss: gcsim agrees unless it predicts a gain without flagging the miss
    check(not tta.missed_agrees({"predicted": 1.5, "flagged": False}), "gain on a miss")
    check(tta.missed_agrees({"predicted": 1.5, "flagged": True}), "flagged miss")
    check(tta.missed_agrees({"predicted": 0.9}), "no gain on a miss")
    check(tta.missed_agrees({"predicted": None}), "unknown factor on a miss")

    # the data file: a good row, then each refusal
    header = "case\tsource\tstep_case\twarmup\ttarget\tspeedup\thow\n"
    good = "A\tS\t-\t0.2\tt\tmissed\th\n"
    with tempfile.TemporaryDirectory() as repo:
        path = os.path.join(repo, "tests", "validation")
        os.makedirs(path)
        tsv = os.path.join(path, "time_to_accuracy.tsv")
        open(tsv, "w").write("# comment\n" + header + good)
        rows = tta.read_rows(repo)
        check(len(rows) == 1 and rows[0]["speedup"] is None and rows[0]["warmup"] == 0.2,
              "good row read")
        for bad, why in (("A\tS\t-\t1.0\tt\t2\th\n", "warm-up of 1"),
                         ("A\tS\t-\tx\tt\t2\th\n", "warm-up not a number"),
                         ("A\tS\t-\t0\tt\t-1\th\n", "negative speedup"),
                         ("A\tS\t-\t0\tt\n", "short row")):
            open(tsv, "w").write(header + bad)
            try:
                tta.read_rows(repo)
            except ValueError as e:
                check("time_to_accuracy.tsv:2" in str(e), "%s: names the line: %s" % (why, e))
                continue
            check(False, "%s accepted" % why)
    print("time_to_accuracy: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
