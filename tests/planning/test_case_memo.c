/* A sweep group's case memo (gcsim_case_memo, sim/step/case_memo.c) changes no number
 * (issue 47): on a grid of platforms, models, compressors, stacks and collectives (the
 * platform's tuned choice too), every GPU count of a group (in an order that goes back and
 * forth, 1 GPU included: no compressor runs there, so the memo's buckets must not serve
 * it) gives, with the group's memo, bit for bit the prediction, tuned collectives and
 * placement it gives without one; and the iteration the memo lends its arrays to, the one
 * built while those are lent (a copy), and the one built from the arrays given back are
 * the iteration built without a memo, field for field. A strong-scaling group (no memo
 * for its buckets) and a group whose stack refuses a compressor are in the grid too.
 * usage: test_case_memo SOURCE_DIR */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_build.h"
#include "case_memo.h"
#include "check.h"
#include "step.h"
#include "sweep_case.h"

static bool same_d(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static bool same_bytes(const gcsim_bucket_bytes *a, const gcsim_bucket_bytes *b)
{
    return same_d(a->dense_bytes, b->dense_bytes) && same_d(a->payload_bytes, b->payload_bytes) &&
           same_d(a->fixed_bytes, b->fixed_bytes) && same_d(a->encode_s, b->encode_s) &&
           same_d(a->decode_s, b->decode_s) && a->aggregation == b->aggregation &&
           a->compressed == b->compressed;
}

static bool same_doubles(const double *a, const double *b, int n)
{
    for (int k = 0; k < n; k++)
        if (!same_d(a[k], b[k]))
            return false;
    return true;
}

/* Field for field; prints what differs first. */
static bool same_iteration(const gcsim_iteration *a, const gcsim_iteration *b, const char *what)
{
#define SAME(cond)                                                              \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s: the iterations differ in %s\n", what, #cond); \
            return false;                                                       \
        }                                                                       \
    } while (0)
    SAME(same_d(a->compute_s, b->compute_s) && same_d(a->forward_s, b->forward_s));
    SAME(a->overlap == b->overlap && same_d(a->comm_interference, b->comm_interference));
    SAME(a->n_blocks == b->n_blocks && a->n_buckets == b->n_buckets);
    SAME(a->n_steps == b->n_steps && a->n_calls == b->n_calls && a->n_layers == b->n_layers);
    for (int k = 0; k < a->n_blocks; k++) {
        const gcsim_block *x = &a->blocks[k], *y = &b->blocks[k];
        SAME(x->kind == y->kind && same_d(x->seconds, y->seconds) &&
             x->first_layer == y->first_layer && x->last_layer == y->last_layer &&
             x->gate == y->gate && x->micro_batch == y->micro_batch);
    }
    for (int k = 0; k < a->n_buckets; k++) {
        const gcsim_bucket *x = &a->buckets[k], *y = &b->buckets[k];
        SAME(x->first_layer == y->first_layer && x->last_layer == y->last_layer &&
             same_bytes(&x->bytes, &y->bytes) && same_d(x->backward_s, y->backward_s) &&
             x->ready_block == y->ready_block && x->first_step == y->first_step &&
             x->n_steps == y->n_steps && x->n_deferred == y->n_deferred);
    }
    for (int k = 0; k < a->n_steps; k++) {
        const gcsim_step *x = &a->steps[k], *y = &b->steps[k];
        SAME(x->kind == y->kind && x->name == y->name && x->cls == y->cls &&
             same_d(x->codec_s, y->codec_s) && x->call == y->call && x->tensors == y->tensors &&
             same_d(x->tensor_factor, y->tensor_factor) && x->on_host == y->on_host);
    }
    for (int k = 0; k < a->n_calls; k++) {
        const gcsim_call *x = &a->calls[k], *y = &b->calls[k];
        SAME(x->collective == y->collective && same_bytes(&x->bytes, &y->bytes) &&
             same_d(x->overhead_s, y->overhead_s) && x->name == y->name &&
             x->bucket == y->bucket && x->group == y->group && x->blocking == y->blocking &&
             same_d(x->release_s, y->release_s) && x->protocol == y->protocol);
    }
    int nl = a->n_layers;
    SAME(a->layers == b->layers);
    SAME((a->layer_bucket == NULL) == (b->layer_bucket == NULL));
    if (a->layer_bucket) {
        SAME(memcmp(a->layer_bucket, b->layer_bucket, sizeof(int) * (size_t)nl) == 0);
        SAME(same_doubles(a->layer_payload_bytes, b->layer_payload_bytes, nl));
        SAME(same_doubles(a->layer_encode_s, b->layer_encode_s, nl));
        SAME(same_doubles(a->layer_decode_s, b->layer_decode_s, nl));
    }
    SAME((a->layer_elements == NULL) == (b->layer_elements == NULL));
    if (a->layer_elements)
        SAME(same_doubles(a->layer_elements, b->layer_elements, nl));
    return true;
