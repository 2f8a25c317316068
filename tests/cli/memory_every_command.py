#!/usr/bin/env python3
"""Every command that predicts a throughput refuses a configuration whose worker cannot hold
its training state, or shows it as an infeasible row with the reason: never a number that
looks like an answer (issue 46, the hardening line). Table-driven: one line per command and
mode; the configuration is the same for all.

The configuration: llama-2-70b (bf16, Adam) under plain data parallelism (ddp) on a100-hdr
(80 GB per GPU) at 16 GPUs: 68,976,648,192 parameters x 16 B (weights 413.86 + gradients
137.95 + optimizer 551.81 GB) + activations 91.79 GB = 1195.42 GB per GPU > 80 GB, at any
GPU count (ddp shards nothing). Under fsdp with --act-ckpt 16 GPUs hold 81.12 GB (> 80 GB)
and 32 GPUs 46.6 GB (fits): the mixed lists below use that pair.

Before this test, `gcsim breakeven` answered the ddp case (16 GPUs: fp16 "never", dgc a
break-even of 14.876 Gb/s, with fp32 at 2.0 samples/s) while predict refused it.

Not in the table: compress (measures compressors on gradient traces: no platform, model or
GPU memory), train (trains small networks in one process: no platform), collective (times
one collective: no model). They predict no training throughput of a configuration.

    memory_every_command.py GCSIM SOURCE_DIR WORK_DIR
"""
import csv
import io
import json
import os
import subprocess
import sys

GCSIM, SRC, WORK = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
os.makedirs(WORK, exist_ok=True)
PLATFORM = os.path.join(SRC, "platforms", "a100-hdr.json")
MODEL = os.path.join(SRC, "models", "llama-2-70b.json")
GPU_MEMORY_BYTES = 80e9  # a100-hdr's gpu.memory
REASON = "does not fit in GPU memory on 16 GPUs"
ONE = ["--platform", PLATFORM, "--model", MODEL]
DDP16 = ONE + ["--gpus", "16"]
FSDP_MIXED = ONE + ["--gpus", "16,32", "--sharding", "fsdp", "--act-ckpt"]

failures = []


def fail(name, what, res=None):
    tail = ""
    if res is not None:
        tail = "\n  rc %d\n  stdout: %s\n  stderr: %s" % (res.returncode, res.stdout[:600],
                                                         res.stderr[:600])
    failures.append("%s: %s%s" % (name, what, tail))


def baseline(name, cases):
    """A baseline file of check's format with these cases (gpus, sharding, act_ckpt)."""
    path = os.path.join(WORK, name + ".json")
    rows = []
    for k, (gpus, sharding, act_ckpt) in enumerate(cases):
        c = {"name": "case%d-%d" % (k, gpus), "platform": PLATFORM, "model": MODEL,
             "collective": "ring", "gpus": gpus, "scaling": "weak", "engine": "analytic",
             "sharding": sharding, "expected_throughput_samples_per_s": 1.0}
        if act_ckpt:
            c["act_ckpt"] = "full"
        rows.append(c)
    with open(path, "w") as f:
        json.dump({"format": "gcsim-baseline/1", "tolerance_pct": 100.0, "cases": rows}, f)
    return path


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


# --- checks of a mixed list's output: the 16-GPU item says why and carries no figure ----

def check_sweep(name, res):
    rows = csv_rows(res.stdout)
    if len(rows) != 1:
        return fail(name, "one row expected", res)
    r = rows[0]
    if REASON not in r["status"]:
        fail(name, "the row's status should be the reason", res)
    for col in ("throughput_samples_per_s", "iteration_s", "speedup", "efficiency_pct"):
        if r[col] != "":
            fail(name, "the infeasible row carries %s = %s" % (col, r[col]), res)


def check_predict_mixed(name, res):
    rows = {int(r["gpus"]): r for r in csv_rows(res.stdout)}
    r16, r32 = rows.get(16), rows.get(32)
    if not r16 or not r32:
        return fail(name, "rows for 16 and 32 GPUs expected", res)
    if r16["status"] != "infeasible" or REASON not in r16["why"]:
        fail(name, "16 GPUs should be infeasible with the reason", res)
    if r16["throughput_samples_per_s"] != "":
        fail(name, "the 16-GPU row carries a throughput", res)
    if r32["status"] != "ok" or not float(r32["throughput_samples_per_s"]) > 0:
        fail(name, "32 GPUs should be answered", res)


def check_breakeven_mixed(name, res):
    rows = {int(r["gpus"]): r for r in csv_rows(res.stdout)}
    r16, r32 = rows.get(16), rows.get(32)
    if not r16 or not r32:
        return fail(name, "rows for 16 and 32 GPUs expected", res)
    for prefix in ("", "fused_", "accuracy_"):
        if r16[prefix + "status"] != "infeasible" or REASON not in r16[prefix + "reason"]:
            fail(name, "16 GPUs: %sstatus infeasible with the reason expected" % prefix, res)
    for col in ("fp32_samples_per_s", "samples_per_s", "breakeven_Bps", "fused_samples_per_s",
                "fused_breakeven_Bps", "accuracy_breakeven_Bps"):
        if r16[col] != "":
            fail(name, "the infeasible row carries %s = %s" % (col, r16[col]), res)
    if r32["status"] in ("infeasible", "") or not float(r32["fp32_samples_per_s"]) > 0:
        fail(name, "32 GPUs should be answered", res)


