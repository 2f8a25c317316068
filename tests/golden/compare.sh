#!/usr/bin/env bash
# Golden comparison (issue 44): runs a fixed list of gcsim command lines with two gcsim
# binaries and compares, byte for byte, what each command printed on standard output and
# standard error, its exit code, and every file it wrote. A refactor that must not change
# any output passes when the old build and the new one agree on every line.
#
#   compare.sh OLD_GCSIM NEW_GCSIM [--list FILE] [--every K] [--src DIR] [--keep DIR] [--quiet]
#
#   --list FILE  the command list (default: commands.txt beside this script); format below
#   --every K    only the 1st, (K+1)-th, (2K+1)-th ... command of the list (a quick sample)
#   --src DIR    the source tree whose catalog, traces and test fixtures both binaries read
#                (default: the tree this script is in)
#   --keep DIR   keep both sides' outputs in DIR, emptied first (default: a temporary folder,
#                removed when everything is identical, kept and named when something differs)
#   --quiet      print the summary and the differences only
#
# Exit: 0 every command identical and every exit code as the list expects; 1 a difference
# or an unexpected exit code; 2 bad usage.
#
# The list: one command per line; blank lines and lines starting with # are skipped. A line
# is a shell command line run by sh in a fresh working folder, in which `gcsim` is the binary
# under test; it may chain commands (`gcsim sweep ... --output a.csv && gcsim merge a.csv`).
# Its expected exit code is 0, or N when the line starts with `!N ` (an expected failure).
# Each line runs in its own empty folder holding links to platforms/, models/, traces/ and
# tests/ (copies of the source tree's), so the repository's relative paths work
# (platforms/a100-hdr.json, tests/planning/baseline.json) and files a command writes
# (--output, --timeline, calibrate's platform, train --dump-trace) land in the folder and
# are compared. A command that writes into those inputs is reported as a difference.
#
# Same paths on both sides: each binary is copied to PREFIX/bin/gcsim beside a copy of the
# source tree's data in PREFIX/share/gcsim (the installed layout, sim/config/data_dir.h), and
# the two sides run one after the other in the same folder, so catalog paths, the working
# folder and $TMPDIR are the same strings in both outputs. The environment is emptied
# (LC_ALL=C, TZ=UTC, no GCSIM_* variables).
#
# Normalised before comparing, on standard output and standard error only (files are
# compared raw), because they legitimately differ between two builds or two runs:
#   - `gcsim --version`'s line "commit: <hash>" (the git commit a build was configured at);
#   - gcsim compress's progress lines "gcsim compress: [i/n] ... bytes (W s)": W, the wall
#     time since the start;
#   - the DES progress lines "gcsim des: P% of the exchanges simulated ..., W s" and
#     "gcsim des: done in W s": removed, since whether they appear at all depends on the
#     wall time (a simulation that runs past 3 s).
# Nothing else is normalised.
set -u

usage() { sed -n '7,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
list=$here/commands.txt
src=$(cd "$here/../.." && pwd)
keep=""
quiet=0
every=1
[ $# -ge 2 ] || usage
old_bin=$1 new_bin=$2
shift 2
while [ $# -gt 0 ]; do
    case $1 in
        --list) [ $# -ge 2 ] || usage; list=$2; shift 2 ;;
        --src) [ $# -ge 2 ] || usage; src=$2; shift 2 ;;
        --keep) [ $# -ge 2 ] || usage; keep=$2; shift 2 ;;
        --every) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || usage; every=$2; shift 2 ;;
        --quiet) quiet=1; shift ;;
        *) echo "compare.sh: unknown option $1" >&2; usage ;;
    esac
done
for b in "$old_bin" "$new_bin"; do
    [ -x "$b" ] && [ -f "$b" ] || { echo "compare.sh: $b: not an executable file" >&2; exit 2; }
done
[ -r "$list" ] || { echo "compare.sh: $list: cannot read the command list" >&2; exit 2; }
for d in platforms models traces/data traces/datasets tests; do
    [ -d "$src/$d" ] || { echo "compare.sh: $src/$d: no such folder (--src)" >&2; exit 2; }
done
old_bin=$(cd "$(dirname "$old_bin")" && pwd)/$(basename "$old_bin")
new_bin=$(cd "$(dirname "$new_bin")" && pwd)/$(basename "$new_bin")
list=$(cd "$(dirname "$list")" && pwd)/$(basename "$list")
src=$(cd "$src" && pwd)

