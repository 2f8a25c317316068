/* sim/report/predict_first.c: `gcsim predict` with no options (predict_first.h). */
#include "predict_first.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "predict_first_rows.h"
#include "roofline.h"
#include "stack.h"
#include "sweep_space.h"

/* The compressor shown beside fp32: the one the default cluster's paper is about. */
#define FIRST_COMPRESSOR "terngrad"
#define MAX_COUNTS PREDICT_FIRST_MAX_COUNTS

/* Appends printf-formatted text to a growing buffer (the screen is printed only once every
 * number is known, so that a failure leaves stdout empty). */
typedef struct {
    char *s;
    size_t len, cap;
    bool failed;
} text;

static void addf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0 || t->len + (size_t)need + 1 > t->cap) {
        size_t cap = (t->cap + (size_t)(need < 0 ? 0 : need) + 1) * 2;
        char *s = need < 0 ? NULL : realloc(t->s, cap);
        if (!s) {
            t->failed = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)need;
}

/* A paragraph broken at spaces into lines of at most PREDICT_FIRST_COLUMNS, the first
 * starting with lead and the others indented as far. */
static void add_wrapped(text *t, const char *lead, const char *para)
{
    size_t indent = strlen(lead), col = indent, width = PREDICT_FIRST_COLUMNS;
    addf(t, "%s", lead);
    const char *w = para;
    while (*w) {
        while (*w == ' ')
            w++;
        size_t len = strcspn(w, " ");
        if (!len)
            break;
        if (col > indent && col + 1 + len > width) {
            addf(t, "\n%*s", (int)indent, "");
            col = indent;
        } else if (col > indent) {
            addf(t, " ");
            col++;
        }
        addf(t, "%.*s", (int)len, w);
        col += len;
        w += len;
    }
    addf(t, "\n");
}

/* The reading, one line: generated from the numbers, so that it says something else when
 * they do. It names the first count that crosses the network, where the paper's cluster
 * falls off its cliff; the table beside it has the rest. */
static void add_reading(text *t, const predict_first_config *a, const predict_first_config *b, int n,
                        const gcsim_platform *pf)
{
    int x = -1; /* the first count that crosses the network */
    for (int k = 0; k < n && x < 0; k++)
        if (a->rows[k].machines > 1)
            x = k;
    if (x < 0) /* one GPU per node: every count crosses it; read the largest */
        x = n - 1;
    const predict_first_row *xa = &a->rows[x], *xb = &b->rows[x];
    char para[512];
    double nic_gbps = gcsim_platform_node_network_Bps(pf) * 8 / 1e9;
    double eff_a = xa->speedup / xa->gpus;
    snprintf(para, sizeof para, "%s %s on %.3g Gb/s: %d GPUs are %.2fx one GPU; %s is %.2fx %s "
             "there.", a->label, eff_a < 0.1 ? "does not scale" : eff_a < 0.5 ? "scales poorly"
                                                                         : "scales",
             nic_gbps, xa->gpus, xa->speedup, b->label, xb->tput / xa->tput, a->label);
    add_wrapped(t, "Reading: ", para);
}

static void add_table(text *t, const predict_first_config *a, const predict_first_config *b, int n)
{
    char ha[64], hb[64], ratio[32];
    snprintf(ha, sizeof ha, "%s: %.2f MiB per GPU", a->label, a->payload_bytes / 1048576.0);
    snprintf(hb, sizeof hb, "%s: %.2f MiB per GPU", b->label, b->payload_bytes / 1048576.0);
    snprintf(ratio, sizeof ratio, "%s/%s", b->label, a->label);
    addf(t, "%11s  %-35s  %s\n", "", ha, hb);
    addf(t, "%4s %6s  %9s %8s %8s %6s   %9s %8s %8s %6s   %s\n", "GPUs", "nodes", "comm ms",
         "img/s", "speedup", "MFU %", "comm ms", "img/s", "speedup", "MFU %", ratio);
    for (int k = 0; k < n; k++) {
        const predict_first_row *ra = &a->rows[k], *rb = &b->rows[k];
        addf(t, "%4d %6d  %9.3f %8.1f %8.2f %6.1f   %9.3f %8.1f %8.2f %6.1f   %*.2fx\n",
             ra->gpus, ra->machines, ra->comm_s * 1e3, ra->tput, ra->speedup, ra->mfu_pct,
             rb->comm_s * 1e3, rb->tput, rb->speedup, rb->mfu_pct, (int)strlen(ratio) - 1,
             rb->tput / ra->tput);
    }
}

