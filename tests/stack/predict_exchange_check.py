#!/usr/bin/env python3
"""`gcsim predict --exchange best` and the slow-exchange warning (sim/cli/predict_exchange.h).

    predict_exchange_check.py GCSIM REPO

QSGD on ResNet-50, cloud-v100-25gbe (V100s over 25 GbE), analytic engine:
- under the fused stack (which implements every exchange) its own all-gather has every GPU
  decode 255 payloads per bucket at 256 GPUs; `--exchange best` must give, at 8 and 256
  GPUs, exactly the largest of `predict --exchange X` for X in auto, allreduce, allgather,
  ps, with that X in the row's exchange column (auto: the stack's own, all-gather here);
- the default run (auto) must warn on standard error at 256 GPUs, naming the faster
  exchange and the ratio of the two throughputs (to the 2 decimals it prints), keep
  standard output a valid report, exit 0, and put the search in the "exchange search"
  note; fp16 at 8 GPUs (all-reduced by the stack, as fast as the best) must not warn;
- under pytorch-ddp and horovod, which can only all-gather QSGD (issue 43: the stack
  files' "exchanges"), `--exchange best` must give the largest of the exchanges the stack
  implements (auto, allgather), run the all-gather, and mark allreduce and ps "not in the
  stack"; the default run must not warn at 256 GPUs, though a parameter server would be
  14x faster: the stack cannot run one;
- naming an exchange the stack does not implement (`--stack horovod --exchange ps`) runs
  it as asked, a what-if: exit 0, a warning on standard error naming what the stack
  implements, and "a what-if" in the exchange note;
- under the fused stack too: ECQ-SGD at 512 GPUs with `--exchange best` must give the
  largest of the four exchanges; the papers' patterns are not searched (issue 45: they
  charge no codec time and move a host copy out of the compute, and won by accounting);
- no warning and no search note where nothing was left to chance: uncompressed fp32 (the
  embedded default run), or a platform that names its collective (terngrad-fig5a, the
  TernGrad paper's pattern, with TernGrad at 64 GPUs);
- every report names its stack (meta stack.name); `--exchange fastest` exits 2 naming
  "best", with nothing on standard output.
"""
import json
import re
import subprocess
import sys

failures = []
BASE = ["--platform", "platforms/cloud-v100-25gbe.json", "--model", "models/resnet-50.json",
        "--engine", "analytic", "--format", "json"]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(gcsim, repo, args):
    return subprocess.run([gcsim, "predict"] + BASE + args, capture_output=True, text=True,
                          cwd=repo, timeout=120)


def report(gcsim, repo, args):
    r = run(gcsim, repo, args)
    if r.returncode != 0:
        print("gcsim predict %s -> %d: %s" % (" ".join(args), r.returncode, r.stderr))
        sys.exit(1)
    return json.loads(r.stdout), r.stderr


