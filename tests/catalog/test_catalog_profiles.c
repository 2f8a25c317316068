/*
 * tests/catalog/test_catalog_profiles.c: the catalog's compute profiles and platforms.
 *
 * - every profile of every model names its source and framework, says whether its numbers
 *   were measured, derived or fitted (the catalog's convention, docs/catalog.md), and gives
 *   a positive time at the model's default batch; a model covers the six GPU generations
 *   unless it exists only to carry a fitted profile;
 * - the compute speed a profile implies (3 x fwd FLOPs per sample for forward + backward,
 *   over the time per sample) is below twice the GPU's peak speed. Not below the peak itself:
 *   cuDNN's Winograd 3x3 convolutions do 2.25x fewer multiplications than the direct
 *   FLOP count, and the measured VGG-16 on a Titan X Pascal (jcjohnson, 128.62 ms for 16)
 *   already implies 3 x 30.94 GFLOP x 16 / 0.12862 s = 11.5 TFLOP/s, 1.05x its 10.97 peak.
 *   Twice the peak still catches a profile in the wrong unit or with a slipped digit;
 * - every platform loads, a price has a source, and every platform's GPU type has a
 *   profile in at least one model (so `gcsim predict` can run on it).
 *
 * Folders from CMake definitions GCSIM_MODELS_DIR and GCSIM_PLATFORMS_DIR.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "model.h"
#include "platform.h"

#define MAX_FILES 64

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

typedef struct {
    char s[256];
} file_name;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const file_name *)a)->s, ((const file_name *)b)->s);
}

/* Sorted *.json names of a folder; returns the count. */
static int list_json(const char *dir, file_name *names)
{
    int n = 0;
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    for (struct dirent *e; d && (e = readdir(d)) && n < MAX_FILES;)
        if (ends_with(e->d_name, ".json"))
            snprintf(names[n++].s, sizeof names[0].s, "%s", e->d_name);
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_name);
    return n;
}

int main(void)
{
    static file_name model_files[MAX_FILES], platform_files[MAX_FILES];
    static gcsim_model models[MAX_FILES];
    int n_models = list_json(GCSIM_MODELS_DIR, model_files);
    int n_platforms = list_json(GCSIM_PLATFORMS_DIR, platform_files);
    CHECK(n_models >= 7);    /* AlexNet, GoogLeNet, VGG-A, VGG-16, ResNet-50, LSTM, BERT */
    CHECK(n_platforms >= 10); /* 5(a), 5(b), DGC x2, ECQ, A100, H100, cloud, ... */

    /* Peak fp32 speed per GPU type, from the platform files. */
    static gcsim_platform platforms[MAX_FILES];
    for (int i = 0; i < n_platforms; i++) {
        char path[4096];
        int len = snprintf(path, sizeof path, "%s/%s", GCSIM_PLATFORMS_DIR, platform_files[i].s);
        CHECK(len > 0 && len < (int)sizeof path);
        gcsim_error err = {{0}, 0, 0};
        int rc = gcsim_platform_load(path, &platforms[i], &err);
        if (rc != 0)
            fprintf(stderr, "FAIL: %s\n", err.message);
        CHECK(rc == 0);
        if (rc == 0 && platforms[i].has_price)
            CHECK(strlen(platforms[i].price_source) > 10);
    }

    for (int i = 0; i < n_models; i++) {
        char path[4096];
        int len = snprintf(path, sizeof path, "%s/%s", GCSIM_MODELS_DIR, model_files[i].s);
        CHECK(len > 0 && len < (int)sizeof path);
        gcsim_error err = {{0}, 0, 0};
        gcsim_model *m = &models[i];
        memset(m, 0, sizeof *m);
        int rc = gcsim_model_load(path, m, &err);
        if (rc != 0)
            fprintf(stderr, "FAIL: %s\n", err.message);
        CHECK(rc == 0);
        if (rc != 0)
            continue;
        int n_fitted = 0;
        for (int p = 0; p < m->n_profiles; p++)
            n_fitted += strncmp(m->profiles[p].source, "fitted", 6) == 0;
        /* The CNN-era models cover every GPU (GTX 1080, Titan X/Xp, P100, P40, V100,
         * A100); today's transformers (issue 17) are profiled on the H100, and the roofline
         * model (sim/config/roofline.h) serves the other GPUs. */
        if (n_fitted < m->n_profiles && gcsim_model_profile(m, "gtx1080"))
            CHECK(m->n_profiles >= 6);
        else if (n_fitted < m->n_profiles)
            CHECK(gcsim_model_profile(m, "h100") != NULL);
        double flops_per_sample = 0;
        for (int l = 0; l < m->n_layers; l++)
            flops_per_sample += m->layers[l].fwd_flops;
        for (int p = 0; p < m->n_profiles; p++) {
            const gcsim_profile *pr = &m->profiles[p];
            CHECK(strlen(pr->source) > 10);
            CHECK(strlen(pr->framework) > 2);
            CHECK(strstr(pr->source, "measured") || strstr(pr->source, "derived") ||
                  strncmp(pr->source, "fitted", 6) == 0);
            CHECK(pr->n_points >= 1);
            double t = 0;
            CHECK(gcsim_profile_time_s(pr, m->batch_per_gpu, &t, &err) == 0);
            CHECK(t > 0);
            /* implied speed below peak, where the platform files give the peak */
            for (int k = 0; k < n_platforms; k++) {
                if (strcmp(platforms[k].gpu.type, pr->gpu) != 0)
                    continue;
                for (int q = 0; q < pr->n_points; q++) {
                    double achieved = 3.0 * flops_per_sample * pr->points[q].batch /
                                      pr->points[q].time_s;
                    if (!(achieved < 2.0 * platforms[k].gpu.speed_flops))
                        fprintf(stderr, "FAIL: %s %s batch %d implies %.3g flop/s > 2 x peak %.3g\n",
                                model_files[i].s, pr->gpu, pr->points[q].batch, achieved,
                                platforms[k].gpu.speed_flops);
                    CHECK(achieved < 2.0 * platforms[k].gpu.speed_flops);
                }
            }
        }
    }

    /* Each platform's GPU is profiled by some model, itself or the type it is profiled as
     * (gpu.profile_as: gb200-nvl72 runs on h100's profiles, no GB200 being measured). */
    for (int k = 0; k < n_platforms; k++) {
        int found = 0;
        const char *as = platforms[k].gpu.profile_as;
        for (int i = 0; i < n_models; i++)
            if (models[i].layers && (gcsim_model_profile(&models[i], platforms[k].gpu.type) ||
                                     (as[0] && gcsim_model_profile(&models[i], as))))
                found = 1;
        if (!found)
            fprintf(stderr, "FAIL: no model has a profile for %s (%s)\n",
                    platforms[k].gpu.type, platform_files[k].s);
        CHECK(found);
    }
    for (int i = 0; i < n_models; i++)
        if (models[i].layers)
            gcsim_model_free(&models[i]);
    CHECK_DONE();
}
