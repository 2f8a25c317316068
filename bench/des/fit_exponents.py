#!/usr/bin/python3
"""Growth exponents of the DES benchmarks (growth.sh, issue47_bench.sh): the least-squares
slope of log CPU seconds on log GPUs, per case and per timed column, and each step's slope.

    fit_exponents.py ROWS NAME...

ROWS has lines "CASE GPUS T1 [T2 ...]", one T per NAME (e.g. "ref new"). A row with a time
of 0 (under the timer's 10 ms resolution) is left out."""
import collections
import math
import sys


def slope(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / sum((a - mx) ** 2 for a in xs)


def main(path, names):
    rows = collections.defaultdict(list)
    for line in open(path):
        c, n, *ts = line.split()
        ts = [float(t) for t in ts]
        if len(ts) == len(names) and all(t > 0 for t in ts):
            rows[c].append((int(n), ts))
    for c, v in rows.items():
        if len(v) < 2:
            continue
        v.sort()
        xs = [math.log(n) for n, _ in v]
        fits = []
        for k, name in enumerate(names):
            ys = [math.log(t[k]) for _, t in v]
            steps = ", ".join(f"{v[i][0]}->{v[i + 1][0]} {(ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]):.2f}"
                              for i in range(len(v) - 1))
            fits.append(f"{name + ' ' if len(names) > 1 else ''}{slope(xs, ys):.2f} ({steps})")
        print(f"exponent {c:12s} {v[0][0]}-{v[-1][0]} GPUs: " + "; ".join(fits))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: fit_exponents.py ROWS NAME...")
    main(sys.argv[1], sys.argv[2:])
