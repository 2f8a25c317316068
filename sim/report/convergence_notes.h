/*
 * sim/report/convergence_notes.h: what plan, predict and breakeven print about the
 * convergence factors (sim/convergence/convergence.h, docs/convergence.md): the source
 * asked, each compressor's evidence, factor and interval, and the meta of one factor.
 */
#ifndef GCSIM_REPORT_CONVERGENCE_NOTES_H
#define GCSIM_REPORT_CONVERGENCE_NOTES_H

#include "convergence.h"
#include "report.h"

/* Notes "convergence" (the source asked and what the factor means) and one
 * "convergence.<spec>" per compressor: the evidence, factor and interval, how it was
 * matched, or "unknown" (ranked after every known factor); a compressor that missed the
 * target in gcsim's own runs says so with the accuracy reached and the target. */
void convergence_notes_report(report *r, conv_source want, const char *const *specs, int n,
                              const conv_factor *f);

/* Meta fields of one compressor's factor at a GPU count: convergence_source,
 * convergence_gpus, convergence_factor, convergence_lo, convergence_hi (null: unknown or
 * no upper limit), convergence_reached_target and, when missed, the accuracy reached, the
 * target and the task. */
void convergence_notes_meta(report *r, const conv_factor *f, int gpus);

/* The source column of a row: the evidence (conv_evidence_name), "unknown", or "none". */
const char *convergence_source_label(const conv_factor *f);

#endif
