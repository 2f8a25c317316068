#!/usr/bin/env python3
"""gcsim's property suite (issue 45): on a seeded random sample of cases, properties that
must hold whatever the numbers are.

    props.py GCSIM SOURCE_DIR [--work DIR] [--seed S] [--cases N] [--sweeps N]
             [--only P,...] [--max-gpus N] [--des-share F] [--knobs K]
             [--no-pinned] [--verbose]

Properties (properties.py has each one's precise statement):
  determinism    two runs of predict (and of a sweep) give the same bytes, DES included
  formats        table = JSON = CSV (the table to its printed precision)
  rows           each predict row's own arithmetic (samples/s x step = samples, efficiency
                 = speedup / GPUs, step >= compute, efficiency <= 100%), with formats
  agreement      predict = sweep = plan for the same case
  monotonic      more bandwidth never slower, more latency never faster
  accumulation   --grad-accum K never lowers samples/s per GPU (ddp, zero1: exactly the
                 K - 1 extra micro-batches' compute added)
  checkpointing  --act-ckpt never lowers compute or step time, never raises memory
  best           --exchange best >= every candidate exchange (analytic)
  shards         sweep --shard K/N merged = the unsharded sweep, byte for byte

A violation listed in known.py (a known issue, with its reason) is reported as expected
and does not fail the run; any other fails it (exit 1). CI (tests/properties/
CMakeLists.txt) runs a small sample; --cases 200 --sweeps 10 is a long run by hand.
"""
import argparse
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases as cases_mod  # noqa: E402
import known  # noqa: E402
import properties  # noqa: E402
from gcsim_io import run as gcsim_run  # noqa: E402

CASE_PROPERTIES = ["determinism", "formats", "agreement", "monotonic", "accumulation",
                   "checkpointing", "best"]
ALL = CASE_PROPERTIES + ["rows", "shards"]  # rows: checked with formats' outputs


class Ctx:
    def __init__(self, gcsim, src, tmp, verbose):
        self.gcsim, self.src, self.tmp, self.verbose = gcsim, src, tmp, verbose
        self.rng = random.Random(0)
        self.checks = {}
        self.violations = []  # (prop, case text, message, commands)
        self.expected = []    # (prop, case text, message, commands, reason)
        self.calls = 0
        self.seconds = {}  # per property, wall-clock

    def run(self, args):
        self.calls += 1
        return gcsim_run(self.gcsim, args, cwd=self.src)

    def check(self, prop, case, ok, message, results, detail=None):
        self.checks[prop] = self.checks.get(prop, 0) + 1
        if not ok:
            self.violation(prop, case, message, results, detail)
        return ok

    def violation(self, prop, case, message, results, detail=None):
        text = case if isinstance(case, str) else case.describe()
        cmds = [r.command() for r in results]
        reason = None if isinstance(case, str) else known.expected(prop, case, detail or {})
        if reason:
            self.expected.append((prop, text, message, cmds, reason))
        else:
            self.violations.append((prop, text, message, cmds))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("gcsim")
    ap.add_argument("source_dir")
    ap.add_argument("--work", help="folder for platform copies and shard files "
                                   "(default: a temporary folder, removed)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=6)
    ap.add_argument("--sweeps", type=int, default=2, help="sharded sweeps (half of them DES)")
    ap.add_argument("--only", default=",".join(ALL))
    ap.add_argument("--max-gpus", type=int, default=64)
    ap.add_argument("--des-share", type=float, default=0.15)
    ap.add_argument("--pinned", action=argparse.BooleanOptionalAction, default=True,
                    help="also run known.PINNED (the cases that found known issues)")
    ap.add_argument("--knobs", type=int, default=3,
                    help="platform quantities scaled per case for monotonicity (of 6)")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    only = a.only.split(",")
    bad = [p for p in only if p not in ALL]
    if bad:
        ap.error("--only: unknown property %s (known: %s)" % (",".join(bad), ",".join(ALL)))
    gcsim = os.path.abspath(a.gcsim)
    src = os.path.abspath(a.source_dir)
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="gcsim-props-") as tmpdir:
        tmp = a.work or tmpdir
        os.makedirs(tmp, exist_ok=True)
        ctx = Ctx(gcsim, src, tmp, a.verbose)
        ctx.knobs_per_case = max(1, min(a.knobs, 6))
        log = print if a.verbose else (lambda s: None)
        sample, refused = cases_mod.sample(ctx.run, a.seed, a.cases, a.max_gpus, a.des_share,
                                           log)
        for i, case in enumerate(sample):
            # each case's own random choices (factors, K, policy): the same whichever
            # properties --only selects
            for prop in CASE_PROPERTIES:
                ctx.rng = random.Random("%d/%d/%s" % (a.seed, i, prop))
                if prop in only:
                    t = time.time()
                    getattr(properties, prop)(ctx, case)
                    ctx.seconds[prop] = ctx.seconds.get(prop, 0) + time.time() - t
        if a.pinned:
            for prop, case, kw in known.PINNED:
                if prop in only:
                    ctx.rng = random.Random(0)
                    t = time.time()
                    getattr(properties, prop)(ctx, case, **kw)
                    ctx.seconds[prop] = ctx.seconds.get(prop, 0) + time.time() - t
        if "shards" in only:
            for i in range(a.sweeps):
                ctx.rng = random.Random("%d/sweep/%d" % (a.seed, i))
                des = i % 2 == 1 and a.des_share > 0  # no DES in a build without SimGrid
                t = time.time()
                properties.shards(ctx, i, properties.sweep_spec(ctx.rng, des),
                                  "jsonl" if des else "csv")
                ctx.seconds["shards"] = ctx.seconds.get("shards", 0) + time.time() - t
    for prop, case, msg, cmds, reason in ctx.expected:
        print("EXPECTED  [%s] %s: %s\n    known: %s\n    %s" % (
            prop, case, msg, reason, "\n    ".join(cmds)))
    for prop, case, msg, cmds in ctx.violations:
        print("VIOLATION [%s] %s: %s\n    %s" % (prop, case, msg, "\n    ".join(cmds)))
    print("seed %d: %d cases (%d draws refused), %d sweeps, %d gcsim runs, %.1f s" % (
        a.seed, len(sample), refused, a.sweeps if "shards" in only else 0, ctx.calls,
        time.time() - t0))
    for prop in ALL:
        if prop in only or ctx.checks.get(prop):
            nv = sum(1 for v in ctx.violations if v[0] == prop)
            ne = sum(1 for v in ctx.expected if v[0] == prop)
            print("  %-14s %5d checks, %d violations, %d expected (known.py), %.1f s" % (
                prop, ctx.checks.get(prop, 0), nv, ne, ctx.seconds.get(prop, 0)))
    return 1 if ctx.violations else 0


if __name__ == "__main__":
    sys.exit(main())
