/* gcsim train's table; see train_table.h. */
#include "train_table.h"

#include <math.h>
#include <stdio.h>

#include "blas.h"

report *train_table_new(train_table *sink)
{
    report *r = report_new_for_file("train");
    sink->r = r;
    sink->c_epoch = report_column(r, "epoch", "epoch", 0);
    sink->c_step = report_column(r, "iteration", "iteration", 0);
    sink->c_loss = report_column(r, "train_loss", "train loss", 4);
    sink->c_test_loss = report_column(r, "test_loss", "test loss", 4);
    sink->c_acc = report_column(r, "test_accuracy", "test acc", 4);
    sink->c_bits = report_column(r, "bits_per_worker", "bits/worker", 0);

    return r;
}

void train_table_point(const train_point *p, void *ctx)
{
    train_table *s = ctx;
    report_row(s->r);
    report_int(s->r, s->c_epoch, p->epoch);
    report_int(s->r, s->c_step, p->step);
    report_num(s->r, s->c_loss, p->train_loss);
    report_num(s->r, s->c_test_loss, p->test_loss);
    report_num(s->r, s->c_acc, p->test_accuracy);
    report_num(s->r, s->c_bits, p->bits_per_worker);
}

void train_table_notes(report *r, const train_config *cfg, const char *data_dir,
                       const fmnist_split *train, const fmnist_split *test,
                       const train_summary *sum)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s, %zu parameters in %d tensors", train_model_name(cfg->model),
             sum->params, sum->tensors);
    report_note(r, "model", buf);
    snprintf(buf, sizeof buf, "%s from %s: %zu training, %zu test images", train->name, data_dir,
             train->count, test->count);
    report_note(r, "data", buf);
    snprintf(buf, sizeof buf, "%d workers x %d samples (global batch %d), %ld iterations",
             cfg->workers, cfg->batch / cfg->workers, cfg->batch, sum->steps);
    report_note(r, "workers", buf);
    report_note(r, "compressor", sum->compressor_spec);
    snprintf(buf, sizeof buf, "SGD lr %g, momentum %g%s, weight decay %g, seed %llu (BLAS: %s)",
             cfg->lr, sum->momentum_applied,
             sum->momentum_applied != cfg->momentum ? " (dgc: momentum correction in the compressor)" : "",
             cfg->weight_decay, (unsigned long long)cfg->seed, train_blas_name());
    report_note(r, "optimizer", buf);
    if (cfg->target_accuracy > 0.0) {
        if (sum->steps_to_target >= 0)
            snprintf(buf, sizeof buf, "test accuracy %g reached after %ld iterations, %.17g bits per worker",
                     cfg->target_accuracy, sum->steps_to_target, sum->bits_to_target);
        else
            snprintf(buf, sizeof buf, "test accuracy %g not reached in %ld iterations",
                     cfg->target_accuracy, sum->steps);
        report_note(r, "time_to_accuracy", buf);
        snprintf(buf, sizeof buf, "%ld", sum->steps_to_target);
        report_note(r, "iterations_to_target", buf);
    }

    report_meta_str(r, "model.name", train_model_name(cfg->model));
    report_meta_int(r, "model.parameters", (long long)sum->params);
    report_meta_str(r, "data.dir", data_dir);
    report_meta_int(r, "data.train_images", (long long)train->count);
    report_meta_int(r, "data.test_images", (long long)test->count);
    report_meta_int(r, "workers", cfg->workers);
    report_meta_int(r, "batch", cfg->batch);
    report_meta_str(r, "batch_kind", "global");
    report_meta_int(r, "iterations", sum->steps);
    report_meta_str(r, "compressor.spec", sum->compressor_spec);
    report_meta_num(r, "optimizer.lr", cfg->lr);
    report_meta_num(r, "optimizer.momentum", sum->momentum_applied);
    report_meta_num(r, "optimizer.weight_decay", cfg->weight_decay);
    report_meta_int(r, "seed", (long long)cfg->seed);
    report_meta_str(r, "blas", train_blas_name());
    report_meta_num(r, "target_accuracy", cfg->target_accuracy > 0.0 ? cfg->target_accuracy : NAN);
    if (cfg->target_accuracy > 0.0 && sum->steps_to_target >= 0) {
        report_meta_int(r, "iterations_to_target", sum->steps_to_target);
        report_meta_num(r, "bits_to_target", sum->bits_to_target);
    } else {
        report_meta_str(r, "iterations_to_target", NULL);
        report_meta_str(r, "bits_to_target", NULL);
    }

}
