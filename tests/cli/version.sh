#!/bin/sh
# gcsim --version and gcsim version: exit 0, the same text, the project version and the
# library versions CMake configured against (pkg-config's, passed in by tests/cli), and
# the commit CMake saw (or "unknown" without git).
# usage: version.sh GCSIM VERSION SIMGRID GSL CJSON COMMIT
set -eu
gcsim=$1 version=$2 simgrid=$3 gsl=$4 cjson=$5 commit=${6:-}
fail() { echo "FAIL: $*"; exit 1; }
out=$("$gcsim" --version) || fail "gcsim --version: exit $?"
word=$("$gcsim" version) || fail "gcsim version: exit $?"
[ "$out" = "$word" ] || fail "gcsim version differs from gcsim --version"
printf '%s\n' "$out"
[ "$(printf '%s\n' "$out" | head -n 1)" = "gcsim $version" ] || fail "first line is not 'gcsim $version'"
printf '%s\n' "$out" | grep -qx "built against: SimGrid $simgrid, GSL $gsl, cJSON $cjson" ||
    fail "library versions are not SimGrid $simgrid, GSL $gsl, cJSON $cjson"
if [ -n "$commit" ]; then
    printf '%s\n' "$out" | grep -qx "commit: $commit" || fail "commit is not $commit"
else
    printf '%s\n' "$out" | grep -q "^commit: unknown" || fail "no 'commit: unknown' without git"
fi
printf '%s\n' "$out" | grep -q "^data: .* (source tree)$" || fail "a build-tree gcsim should read the source tree"
# The version is not a subcommand's option: `predict --version` stays an error (exit 2).
rc=0
"$gcsim" predict --version > /dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "gcsim predict --version: exit $rc, expected 2"
