/* gcsim sweep's rows; see sweep_rows.h. */
#include "sweep_rows.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "act_ckpt.h"
#include "engine.h"
#include "roofline.h"
#include "row_fields.h"
#include "sharding.h"
#include "sweep_case.h"
#include "sweep_space.h"

const char *const sweep_rows_columns[SWEEP_ROWS_COLUMNS] = {
    "case", "cases", "id", "platform", "model", "compressor", "collective", "scaling",
    "batch", "engine", "gpus", "machines", "gpus_per_machine", "status",
    "samples_per_iteration", "iteration_s", "compute_s", "comm_s", "exposed_comm_s",
    "compress_s", "throughput_samples_per_s", "speedup", "efficiency_pct", "bottleneck",
    "usd_per_hour", "exchange", "encode_s", "decode_s", "payload_bytes",
    /* added after the columns scripts read by position */
    "stack",
    /* issue 46: what predict has for the case (row_fields.h), after every other */
    "tokens_per_s", "mfu_pct", "memory_bytes_per_gpu", "sharding", "act_ckpt_policy",
    "compute_source"};

/* The cells of a row that depend on none of its numbers, and what they depend on: the
 * cases of a sweep group (every GPU count of a platform, model, compressor, stack,
 * collective, scaling, batch and engine) share them, so they are written once per group
 * and put again (sweep_cells_put), the same bytes as the calls they replace. */
typedef struct {
    const gcsim_platform *platform;
    const gcsim_model *model;
    const gcsim_payload_plan *payload;
    const gcsim_stack *stack;
    gcsim_scaling scaling;
    gcsim_engine engine;
    int batch;
    bool act_ckpt;
    gcsim_sharding sharding;
    gcsim_act_ckpt act_ckpt_policy;
} row_key;

enum { SEG_NAMES, SEG_SETTINGS, SEG_PAYLOAD, SEG_SHAPE, SEGMENTS };

struct sweep_row_cache {
    bool valid;
    row_key key;
    /* the id's text up to the GPU count (sweep_case_id_prefix): the group's, and its
     * collective's (not in the key: the collective's cell is written per row) */
    bool have_id;
    gcsim_collective id_collective;
    sweep_id_prefix id;
    char *text[SEGMENTS];
    size_t len[SEGMENTS];
    int n[SEGMENTS];
};

static row_key key_of(const sweep_case *c)
{
    row_key k;
    memset(&k, 0, sizeof k); /* padding too: keys are compared with memcmp */
    k.platform = c->platform;
    k.model = c->model;
    k.payload = c->payload;
    k.stack = c->stack;
    k.scaling = c->scaling;
    k.engine = c->engine;
    k.batch = sweep_case_batch(c);
    k.act_ckpt = c->act_ckpt;
    k.sharding = c->sharding; /* copied whole: its padding is the case's (a miss, not a */
    k.act_ckpt_policy = c->act_ckpt_policy; /* wrong hit, when it differs) */
    return k;
}

/* columns 3-5 */
static void fill_names(sweep_writer *w, const void *arg)
{
    const sweep_case *c = arg;
    sweep_cell_str(w, c->platform->name);
    sweep_cell_str(w, c->model->name);
    sweep_cell_str(w, c->payload->spec);
}

/* columns 7-9 */
static void fill_settings(sweep_writer *w, const void *arg)
{
    const sweep_case *c = arg;
    sweep_cell_str(w, gcsim_scaling_name(c->scaling));
    sweep_cell_int(w, sweep_case_batch(c));
    sweep_cell_str(w, engine_name(c->engine));
}

/* columns 28-29: one worker's encoded gradient per iteration (known even when the case
 * failed), the stack */
static void fill_payload(sweep_writer *w, const void *arg)
{
    const sweep_case *c = arg;
    sweep_cell_num(w, c->payload->total_bytes);
    sweep_cell_str(w, c->stack->name);
}

/* columns 33-35: the case's sharding, policy and compute source */
static void fill_shape(sweep_writer *w, const void *arg)
{
    const sweep_case *c = arg;
    char text[48];
    gcsim_sharding_format(&c->sharding, text, sizeof text);
    sweep_cell_str(w, text);
    if (c->act_ckpt)
        gcsim_act_ckpt_format(&c->act_ckpt_policy, text, sizeof text);
    else
        snprintf(text, sizeof text, "none");
    sweep_cell_str(w, text);
    sweep_cell_str(w, gcsim_compute_source(c->model, c->platform));
}

