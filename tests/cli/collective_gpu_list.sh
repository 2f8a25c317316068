#!/bin/sh
# `gcsim collective --gpus LIST`: each count's rows are exactly the rows of a run with that
# count alone (the list only repeats the work), each row says its count in the last column,
# and --dtype is reported as given (it printed fp32 for bf16).
# usage: collective_gpu_list.sh GCSIM WORKDIR
set -eu
gcsim=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
set -- --platform a100-hdr --sizes 1MiB,256MiB --engine both --format csv
"$gcsim" collective "$@" --gpus 8,16,...,32 > "$work/list.csv"
: > "$work/each.csv"
for g in 8 16 32; do
    "$gcsim" collective "$@" --gpus "$g" > "$work/one.csv"
    tail -n +2 "$work/one.csv" >> "$work/each.csv"
    # every row of a single-count run names that count
    awk -F, -v g="$g" 'NR > 1 && $NF != g { print "row " NR " of --gpus " g " says " $NF; bad = 1 }
                       END { exit bad }' "$work/one.csv"
done
tail -n +2 "$work/list.csv" > "$work/list_rows.csv"
if ! cmp -s "$work/list_rows.csv" "$work/each.csv"; then
    echo "--gpus 8,16,32 differs from three single runs:"; diff "$work/list_rows.csv" "$work/each.csv" | head
    exit 1
fi
rows=$(wc -l < "$work/list_rows.csv")
[ "$rows" -eq 12 ] || { echo "expected 3 counts x 2 sizes x 2 engines = 12 rows, got $rows"; exit 1; }
head -1 "$work/list.csv" | grep -q ',gpus$' || { echo "gpus is not the last column"; exit 1; }

"$gcsim" collective --platform a100-hdr --gpus 8 --sizes 1MiB --dtype bf16 --format json > "$work/bf16.json"
grep -q '"dtype":[[:space:]]*"bf16"' "$work/bf16.json" || { echo "dtype not reported as bf16"; cat "$work/bf16.json"; exit 1; }
grep -q '"count":[[:space:]]*524288' "$work/bf16.json" || { echo "1 MiB of bf16 is not 524,288 elements"; exit 1; }
echo "ok: --gpus 8,16,32 = three single runs (12 rows); bf16 reported"
