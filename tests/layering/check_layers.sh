#!/bin/sh
# tests/layering/check_layers.sh ROOT: the include rules between gcsim's rooms
# (docs/architecture.md), checked on the quoted #include lines of every .c, .cpp and .h
# under ROOT. A header is known by its file name (the targets export their folders as
# include directories), so a name must be unique across the rooms checked here.
#
#   1. compressors/ and traces/ include nothing from sim/.
#   2. No room below sim/step (config, codec, stack, collectives) includes a header of it:
#      the step builds on the exchanges, never the other way round.
#   3. No room below the engines (those and step) includes a header of sim/analytic or
#      sim/des.
#   4. The engines (sim/analytic, sim/des) include from sim/config only the headers of the
#      types a step and a scenario hand them (ENGINE_CONFIG_TYPES below); profiles,
#      precision, rooflines, memory and file formats are resolved by the step.
#   5. No room of sim/ but the command itself includes a header of sim/cli: the command
#      parses options and dispatches, nothing builds on it.
#   6. No room below sim/report (the rendering of results) includes it: the libraries
#      compute, sim/report prints what they return.
#   7. The engines take a resolved step (sim/step/step.h, gcsim_resolved_step): no source
#      of sim/analytic or sim/des names a gcsim_scenario (the type or its helpers) or
#      builds a step (gcsim_iteration_build, gcsim_terngrad_inputs_build,
#      gcsim_step_resolve or any gcsim_step_resolve_* called); sim/planning/engine.c builds
#      it and hands it over. The step carries no scenario either: the structs of step.h
#      an engine is handed (gcsim_resolved_step, gcsim_step_fabric) name no gcsim_scenario.
#   8. The papers' patterns are decided where a step is built: no source of sim/ outside
#      sim/step names gcsim_collective_is_paper_pattern; below the step a collective's
#      exchange is data (gcsim_collective_exchange's table in sim/config/scenario.c).
#   9. The engines are handed their topology: with the step (gcsim_step_topology, built
#      where the step is handed over), and by the caller for the questions without a step
#      (a bare collective of given bytes, nccl-tests' operations, call times, a SimGrid
#      platform file): no source of sim/analytic or sim/des builds one (calls
#      gcsim_topology_init).
#
# Prints every violation (file: included header: rule) and exits 1 if any, 0 otherwise.
# `check_layers.sh --self-test` builds small trees with and without violations and checks
# that each rule catches its own.

# gcsim_error.h: the error record; scenario.h: the scenario and collective enums (with the
# model, payload and platform records it holds); platform.h: the platform record;
# payload.h: the payload aggregation classes; variability.h: the compute-variability
# record and the draws the engines make from it.
ENGINE_CONFIG_TYPES="gcsim_error.h scenario.h platform.h payload.h variability.h"

# Every helper below spawns as few processes as it can: a process costs milliseconds of CPU,
# and the self-test runs this check on thirty trees (a process per header or per file was
# most of the layering tests' CPU time).