static void add_legend(text *t, const predict_first_config *a, const predict_first_config *b,
                       const gcsim_platform *pf, const gcsim_model *m, double T1_s, int batch,
                       double peak_flops)
{
    char para[1024];
    double cwd = pf->intra.gpu_to_host_Bps;
    snprintf(para, sizeof para,
             "the time the gradient spends moving in one iteration (not overlapped with "
             "compute). In the paper's pattern (TernGrad Appendix B, eq. 27-30) the update runs "
             "on the host, so even one GPU copies its gradient to the CPU over PCIe: %.2f MiB / "
             "%.2f GB/s = %.3f ms for %s, %.3f ms for %s; more GPUs add the exchange between "
             "the GPUs of a node and log2(nodes) steps over the network.",
             a->payload_bytes / 1048576.0, cwd / 1e9, a->payload_bytes / cwd * 1e3, a->label,
             b->payload_bytes / cwd * 1e3, b->label);
    add_wrapped(t, "comm ms: ", para);
    double flops = gcsim_model_train_flops_per_sample(m);
    double compute_pct = 100.0 * flops * batch / T1_s / peak_flops;
    /* Above ~60% of rated peak a profiled iteration is more than the direct FLOP count can
     * explain for convolutions of this era; say why rather than let it read as an error. */
    const char *why = compute_pct > 60
                          ? ": cuDNN's FFT and Winograd convolutions need fewer FLOPs than the "
                            "direct count, so read MFU as a ratio, not a utilisation"
                          : "; the columns fall below it by the time spent communicating";
    bool over = b->rows[0].mfu_pct > 100;
    snprintf(para, sizeof para,
             "3 x forward FLOPs per image (%.3g GFLOP, the layers' direct count) x img/s / "
             "(GPUs x %.3g TFLOP/s, the %s's rated peak). The profiled iteration, %.2f ms "
             "per %d images, is %.0f%% of that peak%s%s%s%s",
             flops / 1e9, peak_flops / 1e12, pf->gpu.type, T1_s * 1e3, batch, compute_pct, why,
             over ? "; " : ".", over ? b->label : "",
             over ? "'s shorter host copy takes it above 100% on one GPU." : "");
    add_wrapped(t, "MFU %: ", para);
}

int predict_first_screen(FILE *out, const sweep_loaders *loaders)
{
    gcsim_error err = {.internal = 0};
    gcsim_platform pf;
    gcsim_model m = {0};
    gcsim_stack *st = malloc(sizeof *st);
    predict_first_config *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    text t = {0};
    int status = 2; /* EXIT_BAD_INPUT, sim/cli/commands.h */
    if (!st || !a || !b) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    if (loaders->platform(NULL, &pf, &err) || loaders->model(NULL, &m, &err) ||
        (gcsim_stack_load(gcsim_stack_choice(NULL, &pf), st, &err) &&
         (gcsim_stack_blame_platform(NULL, &pf, &err), 1)))
        goto fail;
    int batch = m.batch_per_gpu;
    gcsim_profile roofline;
    double T1_s = 0;
    const gcsim_profile *prof = gcsim_compute_profile(&m, &pf, batch, &roofline, &err);
    if (!prof || gcsim_profile_time_s(prof, batch, &T1_s, &err))
        goto fail;
    /* the default counts of predict: powers of two up to the platform */
    int counts[MAX_COUNTS];
    int n = sweep_default_gpus((long long)pf.nodes * pf.gpus_per_node, counts, MAX_COUNTS);
    double peak = pf.gpu.speed_flops; /* the default model trains in fp32 */
    a->label = "fp32";
    b->label = FIRST_COMPRESSOR;
    if (predict_first_run("none", &pf, &m, st, batch, counts, n, peak, a, &err) ||
        predict_first_run(FIRST_COMPRESSOR, &pf, &m, st, batch, counts, n, peak, b, &err))
        goto fail;

    char para[2048];
    snprintf(para, sizeof para,
             "%s (%s), %d images per GPU, on %s (%s), the paper's parameter-server pattern, "
             "analytic engine; %s beside fp32.",
             m.name, m.description, batch, pf.name, pf.description, FIRST_COMPRESSOR);
    add_wrapped(&t, "gcsim predict: ", para);
    addf(&t, "\n");
    add_table(&t, a, b, n);
    addf(&t, "\n");
    add_reading(&t, a, b, n, &pf);
    addf(&t, "\n");
    add_legend(&t, a, b, &pf, &m, T1_s, batch, peak);
    addf(&t, "\n");
    add_wrapped(&t, "", "Every column and the notes: gcsim predict --wide. Other inputs: "
                        "--compressor SPEC, --platform NAME, --model NAME, --gpus LIST; "
                        "--format json|csv; gcsim predict --help.");
    if (t.failed) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    if (fwrite(t.s, 1, t.len, out) != t.len || fflush(out)) {
        fprintf(stderr, "gcsim predict: cannot write to standard output\n");
        goto done;
    }
    status = 0;
    goto done;
fail:
    fprintf(stderr, "gcsim predict: %s\n", err.message);
    status = err.internal ? 3 : 2; /* exit_code_for, sim/cli/commands.h */
done:
    free(t.s);
    free(st);
    free(a);
    free(b);
    gcsim_model_free(&m);
    return status;
}
