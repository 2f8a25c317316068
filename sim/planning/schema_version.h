/*
 * sim/planning/schema_version.h: the version of gcsim's machine-readable output
 * (docs/schema.md), shared by the command's reports (sim/cli/report.h) and the sweep rows
 * written here (sweep_output.h), so both always carry the same number.
 */
#ifndef GCSIM_PLANNING_SCHEMA_VERSION_H
#define GCSIM_PLANNING_SCHEMA_VERSION_H

/* Raised whenever a field is renamed, removed or changes unit or type (docs/schema.md). */
#define GCSIM_SCHEMA_VERSION 1

#endif
