/* sim/planning/convergence_factors.c: each compressor's convergence factor from the shipped
 * evidence (convergence_factors.h). */
#include "convergence_factors.h"

#include <stdio.h>
#include <unistd.h>

#include "compressor_file.h"
#include "data_dir.h"

/* The bound's gradients: no trace of the planned model ships, so a shipped proxy trace
 * (a ResNet-20 on Fashion-MNIST, mid-training, traces/data/fmnist_resnet20/provenance.json)
 * stands in for every model, and the notes say so. */
#define BOUND_TRACE "traces/data/fmnist_resnet20/resnet20_step000200_rank0.safetensors"
#define BOUND_LABEL "proxy trace fmnist_resnet20 step 200"

const char *convergence_data_file(int k, char *buf, size_t size)
{
    static const char *const rel[CONVERGENCE_DATA_FILES] = {
        "models/convergence/outcomes.tsv", "models/convergence/train_factors.tsv", BOUND_TRACE};
    snprintf(buf, size, "%s/%s", gcsim_data_dir(), rel[k]);
    return buf;
}

int convergence_factors(conv_source want, const char *model, const char *const *specs, int n,
                        int workers, conv_factor *out, gcsim_error *e)
{
    char path[4096], err[1024];
    conv_catalog cat = {0};
    conv_train_table train = {0};
    conv_sources s = {0};
    int rc = -1;
    if (want != CONV_SOURCE_NONE) {
        convergence_data_file(0, path, sizeof path);
        if (conv_catalog_load(path, &cat, err, sizeof err)) {
            return gcsim_fail(e, "--convergence: %s", err);
        }
        s.catalog = &cat;
        convergence_data_file(1, path, sizeof path);
        if (access(path, R_OK) == 0) {
            if (conv_train_load(path, &train, err, sizeof err)) {
                gcsim_fail(e, "--convergence: %s", err);
                goto done;
            }
            s.train = &train;
        }
    }
    char trace[4096];
    convergence_data_file(2, trace, sizeof trace);
    const char *traces[1] = {trace};
    if (access(trace, R_OK) == 0) {
        s.trace_files = traces;
        s.n_traces = 1;
        s.trace_label = BOUND_LABEL;
    }
    for (int k = 0; k < n; k++)
        if (conv_factor_for(&s, want, model, specs[k], workers > 0 ? workers : 1 << 30, &out[k],
                            err, sizeof err)) {
            gcsim_fail(e, "--convergence: %s: %s", specs[k], err);
            goto done;
        }
    /* A described compressor has no evidence of gcsim's own; its file may state a factor
     * with a source, used as the file's (compressor_file.h). */
    for (int k = 0; k < n && want != CONV_SOURCE_NONE; k++) {
        double stated;
        const char *source;
        if (!gcsim_compressor_file_convergence(specs[k], &stated, &source))
            continue;
        out[k] = (conv_factor){.factor = stated, .lo = stated, .hi = stated, .source = want,
                               .omega = -1, .omega_lo = -1, .omega_hi = -1,
                               .evidence = CONV_EVIDENCE_STATED};
        snprintf(out[k].how, sizeof out[k].how, "stated by %s: %.300s",
                 gcsim_compressor_file_of(specs[k]), source);
    }
    rc = 0;
done:
    conv_catalog_free(&cat);
    conv_train_free(&train);
    return rc;
}
