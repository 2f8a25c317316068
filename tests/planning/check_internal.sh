#!/bin/sh
# gcsim check exits 3, not 2, when a DES case's simulation fails inside (the SimGrid child
# dies): an internal error, not a bad baseline (commands.h). The child is killed as soon
# as it exists; a 512-GPU ring with every step simulated (GCSIM_DES_FULL=1) runs for
# seconds, so the child is there to kill.
#   check_internal.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
cp "$src/platforms/a100-hdr.json" "$src/models/resnet-50.json" "$work/" || exit 1
cat >"$work/baseline.json" <<'JSON'
{"format": "gcsim-baseline/1",
 "cases": [{"name": "ring-512-des", "platform": "a100-hdr.json", "model": "resnet-50.json",
            "collective": "ring", "gpus": 512, "scaling": "weak", "engine": "des",
            "expected_throughput_samples_per_s": 1000}]}
JSON
GCSIM_DES_FULL=1 "$gcsim" check --baseline "$work/baseline.json" >"$work/out" 2>"$work/err" &
pid=$!
end=$(($(date +%s) + 180))
# One kill: the first child seen is the simulation (the baseline has one DES case). Any
# later child is not ours to kill: under LeakSanitizer, gcsim's exit check runs in a
# cloned tracer task, and killing it left gcsim stopped (exit 137 in a CI run).
killed=0
while kill -0 $pid 2>/dev/null && [ "$(date +%s)" -le $end ]; do
    if [ $killed -eq 0 ]; then
        for c in $(pgrep -P $pid); do kill -KILL "$c" 2>/dev/null && killed=1; done
    fi
    sleep 0.02
done
kill -KILL $pid 2>/dev/null
wait $pid
rc=$?
fail=0
[ $rc -eq 3 ] || { echo "FAIL: gcsim check exit $rc, expected 3"; fail=1; }
grep -q 'ring-512-des.*internal error' "$work/err" ||
    { echo "FAIL: stderr does not name the case and the internal error:"; cat "$work/err"; fail=1; }
[ -s "$work/out" ] && { echo "FAIL: something on stdout"; fail=1; }
echo "gcsim check exit $rc: $(cat "$work/err")"
exit $fail
