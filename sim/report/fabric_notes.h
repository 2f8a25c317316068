/*
 * sim/report/fabric_notes.h: the notes and meta fields of a shared fabric (a platform
 * carrying background load, ECMP spines or network jitter: sim/config/platform.h), saying
 * what is modelled and what each engine does with it, as `predict` and `collective` print.
 */
#ifndef GCSIM_REPORT_FABRIC_NOTES_H
#define GCSIM_REPORT_FABRIC_NOTES_H

#include "platform.h"
#include "report.h"
#include "scenario.h"

/* The notes and meta of whichever of background load, ECMP and jitter p carries. */
void fabric_notes_report(report *r, const gcsim_platform *p);

/* predict's note on compute-communication interference (the share a call in flight takes
 * from overlapped compute, sim/step/interference.c); nothing when it is 0 or the exchange c
 * takes none (a paper's pattern, a parameter server). */
void interference_note_report(report *r, const gcsim_platform *p, gcsim_collective c);

#endif
