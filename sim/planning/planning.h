/*
 * sim/planning/planning.h: the library behind `gcsim sweep`, `merge`, `plan`, `check` and
 * `breakeven` (CMake target gcsim_planning). The commands in sim/cli parse options, call
 * it and print; tests/planning calls it directly. One header per purpose, all included here:
 *
 *   engine.h         which engine predicts a scenario (analytic, or the DES when built):
 *                    the one place that builds a scenario's step and hands it to one
 *   breakeven.h      the NIC bandwidth below which a compressor beats fp32 (bisection)
 *   case_options.h   the one option record of a command line, and the case it makes
 *   case_build.h     the one place a case becomes a scenario (with its refusals)
 *   sweep_lists.h    list-valued options ("a,b --x c") and compressor specs with commas
 *   sweep_case.h     one case (platform, model, compressor, stack, collective, GPUs, ...)
 *                    run on an engine under its training stack, its stable id and
 *                    bottleneck, and a cache of loaded inputs (stacks included)
 *   exchange_best.h  the fastest exchange for a case (`--exchange best`), with the stack's
 *                    own for comparison
 *   sweep_space.h    the cases of a sweep (a cross product) and how shards split them
 *   sweep_run.h      a sweep's inputs loaded into its space, and its cases run in order
 *   sweep_output.h   sweep rows streamed as CSV or JSON lines, and the CSV splitter
 *   merge.h          joining the rows of `sweep --shard K/N` outputs, with their checks
 *   plan_search.h    which GPU counts a plan searches on a platform
 *   plan_rank.h      cost, feasibility and ranking of plan candidates
 *   plan_keep.h      what the plan search keeps per group, and its extremes
 *   plan_run.h       the plan search itself: candidates run, kept, ranked, explained
 *   plan_command.h   what `gcsim plan` is asked, checked, set up and searched
 *   gpu_list.h       --gpus lists ("1,2,4,...,512")
 *   sweep_values.h   a sweep's listed collectives, scalings, batches and engines
 *   predict_counts.h the GPU counts predict runs
 *   convergence_factors.h  each compressor's convergence factor from the shipped evidence
 *   baseline_file.h  the baseline format `gcsim check` re-evaluates and rewrites
 *   baseline_check.h one baseline case predicted, its drift and tolerance, its stack
 *   baseline_run.h   every baseline case of a check evaluated
 *   predict_rows.h   predict's rows: the counts that run, each count's prediction
 *   predict_first_rows.h  the numbers of predict's first screen
 *   breakeven_row.h  one breakeven row: under the stack, under fused, to accuracy
 *   stack_breakeven.h  the break-even NIC bandwidth of a compressor under a stack
 *   goodput.h        useful samples/s with failures, checkpoints and restarts, and the
 *                    checkpoint interval (Young's and Daly's optima)
 *   schema_version.h the version of the machine-readable output (docs/schema.md)
 *
 * It depends on the engines (sim/analytic, sim/des), sim/stack, sim/codec, sim/config and
 * traces/ (atomic_file.h for the baselines it rewrites), never on sim/cli.
 */
#ifndef GCSIM_PLANNING_H
#define GCSIM_PLANNING_H

#include "baseline_check.h"
#include "baseline_file.h"
#include "baseline_run.h"
#include "breakeven_row.h"
#include "case_build.h"
#include "case_options.h"
#include "convergence_factors.h"
#include "engine.h"
#include "exchange_best.h"
#include "goodput.h"
#include "gpu_list.h"
#include "merge.h"
#include "plan_command.h"
#include "plan_keep.h"
#include "plan_rank.h"
#include "plan_run.h"
#include "plan_search.h"
#include "predict_counts.h"
#include "predict_first_rows.h"
#include "predict_rows.h"
#include "schema_version.h"
#include "stack_breakeven.h"
#include "sweep_case.h"
#include "sweep_lists.h"
#include "sweep_output.h"
#include "sweep_run.h"
#include "sweep_space.h"
#include "sweep_values.h"

#endif
