#!/usr/bin/python3
"""Compute-bound property: N GPUs never train faster than N times one GPU's profile.

    compute_bound.py GCSIM REPO [--jobs N]

Over the whole catalog (every platform x every model that has a compute profile for the
platform's GPU type x every profiled batch B of that profile x compressors none and fp16
x weak and strong scaling), `gcsim predict --engine analytic --batch B` with the ring
collective (the TernGrad paper's pattern is exempt: it moves a host copy out of T(1,1,K)), GPU counts 1, 2, 4, ... up to the platform's size (strong scaling: up to B,
since gcsim refuses fewer samples than GPUs). Data-parallel training adds communication
to the profiled compute and never removes any, so

    weak:   throughput <= N x B / T(1,1,B)        (every GPU trains B samples)
    strong: throughput <= B / (T(1,1,B) / N)      (the B samples are split over N GPUs)

where T(1,1,B) is the time the model file gives for B (read from the file, not from
gcsim). A throughput above the bound by more than 1e-9 relative (floating-point
rounding) is a violation: each is printed with its command line. Exit status: 0 no
violation, 1 a violation or a gcsim failure, 2 bad usage or input.
"""
import argparse
import concurrent.futures
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import catalog  # noqa: E402
import gcsim_cli  # noqa: E402

COMPRESSORS = ["none", "fp16"]
REL_TOL = 1e-9


def powers_of_two_upto(n):
    out, g = [], 1
    while g <= n:
        out.append(g)
        g *= 2
    return out


def cases(platforms, models):
    for p in platforms:
        for m in models:
            for batch, t_s in m.profile_for(p):
                for comp in COMPRESSORS:
                    yield (p, m, batch, t_s, comp, "weak", powers_of_two_upto(p.gpus))
                    yield (p, m, batch, t_s, comp, "strong",
                           powers_of_two_upto(min(p.gpus, batch)))


def check_case(gcsim, repo, case):
    """(rows checked, violations, failures) of one case."""
    p, m, batch, t_s, comp, scaling, gpus = case
    # The TernGrad Appendix B pattern (default on the paper's own platforms) moves a host
    # copy out of T(1,1,K) by the paper's definition, so it is exempt: those platforms are
    # checked with ring, the default everywhere else.
    argv = [gcsim, "predict", "--engine", "analytic", "--platform", os.path.relpath(p.path, repo),
            "--model", os.path.relpath(m.path, repo), "--compressor", comp,
            "--collective", "ring",
            "--scaling", scaling, "--batch", str(batch), "--gpus", ",".join(map(str, gpus))]
    try:
        doc = gcsim_cli.run_json(argv, repo)
        by_gpus = gcsim_cli.predict_rows(doc, argv)
    except gcsim_cli.GcsimError as e:
        # A configuration that cannot fit in GPU memory is refused by design (exit 2, the
        # arithmetic on stderr; docs/formats.md "Memory"): there is no prediction to check.
        if e.returncode == 2 and "does not fit in GPU memory" in (e.stderr or ""):
            return 0, [], []
        return 0, [], ["%s\n  %s: %s" % (gcsim_cli.command_line(e.argv), e.why,
                                         (e.stderr or "").strip())]
    notes = doc.get("notes") if isinstance(doc.get("notes"), dict) else {}
    engine = notes.get("engine", "?")  # the engine's description, for the message
    violations, failures, checked = [], [], 0
    for n in gpus:
        row = by_gpus.get(n, {}).get("analytic")
        if row is None or "throughput_samples_per_s" not in row:
            failures.append("%s --format json: no analytic throughput for %d GPUs"
                            % (gcsim_cli.command_line(argv), n))
            continue
        tput = float(row["throughput_samples_per_s"])
        bound = n * batch / t_s
        checked += 1
        if tput > bound * (1.0 + REL_TOL):
            violations.append(
                "%s %s %s %s scaling, batch %d, %d GPUs: %.3f samples/s > bound %.3f "
                "(%d x %d / %.6g s), %+.3f%%; engine: %s\n  %s --format json" % (
                    p.name, m.name, comp, scaling, batch, n, tput, bound, n, batch, t_s,
                    100.0 * (tput / bound - 1.0), engine,
                    gcsim_cli.command_line(argv)))
    return checked, violations, failures


def main(argv):
    ap = argparse.ArgumentParser(prog="compute_bound.py", description=__doc__.split("\n")[0])
    ap.add_argument("gcsim")
    ap.add_argument("repo")
    ap.add_argument("--jobs", type=int, default=2)

    def usage_error(msg):
        print("compute_bound.py: %s" % msg, file=sys.stderr)
        sys.exit(2)

    ap.error = usage_error
    a = ap.parse_args(argv)
    if not (os.path.isfile(a.gcsim) and os.access(a.gcsim, os.X_OK)):
        usage_error("%s: not an executable gcsim" % a.gcsim)
    repo = os.path.abspath(a.repo)
    try:
        platforms = catalog.platforms(repo)
        models = catalog.models(repo)
    except catalog.InputError as e:
        usage_error(str(e))
    gcsim = os.path.abspath(a.gcsim)
    todo = list(cases(platforms, models))
    checked, violations, failures = 0, [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for c, v, f in pool.map(lambda c: check_case(gcsim, repo, c), todo):
            checked += c
            violations += v
            failures += f
    for v in violations:
        print("VIOLATION: " + v)
    for f in failures:
        print("GCSIM FAILED: " + f)
    pairs = {(c[0].name, c[1].name) for c in todo}
    print("%d gcsim calls, %d platform x model pairs, %d rows checked: %d violations, "
          "%d failures" % (len(todo), len(pairs), checked, len(violations), len(failures)))
    # A run that checks nothing cannot fail: treat it as a failure too.
    if violations or failures or checked == 0:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
