#!/bin/sh
# Issue 44: every search builds its cases through one function (sim/planning/case_build.h)
# from one option record, so an option given on the command line reaches every search's
# cases. The same case, with several training options set (--precision bf16,
# --grad-accum 4, --act-ckpt, --sharding zero2; then --compute-cv, a variability option),
# evaluated through predict, sweep, breakeven, check (a baseline case with the same fields)
# and plan (its one row at that count) gives the same samples/s, and a different one from the
# case without the options (so a search that dropped one would fail here). `--exchange best`
# runs its winner's case with the options too: its row is what predict --exchange <winner>
# prints, and plan --exchange best's row the same.
#   one_case_builder.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1
src=$2
work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

# col NAME: the field NAME of the first data row of the CSV on standard input (a quoted
# field may hold commas: compressor specs do)
col() {
    awk -v name="$1" '
        function fields(line, out,    n, i, ch, quoted, cell) {
            n = 1; quoted = 0; cell = ""
            for (i = 1; i <= length(line); i++) {
                ch = substr(line, i, 1)
                if (ch == "\"") quoted = !quoted
                else if (ch == "," && !quoted) { out[n++] = cell; cell = "" }
                else cell = cell ch
            }
            out[n] = cell
            return n
        }
        NR == 1 { n = fields($0, head); for (i = 1; i <= n; i++) if (head[i] == name) c = i; next }
        NR == 2 && c { fields($0, row); print row[c]; exit }'
}

case_opts="--platform a100-hdr --model bert-base --collective ring --gpus 16 --batch 16"
train_opts="--precision bf16 --grad-accum 4 --act-ckpt --sharding zero2"

plain=$("$gcsim" predict $case_opts --format csv | col throughput_samples_per_s)
predict=$("$gcsim" predict $case_opts $train_opts --format csv | col throughput_samples_per_s)
sweep=$("$gcsim" sweep $case_opts $train_opts --compressor none --no-progress |
        col throughput_samples_per_s)
breakeven=$("$gcsim" breakeven $case_opts $train_opts --compressor none --format csv |
            col fp32_samples_per_s)
cat >"$work/baseline.json" <<JSON
{
  "format": "gcsim-baseline/1",
  "tolerance_pct": 0.5,
  "cases": [
    {
      "name": "bert-bf16-accum-ckpt-zero2",
      "platform": "a100-hdr", "model": "bert-base", "compressor": "none",
      "collective": "ring", "gpus": 16, "scaling": "weak", "batch": 16, "engine": "analytic",
      "precision": "bf16", "grad_accum": 4, "act_ckpt": true, "sharding": "zero2"
    }
  ]
}
JSON
plan=$("$gcsim" plan $case_opts $train_opts --compressor none --target-throughput 1 \
       --format csv | col throughput_samples_per_s)
check=$("$gcsim" check --baseline "$work/baseline.json" --update --format csv |
        col predicted_samples_per_s)

[ -n "$predict" ] && [ -n "$plain" ] || fail "predict printed no samples/s ($predict, $plain)"
[ "$predict" != "$plain" ] ||
    fail "the training options do not change predict's samples/s ($predict): the test proves nothing"
[ "$sweep" = "$predict" ] || fail "sweep $sweep samples/s, predict $predict"
[ "$breakeven" = "$predict" ] || fail "breakeven (none) $breakeven samples/s, predict $predict"
[ "$check" = "$predict" ] || fail "check $check samples/s, predict $predict"
[ "$plan" = "$predict" ] || fail "plan $plan samples/s, predict $predict"

# A variability option (the analytic engine's expected iteration) and --exchange best: the
# winner's row equals predict --exchange <winner>, and sweep's case with that exchange.
var_opts="--platform a100-hdr --model bert-base --gpus 16 --batch 16 --precision bf16 --grad-accum 4 --act-ckpt --compute-cv 0.1 --compressor terngrad"
best_csv=$("$gcsim" predict $var_opts --exchange best --format csv 2>/dev/null)
best=$(echo "$best_csv" | col throughput_samples_per_s)
winner=$(echo "$best_csv" | col exchange)
case $winner in
allreduce | allgather | ps) ;;
*) fail "predict --exchange best names no exchange ($winner)" ;;
esac
named=$("$gcsim" predict $var_opts --exchange "$winner" --format csv 2>/dev/null |
        col throughput_samples_per_s)
swept=$("$gcsim" sweep $var_opts --exchange "$winner" --no-progress 2>/dev/null |
        col throughput_samples_per_s)
planned=$("$gcsim" plan $var_opts --exchange best --target-throughput 1 --format csv \
          2>/dev/null | col throughput_samples_per_s)
steady=$("$gcsim" predict $var_opts --exchange "$winner" --compute-cv 0 --format csv \
         2>/dev/null | col throughput_samples_per_s)
[ -n "$best" ] && [ "$best" = "$named" ] ||
    fail "--exchange best $best samples/s, predict --exchange $winner $named"
[ "$swept" = "$named" ] || fail "sweep --exchange $winner $swept samples/s, predict $named"
[ "$planned" = "$named" ] || fail "plan --exchange best $planned samples/s, predict $named"
[ "$steady" != "$named" ] ||
    fail "--compute-cv does not change the samples/s ($named): the test proves nothing"

[ $status -eq 0 ] && echo "one case builder: predict, sweep, breakeven, check, plan and --exchange best agree ($predict; $best samples/s)"
exit $status
