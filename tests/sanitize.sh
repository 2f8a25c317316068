#!/bin/sh
# Builds gcsim with AddressSanitizer and UndefinedBehaviorSanitizer (-DGCSIM_SANITIZE=ON)
# in a build directory of its own and runs the whole CTest suite there.
#
#   tests/sanitize.sh [BUILD_DIR] [extra ctest arguments...]
#
# BUILD_DIR defaults to build-sanitize next to the sources. Any sanitizer report fails the
# test that triggered it: UBSan aborts (-fno-sanitize-recover, halt_on_error), ASan aborts
# on the first error, LeakSanitizer reports leaks at exit with a non-zero status.
# Exit status: that of ctest (0 when every test passed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=${1:-$src/build-sanitize}
[ $# -gt 0 ] && shift
jobs=${GCSIM_JOBS:-2}

cmake -S "$src" -B "$build" -DGCSIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$jobs"

# abort_on_error: a core-dump-style abort that CTest counts as a failure.
# detect_stack_use_after_return=0: SimGrid switches stacks between simulated actors,
# which that ASan check misreads as stack corruption.
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=0:strict_string_checks=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS
cd "$build"
ctest --output-on-failure -j"$jobs" "$@"
