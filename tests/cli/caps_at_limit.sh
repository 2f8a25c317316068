#!/bin/sh
# The caps of issue 45 at their value and one step past it: each cap is accepted (exit 0, a
# table on stdout) and the next value is refused (exit 2, the message naming the file and
# field or the option, nothing on stdout). Stack files and codec profiles are written from
# tests/cli/bad/stack_good.json and a one-entry profile by sed, one field changed each.
#   caps_at_limit.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
bad="$src/tests/cli/bad"
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# accepted NAME ARGS...: exit 0 and something on stdout
accepted() {
    name=$1
    shift
    "$gcsim" "$@" >"$work/out" 2>"$work/err"
    rc=$?
    if [ $rc -ne 0 ] || [ ! -s "$work/out" ]; then
        fail "$name: the cap itself was not accepted (exit $rc): $(head -c 300 "$work/err")"
    else
        echo "ok: $name accepted"
    fi
}

# refused NAME MESSAGE ARGS...: exit 2, MESSAGE on stderr, nothing on stdout
refused() {
    name=$1 message=$2
    shift 2
    "$gcsim" "$@" >"$work/out" 2>"$work/err"
    rc=$?
    if [ $rc -ne 2 ]; then
        fail "$name: one past the cap gave exit $rc, not 2: $(head -c 300 "$work/err")"
    elif ! grep -qF -- "$message" "$work/err"; then
        fail "$name: stderr lacks \"$message\": $(head -c 300 "$work/err")"
    elif [ -s "$work/out" ]; then
        fail "$name: something on stdout"
    else
        echo "ok: $name refused"
    fi
}

# stack FILE SED: stack_good.json with one substitution (the sed must change the file)
stack() {
    sed "$2" "$bad/stack_good.json" >"$work/$1"
    cmp -s "$bad/stack_good.json" "$work/$1" && fail "$1: the substitution $2 changed nothing"
}

run_stack() { echo predict --platform h100-ndr --model resnet-50 --gpus 16 --stack "$work/$1"; }

stack call_at.json 's/"collective_call": "10us"/"collective_call": "1s"/'
stack call_past.json 's/"collective_call": "10us"/"collective_call": "1.000001s"/'
stack cycle_at.json 's/"cycle": "1ms"/"cycle": "1000ms"/'
stack cycle_past.json 's/"cycle": "1ms"/"cycle": "1001ms"/'
stack fusion_at.json 's/"fusion_bytes": "64MiB"/"fusion_bytes": "1024TiB"/'
stack fusion_past.json 's/"fusion_bytes": "64MiB"/"fusion_bytes": "1125899906842625B"/'
stack negotiation_at.json 's/"negotiation_bytes": 128/"negotiation_bytes": 1000000/'
stack negotiation_past.json 's/"negotiation_bytes": 128/"negotiation_bytes": 1000001/'
stack elements_at.json 's/^    67108864$/    1099511627776/'
stack elements_past.json 's/^    67108864$/    1099511627777/'
stack host_at.json 's/^    8$/    3600000000/'
stack host_past.json 's/^    8$/    3600000001/'

# shellcheck disable=SC2046
{
accepted stack_collective_call_1s $(run_stack call_at.json)
refused stack_collective_call_past "call_past.json: \$.costs.collective_call: 1.000001 s is more than the 1 s" $(run_stack call_past.json)
accepted stack_cycle_1s $(run_stack cycle_at.json)
refused stack_cycle_past "cycle_past.json: \$.granularity.cycle: 1.001 s is more than the 1 s" $(run_stack cycle_past.json)
accepted stack_fusion_2p50 $(run_stack fusion_at.json)
refused stack_fusion_past "fusion_past.json: \$.granularity.fusion_bytes: \"1125899906842625B\" is 1125899906842625 bytes, more than the 1125899906842624" $(run_stack fusion_past.json)
accepted stack_negotiation_1e6 $(run_stack negotiation_at.json)
refused stack_negotiation_past "negotiation_past.json: \$.costs.negotiation_bytes: 1000001 is out of range [0, 1000000]" $(run_stack negotiation_past.json)
accepted stack_law_elements_2p40 $(run_stack elements_at.json)
refused stack_law_elements_past "elements_past.json: \$.laws.copy.elements[1]: 1099511627777 is more elements than the 2^40" $(run_stack elements_past.json)
accepted stack_law_host_hour $(run_stack host_at.json)
refused stack_law_host_past "host_past.json: \$.laws.copy.host_us[1]: 3600000001 is more than the 3.6e9 us (an hour)" $(run_stack host_past.json)
}

