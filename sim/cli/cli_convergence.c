/* --convergence for plan, predict and breakeven (cli_convergence.h). */
#include "cli_convergence.h"
#include "convergence_notes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compressor_file.h"
#include "data_dir.h"

/* The bound's gradients: no trace of the planned model ships, so a shipped proxy trace
 * (a ResNet-20 on Fashion-MNIST, mid-training, traces/data/fmnist_resnet20/provenance.json)
 * stands in for every model, and the notes say so. */
#define BOUND_TRACE "traces/data/fmnist_resnet20/resnet20_step000200_rank0.safetensors"
#define BOUND_LABEL "proxy trace fmnist_resnet20 step 200"

int cli_convergence_option(const char *cmd, const char *arg, conv_source *out)
{
    if (conv_source_parse(arg, out)) {
        fprintf(stderr, "gcsim %s: --convergence: expected none, catalog, train, bound or best, "
                        "got \"%s\"\n", cmd, arg);
        return -1;
    }
    return 0;
}

void cli_convergence_files(cli_files *f, conv_source want)
{
    if (want == CONV_SOURCE_NONE)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/models/convergence/outcomes.tsv", gcsim_data_dir());
    cli_files_input(f, "the --convergence catalog", path);
    snprintf(path, sizeof path, "%s/models/convergence/train_factors.tsv", gcsim_data_dir());
    cli_files_input(f, "the --convergence train factors", path);
    snprintf(path, sizeof path, "%s/" BOUND_TRACE, gcsim_data_dir());
    cli_files_input(f, "the --convergence bound's trace", path);
}

int cli_convergence_factors(const char *cmd, conv_source want, const char *model,
                            const char *const *specs, int n, int workers, conv_factor *out)
{
    char path[4096], err[1024];
    conv_catalog cat = {0};
    conv_train_table train = {0};
    conv_sources s = {0};
    int rc = -1;
    if (want != CONV_SOURCE_NONE) {
        snprintf(path, sizeof path, "%s/models/convergence/outcomes.tsv", gcsim_data_dir());
        if (conv_catalog_load(path, &cat, err, sizeof err)) {
            fprintf(stderr, "gcsim %s: --convergence: %s\n", cmd, err);
            return -1;
        }
        s.catalog = &cat;
        snprintf(path, sizeof path, "%s/models/convergence/train_factors.tsv", gcsim_data_dir());
        if (access(path, R_OK) == 0) {
            if (conv_train_load(path, &train, err, sizeof err)) {
                fprintf(stderr, "gcsim %s: --convergence: %s\n", cmd, err);
                goto done;
            }
            s.train = &train;
        }
    }
    static char trace[4096];
    snprintf(trace, sizeof trace, "%s/" BOUND_TRACE, gcsim_data_dir());
    const char *traces[1] = {trace};
    if (access(trace, R_OK) == 0) {
        s.trace_files = traces;
        s.n_traces = 1;
        s.trace_label = BOUND_LABEL;
    }
    for (int k = 0; k < n; k++)
        if (conv_factor_for(&s, want, model, specs[k], workers > 0 ? workers : 1 << 30, &out[k],
                            err, sizeof err)) {
            fprintf(stderr, "gcsim %s: --convergence: %s: %s\n", cmd, specs[k], err);
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