sources_of() { # folders -> $files: the sources under them, one word each, in sorted order
    files=
    while IFS= read -r f; do
        for d in "$@"; do
            case $f in "$d"/*) files="$files $f"; break ;; esac
        done
    done <"$tmp/all"
}

check() {
    root=$1
    bad=0
    tmp=$(mktemp -d) || exit 2
    # every source of the rooms checked, sorted (one find for all the rules)
    find "$root/sim" "$root/compressors" "$root/traces" -type f \
        \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) 2>/dev/null | sort >"$tmp/all"
    # header names per room
    sed -n 's|.*/||; /\.h$/p' "$tmp/all" | sort | uniq -d >"$tmp/dup"
    if [ -s "$tmp/dup" ]; then
        sed 's/^/header name used by two rooms (rules below cannot tell them apart): /' "$tmp/dup"
        bad=1
    fi
    # h.ROOM: the header names of sim/ROOM; h.sim: all of them; h.engines: those of
    # sim/analytic and sim/des; h.config_forbidden: sim/config's but ENGINE_CONFIG_TYPES
    awk -v pre="$root/sim/" -v tmp="$tmp" -v allowed="$ENGINE_CONFIG_TYPES" '
        BEGIN {
            n = split(allowed, a, " ")
            for (i = 1; i <= n; i++) ok[a[i]] = 1
            split("sim step analytic des config cli report engines config_forbidden", t, " ")
            for (i in t) printf "" >(tmp "/h." t[i])
        }
        index($0, pre) == 1 && /\.h$/ {
            rest = substr($0, length(pre) + 1)
            room = rest; sub(/\/.*/, "", room)
            if (room == rest) next # a header directly in sim/: no room
            name = rest; sub(/.*\//, "", name)
            print name >(tmp "/h." room)
            print name >(tmp "/h.sim")
            if (room == "analytic" || room == "des") print name >(tmp "/h.engines")
            if (room == "config" && !(name in ok)) print name >(tmp "/h.config_forbidden")
        }' "$tmp/all"
    rooms=
    for d in "$root"/sim/*; do
        [ -e "$d" ] && rooms="$rooms ${d##*/}"
    done

    # rule -> files whose includes it checks, and the header names they may not include
    rule() { # name forbidden-list folders...
        name=$1 forbid=$2
        shift 2
        # one awk over every file (a grep per include was thousands of processes: a
        # minute of the suite)
        sources_of "$@"
        [ -n "$files" ] || return 0
        # shellcheck disable=SC2086
        awk -v root="$root/" -v name="$name" '
            FNR == NR { forbidden[$0] = 1; next }
            /^[[:space:]]*#[[:space:]]*include[[:space:]]*"/ {
                inc = $0
                sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc); sub(/.*\//, "", inc)
                if (inc in forbidden) {
                    f = FILENAME
                    if (index(f, root) == 1) f = substr(f, length(root) + 1)
                    printf "%s: includes \"%s\": %s\n", f, inc, name
                }
            }' "$forbid" $files >"$tmp/hits"
        if [ -s "$tmp/hits" ]; then
            cat "$tmp/hits"
            bad=1
        fi
    }
    rule "compressors/ and traces/ never depend on sim/" "$tmp/h.sim" \
        "$root/compressors" "$root/traces"
    rule "no room below sim/step includes it" "$tmp/h.step" \
        "$root/sim/config" "$root/sim/codec" "$root/sim/stack" "$root/sim/collectives"
    rule "no room below the engines includes them" "$tmp/h.engines" \
        "$root/sim/config" "$root/sim/codec" "$root/sim/stack" "$root/sim/collectives" \
        "$root/sim/step"
    rule "the engines include from sim/config only type headers ($ENGINE_CONFIG_TYPES)" \
        "$tmp/h.config_forbidden" "$root/sim/analytic" "$root/sim/des"
    libraries=
    for room in $rooms; do
        [ "$room" = cli ] || libraries="$libraries $root/sim/$room"
    done
    rule "no library room includes sim/cli" "$tmp/h.cli" $libraries
    below_report=
    for room in $rooms; do
        [ "$room" = cli ] || [ "$room" = report ] || below_report="$below_report $root/sim/$room"
    done
    rule "no room below sim/report includes it" "$tmp/h.report" $below_report

    # rule -> files that may not name what a pattern matches (grep -E)
    names() { # name pattern folders...
        name=$1 pat=$2
        shift 2
        sources_of "$@"
        [ -n "$files" ] || return 0
        # one grep over every file (-H: "file:line:text" even for a single file)
        # shellcheck disable=SC2086
        grep -HnE "$pat" $files | while IFS= read -r hit; do
            f=${hit%%:*} rest=${hit#*:}
            echo "${f#"$root"/}:${rest%%:*}: $name"
        done | grep . && bad=1
        return 0
    }
    names "the engines take a resolved step, never a scenario" \
        '(^|[^A-Za-z0-9_])gcsim_scenario|(^|[^A-Za-z0-9_])(gcsim_iteration_build|gcsim_terngrad_inputs_build|gcsim_step_resolve[A-Za-z0-9_]*)[[:space:]]*[(]' \
        "$root/sim/analytic" "$root/sim/des"
    # ... and the step it is handed holds none: the type named in the body of each struct
    # of step.h that an engine reads (up to "} gcsim_resolved_step;" and the fabric's "};")
    if [ -f "$root/sim/step/step.h" ]; then
        awk '/^(typedef )?struct/ { body = ""; start = NR }
             { body = body "\n" NR ":" $0 }
             /^} gcsim_resolved_step;/ || (/^};/ && keep) { print body; body = "" }
             /^struct gcsim_step_fabric/ { keep = 1 }
             /^};/ { keep = 0 }' "$root/sim/step/step.h" |
            grep -E '(^|[^A-Za-z0-9_])gcsim_scenario([^A-Za-z0-9_]|$)' | while IFS= read -r hit; do
            echo "sim/step/step.h:${hit%%:*}: the step an engine is handed carries no scenario"
        done | grep . && bad=1
    fi
    names "the engines are handed their topology (gcsim_step_topology), never build one" \
        '(^|[^A-Za-z0-9_])gcsim_topology_init[[:space:]]*[(]' "$root/sim/analytic" "$root/sim/des"
    others=
    for room in $rooms; do
        [ "$room" = step ] || others="$others $root/sim/$room"
    done
    names "the papers' patterns are decided only where a step is built (sim/step)" \
        'gcsim_collective_is_paper_pattern' $others
    rm -rf "$tmp"
    return $bad
}