# codec profiles: a gtx1080 platform beside each profile
profile() {
    printf '{"schema": "gcsim-codec-profile/1", "gpu": "gtx1080", "kind": "measured", "source": "test", "entries": [{"compressor": "fp16", "points": [[1000, 5, 6], %s]}]}\n' "$2" >"$work/$1.json"
    sed "s|\"codec_profile\": \"codec_profile_bad.json\"|\"codec_profile\": \"$1.json\"|" \
        "$bad/platform_codec_profile_bad.json" >"$work/platform_$1.json"
}
profile elements_at '[1099511627776, 6, 7]'
profile elements_past '[1099511627777, 6, 7]'
profile encode_at '[2000, 3600000000, 7]'
profile encode_past '[2000, 3600000001, 7]'
run_profile() { echo predict --platform "$work/platform_$1.json" --model "$bad/model_good.json" --compressor fp16 --gpus 16; }
# shellcheck disable=SC2046
{
accepted profile_elements_2p40 $(run_profile elements_at)
refused profile_elements_past "elements_past.json: \$.entries[0].points[1][0]: 1099511627777 is more elements than the 2^40" $(run_profile elements_past)
accepted profile_encode_hour $(run_profile encode_at)
refused profile_encode_past "encode_past.json: \$.entries[0].points[1][1]: 3600000001 us (encode_us) is more than the 3.6e+09 us" $(run_profile encode_past)
}

# options
llama="--platform h100-ndr --model llama-7b --gpus 16 --no-memory-check"
# shellcheck disable=SC2086
{
accepted step_time_hour predict $llama --step-time 3600s
refused step_time_past "--step-time: expected a duration such as 350ms, from 1us to 3600s, got \"3600.001s\"" predict $llama --step-time 3600.001s
accepted step_time_1us predict $llama --step-time 1us
refused step_time_below "--step-time: expected a duration such as 350ms, from 1us to 3600s, got \"999ns\"" predict $llama --step-time 999ns
accepted bucket_2p50 predict --engine analytic --bucket 1024TiB
refused bucket_past "--bucket: expected a size such as 25MiB, got \"1125899906842625B\"" predict --bucket 1125899906842625B
# whole bytes: 1.001 x 1000 is 1000.9999999999999 in doubles, yet 1001 B; 0.7GiB is 751619276.8 B
accepted bucket_decimal_prefix predict --gpus 4 --bucket 1.001kB
refused bucket_fraction_of_prefix "--bucket: expected a size such as 25MiB, got \"0.7GiB\"" predict --bucket 0.7GiB
accepted hsdp_half predict $llama --sharding hsdp:8
# a group of all the GPUs (or more) is one group, zero3 (as plain hsdp on one node); above
# the group, the group must divide the count
accepted hsdp_all predict $llama --sharding hsdp:16
accepted hsdp_beyond predict $llama --sharding hsdp:32
refused hsdp_not_dividing "a shard group of 6 GPUs must divide the GPU count" predict $llama --sharding hsdp:6
accepted mfu_one predict $llama --mfu 1
refused mfu_tiny "more than the 3600 s gcsim accepts for one iteration" predict $llama --mfu 1e-9
accepted every_max predict $llama --act-ckpt=every:1048576
refused every_past "every:N: expected a block count of at least 1 (plain digits, at most 1048576), got \"1048577\"" predict $llama --act-ckpt=every:1048577
}

[ $failures -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
echo "all caps accepted at their value and refused one step past it"
