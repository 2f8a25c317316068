#!/bin/sh
# gcsim plan answers an LLM question whole (issue 46): Llama 3 70B on 256 H100s, 8 x 400G
# (h100-ndr) against 1 x 400G (h100-400g) per node, searching every sharding (ZeRO++ and
# HSDP groups among them), checkpointing policy and micro-batch to a global batch of 512
# sequences. Checks, from the plan's own JSON:
# - exit 0 though most items are infeasible (ddp and most policies do not fit; micro-batches
#   4 and 8 do not divide 512 / 256): each kind counted with its reason in the notes;
# - every row: micro-batch x accumulation x 256 GPUs = 512, tokens/s = samples/s x 8192,
#   one row per (platform, sharding) under --best-per, both platforms answered;
# - the ranked-first row of each platform is what gcsim predict says for the same settings
#   (tokens/s, MFU, memory per GPU), so the rows carry predict's numbers;
# - the plot of it is bars clustered by strategy, one series per platform.
# usage: plan_llm.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
common="--model $src/models/llama-3-70b.json --gpus 256"
"$gcsim" plan $common --platform $src/platforms/h100-ndr.json,$src/platforms/h100-400g.json \
    --sharding all --act-ckpt=all --global-batch 512 --compressors none,fp16 \
    --target-throughput 1 --rank-by time --best-per platform,sharding --top 0 \
    --format json --output plan.json 2> plan.err
rc=$?
[ $rc -eq 0 ] || bad "plan exit $rc: $(cat plan.err)"
python3 - "$gcsim" "$src" > check.txt 2>&1 <<'PY' || { bad "$(cat check.txt)"; }
import json, subprocess, sys
gcsim, src = sys.argv[1], sys.argv[2]
plan = json.load(open("plan.json"))
rows, notes = plan["rows"], plan["notes"]
errors = []
def need(cond, what):
    if not cond:
        errors.append(what)
need(plan["meta"]["feasible"], "not feasible")
seen = set()
for r in rows:
    need(r["micro_batch"] * r["grad_accum"] * r["gpus"] == 512,
         "row %d: %d x %d x %d GPUs != 512" % (r["rank"], r["micro_batch"], r["grad_accum"], r["gpus"]))
    need(abs(r["tokens_per_s"] / (r["throughput_samples_per_s"] * 8192) - 1) < 1e-12,
         "row %d: tokens/s is not samples/s x 8192" % r["rank"])
    key = (r["platform"], r["sharding"])
    need(key not in seen, "two rows for %s" % (key,))
    seen.add(key)
    need(r["memory_bytes_per_gpu"] <= 80e9, "row %d: %g bytes on an 80 GB GPU" % (r["rank"], r["memory_bytes_per_gpu"]))
need({p for p, _ in seen} == {"h100-ndr", "h100-400g"}, "platforms: %s" % seen)
need(any("qwz" in s or "hpz" in s for _, s in seen), "no ZeRO++ row")
need(any(s.startswith("hsdp:") for _, s in seen), "no HSDP group row")
need("ddp" not in {s for _, s in seen}, "ddp of a 70B model fits?")
for k in ("skipped.memory", "skipped.batch", "answer.h100-ndr", "answer.h100-400g"):
    need(k in notes, "no note %s" % k)
need("do not fit in GPU memory" in notes.get("skipped.memory", ""), "memory note")
need("not a whole number of micro-batches of 4 on 256 GPUs" in notes.get("skipped.batch", ""), "batch note")
# rank 1 of each platform against predict with the same settings
for pf in ("h100-ndr", "h100-400g"):
    r = next(x for x in rows if x["platform"] == pf)
    ck = r["act_ckpt_policy"]
    args = [gcsim, "predict", "--model", src + "/models/llama-3-70b.json",
            "--platform", "%s/platforms/%s.json" % (src, pf), "--gpus", "256",
            "--sharding", r["sharding"], "--batch", str(r["micro_batch"]),
            "--grad-accum", str(r["grad_accum"]), "--compressor", r["compressor"],
            "--format", "json"] + (["--act-ckpt=" + ck] if ck != "none" else [])
    p = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)["rows"][0]
    for col in ("tokens_per_s", "mfu_pct", "memory_bytes_per_gpu", "throughput_samples_per_s"):
        need(abs(p[col] / r[col] - 1) < 1e-9, "%s %s: plan %r, predict %r" % (pf, col, r[col], p[col]))
    need(notes["answer." + pf].startswith("256 GPUs, %s, %s, act ckpt %s, micro-batch %d x %d"
                                          % (r["compressor"], r["sharding"], ck, r["micro_batch"], r["grad_accum"])),
         "answer.%s: %s" % (pf, notes["answer." + pf]))
print("\n".join(errors))
sys.exit(1 if errors else 0)
PY
# The picture: clustered bars, one series per platform, the strategies as tick labels.
if command -v gnuplot > /dev/null 2>&1; then
    "$gcsim" plot plan.json --output plan.svg --script plan.gp 2> plot.err || bad "plot: $(cat plot.err)"
    grep -q "set style histogram clustered" plan.gp || bad "plan.gp: not clustered bars"
    for t in h100-ndr h100-400g; do grep -q "title '$t'" plan.gp || bad "plan.gp: no series $t"; done
    grep -q "^\"zero3+hpz\" " plan.gp || bad "plan.gp: no zero3+hpz cluster"
fi
# Infeasible items of a list do not fail the run: ddp does not fit, fsdp does.
"$gcsim" plan $common --platform $src/platforms/h100-400g.json --sharding ddp,fsdp \
    --act-ckpt=none,full --target-throughput 1 --format json --output two.json 2> two.err
rc=$?
[ $rc -eq 0 ] || bad "ddp,fsdp x none,full: exit $rc: $(cat two.err)"
[ $fail -eq 0 ] && echo "ok: plan_llm"
exit $fail