def tput(doc, gpus):
    return next(row["throughput_samples_per_s"] for row in doc["rows"] if row["gpus"] == gpus)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    gcsim, repo = argv[1], argv[2]

    qsgd = ["--compressor", "qsgd", "--stack", "fused"]
    best, _ = report(gcsim, repo, qsgd + ["--gpus", "8,256", "--exchange", "best"])
    check(best["meta"]["stack"]["name"] == "fused", "fused named in meta")
    own = {}
    for gpus in (8, 256):
        each = {}
        for x in ("auto", "allreduce", "allgather", "ps"):
            doc, _ = report(gcsim, repo, qsgd + ["--gpus", str(gpus), "--exchange", x])
            each[x] = (tput(doc, gpus), doc["rows"][0]["exchange"])
        own[gpus] = each["auto"][0]
        want = max(each.values(), key=lambda v: v[0])
        row = next(r for r in best["rows"] if r["gpus"] == gpus)
        check(row["throughput_samples_per_s"] == want[0],
              "%d GPUs: best %.6g, the largest --exchange X gives %.6g"
              % (gpus, row["throughput_samples_per_s"], want[0]))
        check(row["exchange"] == want[1], "%d GPUs: best ran %s, the fastest is %s"
              % (gpus, row["exchange"], want[1]))
        if gpus == 256:
            # the all-reduce (a pipelined ring since issue 42, h-ringlat: 76,437 samples/s
            # against the parameter server's 72,293; lock-step it was 63,129) or the
            # parameter server: either beats the all-gather by far
            check(want[1] in ("allreduce", "ps") and want[0] > 1.5 * own[gpus],
                  "256 GPUs: allreduce or ps should beat the all-gather by over 1.5x (%s)"
                  % each)
            ratio_256 = want[0] / own[gpus]
            fastest_256 = want[1]
    check("exchange search" in best["notes"], "--exchange best: an exchange search note")

    doc, err = report(gcsim, repo, qsgd + ["--gpus", "8,256"])
    m = re.search(r"warning: at 256 GPUs the exchange used \(allgather\) is ([0-9.]+)x slower "
                  r"than " + fastest_256, err)
    check(m is not None, "auto at 256 GPUs: warning on stderr, got %r" % err)
    if m:
        check(abs(float(m.group(1)) - ratio_256) < 0.006,
              "warned ratio %s, throughputs give %.4f" % (m.group(1), ratio_256))
    check("at 8 GPUs" not in err, "8 GPUs: no warning expected (%r)" % err)
    check(tput(doc, 256) == own[256], "the warning changes nothing it runs")
    check("WARNING" in doc["notes"].get("exchange search", ""), "warning in the note too")

    for stack in ("pytorch-ddp", "horovod"):
        q = ["--compressor", "qsgd", "--stack", stack, "--gpus", "256"]
        doc, _ = report(gcsim, repo, q + ["--exchange", "best"])
        check(doc["meta"]["stack"]["name"] == stack, "%s named in meta" % stack)
        allowed = max(tput(report(gcsim, repo, q + ["--exchange", x])[0], 256)
                      for x in ("auto", "allgather"))
        check(tput(doc, 256) == allowed and doc["rows"][0]["exchange"] == "allgather",
              "%s: best %.6g by %s, the stack's exchanges give %.6g by allgather"
              % (stack, tput(doc, 256), doc["rows"][0]["exchange"], allowed))
        note = doc["notes"].get("exchange search", "")
        check("allreduce not in the stack" in note and "ps not in the stack" in note,
              "%s: allreduce and ps not tried (%r)" % (stack, note))
        doc, err = report(gcsim, repo, q)
        check("warning" not in err and "exchange search" not in doc["notes"],
              "%s: no warning for an exchange the stack cannot run (%r)" % (stack, err))
        doc, err = report(gcsim, repo, q + ["--exchange", "ps"])
        check(doc["rows"][0]["exchange"] == "ps" and
              ("warning: stack %s does not implement ps for quantized payloads" % stack) in err
              and "it implements allgather" in err,
              "%s --exchange ps: run as a what-if with a warning (%r)" % (stack, err))
        check("a what-if: stack %s does not implement ps" % stack in doc["notes"]["exchange"],
              "%s --exchange ps: the exchange note says so (%r)"
              % (stack, doc["notes"]["exchange"]))

    doc, err = report(gcsim, repo, ["--compressor", "fp16", "--gpus", "8"])
    check("warning" not in err and "exchange search" not in doc["notes"],
          "fp16 at 8 GPUs: nothing to warn about (%r)" % err)

    ecq = ["--compressor", "ecq", "--stack", "fused", "--gpus", "512"]
    doc, _ = report(gcsim, repo, ecq + ["--exchange", "best"])
    check(doc["meta"]["stack"]["name"] == "fused", "fused named in meta")
    tries = [tput(report(gcsim, repo, ecq + ["--exchange", x])[0], 512)
             for x in ("auto", "allreduce", "allgather", "ps")]
    check(tput(doc, 512) == max(tries), "fused ECQ at 512: best %.6g, largest try %.6g (%s)"
          % (tput(doc, 512), max(tries), tries))
    note = doc["notes"].get("exchange search", "")
    check("allreduce" in note and "terngrad" not in note and "dgc-paper" not in note,
          "fused: the four exchanges searched, not the patterns (%r)" % note)

    for args in ([gcsim, "predict", "--format", "json"],
                 [gcsim, "predict", "--format", "json", "--platform",
                  "platforms/terngrad-fig5a.json", "--compressor", "terngrad", "--gpus", "64"]):
        r = subprocess.run(args, capture_output=True, text=True, cwd=repo, timeout=120)
        check(r.returncode == 0 and "warning" not in r.stderr and
              "exchange search" not in json.loads(r.stdout or "{}").get("notes", {}),
              "%s: no exchange warning expected (%d, %r)" % (" ".join(args[1:]), r.returncode,
                                                            r.stderr))

    r = run(gcsim, repo, qsgd + ["--exchange", "fastest"])
    check(r.returncode == 2 and r.stdout == "" and "best" in r.stderr,
          "--exchange fastest: exit 2 naming best (%d, %r)" % (r.returncode, r.stderr))

    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