#undef SAME
}

static bool same_result(const sweep_result *a, const sweep_result *b)
{
    const gcsim_prediction *x = &a->p, *y = &b->p;
    return same_d(x->iteration_s, y->iteration_s) && same_d(x->compute_s, y->compute_s) &&
           same_d(x->comm_s, y->comm_s) && same_d(x->exposed_comm_s, y->exposed_comm_s) &&
           same_d(x->compress_s, y->compress_s) && same_d(x->encode_s, y->encode_s) &&
           same_d(x->decode_s, y->decode_s) &&
           same_d(x->samples_per_iteration, y->samples_per_iteration) &&
           same_d(x->throughput_samples_per_s, y->throughput_samples_per_s) &&
           a->tuned == b->tuned && a->exchange == b->exchange &&
           a->collective == b->collective && a->batch == b->batch &&
           a->placement.gpus == b->placement.gpus &&
           a->placement.machines == b->placement.machines &&
           a->placement.gpus_per_machine == b->placement.gpus_per_machine;
}

static int n_cases, n_iterations, n_refused, n_entries;

/* The program entry the group's memo keeps (the stack's entry for the spec, the spec's
 * setting, the GPU's parameters) serves the scenario it was found for and no other: another
 * spec (text), stack or platform finds none. */
static void entry_key(gcsim_case_memo *memo, const gcsim_scenario *s)
{
    program_entry_memo pe;
    if (!case_memo_entry(memo, s, &pe))
        return; /* a stack without laws (its codec model): no programs of its own */
    n_entries++;
    CHECK(pe.found && pe.entry != NULL);
    gcsim_scenario other = *s;
    gcsim_payload_plan alt = *s->payload; /* a copy of the spec at another address */
    other.payload = &alt;
    CHECK(case_memo_entry(memo, &other, &pe)); /* the same text */
    snprintf(alt.spec, sizeof alt.spec, "%s", strcmp(s->payload->spec, "fp16") ? "fp16" : "none");
    CHECK(!case_memo_entry(memo, &other, &pe));
    other = *s;
    gcsim_platform *pf = malloc(sizeof *pf);
    CHECK(pf != NULL);
    if (pf) {
        *pf = *s->platform;
        other.platform = pf;
        CHECK(!case_memo_entry(memo, &other, &pe));
        free(pf);
    }
    other = *s;
    gcsim_stack *st = malloc(sizeof *st);
    CHECK(st != NULL);
    if (st) {
        memcpy(st, s->stack, sizeof *st);
        other.stack = st;
        CHECK(!case_memo_entry(memo, &other, &pe));
        free(st);
    }
}

