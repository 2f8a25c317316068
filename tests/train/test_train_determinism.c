/*
 * Same configuration and seed -> bit-identical evaluation points; another seed -> different
 * points (so the comparison can fail). Covers the exact path and, when the compressor
 * library is built, stochastic compressors whose per-worker generators derive from the seed.
 */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "train.h"

typedef struct {
    train_point p[64];
    int n;
} points;

static void collect(const train_point *p, void *ctx)
{
    points *ps = ctx;
    if (ps->n < 64) ps->p[ps->n++] = *p;
}

static void run(const fmnist_split *tr, const fmnist_split *te, const char *compressor,
                int workers, uint64_t seed, points *out, train_summary *sum)
{
    char err[1024];
    train_config c;
    train_config_defaults(&c);
    c.compressor = compressor;
    c.workers = workers;
    c.epochs = 2;
    c.batch = 32;
    c.seed = seed;
    c.eval_every = 5;
    c.target_accuracy = 0.3;
    memset(out, 0, sizeof *out);
    int rc = train_run(&c, tr, te, collect, out, sum, err, sizeof err);
    if (rc) fprintf(stderr, "%s: %s\n", compressor, err);
    CHECK(rc == 0);
}

static void same_and_different(const fmnist_split *tr, const fmnist_split *te,
                               const char *compressor, int workers)
{
    points a, b, c;
    train_summary sa, sb, sc;
    run(tr, te, compressor, workers, 7, &a, &sa);
    run(tr, te, compressor, workers, 7, &b, &sb);
    run(tr, te, compressor, workers, 8, &c, &sc);
    /* 256 images / batch 32 = 8 iterations per epoch; points at 5, 8 (epoch end), 10, 15, 16. */
    CHECK(a.n == 5);
    CHECK(a.n == b.n && memcmp(a.p, b.p, sizeof a.p) == 0);
    CHECK(sa.steps_to_target == sb.steps_to_target && sa.bits_per_worker == sb.bits_per_worker);
    CHECK(memcmp(a.p, c.p, sizeof a.p) != 0);
    CHECK(a.p[0].step == 5 && a.p[1].step == 8 && a.p[1].epoch == 1 && a.p[4].step == 16);
    /* Training on 256 images for 16 steps lowers the training loss below ln(10) = 2.30. */
    CHECK(a.p[4].train_loss < 2.0);
}

int main(void)
{
    char err[1024];
    fmnist_split tr, te;
    if (fmnist_load(FMNIST_DEFAULT_DIR, "train", 256, &tr, err, sizeof err) ||
        fmnist_load(FMNIST_DEFAULT_DIR, "t10k", 200, &te, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    same_and_different(&tr, &te, "none", 1);
    same_and_different(&tr, &te, "none", 4);
#ifdef GCSIM_TEST_HAVE_COMPRESSORS
    same_and_different(&tr, &te, "terngrad", 4);
    same_and_different(&tr, &te, "qsgd", 2);
#endif
    fmnist_free(&tr);
    fmnist_free(&te);
    CHECK_DONE();
}
