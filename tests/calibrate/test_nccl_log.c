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
    gcsim_error err = {{0}, 0, 0};
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
    gcsim_error err = {{0}, 0, 0};
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

/* Loads a fixture, SOURCE_DIR/folder/file; a failure is a failed check, with its message. */
static bool load_fixture(const char *src, const char *folder, const char *file, nccl_log *log)
{
    char path[1024];
    gcsim_error err = {{0}, 0, 0};
    snprintf(path, sizeof path, "%s/%s/%s", src, folder, file);
    int rc = nccl_log_load(path, log, &err);
    CHECK(rc == 0);
    if (rc)
        fprintf(stderr, "%s\n", err.message);
    return rc == 0;
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
        nccl_log log;
        gcsim_error err = {{0}, 0, 0};
        if (!load_fixture(src, "platforms/calibration", logs[k].file, &log))
            continue;
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

/* Logs as pasted (tests/calibrate/logs/, make_fixtures.py): mpirun-tagged lines, a shell
 * prompt, environment lines and NCCL INFO output around an 8 x H100 table. */
static void test_pasted_mpirun(const char *src)
{
    nccl_log log;
    gcsim_error err = {{0}, 0, 0};
    if (!load_fixture(src, "tests/calibrate/logs", "h100_1x8_mpirun_pasted.log", &log))
        return;
    CHECK(strcmp(log.op, "all_reduce_perf") == 0 && log.columns == 13);
    CHECK(log.ranks == 8 && log.hosts == 1);
    CHECK(strcmp(log.device, "NVIDIA H100 80GB HBM3") == 0);
    CHECK(log.n_tables == 1 && log.table == 1);
    CHECK(log.n_rows == 14); /* 8 B to 512 MiB, x4 */
    /* Two prompts, two environment lines, two NCCL INFO lines, the closing prompt. */
    CHECK(log.skipped_lines == 7 && log.skipped_debug_lines == 2);
    CHECK(log.first_skipped_line == 1);
    CHECK_STR_CONTAINS(log.first_skipped, "user@login01:~/nccl-tests$ export");
    CHECK(log.prefixed_lines == 36);
    /* Line 33: 2 MiB in 30.94 us in place, 67.78 GB/s, busbw 118.62 (x 1.75). */
    const nccl_row *r = &log.rows[9];
    CHECK(r->line == 33 && r->size_bytes == 2097152.0);
    CHECK_REL(r->in_place.time_s, 30.94e-6, 1e-12);
    CHECK_REL(r->in_place.busbw_Bps, 118.62e9, 1e-12);
    CHECK_REL(log.rows[13].out_of_place.time_s, 2670.3e-6, 1e-12);
    CHECK(nccl_log_check_busbw(&log, 8, &err) == 0);
    nccl_log_free(&log);
}

/* srun --label: "0: " on every line of a 2 x 8 A100 run, Slurm's own line at the end. */
static void test_pasted_slurm(const char *src)
{
    nccl_log log;
    if (!load_fixture(src, "tests/calibrate/logs", "a100_2x8_slurm.log", &log))
        return;
    CHECK(log.ranks == 16 && log.hosts == 2 && log.n_rows == 11);
    CHECK(log.skipped_lines == 1 && log.first_skipped_line == 40);
    CHECK(log.prefixed_lines == 38);
    CHECK(log.rows[0].line == 25 && log.rows[0].size_bytes == 1048576.0);
    CHECK_REL(log.rows[0].in_place.time_s, 146.7e-6, 1e-12);
    nccl_log_free(&log);
}

/* Prefixes by hand: both kinds, blanks before a Slurm label, and what is not a prefix. */
static void test_prefixes(void)
{
    static const char text[] =
        "12: [1,0]<stdout>:#  Rank  0 Group 0 Pid 1 on a device 0 [0x1] G\n"
        "[1,1]<stderr>:#  Rank  1 Group 0 Pid 2 on a device 1 [0x2] G\n"
        " 3: 1048576 262144 float sum -1 100.0 10.49 10.49 0 100.0 10.49 10.49 0\n"
        "12:03:04 1048576 is a time stamp, not a label\n"
        "[1,0]<stdout> no colon: not a prefix\n";
    nccl_log log;
    gcsim_error err = {{0}, 0, 0};
    int rc = nccl_log_parse(text, strlen(text), "p.log", &log, &err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    CHECK(log.ranks == 2 && log.hosts == 1 && log.n_rows == 1 && log.rows[0].line == 3);
    CHECK(log.prefixed_lines == 3);
    CHECK(log.skipped_lines == 2 && log.first_skipped_line == 4);
    nccl_log_free(&log);
}

/* Two runs in one file (8 GPUs on one node, then 16 on two): table 1 by default, table 2
 * on request, table 3 refused with the list. Every table is read strictly. */
static void test_tables(const char *src)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/calibrate/logs/two_runs.log", src);
    nccl_log log;
    gcsim_error err = {{0}, 0, 0};
    CHECK(nccl_log_load(path, &log, &err) == 0);
    CHECK(log.n_tables == 2 && log.table == 1);
    CHECK(log.ranks == 8 && log.hosts == 1 && log.n_rows == 5);
    CHECK(log.tables[0].first_line == 17 && log.tables[0].last_line == 21);
    CHECK(log.tables[1].first_line == 50 && log.tables[1].last_line == 54);
    CHECK(log.tables[1].ranks == 16 && log.tables[1].hosts == 2);
    CHECK(log.tables[0].header_line == 15);
    CHECK_REL(log.rows[4].in_place.time_s, 1337.8e-6, 1e-12);
    nccl_log_free(&log);
    CHECK(nccl_log_load_table(path, 2, &log, &err) == 0);
    CHECK(log.table == 2 && log.ranks == 16 && log.hosts == 2 && log.n_rows == 5);
    CHECK(log.rows[4].line == 54);
    CHECK_REL(log.rows[4].in_place.time_s, 6469.2e-6, 1e-12);
    CHECK(nccl_log_check_busbw(&log, 16, &err) == 0);
    nccl_log_free(&log);
    CHECK(nccl_log_load_table(path, 3, &log, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "two_runs.log: table 3 asked for (--table), but the log has "
                                    "2 tables (1: lines 17-21, 2: lines 50-54)");
    /* A column header after rows starts a new table; a footer ends one. */
    static const char two[] =
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "1048576 262144 float sum -1 100.0 10.49 10.49 0 100.0 10.49 10.49 0\n"
        "# Avg bus bandwidth : 10.49\n"
        "1048576 262144 float sum -1 50.0 20.97 20.97 0 50.0 20.97 20.97 0\n"
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "1048576 262144 float sum -1 25.0 41.94 41.94 0 25.0 41.94 41.94 0\n";
    CHECK(nccl_log_parse_table(two, strlen(two), "t.log", 3, &log, &err) == 0);
    CHECK(log.n_tables == 3 && log.n_rows == 1 && log.rows[0].line == 6);
    CHECK_REL(log.rows[0].in_place.time_s, 25e-6, 1e-12);
    nccl_log_free(&log);
    CHECK(nccl_log_parse_table(two, strlen(two), "t.log", 1, &log, &err) == 0);
    CHECK(log.has_avg_busbw && log.n_rows == 1);
    nccl_log_free(&log);
}

/* A truncated last row is dropped; a short row that another row follows is refused. */
static void test_truncated(const char *src)
{
    static const struct {
        const char *file;
        int line;
        const char *why;
    } cut[] = {
        {"cut_last_row.log", 22, "9 columns where the table has 13: a truncated row"},
        {"cut_mid_number.log", 22, "the file's last line, without a newline, is not a valid row "
                                   "(in-place #wrong: \"N/\" is not a non-negative integer)"},
    };
    for (size_t k = 0; k < sizeof cut / sizeof cut[0]; k++) {
        nccl_log log;
        if (!load_fixture(src, "tests/calibrate/logs", cut[k].file, &log))
            continue;
        CHECK(log.n_rows == 5 && log.rows[4].line == 21); /* 1 MiB to 256 MiB kept */
        CHECK(log.tables[0].dropped_line == cut[k].line);
        CHECK_STR_CONTAINS(log.tables[0].dropped_why, cut[k].why);
        nccl_log_free(&log);
    }
    static const char mid[] =
        "1048576 262144 float sum -1 100.0 10.49 10.49 0 100.0 10.49\n"
        "2097152 524288 float sum -1 100.0 20.97 20.97 0 100.0 20.97 20.97 0\n";
    nccl_log log;
    gcsim_error err = {{0}, 0, 0};
    CHECK(nccl_log_parse(mid, strlen(mid), "m.log", &log, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "m.log: line 1: 11 columns where a row has 12: a truncated "
                                    "row, and another row follows");
    /* The unterminated last line is dropped only when it does not parse; a NaN on a line
     * that ends with a newline is refused as before. */
    static const char nan_last[] =
        "1048576 262144 float sum -1 100.0 10.49 10.49 0 100.0 10.49 10.49 0\n"
        "2097152 524288 float sum -1 nan 20.97 20.97 0 100.0 20.97 20.97 0\n";
    CHECK(nccl_log_parse(nan_last, strlen(nan_last), "n.log", &log, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "n.log: line 2: out-of-place time: \"nan\" is not a finite");
}

/* A few of the reader's refusals, by line; the command-line suite has one file per case. */
static void test_refusals(void)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"# Collective test starting: broadcast_perf\n", "x.log: line 1: a log of broadcast_perf"},
        {"# Collective test starting: all_gather_perf\n8 2 float none -1 20.0 0.00 0.00 0 19.50 "
         "0.00 0.00 0\n",
         "x.log: line 2: 2 elements of float are 8 bytes, and the row's size 8 is not 2 or more"},
        {"# Collective test starting: reduce_scatter_perf\n8 2 float sum -1 20.0 0.00 0.00 0 "
         "19.50 0.00 0.00 0\n",
         "x.log: line 2: 2 elements of float are 8 bytes, and the row's size 8 is not 2 or more"},
        {"# Collective test starting: all_reduce_perf\n8 2 float none -1 20.0 0.00 0.00 0 19.50 "
         "0.00 0.00 0\n",
         "x.log: line 2: redop \"none\": an all-reduce or reduce-scatter always reduces"},
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
        {"8 2 float sum -1 20.0 0.00 0.00 0 19.50 0.00 0.00 0\n\x1b[0m\n",
         "x.log: line 2: byte 0: control character 0x1b; not a text log"},
        {"# caf\xc3\xa9 is fine, \xe9 alone is not\n", "x.log: line 1: byte 17: invalid UTF-8 byte 0xe9"},
        {"2199023255552 549755813888 float sum -1 20.0 0.00 0.00 0 19.50 0.00 0.00 0\n",
         "x.log: line 1: size 2199023255552 bytes is absurd"},
        {"8 2 float sum -1 20.0 0.00 0.00 0 19.50 0.00 200000.00 0\n",
         "x.log: line 1: in-place busbw: 200000.00 GB/s is absurd"},
        {"8 2 float sum -1 -20.0 0.00 0.00 0 19.50 0.00 0.00 0\n",
         "x.log: line 1: out-of-place time: -20.0 is negative"},
        {"$ ./all_reduce_perf\nSegmentation fault (core dumped)\n",
         "x.log: line 2 (end of file): no data rows; no nccl-tests table at all"},
        {"8 2 float sum -1 20.0 0.00 0.00 0 19.50 0.00 0.00 0 extra\n",
         "x.log: line 1: 14 columns; an all_reduce_perf row has 13"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nccl_log log;
        gcsim_error err = {{0}, 0, 0};
        CHECK(nccl_log_parse(cases[i].text, strlen(cases[i].text), "x.log", &log, &err) != 0);
        CHECK_STR_CONTAINS(err.message, cases[i].message);
        CHECK(log.rows == NULL);
    }
}

/* nccl-tests prints sizes below one element per rank as rows of 0 B and 0 elements (two
 * such rows open a sweep from 4 B on two ranks): they are left out and counted; a 0 B row
 * that claims elements is still refused. */
/* A partial Rank listing (vendor logs print the last rank only) is read, not refused: the
 * caller gets the highest rank and needs the GPU count from elsewhere. An all-gather log
 * names its test and prints the count per rank. */
static void test_partial_ranks_and_all_gather(void)
{
    const char *text =
        "# Collective test starting: all_gather_perf\n"
        "#  Rank 15 Group 0 Pid 1 on b device 7 [0x1] G\n"
        "64 1 float none -1 20.0 0.00 0.00 0 19.50 0.00 0.00 0\n";
    nccl_log log;
    gcsim_error err = {{0}, 0, 0};
    CHECK(nccl_log_parse(text, strlen(text), "x.log", &log, &err) == 0);
    CHECK(log.ranks == 1 && log.max_rank == 15 && log.first_rank_line == 2 && log.hosts == 1);
    bool named = false;
    CHECK(nccl_log_test(&log, &named) == NCCL_TEST_ALL_GATHER && named);
    CHECK(log.rows[0].ranks_in_size == 16);
    CHECK(nccl_log_check_test(&log, NCCL_TEST_ALL_GATHER, 16, &err) == 0);
    CHECK(nccl_log_check_test(&log, NCCL_TEST_ALL_GATHER, 8, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "x.log: line 3: size 64 bytes is 16 x count x element size");
    nccl_log_free(&log);
    /* unnamed: redop none tells an all-gather */
    const char *unnamed = "64 1 float none -1 20.0 0.00 0.00 0 19.50 0.00 0.00 0\n";
    CHECK(nccl_log_parse(unnamed, strlen(unnamed), "x.log", &log, &err) == 0);
    CHECK(nccl_log_test(&log, &named) == NCCL_TEST_ALL_GATHER && !named);
    nccl_log_free(&log);
    CHECK_REL(nccl_test_bus_factor(NCCL_TEST_REDUCE_SCATTER, 16), 15.0 / 16, 1e-15);
    CHECK_REL(nccl_test_bus_factor(NCCL_TEST_ALL_REDUCE, 16), 30.0 / 16, 1e-15);
}

static void test_zero_size_rows(void)
{
    char text[4096];
    const char *head = "#       size         count      type   redop    root     time   algbw   "
                       "busbw #wrong     time   algbw   busbw #wrong\n";
    const char *zero = "           0             0     float     sum      -1     3.91    0.00    "
                       "0.00      0     3.88    0.00    0.00      0\n";
    const char *row = "     1048576        262144     float     sum      -1    100.0   10.49   "
                      "10.49      0    100.0   10.49   10.49      0\n";
    snprintf(text, sizeof text, "%s%s%s%s", head, zero, zero, row);
    nccl_log log;
    gcsim_error err = {{0}, 0, 0};
    CHECK(nccl_log_parse(text, strlen(text), "zero.log", &log, &err) == 0);
    CHECK(log.n_rows == 1 && log.zero_size_rows == 2);
    CHECK(log.n_rows == 1 && log.rows[0].size_bytes == 1048576.0);
    nccl_log_free(&log);
    const char *claims = "           0             4     float     sum      -1     3.91    0.00    "
                         "0.00      0     3.88    0.00    0.00      0\n";
    snprintf(text, sizeof text, "%s%s%s", head, claims, row);
    CHECK(nccl_log_parse(text, strlen(text), "claims.log", &log, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "line 2");
    CHECK_STR_CONTAINS(err.message, "nonzero count");
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
    test_pasted_mpirun(argv[1]);
    test_pasted_slurm(argv[1]);
    test_prefixes();
    test_tables(argv[1]);
    test_truncated(argv[1]);
    test_refusals();
    test_partial_ranks_and_all_gather();
    test_zero_size_rows();
    CHECK_DONE();
}
