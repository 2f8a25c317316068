/*
 * sim/report/train_table.h: `gcsim train`'s table: one row per evaluation point of a real
 * training run (sim/train: epoch, iteration, train and test loss, test accuracy, bits sent
 * per worker), then the run's notes and meta (model, data, workers, optimizer, time to
 * accuracy).
 */
#ifndef GCSIM_REPORT_TRAIN_TABLE_H
#define GCSIM_REPORT_TRAIN_TABLE_H

#include "fmnist.h"
#include "report.h"
#include "train.h"

typedef struct {
    report *r;
    int c_epoch, c_step, c_loss, c_test_loss, c_acc, c_bits;
} train_table;

/* A report with the table's columns; sink is what train_table_point adds rows through. */
report *train_table_new(train_table *sink);

/* train_run's point callback (ctx: a train_table): one row. */
void train_table_point(const train_point *p, void *ctx);

/* The notes and meta of a finished run. */
void train_table_notes(report *r, const train_config *cfg, const char *data_dir,
                       const fmnist_split *train, const fmnist_split *test,
                       const train_summary *sum);

#endif
