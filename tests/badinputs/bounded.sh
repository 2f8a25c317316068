#!/bin/sh
# Runs tests/cli/expect_failure.sh with the address space limited to KIB kilobytes, so that
# a command that allocates for what a file claims (rather than for what it holds) fails
# the test. Under AddressSanitizer (ASAN_OPTIONS set, as tests/sanitize.sh does) the limit
# is left out: ASan reserves terabytes of address space for its shadow memory.
#   bounded.sh KIB EXIT_CODE "MESSAGE" gcsim ARGS...
set -u
kib=$1
shift
[ -n "${ASAN_OPTIONS:-}" ] || ulimit -v "$kib"
exec sh "$(dirname "$0")/../cli/expect_failure.sh" "$@"
