#!/bin/sh
# Commands under a 200 MB address-space limit exit when done (issue 29: OpenBLAS, linked into
# the whole command for `gcsim train`, ran its thread pool in every command and at exit spun
# at 100% CPU on a buffer it could not map, forever). `timeout` turns a hang into a failure.
# Left out under AddressSanitizer, which reserves terabytes of address space.
#   small_vm_limit.sh GCSIM
set -u
gcsim=$1
if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "PASS: skipped under AddressSanitizer (no address-space limit possible)"
    exit 0
fi
ulimit -v 200000
fail=0
for args in "predict" "predict --engine des --gpus 8" "collective --gpus 8 --sizes 1MiB" "--version"; do
    # shellcheck disable=SC2086 # the words of args are separate arguments
    timeout 30 "$gcsim" $args >/dev/null 2>&1
    rc=$?
    [ $rc -eq 0 ] || { echo "FAIL: gcsim $args under ulimit -v 200000: exit $rc (124: hung)"; fail=1; }
done
[ $fail -eq 0 ] && echo "PASS: every command exited under ulimit -v 200000"
exit $fail
