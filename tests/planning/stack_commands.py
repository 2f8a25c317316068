#!/usr/bin/env python3
"""sweep, plan and breakeven under training stacks, against gcsim predict (issue 24).

    stack_commands.py GCSIM SOURCE_DIR

- sweep --stack pytorch-ddp,fused: the stack is a dimension of the cross product (nested
  between compressor and collective), a `stack` column after the existing ones, one id per
  (case, stack), each case's throughput the one `predict --stack` prints; without --stack
  the platform's choice (pytorch-ddp here), the same ids as when it is named;
- plan --exchange best: on 256 V100s over 25 GbE, QSGD is all-gathered by the fused stack
  (every GPU decodes 255 payloads); the plan's pick is the fastest of `predict --exchange
  auto|allreduce|allgather|ps`, with the stack's own exchange and the gain beside it; under
  pytorch-ddp, which can only all-gather QSGD (issue 43), the pick is its own all-gather;
  plan's default collectives under horovod search QSGD by all-gather only (a note counts
  the 6 others), and --collectives ring,ps runs both as a what-if (note, warning);
  plan --stack LIST: one row per stack, each naming it;
- breakeven --stack pytorch-ddp: both stacks' answers (meta and columns); each column's
  break-even is where `predict --stack S` flips between the compressor and fp32; PowerSGD
  pays off on a faster network with the ideal codec (fused) than with PyTorch's hook; a
  compressor the stack cannot run is a `refused` row with the fused answer beside it.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def run(gcsim, *args):
    r = subprocess.run([gcsim, *args], capture_output=True, text=True)
    if r.returncode != 0:
        print("gcsim", " ".join(args), "->", r.returncode, r.stderr)
        sys.exit(1)
    return r.stdout


def rows_csv(text):
    return list(csv.DictReader(io.StringIO(text)))


def predict(gcsim, *args):
    """The one row of gcsim predict --format csv."""
    rows = rows_csv(run(gcsim, "predict", *args, "--format", "csv"))
    check(len(rows) == 1, "predict %s: one row" % " ".join(args))
    return rows[0]


SWEEP_COLUMNS = ["case", "cases", "id", "platform", "model", "compressor", "collective",
                 "scaling", "batch", "engine", "gpus", "machines", "gpus_per_machine",
                 "status", "samples_per_iteration", "iteration_s", "compute_s", "comm_s",
                 "exposed_comm_s", "compress_s", "throughput_samples_per_s", "speedup",
                 "efficiency_pct", "bottleneck", "usd_per_hour", "exchange", "encode_s",
                 "decode_s", "payload_bytes"]
# issue 46: what predict has for the case, after stack (sweep) and after every column
# (breakeven)
PREDICT_FIELDS = ["tokens_per_s", "mfu_pct", "memory_bytes_per_gpu", "sharding",
                  "act_ckpt_policy", "compute_source"]


def test_sweep(gcsim):
    base = ["--platform", "cloud-v100-25gbe", "--model", "resnet-50", "--compressor", "qsgd",
            "--gpus", "1,64"]
    text = run(gcsim, "sweep", *base, "--stack", "pytorch-ddp,fused", "--format", "csv")
    header = text.splitlines()[0].split(",")
    check(header == SWEEP_COLUMNS + ["stack"] + PREDICT_FIELDS,
          "sweep csv: the existing columns in their order, then stack, then issue 46's "
          "predict fields: %s" % header)
    rows = rows_csv(text)
    check(len(rows) == 4, "2 stacks x 2 GPU counts: %d rows" % len(rows))
    if len(rows) != 4:
        return
    check([r["stack"] for r in rows] == ["pytorch-ddp", "pytorch-ddp", "fused", "fused"],
          "stack nested outside the GPU count: %s" % [r["stack"] for r in rows])
    check([r["case"] for r in rows] == ["0", "1", "2", "3"] and
          all(r["cases"] == "4" for r in rows), "case indices and total")
    check(len({r["id"] for r in rows}) == 4, "four ids: %s" % [r["id"] for r in rows])
    for r in rows:
        p = predict(gcsim, "--platform", "cloud-v100-25gbe", "--model", "resnet-50",
                    "--compressor", "qsgd", "--stack", r["stack"], "--gpus", r["gpus"])
        check(r["status"] == "ok" and r["throughput_samples_per_s"] == p["throughput_samples_per_s"],
              "sweep %s at %s GPUs: %s, predict --stack says %s" % (
                  r["stack"], r["gpus"], r["throughput_samples_per_s"], p["throughput_samples_per_s"]))
        check(r["exchange"] == p["exchange"], "sweep and predict exchange, %s" % r["stack"])
    check(rows[1]["throughput_samples_per_s"] != rows[3]["throughput_samples_per_s"],
          "the two stacks give two numbers at 64 GPUs")
    # Without --stack: the platform's choice (the default stack), with the ids it has when
    # named, since a case's id names its stack.
    default = rows_csv(run(gcsim, "sweep", *base, "--format", "csv"))
    check([r["stack"] for r in default] == ["pytorch-ddp"] * 2, "default stack column")
    check([r["id"] for r in default] == [r["id"] for r in rows[:2]],
          "the default stack's cases keep the ids of --stack pytorch-ddp")
    lines = run(gcsim, "sweep", *base, "--stack", "fused", "--format", "jsonl").splitlines()
    objs = [json.loads(line) for line in lines]
    check(len(objs) == 2 and all(list(o)[-1 - len(PREDICT_FIELDS)] == "stack" and
                                 list(o)[-len(PREDICT_FIELDS):] == PREDICT_FIELDS and
                                 o["stack"] == "fused" for o in objs),
          "jsonl: stack, then issue 46's predict fields, are the last members")


def test_plan_best(gcsim):
    common = ["--platform", "cloud-v100-25gbe", "--model", "resnet-50"]
    j = json.loads(run(gcsim, "plan", *common, "--compressors", "qsgd", "--exchange", "best",
                       "--gpus", "256", "--target-throughput", "1", "--format", "json",
                       "--stack", "fused"))
    check(j["meta"]["exchange"] == "best" and j["meta"]["collectives"] == 0, "plan meta: %s" % j["meta"])
    check(len(j["rows"]) == 1, "one configuration: %d rows" % len(j["rows"]))
    row = j["rows"][0]
    by = {}
    for x in ("auto", "allreduce", "allgather", "ps"):
        p = predict(gcsim, *common, "--compressor", "qsgd", "--exchange", x, "--gpus", "256",
                    "--stack", "fused")
        by[x] = (float(p["throughput_samples_per_s"]), p["exchange"])
    best = max(by, key=lambda x: by[x][0])
    print("qsgd on 256 V100s: " + ", ".join("%s %.0f" % (x, by[x][0]) for x in by) +
          "; plan picked %s" % row["exchange"])
    check(row["throughput_samples_per_s"] == by[best][0] and row["exchange"] == by[best][1],
          "plan picked %s at %s samples/s; the fastest by predict is %s at %s" % (
              row["exchange"], row["throughput_samples_per_s"], by[best][1], by[best][0]))
    check(by[best][0] > 1.5 * by["auto"][0], "the hand-checked case: the stack's own is far slower")
    check(row["stack"] == "fused" and row["stack_exchange"] == by["auto"][1] == "allgather",
          "the stack's own exchange: %s" % row["stack_exchange"])
    check(row["stack_exchange_samples_per_s"] == by["auto"][0], "the stack's own throughput")
    check(abs(row["exchange_speedup"] - by[best][0] / by["auto"][0]) < 1e-12 * row["exchange_speedup"],
          "the gain over the stack's own: %s" % row["exchange_speedup"])
    check("faster by %s" % row["exchange"] in j["notes"]["exchange"], "the note says which won")

    j = json.loads(run(gcsim, "plan", *common, "--compressors", "qsgd", "--exchange", "best",
                       "--gpus", "256", "--target-throughput", "1", "--format", "json",
                       "--stack", "pytorch-ddp"))
    row = j["rows"][0] if j["rows"] else {}
    own = predict(gcsim, *common, "--compressor", "qsgd", "--gpus", "256", "--stack",
                  "pytorch-ddp")
    check(row.get("exchange") == "allgather" and row.get("exchange_speedup") == 1 and
          row.get("throughput_samples_per_s") == float(own["throughput_samples_per_s"]),
          "pytorch-ddp: plan --exchange best keeps the all-gather it can run: %s" % row)

    # default collectives under horovod: QSGD only by all-gather (the five all-reduce
    # algorithms would re-encode at every hop, and Horovod has no parameter server); named,
    # they run as a what-if, with a note and a warning
    j = json.loads(run(gcsim, "plan", *common, "--compressors", "qsgd", "--stack", "horovod",
                       "--gpus", "16", "--target-throughput", "1", "--top", "0",
                       "--format", "json"))
    check([r["collective"] for r in j["rows"]] == ["allgather"],
          "horovod, default collectives: only allgather searched: %s"
          % [r["collective"] for r in j["rows"]])
    check(j["notes"].get("not in the stack", "").startswith("6 (platform, compressor, stack, "
                                                              "collective) combination(s)"),
          "horovod: the note counts the 6 groups not searched: %r" % j["notes"])
    r = subprocess.run([gcsim, "plan", *common, "--compressors", "qsgd", "--stack", "horovod",
                        "--gpus", "16", "--target-throughput", "1", "--collectives", "ring,ps",
                        "--top", "0", "--format", "json"], capture_output=True, text=True)
    j = json.loads(r.stdout or "{}")
    check(r.returncode == 0 and len(j.get("rows", [])) == 2 and
          "warning: 2 (platform, compressor, stack, collective)" in r.stderr and
          "what-if" in j.get("notes", {}),
          "horovod, --collectives ring,ps: both run as a what-if (%d, %r)"
          % (r.returncode, r.stderr))
    # sweep: named cases run as asked, each distinct what-if warned once
    r = subprocess.run([gcsim, "sweep", *common, "--compressor", "qsgd,fp16", "--stack",
                        "horovod", "--collective", "ring,ps", "--gpus", "8,16",
                        "--format", "csv"], capture_output=True, text=True)
    rows = rows_csv(r.stdout) if r.returncode == 0 else []
    warned = [l for l in r.stderr.splitlines() if "warning:" in l]
    check(len(rows) == 8 and all(x["status"] == "ok" for x in rows) and len(warned) == 3 and
          any("does not implement allreduce for quantized payloads (qsgd)" in l for l in warned)
          and any("does not implement ps for summable payloads (fp16)" in l for l in warned),
          "sweep under horovod: 8 rows, 3 what-ifs warned once each (%d rows, %r)"
          % (len(rows), warned))

    # plan --stack LIST: one row per stack; the csv keeps its columns, the stack ones last
    # before the sharding column that issue 25 appended
    text = run(gcsim, "plan", *common, "--compressors", "fp16", "--collectives", "ring",
               "--stack", "fused,pytorch-ddp", "--gpus", "8,64", "--target-throughput", "1000",
               "--format", "csv")
    header = text.splitlines()[0].split(",")
    check(header[-19:] == ["exchange", "stack", "stack_exchange", "stack_exchange_samples_per_s",
                           "exchange_speedup", "sharding", "convergence_factor",
                           "convergence_source", "per_step_train_time_s", "convergence_lo",
                           "convergence_hi", "convergence_missed_gap_pts", "tokens_per_s",
                           "mfu_pct", "memory_bytes_per_gpu", "act_ckpt_policy", "micro_batch",
                           "grad_accum", "compute_source"],
          "plan csv: the stack columns, then sharding, then issue 26's convergence, then "
          "issue 43's interval and missed gap, then issue 46's predict fields: %s" % header)
    rows = rows_csv(text)
    check(sorted(r["stack"] for r in rows) == ["fused", "pytorch-ddp"], "a row per stack")
    check(all(r["stack_exchange"] == "" for r in rows), "no exchange search without best")


def test_breakeven(gcsim, tmp):
    base = ["--platform", "platforms/a100-hdr.json", "--model", "models/resnet-50.json",
            "--gpus", "64"]
    j = json.loads(run(gcsim, "breakeven", *base, "--stack", "pytorch-ddp", "--compressor",
                       "powersgd,topk:ratio=0.01,orq", "--format", "json"))
    m = j["meta"]
    check(m["stack"]["name"] == "pytorch-ddp" and m["fused_stack"]["name"] == "fused",
          "meta names both stacks: %s" % m)
    rows = {r["compressor"].split(":")[0]: r for r in j["rows"]}
    check(sorted(rows) == ["orq", "powersgd", "topk"], "three rows")
    for r in j["rows"]:
        check(r["stack"] == "pytorch-ddp", "row stack")
    ps = rows["powersgd"]
    check(ps["status"] == "found" and ps["fused_status"] == "found", "powersgd found under both")
    # PyTorch's PowerSGD hook pays Gram-Schmidt per matrix, copies and a synchronize per
    # bucket; the codec model none of that: the ideal implementation pays off up to a
    # faster network.
    check(ps["fused_breakeven_Bps"] >= ps["breakeven_Bps"],
          "powersgd: fused break-even %s below pytorch-ddp's %s" % (
              ps["fused_breakeven_Bps"], ps["breakeven_Bps"]))
    check(ps["fused_codec_s"] < ps["codec_s"], "powersgd: the fused codec is the cheaper")
    orq = rows["orq"]
    check(orq["status"] == "refused" and "cannot run orq" in orq["reason"] and
          orq["breakeven_Bps"] is None and orq["fused_status"] in ("found", "never", "always"),
          "orq: refused by pytorch-ddp, answered by fused: %s / %s" % (orq["status"], orq["fused_status"]))
    # Each column's break-even is where predict --stack S flips (topk: found under both).
    topk = rows["topk"]
    plat = json.load(open("platforms/a100-hdr.json"))
    for stack, key in (("pytorch-ddp", "breakeven_Bps"), ("fused", "fused_breakeven_Bps")):
        check(topk[key] is not None, "topk %s break-even found" % stack)
        if topk[key] is None:
            continue
        for factor, wins in ((0.98, True), (1.02, False)):
            plat["nic"]["bandwidth"] = "%.9gGbps" % (topk[key] * 8e-9 * factor)
            path = os.path.join(tmp, "p.json")
            json.dump(plat, open(path, "w"))
            t = {c: float(predict(gcsim, "--platform", path, *base[2:], "--compressor", c,
                                  "--stack", stack)["throughput_samples_per_s"])
                 for c in ("none", "topk:ratio=0.01")}
            check((t["topk:ratio=0.01"] > t["none"]) == wins,
                  "%s at %.2f x break-even: topk %g vs none %g" % (stack, factor,
                                                                   t["topk:ratio=0.01"], t["none"]))


def main(gcsim, src):
    os.chdir(src)
    test_sweep(gcsim)
    test_plan_best(gcsim)
    with tempfile.TemporaryDirectory() as tmp:
        test_breakeven(gcsim, tmp)
    print("ok" if failures == 0 else "%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
