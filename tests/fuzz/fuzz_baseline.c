/*
 * tests/fuzz/fuzz_baseline.c: the baseline reader of `gcsim check` (baseline_load,
 * sim/planning/baseline_file.h) on arbitrary bytes, and its writer (baseline_rewrite) on
 * whatever the reader accepts.
 *
 * baseline_load takes a path and resolves the platform and model paths a baseline names
 * against the file system, so every input is written to baseline.json in a scratch
 * folder (under /dev/shm when there is one: the rewrite fsyncs) that also holds
 * platforms/p.json and models/m.json for seeds to name.
 *
 * Contract checked: a rejected file leaves a message naming it and nothing allocated; an
 * accepted one has unique non-empty case names, resolved files that exist and values in
 * their documented ranges; rewriting it with new expected throughputs and reading it
 * back gives the same cases with exactly the new values (the writer prints the shortest
 * form that reads back as the same double).
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline_file.h"
#include "fuzz_target.h"

static char scratch[512];
static char baseline_path[600];

static void remove_scratch(void)
{
    char p[700];
    const char *files[] = {"platforms/p.json", "models/m.json", "baseline.json", "platforms",
                           "models", ""};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", scratch, files[i]);
        remove(p);
    }
}

static void touch(const char *rel)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", scratch, rel);
    FILE *f = fopen(p, "w");
    FUZZ_REQUIRE(f != NULL, "cannot create %s", p);
    fputs("{}\n", f);
    fclose(f);
}

static void setup(void)
{
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : NULL;
    if (!base)
        base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(scratch, sizeof scratch, "%s/gcsim-fuzz-baseline-%ld", base, (long)getpid());
    FUZZ_REQUIRE(mkdir(scratch, 0700) == 0 || errno == EEXIST, "mkdir %s", scratch);
    char p[700];
    snprintf(p, sizeof p, "%s/platforms", scratch);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/models", scratch);
    mkdir(p, 0700);
    touch("platforms/p.json");
    touch("models/m.json");
    snprintf(baseline_path, sizeof baseline_path, "%s/baseline.json", scratch);
    atexit(remove_scratch);
}

static int same_case(const baseline_case *a, const baseline_case *b)
{
    return strcmp(a->name, b->name) == 0 && strcmp(a->platform, b->platform) == 0 &&
           strcmp(a->model, b->model) == 0 && strcmp(a->compressor, b->compressor) == 0 &&
           a->collective == b->collective && a->gpus == b->gpus && a->scaling == b->scaling &&
           a->batch == b->batch && a->engine == b->engine &&
           a->tolerance_pct == b->tolerance_pct;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!baseline_path[0])
        setup();
    FILE *f = fopen(baseline_path, "wb");
    FUZZ_REQUIRE(f != NULL, "cannot write %s", baseline_path);
    FUZZ_REQUIRE(fwrite(data, 1, size, f) == size && fclose(f) == 0, "short write");

    baseline b;
    gcsim_error err;
    memset(&err, 0, sizeof err);
    if (baseline_load(baseline_path, &b, &err) != 0) {
        fuzz_check_message(err.message, sizeof err.message, baseline_path);
        FUZZ_REQUIRE(b.root == NULL && b.cases == NULL, "failed load kept memory");
        return 0;
    }
    struct stat st;
    for (int k = 0; k < b.n_cases; k++) {
        const baseline_case *c = &b.cases[k];
        FUZZ_REQUIRE(c->name[0] != '\0', "case %d has no name", k);
        for (int j = 0; j < k; j++)
            FUZZ_REQUIRE(strcmp(b.cases[j].name, c->name) != 0, "duplicate name %s", c->name);
        FUZZ_REQUIRE(stat(c->platform, &st) == 0 && stat(c->model, &st) == 0,
                     "case %d: resolved files missing", k);
        FUZZ_REQUIRE(c->gpus >= 1 && c->batch >= 0, "case %d: gpus %d batch %d", k, c->gpus,
                     c->batch);
        /* a case without an expected value is new: `check --update` records it */
        FUZZ_REQUIRE(!c->has_expected || (c->expected_samples_per_s >= 1e-300 &&
                                          c->expected_samples_per_s <= 1e300),
                     "case %d: expected %g", k, c->expected_samples_per_s);
    }

    /* Rewrite every case with a new expected throughput and read the file back. */
    int n = b.n_cases;
    double *predicted = malloc(sizeof(double) * (size_t)(n ? n : 1));
    unsigned char *update = malloc((size_t)(n ? n : 1));
    baseline_case *before = malloc(sizeof *before * (size_t)(n ? n : 1));
    if (!predicted || !update || !before)
        abort();
    for (int k = 0; k < n; k++) {
        before[k] = b.cases[k];
        predicted[k] = b.cases[k].expected_samples_per_s * (k % 2 ? 1.0 / 3.0 : 3.0);
        if (!(predicted[k] >= 1e-300 && predicted[k] <= 1e300))
            predicted[k] = b.cases[k].expected_samples_per_s;
        if (!b.cases[k].has_expected) /* a new case gets its first value */
            predicted[k] = 1000.0 * (k + 1);
        update[k] = 1;
    }
    double tolerance = b.tolerance_pct;
    if (baseline_rewrite(&b, predicted, update, &err) == 0) {
        baseline again;
        gcsim_error err2;
        memset(&err2, 0, sizeof err2);
        FUZZ_REQUIRE(baseline_load(baseline_path, &again, &err2) == 0,
                     "rewritten baseline does not load: %s", err2.message);
        FUZZ_REQUIRE(again.n_cases == n && again.tolerance_pct == tolerance,
                     "%d cases became %d", n, again.n_cases);
        for (int k = 0; k < n; k++) {
            FUZZ_REQUIRE(same_case(&before[k], &again.cases[k]), "case %d changed", k);
            FUZZ_REQUIRE(again.cases[k].has_expected, "case %d: no value after the rewrite", k);
            FUZZ_REQUIRE(again.cases[k].expected_samples_per_s == predicted[k],
                         "case %d: wrote %.17g, read %.17g", k, predicted[k],
                         again.cases[k].expected_samples_per_s);
        }
        baseline_free(&again);
    } else {
        fuzz_check_message(err.message, sizeof err.message, NULL);
    }
    free(predicted);
    free(update);
    free(before);
    baseline_free(&b);
    return 0;
}
