#!/usr/bin/env python3
"""gcsim predict --optimizer onebit-adam / zero-one-adam --steps-total (issue 43): every phase's
step is an ordinary step both engines already cost, so its step time must be what plain
`gcsim predict` prints for that step, and the end-to-end time the sum of steps x step time:
  full step   = predict (compressor none) iteration_s
  1-bit step  = predict --compressor ef+signsgd --exchange allreduce iteration_s
  local step  = the full step's compute_s
with the step counts of sim/planning/run_phases.c (hand-checked in test_run_phases.c).

    run_phases_cli.py GCSIM REPO
"""
import json
import subprocess
import sys


def run(gcsim, args):
    p = subprocess.run([gcsim, "predict"] + args + ["--format", "json"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def rows(gcsim, args):
    rc, out, err = run(gcsim, args)
    if rc != 0:
        raise SystemExit("gcsim predict %s: exit %d: %s" % (" ".join(args), rc, err))
    return json.loads(out)


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-30)


def main():
    gcsim = sys.argv[1]
    base = ["--model", "bert-large", "--platform", "cloud-v100-25gbe", "--gpus", "8,32",
            "--precision", "fp16", "--stack", "fused", "--no-overlap"]
    engines = ["analytic"]
    rc, _, err = run(gcsim, base + ["--engine", "des", "--gpus", "8"])
    if rc == 0:
        engines.append("des")
    else:
        print("no DES in this build (%s): analytic only" % err.strip())
    failures = 0
    for engine in engines:
        for spec, steps, want in (("onebit-adam:freeze=23000", 152000, (23000, 129000, 0)),
                                  ("zero-one-adam:var_freeze=12500", 152000, (153, 74169, 77678))):
            eb = base + ["--engine", engine]
            doc = rows(gcsim, eb + ["--optimizer", spec, "--steps-total", str(steps)])
            full = {r["gpus"]: r for r in rows(gcsim, eb + ["--optimizer", "adam"])["rows"]}
            onebit = {r["gpus"]: r for r in rows(gcsim, eb + ["--optimizer", "adam", "--compressor",
                                                               "ef+signsgd", "--exchange",
                                                               "allreduce"])["rows"]}
            if doc["command"] != "predict" or doc["meta"]["table"] != "phases":
                print("FAIL %s %s: command %r table %r" % (engine, spec, doc["command"],
                                                           doc["meta"].get("table")))
                failures += 1
            for r in doc["rows"]:
                g = r["gpus"]
                counts = (r["full_steps"], r["onebit_steps"], r["local_steps"])
                checks = [
                    ("counts", counts == want),
                    ("full step", close(r["full_step_s"], full[g]["iteration_s"])),
                    ("1-bit step", close(r["onebit_step_s"], onebit[g]["iteration_s"])),
                    ("local step", close(r["local_step_s"], full[g]["compute_s"])),
                    ("end-to-end", close(r["end_to_end_s"],
                                         counts[0] * r["full_step_s"] + counts[1] * r["onebit_step_s"]
                                         + counts[2] * r["local_step_s"])),
                    ("uncompressed", close(r["uncompressed_s"], steps * r["full_step_s"])),
                    ("speedup", close(r["speedup"], r["uncompressed_s"] / r["end_to_end_s"])),
                ]
                for name, ok in checks:
                    if not ok:
                        print("FAIL %s %s %d GPUs: %s (%r)" % (engine, spec, g, name, r))
                        failures += 1
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