static void (*const seg_fill[SEGMENTS])(sweep_writer *, const void *) = {
    fill_names, fill_settings, fill_payload, fill_shape};
static const int seg_col[SEGMENTS] = {3, 7, 28, 33};

static void cache_drop(struct sweep_row_cache *rc)
{
    for (int s = 0; s < SEGMENTS; s++) {
        free(rc->text[s]);
        rc->text[s] = NULL;
    }
    rc->valid = false;
}

/* The cache holding c's group's cells, rendered when the group is new; NULL when there is
 * none or they cannot be kept (the cells are then written one by one). */
static struct sweep_row_cache *cache_for(struct sweep_row_cache *rc, const sweep_writer *w,
                                         const sweep_case *c)
{
    if (!rc)
        return NULL;
    row_key k = key_of(c);
    if (rc->valid && memcmp(&rc->key, &k, sizeof k) == 0)
        return rc;
    cache_drop(rc);
    rc->have_id = false;
    for (int s = 0; s < SEGMENTS; s++)
        if (!(rc->text[s] = sweep_cells_capture(w, seg_col[s], seg_fill[s], c, &rc->len[s],
                                                &rc->n[s]))) {
            cache_drop(rc);
            return NULL;
        }
    rc->key = k;
    rc->valid = true;
    return rc;
}

/* Segment s of c's row at w's column: from the cache, else written. */
static void put_segment(sweep_writer *w, const struct sweep_row_cache *rc, int s,
                        const sweep_case *c)
{
    if (rc)
        sweep_cells_put(w, rc->text[s], rc->len[s], rc->n[s]);
    else
        seg_fill[s](w, c);
}

static void write_case(sweep_writer *w, struct sweep_row_cache *cache, long long index,
                       long long total, const sweep_case *c, int run_rc, const sweep_result *r,
                       const gcsim_error *err, bool have_one, double one_tput)
{
    struct sweep_row_cache *rc = cache_for(cache, w, c);
    char id[17];
    if (rc) { /* the prefix's inputs are the row key's and the collective */
        if (!rc->have_id || rc->id_collective != c->collective) {
            rc->id = sweep_case_id_prefix(c);
            rc->id_collective = c->collective;
            rc->have_id = true;
        }
        sweep_case_id_from(c, rc->id, id);
    } else {
        sweep_case_id(c, id);
    }
    sweep_row_begin(w);
    sweep_cell_int(w, index);
    sweep_cell_int(w, total);
    sweep_cell_str(w, id);
    put_segment(w, rc, SEG_NAMES, c);
    if (run_rc || !r->tuned) { /* the label of an untuned collective is its name */
        sweep_cell_str(w, gcsim_collective_name(run_rc ? c->collective : r->collective));
    } else {
        char collective[96];
        sweep_collective_label(r, collective, sizeof collective);
        sweep_cell_str(w, collective);
    }
    put_segment(w, rc, SEG_SETTINGS, c);
    sweep_cell_int(w, c->gpus);
    if (r->placement.gpus > 0) {
        sweep_cell_int(w, r->placement.machines);
        sweep_cell_int(w, r->placement.gpus_per_machine);
    } else {
        sweep_cell_empty(w);
        sweep_cell_empty(w);
    }
    if (run_rc) {
        sweep_cell_str(w, err->message);
        for (int k = 0; k < 14; k++)
            sweep_cell_empty(w);
    } else {
        const gcsim_prediction *p = &r->p;
        sweep_cell_str(w, "ok");
        sweep_cell_num(w, p->samples_per_iteration);
        sweep_cell_num(w, p->iteration_s);
        sweep_cell_num(w, p->compute_s);
        sweep_cell_num(w, p->comm_s);
        sweep_cell_num(w, p->exposed_comm_s);
        sweep_cell_num(w, p->compress_s);
        sweep_cell_num(w, p->throughput_samples_per_s);
        if (have_one) {
            double speedup = p->throughput_samples_per_s / one_tput;
            sweep_cell_num(w, speedup);
            sweep_cell_num(w, 100.0 * speedup / c->gpus);
        } else {
            sweep_cell_empty(w);
            sweep_cell_empty(w);
        }
        sweep_cell_str(w, sweep_bottleneck_name(sweep_bottleneck_of(p)));
        if (c->platform->has_price)
            sweep_cell_num(w, c->platform->price_per_gpu_hour_usd * c->gpus);
        else
            sweep_cell_empty(w);
        sweep_cell_str(w, sweep_exchange_label(&c->sharding, r->exchange));
        sweep_cell_num(w, p->encode_s);
        sweep_cell_num(w, p->decode_s);
    }
    put_segment(w, rc, SEG_PAYLOAD, c);
    /* predict's fields: the numbers only where the case ran (tokens/s only for a model
     * with tokens_per_sample) */
    if (run_rc) {
        for (int k = 0; k < 3; k++)
            sweep_cell_empty(w);
    } else {
        sweep_cell_num(w, row_tokens_per_s(c->model, r->p.throughput_samples_per_s));
        sweep_cell_num(w, row_mfu_pct(c->model, c->platform, r->p.throughput_samples_per_s,
                                      c->gpus));
        sweep_cell_num(w, sweep_case_memory_bytes(c, c->gpus));
    }
    put_segment(w, rc, SEG_SHAPE, c);
    sweep_row_end(w);
}


