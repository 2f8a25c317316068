#!/bin/sh
# A model at the 100,000-layer limit with a layer_times profile (issue 29: each entry was
# found with cJSON_GetArrayItem, from the head of the list, and the model took a minute to
# load). Predicts in 1 GiB of address space (left out under AddressSanitizer, which
# reserves terabytes); CTest's TIMEOUT catches a quadratic walk (about a second when linear).
#   many_layer_times.sh GCSIM WORK_DIR
set -u
gcsim=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
awk -v n=100000 'BEGIN {
    printf "{\"name\": \"many\", \"batch_per_gpu\": 16, \"layers\": [\n"
    for (i = 0; i < n; i++)
        printf "%s{\"name\": \"l%d\", \"kind\": \"fc\", \"weights\": 10, \"bias\": 1, \"fwd_flops\": 20}\n", i ? "," : "", i
    printf "], \"profiles\": [{\"gpu\": \"gtx1080\", \"framework\": \"test\", \"source\": \"test\", "
    printf "\"points\": [{\"batch\": 16, \"time\": \"20ms\"}], \"layer_times\": {\"source\": \"test\", \"layers\": [\n"
    for (i = 0; i < n; i++)
        printf "%s{\"name\": \"l%d\", \"forward\": \"50ns\", \"backward\": \"100ns\"}\n", i ? "," : "", i
    printf "]}}]}\n"
}' >"$work/many_layer_times.json"
[ -n "${ASAN_OPTIONS:-}" ] || ulimit -v 1048576
"$gcsim" predict --model "$work/many_layer_times.json" --gpus 1,8 --format csv >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -ne 0 ]; then
    echo "FAIL: exit $rc: $(head -c 500 "$work/err")"
    exit 1
fi
rows=$(grep -c '^[0-9]' "$work/out")
[ "$rows" -eq 2 ] || { echo "FAIL: $rows rows, expected 2"; cat "$work/out"; exit 1; }
echo "PASS: 100000 layers with layer_times predicted"