/* One group (everything but the GPU count), its counts in the order given. */
static void group(const sweep_case *base, const char *label)
{
    static const int gpus[] = {8, 1, 2, 64, 3, 16, 1, 256, 8, 4};
    gcsim_stack_setup setup;
    gcsim_error e;
    if (sweep_case_setup(base, &setup, &e) != 0) {
        n_refused++; /* the stack cannot run this compressor: no case to compare */
        return;
    }
    gcsim_case_memo *memo = gcsim_case_memo_new();
    CHECK(memo != NULL);
    for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++) {
        sweep_case c = *base;
        c.gpus = gpus[g];
        sweep_result with, without;
        gcsim_error e1, e2;
        c.case_memo = memo;
        int rc1 = sweep_case_run_with(&c, &setup, &with, &e1);
        c.case_memo = NULL;
        int rc2 = sweep_case_run_with(&c, &setup, &without, &e2);
        CHECK(rc1 == rc2);
        if (rc1 != rc2 || rc1 != 0) {
            if (rc1 != rc2)
                fprintf(stderr, "%s, %d GPUs: %d (%s) with the memo, %d (%s) without\n", label,
                        c.gpus, rc1, e1.message, rc2, e2.message);
            continue;
        }
        n_cases++;
        if (!same_result(&with, &without)) {
            fprintf(stderr, "%s, %d GPUs: the case memo changed the prediction: iteration %.17g "
                            "s with it, %.17g s without\n",
                    label, c.gpus, with.p.iteration_s, without.p.iteration_s);
            CHECK(0);
        }
        /* The iteration itself: lent (a), copied while a holds the arrays (b), without a
         * memo (ref), given back in either order, and lent again from what came back (d). */
        gcsim_scenario s;
        if (case_build(&c, &setup, &s, &e)) {
            CHECK(0);
            continue;
        }
        gcsim_iteration a, b, d, ref;
        s.case_memo = NULL;
        CHECK(gcsim_iteration_build(&ref, &s, &e) == 0);
        s.case_memo = memo;
        CHECK(gcsim_iteration_build(&a, &s, &e) == 0);
        CHECK(gcsim_iteration_build(&b, &s, &e) == 0);
        CHECK(same_iteration(&a, &ref, label));
        CHECK(same_iteration(&b, &ref, label));
        CHECK(b.lender == NULL); /* the arrays were lent to a: b has its own */
        if (g % 2) {
            gcsim_iteration_free(&a);
            gcsim_iteration_free(&b);
        } else {
            gcsim_iteration_free(&b);
            gcsim_iteration_free(&a);
        }
        CHECK(a.lender == NULL && a.steps == NULL && a.buckets == NULL && a.n_steps == 0);
        CHECK(gcsim_iteration_build(&d, &s, &e) == 0);
        CHECK(same_iteration(&d, &ref, label));
        gcsim_iteration_free(&d);
        gcsim_iteration_free(&ref);
        if (c.gpus > 1)
            entry_key(memo, &s);
        n_iterations++;
    }
    gcsim_case_memo_free(memo);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_case_memo SOURCE_DIR\n");
        return 2;
    }
    const char *src = argv[1];
    static const char *const platforms[] = {"a100-hdr", "h100-ndr"};
    static const char *const models[] = {"resnet-50", "bert-base", "vgg-16"};
    static const char *const compressors[] = {"none", "fp16", "terngrad", "powersgd", "dgc"};
    static const char *const stacks[] = {NULL, "horovod", "byteps"}; /* NULL: the platform's */
    static const gcsim_collective collectives[] = {COLLECTIVE_RING, COLLECTIVE_HIERARCHICAL,
                                                   COLLECTIVE_HALVING_DOUBLING,
                                                   COLLECTIVE_DOUBLE_TREE};
    sweep_cache *cache = sweep_cache_new(NULL);
    CHECK(cache != NULL);
    gcsim_error e;
    char path[4096];
    for (size_t p = 0; p < sizeof platforms / sizeof *platforms; p++) {
        snprintf(path, sizeof path, "%s/platforms/%s.json", src, platforms[p]);
        const gcsim_platform *pf = sweep_cache_platform(cache, path, &e);
        CHECK(pf != NULL);
        if (!pf)
            continue;
        for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
            snprintf(path, sizeof path, "%s/models/%s.json", src, models[m]);
            const gcsim_model *md = sweep_cache_model(cache, path, &e);
            CHECK(md != NULL);
            if (!md)
                continue;
            for (size_t k = 0; k < sizeof compressors / sizeof *compressors; k++) {
                const gcsim_payload_plan *pl = sweep_cache_payload(cache, md, compressors[k], &e);
                CHECK(pl != NULL);
                for (size_t t = 0; pl && t < sizeof stacks / sizeof *stacks; t++) {
                    const gcsim_stack *st =
                        sweep_cache_stack(cache, gcsim_stack_choice(stacks[t], pf), &e);
                    CHECK(st != NULL);
                    /* the collectives, then the platform's tuned choice (-1) */
                    for (int c = -1; st && c < (int)(sizeof collectives / sizeof *collectives);
                         c++) {
                        sweep_case base = {.platform = pf, .model = md, .payload = pl,
                                           .stack = st, .scaling = SCALING_WEAK,
                                           .engine = ENGINE_ANALYTIC,
                                           .batch = md->batch_per_gpu, .overlap = true,
                                           .label_tuned = true};
                        if (c >= 0) {
                            base.collective = collectives[c];
                            base.collective_given = true;
                        } else {
                            base.collective = gcsim_platform_default_collective(pf);
                        }
                        char label[256];
                        snprintf(label, sizeof label, "%s %s %s %s %s", platforms[p], models[m],
                                 compressors[k], st->name,
                                 c >= 0 ? gcsim_collective_name(base.collective) : "tuned");
                        group(&base, label);
                        if (c == 0 && t == 0) { /* strong scaling: no buckets kept */
                            base.scaling = SCALING_STRONG;
                            base.batch = 256 * md->batch_per_gpu;
                            group(&base, label);
                        }
                    }
                }
            }
        }
    }
    sweep_cache_free(cache);
    printf("case memo: %d cases and %d iterations compared, %d groups refused by their stack, "
           "%d program entries' keys checked\n",
           n_cases, n_iterations, n_refused, n_entries);
    CHECK(n_cases > 1000 && n_iterations == n_cases && n_entries > 1000);
    CHECK_DONE();
}