def check_plan_mixed(name, res):
    d = json.loads(res.stdout)
    if not d["rows"]:
        return fail(name, "a configuration at 32 GPUs should be found", res)
    for r in d["rows"]:
        if r["memory_bytes_per_gpu"] > GPU_MEMORY_BYTES:
            fail(name, "row %s holds %.2f GB per GPU > 80 GB" % (r["rank"],
                                                                 r["memory_bytes_per_gpu"] / 1e9))
        if r["gpus"] == 16:
            fail(name, "a 16-GPU row was ranked: %s" % r)
    if REASON not in d["notes"].get("skipped", ""):
        fail(name, "the skipped note should give the reason", res)


def check_plan_none(name, res):
    d = json.loads(res.stdout)
    if d["rows"]:
        fail(name, "no configuration fits, yet %d rows were ranked" % len(d["rows"]), res)
    if REASON not in res.stderr or REASON not in d["notes"].get("result", ""):
        fail(name, "the reason expected on standard error and in the result note", res)


def check_check_mixed(name, res):
    d = json.loads(res.stdout)
    rows = {r["name"]: r for r in d["rows"]}
    bad, good = rows.get("case0-16"), rows.get("case1-32")
    if not bad or not good:
        return fail(name, "both cases expected", res)
    if bad["status"] != "infeasible" or REASON not in bad["why"]:
        fail(name, "the 16-GPU case should be infeasible with the reason", res)
    if bad.get("predicted_samples_per_s") is not None:
        fail(name, "the infeasible case carries a prediction", res)
    if not (good.get("predicted_samples_per_s") or 0) > 0:
        fail(name, "the 32-GPU case should be predicted", res)


# --- the table ---------------------------------------------------------------------------
# (name, argv, expected exit status, check): check None means a refusal: exit 2, nothing on
# standard output, the memory arithmetic on standard error.
TABLE = [
    ("predict", ["predict"] + DDP16, 2, None),
    ("predict --exchange best", ["predict"] + DDP16 + ["--compressor", "dgc", "--exchange",
                                                        "best"], 2, None),
    ("predict --steps", ["predict"] + DDP16 + ["--compressor", "fp16", "--steps"], 2, None),
    ("predict --tensors", ["predict"] + DDP16 + ["--compressor", "fp16", "--stack", "fused",
                                                  "--tensors"], 2, None),
    ("predict onebit-adam phases", ["predict"] + DDP16 + ["--optimizer", "onebit-adam",
                                                           "--steps-total", "1000"], 2, None),
    ("predict --goodput", ["predict"] + DDP16 + ["--goodput"], 2, None),
    ("predict --compute-cv", ["predict"] + DDP16 + ["--compute-cv", "0.1"], 2, None),
    ("breakeven", ["breakeven"] + DDP16 + ["--compressor", "fp16,dgc"], 2, None),
    ("breakeven --convergence", ["breakeven"] + DDP16 + ["--compressor", "qsgd",
                                                          "--convergence", "bound"], 2, None),
    ("check --update", ["check", "--baseline", "@ddp16", "--update"], 2, None),
    # lists with one item that fits: the other is a row that says why
    ("sweep", ["sweep"] + DDP16 + ["--format", "csv"], 0, check_sweep),
    ("predict list", ["predict"] + FSDP_MIXED + ["--format", "csv"], 0, check_predict_mixed),
    ("breakeven list", ["breakeven"] + FSDP_MIXED + ["--compressor", "fp16", "--format", "csv"],
     0, check_breakeven_mixed),
    ("plan list", ["plan"] + ONE + ["--gpus", "16,32", "--sharding", "ddp,fsdp", "--act-ckpt",
                                    "--compressors", "none", "--collectives", "ring",
                                    "--target-throughput", "1", "--format", "json"],
     0, check_plan_mixed),
    # plan with nothing that fits: its own verdict, exit 1 (none feasible), no row ranked
    ("plan", ["plan"] + DDP16 + ["--sharding", "ddp", "--compressors", "none",
                                 "--collectives", "ring", "--target-throughput", "1",
                                 "--format", "json"], 1, check_plan_none),
    # check: a case not checked is no pass (exit 1), the other is predicted
    ("check", ["check", "--baseline", "@mixed", "--format", "json"], 1, check_check_mixed),
]

BASELINES = {"@ddp16": lambda: baseline("ddp16", [(16, "ddp", False)]),
             "@mixed": lambda: baseline("mixed", [(16, "fsdp", True), (32, "fsdp", True)])}

for name, argv, want_rc, check in TABLE:
    argv = [BASELINES[a]() if a in BASELINES else a for a in argv]
    res = subprocess.run([GCSIM] + argv, capture_output=True, text=True)
    if res.returncode != want_rc:
        fail(name, "exit %d expected" % want_rc, res)
        continue
    if check is None:
        if res.stdout:
            fail(name, "a refusal wrote to standard output", res)
        if "does not fit in GPU memory" not in res.stderr or "> 80.0 GB of gpu.memory" not in res.stderr:
            fail(name, "the memory arithmetic expected on standard error", res)
    else:
        check(name, res)

for f in failures:
    print("FAIL: " + f)
print("%d commands, %d failures" % (len(TABLE), len(failures)))
sys.exit(1 if failures else 0)
