/*
 * bench/planning/bare_sweep.c: the floor a sweep's per-case path is measured against (issue
 * 47): a bare loop over the same grid (platforms x models x compressors x collectives x GPU
 * counts) that computes each case's all-reduce from its alpha-beta closed form, the
 * iteration time, throughput, speedup and efficiency, and prints one CSV row per case with
 * the sweep's 36 columns and its number format (%.17g). No file is read, nothing is kept
 * between cases: what is left is the arithmetic (about a hundred instructions) and printf.
 *
 * The figures below are round numbers of the catalog's order (a bandwidth, a latency, a
 * gradient size, a compute time per platform and model), chosen only so that every case
 * takes the same branches as a real one: this program's output is not a prediction.
 *
 * usage: bare_sweep PLATFORMS MODELS COMPRESSORS COLLECTIVES MAX_GPUS > rows.csv
 *   (cases = the product, GPU counts 1..MAX_GPUS); prints the case count on stderr.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const collective_names[] = {"ring", "hierarchical", "halving-doubling",
                                               "double-tree"};
static const char *const compressor_names[] = {"none", "fp16", "terngrad", "qsgd", "dgc",
                                               "powersgd"};
/* bytes on the wire per fp32 byte, per compressor (of the order of the catalog's) */
static const double compressor_ratio[] = {1.0, 0.5, 0.0625, 0.125, 0.002, 0.01};

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bare_sweep PLATFORMS MODELS COMPRESSORS COLLECTIVES MAX_GPUS\n");
        return 2;
    }
    int np = atoi(argv[1]), nm = atoi(argv[2]), nc = atoi(argv[3]), nk = atoi(argv[4]);
    int ng = atoi(argv[5]);
    if (np < 1 || nm < 1 || nc < 1 || nc > 6 || nk < 1 || nk > 4 || ng < 1) {
        fprintf(stderr, "bare_sweep: bad grid\n");
        return 2;
    }
    long cases = (long)np * nm * nc * nk * ng, id = 0;
    printf("case,cases,id,platform,model,compressor,collective,scaling,batch,engine,gpus,"
           "machines,gpus_per_machine,status,samples_per_iteration,iteration_s,compute_s,"
           "comm_s,exposed_comm_s,compress_s,throughput_samples_per_s,speedup,efficiency_pct,"
           "bottleneck,usd_per_hour,exchange,encode_s,decode_s,payload_bytes,stack,tokens_per_s,"
           "mfu_pct,memory_bytes_per_gpu,sharding,act_ckpt_policy,compute_source\n");
    for (int p = 0; p < np; p++) {
        const double nic_Bps = 12.5e9 * (1 + p % 4), intra_Bps = 150e9, lat_s = 5e-6 + 1e-6 * p;
        const int per_node = p % 3 == 2 ? 4 : 8;
        for (int m = 0; m < nm; m++) {
            const double grad_bytes = 1e8 * (1 + m), compute_s = 0.03 * (1 + m % 3);
            const int batch = 32;
            for (int c = 0; c < nc; c++) {
                const double bytes = grad_bytes * compressor_ratio[c];
                const double codec_s = c ? bytes / 400e9 : 0;
                for (int k = 0; k < nk; k++)
                    for (int n = 1; n <= ng; n++, id++) {
                        int machines = (n + per_node - 1) / per_node;
                        int here = n < per_node ? n : per_node;
                        double bw = machines > 1 ? nic_Bps : intra_Bps, comm_s = 0;
                        if (n > 1) {
                            /* alpha-beta: ring 2(N-1) steps of bytes/N; the others their
                             * own step counts over the same link */
                            double steps = k == 0   ? 2.0 * (n - 1)
                                           : k == 1 ? 2.0 * (here - 1) + 2.0 * (machines - 1)
                                                    : 2.0 * ceil(log2((double)n));
                            comm_s = steps * lat_s + 2.0 * (n - 1) / n * bytes / bw;
                        }
                        double exposed_s = fmax(0, comm_s - 0.8 * compute_s);
                        double iter_s = compute_s + exposed_s + codec_s;
                        double samples = (double)batch * n, tput = samples / iter_s;
                        double one = batch / (compute_s + codec_s);
                        double speedup = tput / one;
                        printf("%ld,%ld,%016lx,p%d,m%d,%s,%s,weak,%d,analytic,%d,%d,%d,ok,%.17g,"
                               "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%.17g,"
                               "allreduce,%.17g,%.17g,%.17g,pytorch-ddp,,%.17g,%.17g,none,none,"
                               "profile\n",
                               id, cases, (unsigned long)(id * 0x9e3779b97f4a7c15ull), p, m,
                               compressor_names[c], collective_names[k], batch, n, machines,
                               here, samples, iter_s, compute_s, comm_s, exposed_s, codec_s,
                               tput, speedup, 100.0 * speedup / n,
                               exposed_s > 0 ? "network" : "compute", 3.4 * n, codec_s / 2,
                               codec_s / 2, bytes, 100.0 * tput * 3.0 * 4e9 / (n * 312e12),
                               16.0 * grad_bytes / 4);
                    }
            }
        }
    }
    fprintf(stderr, "%ld\n", cases);
    return 0;
}