if [ -n "$keep" ]; then
    # Emptied first: only a folder that is empty or that compare.sh made before.
    if [ -d "$keep" ] && [ -n "$(ls -A "$keep")" ] && [ ! -f "$keep/.gcsim-golden" ]; then
        echo "compare.sh: --keep $keep: a folder with other contents (not removing it)" >&2
        exit 2
    fi
    rm -rf "$keep" && mkdir -p "$keep" || exit 2
    top=$(cd "$keep" && pwd)
else
    top=$(mktemp -d "${TMPDIR:-/tmp}/gcsim-golden.XXXXXX") || exit 2
fi
touch "$top/.gcsim-golden"
say() { [ $quiet -eq 1 ] || echo "$@"; }

# The commands: cmd[i], expected exit code want[i], line number line_no[i].
cmd=() want=() line_no=()
n=0 ln=0 seen=0
while IFS= read -r l || [ -n "$l" ]; do
    ln=$((ln + 1))
    trimmed=${l#"${l%%[![:space:]]*}"}
    case $trimmed in '' | '#'*) continue ;; esac
    seen=$((seen + 1))
    [ $(((seen - 1) % every)) -eq 0 ] || continue
    code=0
    if [[ $trimmed =~ ^!([0-9]+)[[:space:]]+(.*)$ ]]; then
        code=${BASH_REMATCH[1]}
        trimmed=${BASH_REMATCH[2]}
    fi
    cmd[n]=$trimmed want[n]=$code line_no[n]=$ln
    n=$((n + 1))
done <"$list"
[ $n -gt 0 ] || { echo "compare.sh: $list: no commands" >&2; exit 2; }

# One side: install the binary and the data under $top/run, run every command there, then
# move the results to $top/<side>.
run_side() {
    local side=$1 bin=$2 run=$top/run
    rm -rf "$run" "$top/$side"
    mkdir -p "$run/prefix/bin" "$run/prefix/share/gcsim/traces" "$run/fixtures" \
             "$run/tmp" "$run/home" "$run/w" || return 2
    cp "$bin" "$run/prefix/bin/gcsim" || return 2
    local data=$run/prefix/share/gcsim
    copy_inputs() {
        rm -rf "$data/platforms" "$data/models" "$data/traces/data" "$data/traces/datasets" \
               "$run/fixtures/tests"
        # -p and tar keep the source's times: anything newer than the stamp was written
        # by a command.
        cp -Rp "$src/platforms" "$src/models" "$data/" &&
        cp -Rp "$src/traces/data" "$src/traces/datasets" "$data/traces/" &&
        mkdir -p "$run/fixtures/tests" &&
        (cd "$src/tests" && tar --exclude=./fuzz -cf - .) | (cd "$run/fixtures/tests" && tar -xf -) &&
        touch "$data" "$data/traces" "$run/fixtures" && sleep 0.01 && touch "$run/stamp"
    }
    copy_inputs || return 2
    local i d rc
    for ((i = 0; i < n; i++)); do
        d=$run/w/$i
        mkdir "$d"
        ln -s "$data/platforms" "$d/platforms"
        ln -s "$data/models" "$d/models"
        ln -s "$data/traces" "$d/traces"
        ln -s "$run/fixtures/tests" "$d/tests"
        (cd "$d" && exec env -i PATH="$PATH" HOME="$run/home" TMPDIR="$run/tmp" LC_ALL=C TZ=UTC \
             GCSIM_BIN="$run/prefix/bin/gcsim" timeout 300 \
             sh -c 'gcsim() { "$GCSIM_BIN" "$@"; }; '"${cmd[i]}" \
             >"$run/w/$i.stdout" 2>"$run/w/$i.stderr" </dev/null)
        rc=$?
        echo "$rc" >"$run/w/$i.rc"
        rm -f "$d/platforms" "$d/models" "$d/traces" "$d/tests"
        # Anything a command wrote among the inputs is a fault of the command (or of the
        # binary): recorded as an output of its own and the inputs copied again.
        if [ -n "$(find "$data" "$run/fixtures" -newer "$run/stamp" -print -quit)" ]; then
            find "$data" "$run/fixtures" -newer "$run/stamp" | sed "s|^$run/||" | sort >"$run/w/$i.inputs"
            copy_inputs || return 2
        fi
        [ $quiet -eq 1 ] || [ $((i % 25)) -ne 24 ] || echo "  $side: $((i + 1)) of $n"
    done
    mv "$run" "$top/$side"
}

