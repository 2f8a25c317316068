/*
 * sim/report/reports.h: the rendering of results (CMake target gcsim_report): what gcsim's
 * commands print, as tables, CSV or JSON, from the records sim/planning and the engines
 * return. sim/cli parses options, calls sim/planning and hands the results here. One header
 * per purpose, all included here:
 *
 *   report.h              one result table (columns, rows, notes, typed meta) written as
 *                         an aligned text table, CSV or JSON (docs/schema.md)
 *   report_fit.h          a text table laid out to fit 100 columns (`--wide`: whole)
 *   report_emit.h         a report to standard output or atomically to a file; the
 *                         scenario's facts as JSON meta
 *   predict_report.h      `gcsim predict`'s tables: the GPU counts' rows and notes, the
 *                         DES's buckets, the per-layer tensors
 *   predict_first.h       predict's first screen (no options): fp32 and TernGrad, a reading
 *   predict_exchange.h    predict's look at the other exchanges (the search's table)
 *   predict_phases.h      a run of optimizer phases (1-bit Adam, 0/1 Adam) per GPU count
 *   predict_steps.h       every bucket's program of codec steps and collective calls
 *   predict_variability.h the columns and notes of variable per-GPU compute
 *   fabric_notes.h        the notes of a shared fabric (background load, ECMP, jitter)
 *   convergence_notes.h   the notes and meta of the convergence factors
 *   sweep_rows.h          sweep's rows (the run written as CSV or JSON lines)
 *   sweep_progress.h      a progress bar on stderr for long sweeps
 *   breakeven_table.h     breakeven's table and its infeasible rows' reasons
 *   plan_table.h          plan's ranked rows, meta and notes
 *   collective_table.h    collective's rows per GPU count and size, and its notes
 *   check_table.h         check's table, meta and result line
 *   calibrate_report.h    calibrate's fits, notes and measured-vs-platform rows
 *   catalog_table.h       catalog's tables (text per kind, or one JSON/CSV table)
 *   compress_table.h      compressors over a trace series, and its metrics table
 *   trace_table.h         trace info's tensors and statistics
 *   train_table.h         train's evaluation points and notes (built with sim/train only)
 *
 * It depends on sim/planning, the engines, sim/calibrate, sim/convergence, sim/config,
 * compressors/ and traces/ (and sim/train when built), never on sim/cli (tests/layering
 * checks it).
 */
#ifndef GCSIM_REPORT_REPORTS_H
#define GCSIM_REPORT_REPORTS_H

#include "breakeven_table.h"
#include "calibrate_report.h"
#include "catalog_table.h"
#include "check_table.h"
#include "collective_table.h"
#include "compress_table.h"
#include "convergence_notes.h"
#include "fabric_notes.h"
#include "predict_exchange.h"
#include "predict_first.h"
#include "predict_phases.h"
#include "predict_report.h"
#include "predict_steps.h"
#include "plan_table.h"
#include "predict_variability.h"
#include "report.h"
#include "report_emit.h"
#include "report_fit.h"
#include "sweep_progress.h"
#include "sweep_rows.h"
#include "trace_table.h"

#endif
