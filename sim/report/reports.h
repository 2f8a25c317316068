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
 *   predict_exchange.h    predict's look at the other exchanges (the search's table)
 *   predict_phases.h      a run of optimizer phases (1-bit Adam, 0/1 Adam) per GPU count
 *   predict_steps.h       every bucket's program of codec steps and collective calls
 *   predict_variability.h the columns and notes of variable per-GPU compute
 *   sweep_progress.h      a progress bar on stderr for long sweeps
 *
 * It depends on sim/planning, the engines, sim/config and traces/ (atomic_file.h), never on
 * sim/cli (tests/layering checks it).
 */
#ifndef GCSIM_REPORT_REPORTS_H
#define GCSIM_REPORT_REPORTS_H

#include "predict_exchange.h"
#include "predict_phases.h"
#include "predict_steps.h"
#include "predict_variability.h"
#include "report.h"
#include "report_emit.h"
#include "report_fit.h"
#include "sweep_progress.h"

#endif
