#!/bin/sh
# plots/train/run_sweep.sh: the accuracy-vs-workers sweep behind docs/train.md and the two
# gnuplot scripts in this folder. Runs `gcsim train` for every (compressor, workers) pair,
# one run at a time (single-threaded, deterministic), and writes into OUT:
#   runs/<label>-w<N>.csv   every evaluation point of one run (gcsim train --format csv)
#   specs.txt               label, then the spec with every default filled in
#   summary.dat             per compressor a gnuplot index block (in label order): a header
#                           row "workers <label> ...", then rows of workers, final test
#                           accuracy, final train loss, bits per worker, iterations to the
#                           target accuracy (-1: not reached)
# Usage: run_sweep.sh GCSIM OUT [MODEL] [EPOCHS] ["WORKERS"] ["label=spec ..."]
# Environment: TARGET (default 0.85), EVAL_EVERY (default 100), BATCH (64), LR (0.01),
#              SEED (1), EXTRA (more gcsim train options, e.g. "--limit-train 6400").
set -eu
GCSIM=${1:?usage: run_sweep.sh GCSIM OUT [MODEL] [EPOCHS] [WORKERS] [COMPRESSORS]}
OUT=${2:?usage: run_sweep.sh GCSIM OUT [MODEL] [EPOCHS] [WORKERS] [COMPRESSORS]}
MODEL=${3:-mlp}
EPOCHS=${4:-5}
WORKERS=${5:-"1 2 4 8 16"}
COMPRESSORS=${6:-"fp32=none terngrad=terngrad qsgd=qsgd dgc=dgc ecq=ecq signsgd=signsgd orq=orq"}
TARGET=${TARGET:-0.85}
EVAL_EVERY=${EVAL_EVERY:-100}
BATCH=${BATCH:-64}
LR=${LR:-0.01}
SEED=${SEED:-1}
EXTRA=${EXTRA:-}

mkdir -p "$OUT/runs"
: > "$OUT/specs.txt"
summary="$OUT/summary.dat.tmp"
printf '# gcsim train sweep: model %s, %s epochs, batch %s, lr %s, seed %s, target %s %s\n' \
    "$MODEL" "$EPOCHS" "$BATCH" "$LR" "$SEED" "$TARGET" "$EXTRA" > "$summary"
first=1
for pair in $COMPRESSORS; do
    label=${pair%%=*}
    spec=${pair#*=}
    # The full spec, from a tiny run's table header.
    full=$("$GCSIM" train --compressor "$spec" --limit-train 64 --limit-test 1 --epochs 1 \
        --batch 64 --format table | sed -n 's/^compressor: //p')
    printf '%s %s\n' "$label" "$full" >> "$OUT/specs.txt"
    [ $first -eq 1 ] || printf '\n\n' >> "$summary"
    first=0
    # First row of each block: the header gnuplot's columnheader(2) takes as the title.
    printf 'workers %s train_loss bits_per_worker iterations_to_target\n' "$label" >> "$summary"
    for n in $WORKERS; do
        csv="$OUT/runs/$label-w$n.csv"
        start=$(date +%s)
        # shellcheck disable=SC2086
        "$GCSIM" train --model "$MODEL" --workers "$n" --compressor "$spec" --epochs "$EPOCHS" \
            --batch "$BATCH" --lr "$LR" --seed "$SEED" --eval-every "$EVAL_EVERY" \
            --format csv --output "$csv" $EXTRA
        end=$(date +%s)
        awk -F, -v n="$n" -v target="$TARGET" -v secs=$((end - start)) '
            NR > 1 { acc = $5; loss = $3; bits = $6
                     if (hit == "" && $5 + 0 >= target + 0) hit = $2 }
            END { if (hit == "") hit = -1
                  printf "%d %.4f %.4f %.6g %d\n", n, acc, loss, bits, hit
                  printf "%s workers %d: accuracy %.4f, %d s\n", FILENAME, n, acc, secs > "/dev/stderr" }' \
            "$csv" >> "$summary"
    done
done
mv "$summary" "$OUT/summary.dat"