self_test() {
    t=$(mktemp -d) || exit 2
    trap 'rm -rf "$t"' EXIT
    fails=0
    # a clean tree: every room, each including only what it may
    # a fresh tree per case ($T; mk's paths start with tree/), its folders made by one
    # mkdir: no process per file (the self-test's CPU time was its processes)
    n_tree=0
    mk() {
        f=$T/${1#tree/}
        [ -d "${f%/*}" ] || mkdir -p "${f%/*}"
        printf '%s\n' "$2" >"$f"
    }
    reset() {
        n_tree=$((n_tree + 1))
        T=$t/tree$n_tree
        mkdir -p "$T/compressors" "$T/traces" "$T/sim/config" "$T/sim/collectives" \
            "$T/sim/step" "$T/sim/analytic" "$T/sim/des"
        mk tree/compressors/gc.h '/* */'
        mk tree/traces/tr.c '#include "gc.h"'
        mk tree/sim/config/scenario.h '#include "roofline.h"'
        mk tree/sim/config/roofline.h '/* */'
        mk tree/sim/collectives/collectives.h '#include "scenario.h"'
        mk tree/sim/step/step.h '#include "collectives.h"'
        mk tree/sim/step/iteration.c '#include "step.h"
#include "roofline.h"'
        mk tree/sim/analytic/analytic.h '#include "step.h"
#include "scenario.h"'
        mk tree/sim/des/des.c '#include "step.h"
# include "platform.h"'
        mk tree/sim/config/platform.h '/* */'
    }
    expect() { # want-rc label
        check "$T" >"$t/out" 2>&1
        rc=$?
        if [ "$rc" != "$1" ]; then
            echo "self-test: $2: exit $rc, expected $1"
            cat "$t/out"
            fails=1
        fi
    }
    reset; expect 0 "a tree within the rules"
    reset; mk tree/traces/tr.c '#include "scenario.h"'; expect 1 "traces/ including sim/config"
    reset; mk tree/sim/collectives/ops.c '#include "step.h"'; expect 1 "collectives/ including the step"
    reset; mk tree/sim/config/model.c '  #include "program.h"'; mk tree/sim/step/program.h '/* */'
    expect 1 "config/ including a step header (indented)"
    reset; mk tree/sim/step/plan.c '#include "analytic.h"'; expect 1 "step/ including an engine"
    reset; mk tree/sim/analytic/a.c '#include "roofline.h"'; expect 1 "an engine including roofline.h"
    reset; mk tree/sim/des/d.cpp '#include "../config/roofline.h"'; expect 1 "an engine's C++ including roofline.h by path"
    reset; mk tree/sim/des/scenario.h '/* */'; expect 1 "a header name in two rooms"
    reset; mk tree/sim/analytic/a.c '#include <roofline.h>'; expect 0 "a system include (not checked)"
    reset; mk tree/sim/cli/inputs.h '/* */'; mk tree/sim/report/report.h '#include "inputs.h"'
    expect 1 "sim/report including a sim/cli header"
    reset; mk tree/sim/report/report.h '/* */'; mk tree/sim/planning/sweep.c '#include "report.h"'
    expect 1 "sim/planning including a sim/report header"
    reset; mk tree/sim/report/report.h '/* */'; mk tree/sim/cli/main.c '#include "report.h"'
    expect 0 "sim/cli including sim/report"
    reset; mk tree/sim/analytic/a.c 'int f(const gcsim_scenario *s);'; expect 1 "an engine taking a scenario"
    reset; mk tree/sim/des/d.c 'x = gcsim_scenario_compresses(s);'; expect 1 "an engine calling a scenario helper"
    reset; mk tree/sim/des/d.c 'rc = gcsim_iteration_build (&it, s, err);'; expect 1 "an engine building a step"
    reset; mk tree/sim/analytic/a.c 'rc = gcsim_step_resolve_on(st, q, NULL, &on, err);'
    expect 1 "an engine rebuilding its step on another platform"
    reset; mk tree/sim/analytic/a.c 'on = st->fabrics[k].step; /* gcsim_step_resolve */'
    expect 0 "an engine reading the fabrics its step was resolved on"
    reset; mk tree/sim/step/step.h 'typedef struct {
    int n;
    const gcsim_scenario *source;
} gcsim_resolved_step;'
    expect 1 "the resolved step carrying its scenario"
    reset; mk tree/sim/step/step.h 'typedef struct gcsim_step_fabric gcsim_step_fabric;
typedef struct {
    int n;
} gcsim_resolved_step;
int gcsim_step_resolve(gcsim_resolved_step *st, const gcsim_scenario *s, gcsim_error *err);
struct gcsim_step_fabric {
    gcsim_resolved_step step;
    const gcsim_scenario *s;
};'
    expect 1 "a fabric of the step carrying a scenario"
    reset; mk tree/sim/step/step.h 'typedef struct {
    int n;
    bool compressed; /* gcsim_scenario_compresses */
} gcsim_resolved_step;
int gcsim_step_resolve(gcsim_resolved_step *st, const gcsim_scenario *s, gcsim_error *err);'
    expect 0 "step.h declaring its builder from a scenario"
    reset; mk tree/sim/des/des_plan.c 'if (gcsim_topology_init(&plan->topology, p, n, err) != 0)'
    expect 1 "the DES building a step's topology"
    reset; mk tree/sim/analytic/call_times.c 'rc = gcsim_topology_init (&t, p, gpus, err);'
    expect 1 "the analytic engine building a topology"
    reset; mk tree/sim/analytic/analytic_bare.c 'rc = gcsim_topology_init(&t, p, gpus, err);'
    expect 1 "the analytic engine's bare-collective entry point building a topology"
    reset; mk tree/sim/des/des_bare.c 'rc = gcsim_topology_init(&t, p, gpus, err);'
    expect 1 "the DES's bare-collective entry point building a topology"
    reset; mk tree/sim/analytic/analytic_bare.c 'rc = gcsim_analytic_op_time(&topo, op, c, bytes, &t, err);'
    mk tree/sim/des/des_bare.c 'rc = gcsim_des_write_topology(topo, path, err);'
    expect 0 "the bare-collective entry points handed their topology"
    reset; mk tree/sim/report/collective_table.c 'bad = gcsim_topology_init(&topo, q, gpus, &err);'
    expect 0 "a report building the topology of a bare collective"
    reset; mk tree/sim/planning/engine.c 'rc = gcsim_topology_init(&t, p, gpus, err);'
    expect 0 "the planning room building a topology"
    reset; mk tree/sim/config/scenario.c 'return gcsim_collective_is_paper_pattern(c);'; expect 1 "config/ asking for the papers' patterns"
    reset; mk tree/sim/step/rules.c 'return gcsim_collective_is_paper_pattern(c);'; expect 0 "the step asking for the papers' patterns"
    [ $fails -eq 0 ] && echo "self-test: every rule caught its violation"
    return $fails
}

case $1 in
--self-test) self_test ;;
"") echo "usage: check_layers.sh ROOT | --self-test" >&2; exit 2 ;;
*) check "$1" && echo "layering: every include within the rules" ;;
esac
