/*
 * sim/report/calibrate_report.h: `gcsim calibrate`'s output: per log the fit's notes (what
 * was searched, the written platform's error on its own log and held out), the changes to
 * the platform and the warnings, then every measured row beside the calibrated platform's
 * time (sim/calibrate/calibrate.h computes them).
 */
#ifndef GCSIM_REPORT_CALIBRATE_REPORT_H
#define GCSIM_REPORT_CALIBRATE_REPORT_H

#include "calibrate.h"
#include "report.h"

report *calibrate_report(const calib_options *calib, const calib_result *r);

#endif
