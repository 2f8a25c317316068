#!/bin/sh
# plots/train/table.sh: the markdown tables of docs/train.md from a sweep's runs/*.csv
# (plots/train/run_sweep.sh): final test accuracy (%) per compressor and worker count, bits
# a worker sends per iteration, and iterations to a target test accuracy.
# Usage: table.sh RUNS_DIR [TARGET] ["label ..."] ["workers ..."]
set -eu
RUNS=${1:?usage: table.sh RUNS_DIR [TARGET] [LABELS] [WORKERS]}
TARGET=${2:-0.85}
LABELS=${3:-"fp32 terngrad qsgd dgc ecq signsgd orq"}
WORKERS=${4:-"1 2 4 8 16"}

# final accuracy, final train loss, bits per worker per iteration, first iteration >= target
cell() {
    awk -F, -v target="$TARGET" '
        NR > 1 { acc = $5; loss = $3; bits = $6; it = $2
                 if (hit == "" && $5 + 0 >= target + 0) hit = $2 }
        END { if (NR < 2) exit 1
              printf "%.2f %.3f %.0f %s\n", 100 * acc, loss, bits / it, hit == "" ? "-" : hit }' "$1"
}

printf '| compressor |'; for n in $WORKERS; do printf ' N=%s |' "$n"; done
printf ' bits/worker/iteration | vs fp32 |\n|---|'
for n in $WORKERS; do printf -- '---|'; done; printf -- '---|---|\n'
fp32_bits=
for l in $LABELS; do
    printf '| %s |' "$l"
    bits=
    for n in $WORKERS; do
        f="$RUNS/$l-w$n.csv"
        if [ -f "$f" ] && c=$(cell "$f"); then
            set -- $c
            printf ' %s |' "$1"
            [ -n "$bits" ] || bits=$3
        else
            printf ' - |'
        fi
    done
    [ -n "$fp32_bits" ] || fp32_bits=$bits
    if [ -n "$bits" ]; then
        awk -v b="$bits" -v f="$fp32_bits" 'BEGIN { printf " %d | %.1fx |\n", b, f / b }'
    else
        printf ' - | - |\n'
    fi
done

printf '\nIterations to %s test accuracy (evaluated every 100 iterations and at epoch ends; - : not reached):\n\n' "$TARGET"
printf '| compressor |'; for n in $WORKERS; do printf ' N=%s |' "$n"; done
printf '\n|---|'; for n in $WORKERS; do printf -- '---|'; done; printf '\n'
for l in $LABELS; do
    printf '| %s |' "$l"
    for n in $WORKERS; do
        f="$RUNS/$l-w$n.csv"
        if [ -f "$f" ] && c=$(cell "$f"); then set -- $c; printf ' %s |' "$4"; else printf ' - |'; fi
    done
    printf '\n'
done
