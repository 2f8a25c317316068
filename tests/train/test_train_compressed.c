/*
 * Training through the compressor library: bits per worker are the real payload lengths
 * (checked against the library's fixed payload size for fixed-width formats), compressed
 * training still learns, and DGC runs without optimizer momentum (its momentum correction
 * lives in the compressor).
 */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "compressor.h"
#include "train.h"

static void run_steps(const fmnist_split *tr, const fmnist_split *te, const char *spec,
                      int workers, int steps, double *bits, double *first_loss, double *last_loss,
                      double *momentum)
{
    char err[1024];
    train_config c;
    train_config_defaults(&c);
    c.compressor = spec;
    c.workers = workers;
    c.batch = 32;
    train_session *s;
    int rc = train_session_create(&c, tr, te, &s, err, sizeof err);
    if (rc) fprintf(stderr, "%s: %s\n", spec, err);
    CHECK(rc == 0);
    if (rc) return;
    double sum_first = 0.0, sum_last = 0.0;
    for (int i = 0; i < steps; i++) {
        double loss;
        CHECK(train_session_step(s, &loss, err, sizeof err) == 0);
        if (i < 8) sum_first += loss;
        if (i >= steps - 8) sum_last += loss;
    }
    *bits = train_session_bits_per_worker(s);
    *first_loss = sum_first / 8;
    *last_loss = sum_last / 8;
    *momentum = train_session_momentum(s);
    train_session_free(s);
}

int main(void)
{
    char err[1024];
    fmnist_split tr, te;
    if (fmnist_load(FMNIST_DEFAULT_DIR, "train", 1024, &tr, err, sizeof err) ||
        fmnist_load(FMNIST_DEFAULT_DIR, "t10k", 10, &te, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    train_net *net = train_net_create(TRAIN_MODEL_MLP, 1);
    const char *specs[] = {"none", "terngrad", "qsgd", "ecq", "signsgd", "orq", "dgc"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const int steps = 64, workers = 4;
        double bits = 0, first = 0, last = 0, mom = -1;
        run_steps(&tr, &te, specs[i], workers, steps, &bits, &first, &last, &mom);
        gc_compressor *c = NULL;
        CHECK(gc_compressor_create(specs[i], &c, err, sizeof err) == 0);
        if (!c) continue;
        /* Fixed-width formats: bits per worker = steps x sum over tensors of 8 x payload. */
        double expect = 0.0;
        int fixed = 1;
        for (int t = 0; t < train_net_tensors(net); t++) {
            size_t bytes;
            if (!gc_compressor_fixed_payload_bytes(c, train_net_tensor(net, t)->count, &bytes)) fixed = 0;
            else expect += 8.0 * (double)bytes * steps;
        }
        if (fixed) CHECK(bits == expect);
        /* Every compressor sends fewer bits than fp32 except fp32 ("none") itself. */
        if (strcmp(specs[i], "none") != 0) CHECK(bits < 32.0 * 101770 * steps);
        CHECK(bits > 0);
        /* 64 steps on 1,024 images: the mean loss of the last 8 steps is below the first 8. */
        if (!(last < first)) fprintf(stderr, "%s: loss %g -> %g\n", specs[i], first, last);
        CHECK(last < first);
        CHECK(mom == (strcmp(specs[i], "dgc") == 0 ? 0.0 : 0.9));
        gc_compressor_free(c);
    }
    /* Unknown compressors are errors naming the option. */
    train_config c;
    train_config_defaults(&c);
    c.compressor = "nosuch";
    train_session *s;
    CHECK(train_session_create(&c, &tr, &te, &s, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "--compressor");
    train_net_free(net);
    fmnist_free(&tr);
    fmnist_free(&te);
    CHECK_DONE();
}
