#!/usr/bin/python3
"""Tests of engine_agreement.py itself, against a stand-in gcsim whose gaps are known.

The stand-in answers `predict --help` with collectives "ring" and "halving-doubling" (and
prose: "default", "or"), and `predict --engine both` with iteration_s = 0.1 (analytic) and
100 x (1 + gpus/1600) (DES): gaps of +0.5% at 8 GPUs, +4% at 64, +16% at 256. The
collective "halving-doubling" fails (exit 2, "boom" on stderr) at 256 GPUs only; "slow"
forks a child and both sleep (a DES run past --timeout). One
platform of 64 x 4 GPUs. Checked: the collectives read from --help; the gaps; the
distribution (hand-computed); --check failing on cases not allow-listed and on gcsim
failures; the allow-list making --check pass except for the failure; a bad allow-list
line exiting 2 with the file and line, nothing on stdout; a timeout counted as a failure
with the forked child stopped.
"""
import json
import os
import time
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import engine_agreement  # noqa: E402

FAKE_GCSIM = r'''#!/usr/bin/python3
import json, sys
a = sys.argv[1:]
if a[:2] == ["predict", "--help"]:
    print("usage: gcsim predict ...")
    print("  --collective C    ring (default) or halving-doubling,")
    print("                    default: per platform")
    print("  --no-overlap      ...")
    sys.exit(0)
opt = {a[i]: a[i + 1] for i in range(1, len(a) - 1) if a[i].startswith("--")}
if opt.get("--collective") == "slow":
    # Like the DES: a forked child does the work. Both sleep; the child leaves its pid.
    import os, time
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_WRONLY)  # as the DES child: off the parent's pipes
        os.dup2(null, 1)
        os.dup2(null, 2)
        open(os.environ["FAKE_CHILD_PID"], "w").write(str(os.getpid()))
        time.sleep(60)
        os._exit(0)
    time.sleep(60)
if opt.get("--collective") not in ("ring", "halving-doubling"):
    sys.stderr.write("unknown collective\n"); sys.exit(2)
rows = []
for g in map(int, opt["--gpus"].split(",")):
    if opt["--collective"] == "halving-doubling" and g == 256:
        sys.stderr.write("boom\n"); sys.exit(2)
    rows.append({"gpus": g, "engine": "analytic", "iteration_s": 0.1, "extra": 1})
    rows.append({"gpus": g, "engine": "des", "iteration_s": 0.1 * (1 + g / 1600.0)})
print(json.dumps({"schema_version": 1, "command": "predict", "meta": {}, "notes": {},
                  "rows": rows, "more": []}))
'''

failures = 0


def expect(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what)


