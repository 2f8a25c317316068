#!/bin/sh
# A killed gcsim leaves neither its SimGrid child nor temporary files behind (issue 15,
# defect 4). For SIGKILL, SIGTERM and SIGINT sent to gcsim alone, once as soon as a child
# exists (it builds the platform in memory; no platform file is written since issue 14)
# and once while the child simulates: the child must be gone within 10 s and $TMPDIR
# (gcsim's temporary folder for the run) must be empty. SIGTERM and SIGINT must also end
# gcsim by that signal.
#   des_killed.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/tmp" || exit 1
TMPDIR=$work/tmp
export TMPDIR
sed 's/"nodes": 64,/"nodes": 250,/' "$src/platforms/a100-hdr.json" >"$work/a100-250.json"
fail=0
say() { echo "FAIL: $*"; fail=1; }

alive() { # PID: running (a zombie waiting for its reaper counts as gone)
    [ -r "/proc/$1/stat" ] || return 1
    state=$(sed 's/^.*) //' "/proc/$1/stat" | cut -d' ' -f1)
    [ "$state" != Z ]
}

# Waits up to 180 s for a state (it comes within seconds on an idle machine, but a loaded
# 2-core CI machine once took over 30 s); returns 1 if the run ended first or time ran out.
wait_for() { # PID STATE: started | child
    end=$(($(date +%s) + 180))
    while [ "$(date +%s)" -le $end ]; do
        alive "$1" || return 1
        case $2 in
        # started: a child exists (the short 1-GPU run predict makes for its speedups, or
        # the 2,000-GPU one building its platform)
        started) [ -n "$(pgrep -P "$1")" ] && return 0 ;;
        # simulating: the child has run for 2 s (so it is the 2,000-GPU run)
        child)
            c=$(pgrep -P "$1" | head -1)
            [ -n "$c" ] && [ "$(ps -o etimes= -p "$c" | tr -d ' ')" -ge 2 ] 2>/dev/null && return 0
            ;;
        esac
        sleep 0.02
    done
    return 1
}

for stage in started child; do
    for sig in KILL TERM INT; do
        # 2,000 GPUs, the hierarchical all-reduce, every step simulated (GCSIM_DES_FULL=1;
        # coalesced, the run ends within seconds): seconds to load, minutes to simulate.
        # (Not the ring: a pipelined ring's phases are one message per flow even then,
        # sim/des/des_plan.c's des_phase_coalesces.)
        # env --default-signal: sh starts background jobs with SIGINT ignored.
        env --default-signal=INT GCSIM_DES_FULL=1 "$gcsim" predict --engine des --des-max-messages -1 --platform "$work/a100-250.json" \
            --model "$src/models/resnet-50.json" --gpus 2000 --collective hierarchical \
            >/dev/null 2>"$work/err" &
        pid=$!
        if ! wait_for $pid $stage; then
            say "$sig/$stage: gcsim ended or never reached the state"
            for c in $(pgrep -P $pid); do kill -KILL "$c"; done
            kill -KILL $pid 2>/dev/null
            wait $pid
            continue
        fi
        child=$(pgrep -P $pid)
        kill -s $sig $pid
        wait $pid
        rc=$?
        case $sig in
        TERM) [ $rc -eq 143 ] || say "$sig/$stage: gcsim exit $rc, expected 143 (SIGTERM)" ;;
        INT) [ $rc -eq 130 ] || say "$sig/$stage: gcsim exit $rc, expected 130 (SIGINT)" ;;
        esac
        n=0
        for c in $child; do
            while alive "$c" && [ $n -lt 500 ]; do sleep 0.02; n=$((n + 1)); done
            alive "$c" && { say "$sig/$stage: the SimGrid child $c outlived gcsim by 10 s"; kill -KILL "$c"; }
        done
        left=$(ls -A "$TMPDIR")
        [ -z "$left" ] || { say "$sig/$stage: left behind in TMPDIR: $left"; rm -rf "$TMPDIR"/*; }
        echo "$sig while the $stage: child ${child:-none yet}, gcsim exit $rc"
    done
done
exit $fail
