#!/usr/bin/env python3
"""nccl_logs.beyond_2x by hand (no gcsim): which logs count as more than 2x off at >= 64 MiB
(the median of the log's signed errors there above +100% or below -50%), the boundaries
themselves not counted, rows below 64 MiB ignored, a log without such rows left out of its
group's count. Exit 1 on the first failure."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from unit_checks import check  # noqa: E402
import nccl_logs  # noqa: E402

MIB = 1 << 20


def log(name, status, large, mid=()):
    """A result as nccl_logs.collect gives it: the log's row and its points (signed %)."""
    points = [{"size": 128 * MIB, "error": e} for e in large]
    points += [{"size": 4 * MIB, "error": e} for e in mid]
    return {"row": {"file": name, "status": status}, "points": points}


def main():
    results = [
        log("over.log", "normal", [90.0, 101.0, 150.0]),         # median +101: off
        log("under.log", "normal", [-49.0, -51.0, -60.0]),       # median -51: off
        log("edge-up.log", "normal", [100.0, 100.0, 99.0]),      # median +100: not off
        log("edge-down.log", "normal", [-50.0, -50.0, -10.0]),   # median -50: not off
        log("mid-only.log", "normal", [], [400.0, 500.0]),       # no >= 64 MiB row
        log("bad.log", "problem", [300.0, 350.0], [900.0]),      # median +325: off
    ]
    s = nccl_logs.beyond_2x(results)
    check("2 of the 4 normal logs (over.log +101%; under.log -51%)" in s, s)
    check("1 of the 1 problem logs (bad.log +325%)" in s, s)
    for name in ("edge-up.log", "edge-down.log", "mid-only.log"):
        check(name not in s, "%s counted: %s" % (name, s))
    s = nccl_logs.beyond_2x([log("fine.log", "normal", [10.0, -20.0])])
    check(s.endswith(": 0 of the 1 normal logs."), s)
    print("ok: beyond_2x (over, under, both boundaries, mid-only rows, per status)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
