/* The cases of a sweep and its shards (sweep_space.h). */
#include "sweep_space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sweep_space_alloc(sweep_space *s, int n_platforms, int n_models, int n_compressors,
                      int n_stacks, int n_collectives, int n_scalings, int n_batches,
                      int max_engines, int max_gpu_counts)
{
    s->n_platforms = n_platforms;
    s->n_models = n_models;
    s->n_compressors = n_compressors;
    s->n_stacks = n_stacks;
    s->n_collectives = n_collectives;
    s->n_scalings = n_scalings;
    s->n_batches = n_batches;
    s->n_engines = 0;
    s->platforms = calloc((size_t)n_platforms, sizeof *s->platforms);
    s->models = calloc((size_t)n_models, sizeof *s->models);
    s->plans = calloc((size_t)n_models * n_compressors, sizeof *s->plans);
    s->stacks = calloc((size_t)n_platforms * n_stacks, sizeof *s->stacks);
    s->collectives = calloc((size_t)n_collectives, sizeof *s->collectives);
    s->scalings = calloc((size_t)n_scalings, sizeof *s->scalings);
    s->batches = calloc((size_t)n_batches, sizeof *s->batches);
    s->engines = calloc((size_t)max_engines, sizeof *s->engines);
    s->gpus = calloc((size_t)n_platforms, sizeof *s->gpus);
    s->n_gpus = calloc((size_t)n_platforms, sizeof *s->n_gpus);
    if (!s->platforms || !s->models || !s->plans || !s->stacks || !s->collectives || !s->scalings ||
        !s->batches || !s->engines || !s->gpus || !s->n_gpus)
        return -1;
    for (int p = 0; p < n_platforms; p++)
        if (!(s->gpus[p] = calloc((size_t)max_gpu_counts, sizeof(int))))
            return -1;
    return 0;
}

void sweep_space_free(sweep_space *s)
{
    for (int p = 0; p < s->n_platforms && s->gpus; p++)
        free(s->gpus[p]);
    free(s->gpus);
    free(s->n_gpus);
    free(s->platforms);
    free(s->models);
    free(s->plans);
    free(s->stacks);
    free(s->collectives);
    free(s->scalings);
    free(s->batches);
    free(s->engines);
}

long long sweep_space_count(const sweep_space *s)
{
    long long per_gpu = (long long)s->n_models * s->n_compressors * s->n_stacks *
                        s->n_collectives * s->n_scalings * s->n_batches * s->n_engines;
    long long total = 0;
    for (int p = 0; p < s->n_platforms; p++)
        total += per_gpu * s->n_gpus[p];
    return total;
}

/* "5 models" or "1 model": one factor of the product. */
static void factor(char *out, size_t size, long long n, const char *one, const char *many)
{
    size_t len = strlen(out);
    snprintf(out + len, size - len, "%s%lld %s", len ? " x " : "", n, n == 1 ? one : many);
}

int sweep_space_check_limit(const sweep_space *s, int k, int n, long long max_cases, char *err,
                            size_t err_len)
{
    double per_gpu = (double)s->n_models * s->n_compressors * s->n_stacks * s->n_collectives *
                     s->n_scalings * s->n_batches * s->n_engines;
    long long gpu_counts = 0;
    bool uniform = true;
    for (int p = 0; p < s->n_platforms; p++) {
        gpu_counts += s->n_gpus[p];
        uniform &= s->n_gpus[p] == s->n_gpus[0];
    }
    double total = per_gpu * (double)gpu_counts;
    /* exact while the product fits in a long long; past that, far over any limit */
    double mine = total < 9e18 ? (double)sweep_shard_size((long long)total, k, n) : total;
    if (mine <= (double)max_cases)
        return 0;
    char product[512] = "";
    if (uniform)
        factor(product, sizeof product, s->n_platforms, "platform", "platforms");
    factor(product, sizeof product, s->n_models, "model", "models");
    factor(product, sizeof product, s->n_compressors, "compressor", "compressors");
    factor(product, sizeof product, s->n_stacks, "stack", "stacks");
    factor(product, sizeof product, s->n_collectives, "collective", "collectives");
    factor(product, sizeof product, s->n_scalings, "scaling", "scalings");
    factor(product, sizeof product, s->n_batches, "batch", "batches");
    factor(product, sizeof product, s->n_engines, "engine", "engines");
    if (uniform) {
        factor(product, sizeof product, s->n_platforms ? s->n_gpus[0] : 0, "GPU count",
               "GPU counts");
    } else {
        size_t len = strlen(product);
        snprintf(product + len, sizeof product - len, " x %lld GPU counts over the %d platforms",
                 gpu_counts, s->n_platforms);
    }
    char shard[96] = "";
    if (n)
        snprintf(shard, sizeof shard, "shard %d/%d holds %.0f of ", k, n, mine);
    snprintf(err, err_len, "%s%.0f cases (%s): more than the %lld one run writes unless asked "
             "(--max-cases N runs up to N; --shard K/N splits the sweep; --count counts)",
             shard, total, product, max_cases);
    return -1;
}

bool sweep_shard_has(long long index, int k, int n)
{
    return n == 0 || index % n == k - 1;
}

long long sweep_shard_size(long long total, int k, int n)
{
    return n ? (total + n - k) / n : total;
}

int sweep_default_gpus(long long capacity_gpus, int *counts, int max_counts)
{
    int n = 0;
    for (long long g = 1; g <= capacity_gpus && n < max_counts; g *= 2)
        counts[n++] = (int)g;
    if (n > 0 && counts[n - 1] != capacity_gpus && n < max_counts)
        counts[n++] = (int)capacity_gpus;
    return n;
}
