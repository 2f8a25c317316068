/*
 * sim/report/report_emit.h: a command's report to standard output or, atomically, to a file,
 * with the reason when the write fails. One place for what every command does last.
 */
#ifndef GCSIM_REPORT_REPORT_EMIT_H
#define GCSIM_REPORT_REPORT_EMIT_H

#include "codec.h"
#include "stack.h"
#include "model.h"
#include "payload.h"
#include "platform.h"
#include "report.h"
#include "scenario.h"

/* Writes r in format to output (NULL: standard output). On failure prints
 * "gcsim WHO: ..." with the path and reason on stderr and returns 2 (EXIT_BAD_INPUT,
 * sim/cli/commands.h); else 0. */
int report_emit(const report *r, report_format format, const char *output, const char *who);

/* Writes text to path atomically (a file a command produces beside its report: calibrate's
 * platform, plot's script). Returns 0, or -1 after "gcsim WHO: ..." on stderr. */
int report_emit_text(const char *path, const char *text, const char *who);

/* Checks that path (NULL: nothing to check) can be written, before the command does its
 * work: a run of minutes must not end in "cannot create a file". On failure prints
 * "gcsim WHO: OPTION: ..." (option NULL: "gcsim WHO: ...") and returns -1; else 0.
 * Commands call it through cli_files_check (cli_files.h), with their inputs. */
int report_file_usable(const char *path, const char *who, const char *option);

/* The typed "meta" every scenario command writes (docs/schema.md): platform.{name,file},
 * model.{name,file,parameters,dense_bytes}, compressor.{spec,payload_bytes,ratio_fp32},
 * payload_source.{kind,method} (kind "exact" or "traces"), and with a stack setup
 * stack.{name,file}, exchange, collective and codec_cost.{source,description}. Any argument
 * may be NULL. */
void report_meta_scenario(report *r, const gcsim_platform *pf, const gcsim_model *m,
                          const gcsim_payload_plan *pl, const gcsim_stack_setup *ss);

#endif