# The normalisation listed in the header, on standard output and standard error.
normalise() {
    sed -E -e 's/^commit: .*/commit: <commit>/' \
           -e 's/^(gcsim compress: \[[0-9]+\/[0-9]+\] .* bytes) \([0-9.]+ s\)$/\1 (<wall> s)/' \
           -e '/^.?gcsim des: +[0-9]+% of the exchanges simulated/d' \
           -e '/^.?gcsim des: done in [0-9]+ s/d' "$1"
}

start=$(date +%s)
say "golden: $n commands from $list"
say "  old: $old_bin"
say "  new: $new_bin"
run_side old "$old_bin" || { echo "compare.sh: cannot set up $top/run" >&2; exit 2; }
run_side new "$new_bin" || { echo "compare.sh: cannot set up $top/run" >&2; exit 2; }

same=0 differ=0 unexpected=0
report=$top/differences.txt
: >"$report"
# first_lines OLD NEW: the first differing lines, indented, at most 300 columns.
first_lines() { diff "$1" "$2" | head -n 8 | cut -c1-300 | sed 's/^/      /'; }
for ((i = 0; i < n; i++)); do
    o=$top/old/w/$i w=$top/new/w/$i
    why=$top/why.txt
    : >"$why"
    orc=$(cat "$o.rc") nrc=$(cat "$w.rc")
    [ "$orc" = "$nrc" ] || echo "    exit code: old $orc, new $nrc" >>"$why"
    for s in stdout stderr; do
        normalise "$o.$s" >"$top/a" && normalise "$w.$s" >"$top/b"
        cmp -s "$top/a" "$top/b" || { echo "    $s:"; first_lines "$top/a" "$top/b"; } >>"$why"
    done
    [ ! -f "$o.inputs" ] || echo "    old wrote into its inputs: $(head -n 3 "$o.inputs" | tr '\n' ' ')" >>"$why"
    [ ! -f "$w.inputs" ] || echo "    new wrote into its inputs: $(head -n 3 "$w.inputs" | tr '\n' ' ')" >>"$why"
    (cd "$o" && find . -mindepth 1 | LC_ALL=C sort) >"$top/a"
    (cd "$w" && find . -mindepth 1 | LC_ALL=C sort) >"$top/b"
    cmp -s "$top/a" "$top/b" || { echo "    files written:"; first_lines "$top/a" "$top/b"; } >>"$why"
    while IFS= read -r f; do
        [ -f "$o/$f" ] && [ -f "$w/$f" ] && ! cmp -s "$o/$f" "$w/$f" || continue
        if grep -qI . "$o/$f" && grep -qI . "$w/$f"; then
            { echo "    file ${f#./}:"; first_lines "$o/$f" "$w/$f"; } >>"$why"
        else
            echo "    file ${f#./}: binary files differ ($(cmp "$o/$f" "$w/$f" 2>&1 | head -n 1))" >>"$why"
        fi
    done <"$top/a"
    if [ -s "$why" ]; then
        differ=$((differ + 1))
        { echo "DIFFER line ${line_no[i]}: ${cmd[i]}"; cat "$why"; } >>"$report"
    else
        same=$((same + 1))
    fi
    if [ "$orc" != "${want[i]}" ] || [ "$nrc" != "${want[i]}" ]; then
        unexpected=$((unexpected + 1))
        {
            echo "UNEXPECTED EXIT line ${line_no[i]}: expected ${want[i]}, old $orc, new $nrc: ${cmd[i]}"
            head -n 3 "$w.stderr" | cut -c1-300 | sed 's/^/    stderr: /'
        } >>"$report"
    fi
done
rm -f "$top/a" "$top/b" "$top/why.txt"
elapsed=$(($(date +%s) - start))

cat "$report"
echo "golden: $n commands, $same identical, $differ differ, $unexpected unexpected exit codes ($elapsed s)"
if [ $differ -eq 0 ] && [ $unexpected -eq 0 ]; then
    [ -n "$keep" ] || rm -rf "$top"
    exit 0
fi
echo "golden: outputs kept in $top (old/w/N and new/w/N: line N's folder, N.stdout, N.stderr, N.rc)"
exit 1
