/*
 * traces/tools/payload_eval.c: how far the payload model is from the truth.
 *
 * For layers that have their own trace, the true payload is the compressor's output on
 * the real gradient (after one warm-up step on the same layer's previous capture, the same
 * protocol the model uses). The estimate comes from a pool that holds back that layer in
 * every capture (column "held" = all; or only at the measured step, held = that step),
 * resampled to the layer's size by the model's method, i.i.d. draws (GC_PAYLOAD_BLOCK = 1),
 * and, for comparison, by a block bootstrap of 256 consecutive values. A last section measures the error of chunked
 * encoding (GC_PAYLOAD_CHUNK_MAX values, scaled) on an AlexNet fc6-sized layer.
 *
 * usage: gcsim_payload_eval [TRACE_DIR]      (numbers quoted in docs/traces.md)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compressor.h"
#include "payload_model.h"
#include "traces.h"

typedef struct {
    const char *series, *tensor, *kind, *prev_file, *file;
    long long step; /* >= 0: hold back only this step of the layer; -1: every step */
} held_back;

static const held_back cases[] = {
    {"fmnist_resnet20", "layers.4.conv2.weight", "conv", "resnet20_step000200_rank0.safetensors",
     "resnet20_step000500_rank0.safetensors", -1},
    {"fmnist_resnet20", "layers.8.conv1.weight", "conv", "resnet20_step000500_rank0.safetensors",
     "resnet20_step000799_rank0.safetensors", -1},
    {"fmnist_lenet", "conv2.weight", "conv", "lenet_step000200_rank0.safetensors",
     "lenet_step000700_rank0.safetensors", -1},
    {"fmnist_lenet", "fc1.weight", "fc", "lenet_step000200_rank0.safetensors",
     "lenet_step000700_rank0.safetensors", -1},
    {"fmnist_lenet", "fc1.weight", "fc", "lenet_step000700_rank0.safetensors",
     "lenet_step001499_rank0.safetensors", -1},
    {"fmnist_lenet", "fc1.weight", "fc", "lenet_step000700_rank0.safetensors",
     "lenet_step001499_rank0.safetensors", 1499},
    {"fmnist_lenet300", "fc1.weight", "fc", "lenet300_step000700_rank0.safetensors",
     "lenet300_step001499_rank0.safetensors", -1},
    {"fmnist_lenet300", "fc2.weight", "fc", "lenet300_step000200_rank0.safetensors",
     "lenet300_step000700_rank0.safetensors", -1},
    {"fmnist_resnet20", "layers.8.bn1.weight", "bn", "resnet20_step000500_rank0.safetensors",
     "resnet20_step000799_rank0.safetensors", -1},
};

