/* The nccl-tests log reader on both column layouts, their headers, and the shipped logs. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nccl_log.h"

/* Current nccl-tests: op line, Rank lines with Group on two hosts, root column, a line of
 * NCCL's debug output, "N/A" for #wrong, closing Avg line. Row 15: out-of-place 100.0 us
 * for 1 MiB is algbw 10.49 GB/s, busbw x 2(4-1)/4 = 15.73; in-place 104.86 us: 10.00, 15.00. */
static const char current[] =
    "# Collective test starting: all_reduce_perf\n"
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 "
    "agg iters: 1 validation: 1 graph: 0\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid  41001 on      gpu-a device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
    "#  Rank  1 Group  0 Pid  41002 on      gpu-a device  1 [0x0b] NVIDIA A100-SXM4-80GB\n"
    "#  Rank  2 Group  0 Pid  52001 on      gpu-b device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
    "#  Rank  3 Group  0 Pid  52002 on      gpu-b device  1 [0x0b] NVIDIA A100-SXM4-80GB\n"
    "gpu-a:41001:41001 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n"
    "#\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
    "time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
    "(us)  (GB/s)  (GB/s)\n"
    "\n"
    "           8             2     float     sum      -1    20.00    0.00    0.00      0    "
    "19.50    0.00    0.00      0\n"
    "     1048576        262144     float     sum      -1    100.0   10.49   15.73      0   "
    "104.86   10.00   15.00    N/A\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 7.6825\n"
    "#\n";

/* Older nccl-tests: no op line, Rank lines without Group, no root column, the largest error
 * as a real in place of #wrong, CRLF line ends, no newline at the end. Two GPUs:
 * busbw = algbw; 1 MiB in 50.00 us is 20.97 GB/s, 2 MiB in 90.00 us 23.30 GB/s. */
static const char older[] =
    "# nThread 1 nGpus 2 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 "
    "iters: 20 validation: 1 \r\n"
    "#\r\n"
    "#   Rank  0 Pid   1234 on     node17 device  0 [0x1a] Tesla V100-SXM2-16GB\r\n"
    "#   Rank  1 Pid   1234 on     node17 device  1 [0x1b] Tesla V100-SXM2-16GB\r\n"
    "#\r\n"
    "#       size         count    type   redop     time   algbw   busbw  error     time   "
    "algbw   busbw  error\r\n"
    "     1048576        262144   float     sum    50.00   20.97   20.97  0e+00    50.00   "
    "20.97   20.97  0e+00\r\n"
    "     2097152        524288   float     sum    90.00   23.30   23.30  2e-07    90.00   "
    "23.30   23.30  0e+00";

