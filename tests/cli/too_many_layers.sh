#!/bin/sh
# A model of 100,001 layers, one more than gcsim accepts (issue 15: it was reported as "an
# empty array"): exit 2, a message naming the file, $.layers and the limit, no stdout.
#   too_many_layers.sh GCSIM WORK_DIR
set -u
gcsim=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
awk 'BEGIN {
    printf "{\"name\": \"many\", \"batch_per_gpu\": 16, \"layers\": [\n"
    for (i = 0; i < 100001; i++)
        printf "%s{\"name\": \"l%d\", \"kind\": \"fc\", \"weights\": 10, \"bias\": 1, \"fwd_flops\": 20}\n", i ? "," : "", i
    printf "], \"profiles\": [{\"gpu\": \"gtx1080\", \"framework\": \"test\", \"source\": \"test\", \"points\": [{\"batch\": 16, \"time\": \"20ms\"}]}]}\n"
}' >"$work/many_layers.json"
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/expect_failure.sh" 2 \
    "many_layers.json: \$.layers: 100001 layers, more than the 100000 gcsim accepts" \
    "$gcsim" predict --model "$work/many_layers.json" --output "$work/out"
