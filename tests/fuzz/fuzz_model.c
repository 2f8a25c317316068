/*
 * tests/fuzz/fuzz_model.c: the model loader (gcsim_model_parse, sim/config/model.h) on
 * arbitrary text.
 *
 * Contract checked: failure leaves a message naming the origin and nothing allocated
 * (LeakSanitizer sees it otherwise); success gives layers with parameters, profiles with
 * 1 to 8 ascending points of positive time, measured layer times (when given) finite and
 * bounded for every layer, and the profile interpolation either fails with a message or
 * returns a finite positive time.
 */
#include <math.h>

#include "fuzz_target.h"
#include "model.h"

#define ORIGIN "fuzz-model.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    gcsim_model m;
    gcsim_error err;
    memset(&err, 0, sizeof err);
    int rc = gcsim_model_parse(text, ORIGIN, &m, &err);
    free(text);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == -1, "return code %d", rc);
        fuzz_check_message(err.message, sizeof err.message, ORIGIN);
        FUZZ_REQUIRE(m.layers == NULL && m.profiles == NULL, "failed parse kept memory");
        return 0;
    }
    FUZZ_REQUIRE(m.n_layers >= 1 && m.layers != NULL, "%d layers", m.n_layers);
    FUZZ_REQUIRE(m.batch_per_gpu >= 1, "batch %d", m.batch_per_gpu);
    for (int i = 0; i < m.n_layers; i++) {
        const gcsim_layer *l = &m.layers[i];
        FUZZ_REQUIRE(l->weights >= 0 && l->bias >= 0 && l->other_params >= 0 &&
                         gcsim_layer_params(l) > 0,
                     "layer %d params", i);
        FUZZ_REQUIRE(isfinite(l->fwd_flops) && l->fwd_flops >= 0, "layer %d flops", i);
    }
    FUZZ_REQUIRE(gcsim_model_params(&m) > 0, "model params");
    double g = gcsim_model_gradient_bytes(&m);
    FUZZ_REQUIRE(isfinite(g) && g > 0, "|g| = %g", g);
    for (int i = 0; i < m.n_profiles; i++) {
        const gcsim_profile *p = &m.profiles[i];
        FUZZ_REQUIRE(gcsim_model_profile(&m, p->gpu) == p, "profile %d lookup", i);
        FUZZ_REQUIRE(p->n_points >= 1 && p->n_points <= 8, "%d points", p->n_points);
        FUZZ_REQUIRE(p->backward_fraction >= 0 && p->backward_fraction <= 1, "bwd");
        for (int k = 0; k < p->n_points; k++) {
            FUZZ_REQUIRE(isfinite(p->points[k].time_s) && p->points[k].time_s > 0, "time");
            FUZZ_REQUIRE(k == 0 || p->points[k].batch > p->points[k - 1].batch, "order");
        }
        /* Measured layer times: one finite, non-negative pair per layer, at most an hour
         * each (1e308 s entries summed to infinity and zeroed every bucket's backward). */
        if (p->layer_forward_s || p->layer_backward_s) {
            FUZZ_REQUIRE(p->layer_forward_s && p->layer_backward_s, "half the layer times");
            FUZZ_REQUIRE(p->layer_times_source[0] != '\0', "layer times without a source");
            double sum = 0;
            for (int l = 0; l < m.n_layers; l++) {
                double f = p->layer_forward_s[l], b = p->layer_backward_s[l];
                FUZZ_REQUIRE(isfinite(f) && isfinite(b) && f >= 0 && b >= 0 && f <= 3600 &&
                                 b <= 3600,
                             "layer %d times %g, %g", l, f, b);
                sum += f + b;
            }
            FUZZ_REQUIRE(isfinite(sum), "layer times sum to %g", sum);
        }
        int batches[] = {0, 1, m.batch_per_gpu, p->points[0].batch,
                         p->points[p->n_points - 1].batch + 1, 1 << 24};
        for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
            double t = -1;
            gcsim_error e2;
            memset(&e2, 0, sizeof e2);
            if (gcsim_profile_time_s(p, batches[b], &t, &e2) == 0)
                FUZZ_REQUIRE(isfinite(t) && t > 0, "T(batch %d) = %g", batches[b], t);
            else
                fuzz_check_message(e2.message, sizeof e2.message, NULL);
        }
    }
    gcsim_model_free(&m);
    return 0;
}