static void test_current(void)
{
    nccl_log log;
    gcsim_error err = {{0}, 0};
    int rc = nccl_log_parse(current, strlen(current), "current.log", &log, &err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    CHECK(strcmp(log.op, "all_reduce_perf") == 0);
    CHECK(log.columns == 13);
    CHECK(log.ranks == 4);
    CHECK(log.hosts == 2);
    CHECK(strcmp(log.device, "NVIDIA A100-SXM4-80GB") == 0);
    CHECK(log.skipped_debug_lines == 1);
    CHECK(log.has_avg_busbw);
    CHECK_REL(log.avg_busbw_Bps, 7.6825e9, 1e-12);
    CHECK(log.n_rows == 2);
    CHECK(log.lines == 18);
    const nccl_row *r = &log.rows[1];
    CHECK(log.rows[0].line == 14 && r->line == 15);
    CHECK(r->size_bytes == 1048576.0 && r->count == 262144);
    CHECK(strcmp(r->type, "float") == 0 && strcmp(r->redop, "sum") == 0);
    CHECK(r->has_root && r->root == -1);
    CHECK_REL(r->out_of_place.time_s, 100e-6, 1e-12);
    CHECK_REL(r->out_of_place.algbw_Bps, 10.49e9, 1e-12);
    CHECK_REL(r->out_of_place.busbw_Bps, 15.73e9, 1e-12);
    CHECK(r->out_of_place.wrong == 0 && r->in_place.wrong == -1);
    CHECK_REL(r->in_place.time_s, 104.86e-6, 1e-12);
    CHECK_REL(r->in_place.busbw_Bps, 15.00e9, 1e-12);
    CHECK(r->out_of_place.time_decimals == 1 && r->in_place.time_decimals == 2);
    /* busbw / algbw = 1.5 = 2(n-1)/n for n = 4 only. */
    CHECK(nccl_log_check_busbw(&log, 4, &err) == 0);
    CHECK(nccl_log_check_busbw(&log, 8, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "current.log: line 15: out-of-place busbw 15.73");
    CHECK_STR_CONTAINS(err.message, "as for n = 4");
    CHECK(nccl_log_check_busbw(&log, 3, &err) != 0);
    nccl_log_free(&log);
}

static void test_older(void)
{
    nccl_log log;
    gcsim_error err = {{0}, 0};
    int rc = nccl_log_parse(older, strlen(older), "older.log", &log, &err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    CHECK(log.op[0] == '\0');
    CHECK(log.columns == 12);
    CHECK(log.ranks == 2 && log.hosts == 1);
    CHECK(strcmp(log.device, "Tesla V100-SXM2-16GB") == 0);
    CHECK(!log.has_avg_busbw);
    CHECK(log.n_rows == 2);
    CHECK(!log.rows[0].has_root);
    CHECK(log.rows[1].line == 8);
    CHECK_REL(log.rows[1].size_bytes, 2097152.0, 0);
    CHECK_REL(log.rows[1].in_place.time_s, 90e-6, 1e-12);
    CHECK_REL(log.rows[1].in_place.algbw_Bps, 23.30e9, 1e-12);
    CHECK(log.rows[1].out_of_place.wrong == -1);
    CHECK(nccl_log_check_busbw(&log, 2, &err) == 0);
    CHECK(nccl_log_check_busbw(&log, 4, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "older.log: line 7:");
    nccl_log_free(&log);
}

/* The reconstructed logs under platforms/calibration/ carry the published busbw figures. */
static void test_shipped(const char *src)
{
    static const struct {
        const char *file;
        int columns, ranks, hosts, rows;
        double size_bytes[3], busbw_GBps[3];
    } logs[] = {
        {"a100-nvswitch-1x8-azure-ndv4.log", 13, 8, 1, 3,
         {16 << 20, 32 << 20, 8.0 * (1 << 30)}, {109.22, 132.77, 231.58}},
        {"h200-nvswitch-1x8-azure-ndv5.log", 12, 8, 1, 2, {16 << 20, 8.0 * (1 << 30)},
         {240.41, 479.98}},
        {"a100-ib-2x8-4x200g.log", 13, 0, 0, 1, {8.0 * (1 << 30)}, {86.0}},
    };
    for (size_t k = 0; k < sizeof logs / sizeof logs[0]; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/platforms/calibration/%s", src, logs[k].file);
        nccl_log log;
        gcsim_error err = {{0}, 0};
        int rc = nccl_log_load(path, &log, &err);
        CHECK(rc == 0);
        if (rc) {
            fprintf(stderr, "%s\n", err.message);
            continue;
        }
        CHECK(log.columns == logs[k].columns);
        CHECK(log.ranks == logs[k].ranks && log.hosts == logs[k].hosts);
        CHECK(log.n_rows == logs[k].rows);
        for (int i = 0; i < log.n_rows && i < 3; i++) {
            CHECK(log.rows[i].size_bytes == logs[k].size_bytes[i]);
            CHECK_REL(log.rows[i].in_place.busbw_Bps, logs[k].busbw_GBps[i] * 1e9, 1e-12);
        }
        int gpus = logs[k].ranks ? logs[k].ranks : 16;
        CHECK(nccl_log_check_busbw(&log, gpus, &err) == 0);
        nccl_log_free(&log);
    }
}

/* A few of the reader's refusals, by line; the command-line suite has one file per case. */
static void test_refusals(void)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"# Collective test starting: all_gather_perf\n", "x.log: line 1: a log of all_gather_perf"},
        {"#\n#\n", "x.log: line 2 (end of file): no data rows"},
        {"8 2 float sum -1 20.00 0.00 0.00 0 19.50 0.00\n", "x.log: line 1: 11 columns"},
        {"8 2 float sum -1 nan 0.00 0.00 0 19.50 0.00 0.00 0\n",
         "x.log: line 1: out-of-place time: \"nan\" is not a finite decimal number"},
        {"8 2 float sum -1 20.0 0.00 0.00 0 19.50 0.00 0.00 3\n",
         "x.log: line 1: in-place: the test reported 3 wrong results"},
        {"8 2 float none -1 20.0 0.00 0.00 0 19.50 0.00 0.00 0\n", "x.log: line 1: redop \"none\""},
        {"8 2 float sum 0 20.0 0.00 0.00 0 19.50 0.00 0.00 0\n", "x.log: line 1: root 0"},
        {"8 3 float sum -1 20.0 0.00 0.00 0 19.50 0.00 0.00 0\n", "3 elements of float are 12 bytes"},
        {"#  Rank  0 Group 0 Pid 1 on a device 0 [0x1] G\n#  Rank  0 Group 0 Pid 1 on a device 0\n",
         "x.log: line 2: rank 0 is listed twice"},
        {"#  Rank  1 Group 0 Pid 1 on a device 0 [0x1] G\n8 2 float sum -1 20.0 0.00 0.00 0 19.50 "
         "0.00 0.00 0\n",
         "x.log: line 1: 1 Rank lines but the highest rank is 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nccl_log log;
        gcsim_error err = {{0}, 0};
        CHECK(nccl_log_parse(cases[i].text, strlen(cases[i].text), "x.log", &log, &err) != 0);
        CHECK_STR_CONTAINS(err.message, cases[i].message);
        CHECK(log.rows == NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_nccl_log SOURCE_DIR\n");
        return 2;
    }
    test_current();
    test_older();
    test_shipped(argv[1]);
    test_refusals();
    CHECK_DONE();
}