/* Warns once per distinct what-if (issue 43): the rows run the exchange as asked. */
static void warn_whatif(sweep_sink *k, const char *why)
{
    for (int i = 0; i < k->n_whatif; i++)
        if (strcmp(k->whatif[i], why) == 0)
            return;
    if (k->n_whatif == SWEEP_WHATIF_WARNINGS)
        return;
    snprintf(k->whatif[k->n_whatif++], sizeof k->whatif[0], "%s", why);
    fprintf(stderr, "gcsim sweep: warning: %s; running it as asked, a what-if%s\n", why,
            k->n_whatif == SWEEP_WHATIF_WARNINGS ? " (further what-ifs not listed)" : "");
}

int sweep_sink_outcome(void *ctx, const sweep_outcome *oc)
{
    sweep_sink *k = ctx;
    /* A case the machine could not cost (the size guard, out of memory) is no row that
     * says why, as a case the input rules out is: another machine would print its numbers
     * there (issue 45). The sweep stops and says so. */
    if (oc->rc && !gcsim_error_skippable(oc->err)) {
        k->limit = *oc->err;
        k->limited = true;
        return -1;
    }
    if (oc->unimplemented)
        warn_whatif(k, oc->unimplemented);
    write_case(k->w, k->cache, oc->index, oc->total, oc->c, oc->rc, oc->r, oc->err, oc->has_one_gpu,
               oc->one_gpu_samples_per_s);
    sweep_progress_update(k->bar, ++k->done);
    /* A full disk shows at the first buffer that cannot be written: stop there, not after
     * the last case (issue 15). */
    return ferror(k->out) ? -1 : 0;
}


int sweep_rows_write(const sweep_space *s, const sweep_run_options *ro, sweep_format format,
                     bool show_progress, FILE *out)
{
    long long total = sweep_space_count(s);
    long long mine = sweep_shard_size(total, ro->shard_k, ro->shard_n);
    sweep_progress bar;
    sweep_progress_start(&bar, show_progress, stderr, mine);
    sweep_writer w;
    sweep_writer_begin(&w, format, out, sweep_rows_columns, SWEEP_ROWS_COLUMNS);
    struct sweep_row_cache cache = {0};
    sweep_sink sink = {.w = &w, .out = out, .bar = &bar, .cache = &cache};
    bool stopped;
    sweep_run(s, ro, sweep_sink_outcome, &sink, &stopped);
    cache_drop(&cache);
    if (stopped && sink.limited) {
        sweep_progress_finish(&bar, sink.done);
        fprintf(stderr, "gcsim sweep: stopped after %lld of %lld cases: %s\n", sink.done, mine,
                sink.limit.message);
        return -2;
    }
    if (stopped) {
        int saved = errno;
        sweep_progress_finish(&bar, sink.done);
        fprintf(stderr, "gcsim sweep: stopped after %lld of %lld cases: the output cannot be "
                        "written\n", sink.done, mine);
        errno = saved;
        return -1;
    }
    sweep_progress_finish(&bar, sink.done);
    return ferror(out) ? -1 : 0;
}