static const char *const specs[] = {
    "qsgd:s=4,code=elias", "qsgd:s=16,code=elias", "ecq:code=elias", "dgc:ratio=0.001",
    "dgc:ratio=0.01", "topk:ratio=0.01,code=rle",
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int load_tensor(const char *dir, const char *series, const char *file, const char *name,
                       float **x, size_t *n)
{
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/%s/%s", dir, series, file);
    gc_trace_file f;
    if (gc_trace_open(path, &f, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    long i = gc_trace_find(&f, name);
    int rc = i < 0 ? -1 : gc_trace_load_f32(&f, (size_t)i, x, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", path, i < 0 ? "tensor not found" : err);
    else
        *n = f.tensors[i].n_elements;
    gc_trace_close(&f);
    return rc;
}

/* Payload of the real layer: warm-up on the previous capture, then the measured one. */
static int true_payload(const char *spec, const float *prev, const float *x, size_t n,
                        uint64_t seed, size_t *bytes)
{
    char err[512];
    gc_compressor *c;
    if (gc_compressor_create(spec, &c, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    gc_rng rng;
    gc_rng_seed(&rng, seed ^ 0x9e3779b97f4a7c15ULL);
    gc_bytes p = {0};
    int rc = gc_compressor_encode(c, 0, prev, n, &rng, &p, NULL, err, sizeof err);
    gc_compressor_next_step(c);
    if (rc == 0)
        rc = gc_compressor_encode(c, 0, x, n, &rng, &p, NULL, err, sizeof err);
    if (rc == 0)
        *bytes = p.len;
    else
        fprintf(stderr, "%s\n", err);
    gc_bytes_free(&p);
    gc_compressor_free(c);
    return rc;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : gc_trace_payload_dir();
    char err[512];
    enum { SEEDS = 3 };
    printf("%-16s %-22s %-5s %5s %5s %8s %-24s %10s %10s %8s %10s %8s\n", "series",
           "held-back tensor", "kind", "step", "held", "n", "compressor", "true_B", "iid_B",
           "err_%", "block256_B", "err_%");
    double worst256 = 0, worst1 = 0, sum256 = 0, sum1 = 0;
    int count = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const held_back *h = &cases[k];
        float *prev = NULL, *x = NULL;
        size_t n = 0, n_prev = 0;
        if (load_tensor(dir, h->series, h->prev_file, h->tensor, &prev, &n_prev) != 0 ||
            load_tensor(dir, h->series, h->file, h->tensor, &x, &n) != 0 || n != n_prev)
            return 1;
        char exclude[256];
        if (h->step >= 0)
            snprintf(exclude, sizeof exclude, "%s:%s@%lld", h->series, h->tensor, h->step);
        else
            snprintf(exclude, sizeof exclude, "%s:%s", h->series, h->tensor);
        gc_payload_pool *pool;
        if (gc_payload_pool_load(dir, h->kind, exclude, &pool, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
            double t = 0, e256 = 0, e1 = 0;
            for (uint64_t seed = 1; seed <= SEEDS; seed++) {
                size_t tb, b256, b1;
                if (true_payload(specs[s], prev, x, n, seed, &tb) != 0 ||
                    gc_payload_pool_estimate(pool, specs[s], n, 256, 0, seed, &b256, err,
                                             sizeof err) != 0 ||
                    gc_payload_pool_estimate(pool, specs[s], n, GC_PAYLOAD_BLOCK, 0, seed, &b1,
                                             err, sizeof err) != 0) {
                    fprintf(stderr, "%s\n", err);
                    return 1;
                }
                t += (double)tb / SEEDS;
                e256 += (double)b256 / SEEDS;
                e1 += (double)b1 / SEEDS;
            }
            double r256 = 100 * (e256 - t) / t, r1 = 100 * (e1 - t) / t;
            char held[24];
            if (h->step >= 0)
                snprintf(held, sizeof held, "%lld", h->step);
            else
                snprintf(held, sizeof held, "all");
            const char *at = strstr(h->file, "_step");
            int step_at = at ? atoi(at + 5) : -1;
            printf("%-16s %-22s %-5s %5d %5s %8zu %-24s %10.0f %10.0f %+8.2f %10.0f %+8.2f\n",
                   h->series, h->tensor, h->kind, step_at, held, n, specs[s], t, e1, r1, e256,
                   r256);
            worst256 = fmax(worst256, fabs(r256));
            worst1 = fmax(worst1, fabs(r1));
            sum256 += fabs(r256);
            sum1 += fabs(r1);
            count++;
        }
        gc_payload_pool_free(pool);
        free(prev);
        free(x);
    }
    printf("\nmean |error|: iid %.2f%%, block 256 %.2f%%; worst: iid %.2f%%, block 256 %.2f%% "
           "(%d cases, %d seeds each)\n", sum1 / count, sum256 / count, worst1, worst256, count,
           SEEDS);

    /* Chunked encoding of a huge layer against encoding all of it. */
    size_t big = (size_t)9216 * 4096; /* AlexNet fc6 */
    gc_payload_pool *pool;
    if (gc_payload_pool_load(dir, "fc", NULL, &pool, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("\nchunked encoding, n = %zu (AlexNet fc6), chunk %zu:\n", big,
           (size_t)GC_PAYLOAD_CHUNK_MAX);
    printf("%-24s %12s %8s %12s %8s %8s\n", "compressor", "full_B", "full_s", "chunked_B",
           "chunk_s", "err_%");
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        size_t full, chunked;
        double t0 = now_s();
        if (gc_payload_pool_estimate(pool, specs[s], big, GC_PAYLOAD_BLOCK, 0, 1, &full, err,
                                     sizeof err) != 0)
            return 1;
        double t1 = now_s();
        if (gc_payload_pool_estimate(pool, specs[s], big, GC_PAYLOAD_BLOCK, GC_PAYLOAD_CHUNK_MAX,
                                     1, &chunked, err, sizeof err) != 0)
            return 1;
        double t2 = now_s();
        printf("%-24s %12zu %8.2f %12zu %8.2f %+8.3f\n", specs[s], full, t1 - t0, chunked,
               t2 - t1, 100.0 * ((double)chunked - (double)full) / (double)full);
    }
    gc_payload_pool_free(pool);

    /* The public entry point on every layer of ResNet-50 (He et al. 2016, Table 1:
     * bottleneck stages of 3, 4, 6, 3 blocks, widths 64..512, expansion 4), as the
     * simulator calls it: conv weights, batch-norm scale+shift, the 2048x1000 fc. */
    const char *r50_specs[] = {"qsgd:s=4,code=elias", "dgc:ratio=0.001"};
    printf("\nResNet-50, every layer through gc_trace_payload_estimate (first call loads the "
           "traces):\n");
    for (size_t s = 0; s < 2; s++) {
        double t0 = now_s(), total_b = 0;
        size_t layers = 0, elems = 0, b;
        const int blocks[4] = {3, 4, 6, 3}, width[4] = {64, 128, 256, 512};
        int in = 64;
#define EST(kind, n)                                                                         \
    do {                                                                                     \
        if (gc_trace_payload_estimate(r50_specs[s], kind, (size_t)(n), 1, &b, err,          \
                                      sizeof err) != 0) {                                    \
            fprintf(stderr, "%s\n", err);                                                   \
            return 1;                                                                        \
        }                                                                                    \
        total_b += (double)b;                                                                \
        elems += (size_t)(n);                                                                \
        layers++;                                                                            \
    } while (0)
        EST("conv", 7 * 7 * 3 * 64);
        EST("bn", 2 * 64);
        for (int st = 0; st < 4; st++) {
            int w = width[st];
            for (int k = 0; k < blocks[st]; k++) {
                EST("conv", in * w);
                EST("bn", 2 * w);
                EST("conv", 9 * w * w);
                EST("bn", 2 * w);
                EST("conv", w * 4 * w);
                EST("bn", 2 * 4 * w);
                if (k == 0) {
                    EST("conv", in * 4 * w);
                    EST("bn", 2 * 4 * w);
                }
                in = 4 * w;
            }
        }
        EST("fc", 2048 * 1000 + 1000);
#undef EST
        double t1 = now_s();
        /* A second pass is answered from the result cache. */
        size_t again;
        if (gc_trace_payload_estimate(r50_specs[s], "fc", 2048 * 1000 + 1000, 1, &again, err,
                                      sizeof err) != 0)
            return 1;
        printf("%-24s %zu layers, %zu values, payload %.0f B (%.2f bits/value), %.2f s\n",
               r50_specs[s], layers, elems, total_b, 8 * total_b / (double)elems, t1 - t0);
    }
    return 0;
}