def run(args):
    p = subprocess.run([sys.executable, os.path.join(HERE, "engine_agreement.py")] + args,
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    # Hand-computed percentiles: linear interpolation between ranks.
    v = [1.0, 2.0, 3.0, 4.0, 10.0]
    expect(engine_agreement.percentile(v, 50) == 3.0, "median of 1,2,3,4,10 is 3")
    expect(abs(engine_agreement.percentile(v, 90) - 7.6) < 1e-12, "p90 of 1,2,3,4,10 is 7.6")

    with tempfile.TemporaryDirectory() as tmp:
        gcsim = os.path.join(tmp, "gcsim")
        with open(gcsim, "w") as f:
            f.write(FAKE_GCSIM)
        os.chmod(gcsim, 0o755)
        repo = os.path.join(tmp, "repo")
        os.makedirs(os.path.join(repo, "platforms"))
        os.makedirs(os.path.join(repo, "models"))
        with open(os.path.join(repo, "platforms", "p1.json"), "w") as f:
            json.dump({"nodes": 64, "gpus_per_node": 4, "gpu": {"type": "x"},
                       "intra_node": {"kind": "nvlink"}, "nic": {"kind": "ethernet"},
                       "fabric": {"topology": "star"}}, f)
        for m in engine_agreement.MODELS:
            with open(os.path.join(repo, "models", m + ".json"), "w") as f:
                json.dump({"batch_per_gpu": 1, "profiles": []}, f)
        allow = os.path.join(tmp, "allow.txt")
        with open(allow, "w") as f:
            f.write("# nothing\n")
        out_json = os.path.join(tmp, "rows.json")
        md = os.path.join(tmp, "report.md")

        rc, out, err = run([gcsim, repo, "--full", "--check", "--allow-list", allow,
                            "--json", out_json, "--markdown", md])
        expect(rc == 1, "--check with failures exits 1 (got %d; %s)" % (rc, err))
        d = json.load(open(out_json))
        expect(d["collectives"] == ["ring", "halving-doubling"],
               "collectives from --help: %r" % d["collectives"])
        # 3 models x 4 compressors: ring 3 counts, halving-doubling 2 (256 fails) = 60 rows.
        expect(len(d["rows"]) == 60, "60 rows (got %d)" % len(d["rows"]))
        expect(len(d["errors"]) == 12, "12 failures (got %d)" % len(d["errors"]))
        expect(all(e["gpus"] == 256 and e["collective"] == "halving-doubling" and
                   e["stderr"] == "boom" and "--gpus 256" in e["command"] for e in d["errors"]),
               "failures pinned to halving-doubling at 256 GPUs with stderr and command")
        gaps = {(r["collective"], r["gpus"]): r["gap"] for r in d["rows"]}
        expect(abs(gaps[("ring", 64)] - 0.04) < 1e-12, "gap at 64 GPUs is +4%")
        expect(abs(gaps[("ring", 256)] - 0.16) < 1e-12, "gap at 256 GPUs is +16%")
        # 60 |gaps|: 24 x 0.5, 24 x 4, 12 x 16 -> median 4, p90 16, max 16, 24 within 3%.
        dist = engine_agreement.distribution(d["rows"])
        expect(abs(dist["median_pct"] - 4.0) < 1e-9 and abs(dist["p90_pct"] - 16.0) < 1e-9
               and abs(dist["max_pct"] - 16.0) < 1e-9 and dist["within"] == 24,
               "distribution %r" % dist)
        expect(out.count("NOT ALLOW-LISTED") == 36, "36 cases beyond 3% named")
        expect(out.count("GCSIM FAILED") == 12, "12 failures named")
        text = open(md).read()
        expect("**24 of 60 within 3%**" in text, "markdown states 24 of 60 within 3%")

        # Allow-list every case beyond 3%: --check still fails, on the gcsim failures only.
        with open(allow, "w") as f:
            for r in d["rows"]:
                if abs(r["gap"]) > 0.03:
                    f.write("%s %s %s %s %d contention, test\n" % engine_agreement.case_key(r))
        rc, out, err = run([gcsim, repo, "--full", "--check", "--allow-list", allow])
        expect(rc == 1 and "NOT ALLOW-LISTED" not in out and out.count("GCSIM FAILED") == 12,
               "allow-listed cases pass, failures still fail (rc %d)" % rc)
        rc, out, err = run([gcsim, repo, "--full", "--check", "--allow-list", allow,
                            "--collectives", "ring"])
        expect(rc == 0 and "check passed" in out, "ring only, all allow-listed: passes (rc %d)" % rc)

        # A gcsim call past --timeout is a failure, and its forked child is stopped too.
        pid_file = os.path.join(tmp, "child.pid")
        os.environ["FAKE_CHILD_PID"] = pid_file
        rc, out, err = run([gcsim, repo, "--ci", "--check", "--allow-list", allow,
                            "--collectives", "slow", "--timeout", "2", "--json", out_json])
        d = json.load(open(out_json))
        expect(rc == 1 and len(d["errors"]) == 8 and not d["rows"] and
               all(e["why"] == "timed out after 2 s" for e in d["errors"]),
               "timeouts are failures (rc %d, %r)" % (rc, [e["why"] for e in d["errors"]]))
        child = int(open(pid_file).read())

        def child_alive():
            try:  # a zombie (killed, not yet reaped by init) counts as stopped
                with open("/proc/%d/stat" % child) as f:
                    return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
            except FileNotFoundError:
                return False

        # SIGKILL is sent before the harness returns, but on a loaded machine the kernel
        # may not have run the child's exit yet: wait up to 10 s for it.
        deadline = time.time() + 10
        while child_alive() and time.time() < deadline:
            time.sleep(0.05)
        expect(not child_alive(), "the timed-out gcsim's child %d was stopped" % child)

        # A bad allow-list line: exit 2, file and line named, nothing on stdout.
        with open(allow, "a") as f:
            f.write("p1 alexnet none ring eight reason\n")
        rc, out, err = run([gcsim, repo, "--ci", "--check", "--allow-list", allow])
        expect(rc == 2 and out == "" and "%s:" % allow in err and "eight" in err,
               "bad allow-list: exit 2 naming the line (rc %d, err %r)" % (rc, err))
    print("%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
