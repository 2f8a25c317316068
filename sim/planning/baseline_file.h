/*
 * sim/planning/baseline_file.h: the committed baseline that `gcsim check` re-evaluates.
 *
 * A JSON file (format documented in docs/planning.md):
 *   {"format": "gcsim-baseline/1", "description": "...", "tolerance_pct": 0.5,
 *    "cases": [{"name": "resnet50-a100-ring-64", "platform": "platforms/a100-hdr.json",
 *               "model": "models/resnet-50.json", "compressor": "none",
 *               "collective": "ring", "gpus": 64, "scaling": "weak", "batch": 256,
 *               "stack": "pytorch-ddp", "engine": "analytic",
 *               "expected_throughput_samples_per_s": 59000.5}]}
 * A case without expected_throughput_samples_per_s is new: `gcsim check --update` records
 * its predicted value (adding the member), which is how a baseline is created from
 * scratch; a plain check refuses a baseline with such cases.
 * The reader is strict: unknown or duplicate keys, wrong types, duplicate case names and
 * files that cannot be found are errors naming the baseline, the JSON path and what was
 * tried. A relative platform or model path is looked up beside the baseline first, then
 * in each folder above it (so "platforms/x.json" finds the repository's catalog from
 * tests/planning/); a value found nowhere there that is a catalog name ("a100-hdr",
 * "resnet-50": no '/') is then read from the running gcsim's catalog, as on the command
 * line (data_dir.h), so a baseline kept outside the repository can name the catalog.
 * "stack" (optional) is found the same way (a file, else a catalog stack such as
 * "pytorch-ddp"); a case without it runs under its platform's stack choice
 * (gcsim_stack_choice: the platform's "stack", else GCSIM_DEFAULT_STACK), as `gcsim
 * predict` without --stack, and `check --update` pins that choice into the case
 * (baseline_pin_stack) so that a later change of default shows as drift, not silently.
 */
#ifndef GCSIM_PLANNING_BASELINE_FILE_H
#define GCSIM_PLANNING_BASELINE_FILE_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "gcsim_error.h"
#include "engine.h"
#include "scenario.h"
#include "sharding.h"

#define BASELINE_FORMAT "gcsim-baseline/1"

typedef struct {
    char name[128];
    char platform[4096];     /* resolved path (a file, or the catalog's) */
    char model[4096];        /* resolved path (a file, or the catalog's) */
    char compressor[256];    /* "none" when absent */
    char stack[4096];        /* resolved path (a file, or the catalog's); "" when absent:
                                the platform's stack choice */
    gcsim_collective collective;
    int gpus;
    gcsim_scaling scaling;
    int batch;               /* 0: the model's */
    gcsim_engine engine;
    double expected_samples_per_s; /* meaningful when has_expected */
    bool has_expected;             /* false: a new case, not yet recorded */
    double tolerance_pct;    /* < 0: the file's or the command line's */
    /* Optional (issue 25): the training precision and optimizer (-1: the model's), the
     * sharding strategy (zeroed: ddp), micro-batches per step and checkpointing. */
    int precision, optimizer;
    gcsim_sharding sharding;
    int grad_accum;
    bool act_ckpt;
    gcsim_act_ckpt act_ckpt_policy; /* "act_ckpt": true is full */
} baseline_case;

typedef struct {
    char path[4096];
    cJSON *root;             /* kept to rewrite the file with --update */
    double tolerance_pct;    /* < 0: absent */
    int n_cases;
    baseline_case *cases;
} baseline;

int baseline_load(const char *path, baseline *out, gcsim_error *err);
void baseline_free(baseline *b);

/* Replaces (or, for new cases, adds) the expected throughput of the cases flagged in
 * `update` by `predicted` and rewrites the file atomically, keeping everything else as it
 * was. */
int baseline_rewrite(baseline *b, const double *predicted, const unsigned char *update,
                     gcsim_error *err);

/* Adds "stack": name to case k when the case has no "stack" member (`check --update` pins
 * the stack a case was recorded with), in the document baseline_rewrite writes; name must
 * read back as the same stack from the baseline's folder (a catalog name). Returns 1 when
 * added, 0 when the case already names its stack, -1 (out of memory) with err. */
int baseline_pin_stack(baseline *b, int k, const char *name, gcsim_error *err);

#endif
