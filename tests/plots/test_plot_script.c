/*
 * tests/plots/test_plot_script.c: the library behind `gcsim plot` (sim/plot), without
 * gnuplot: small hand-written outputs of sweep, plan and predict read back and turned into
 * scripts whose data blocks, series and titles are checked against the rows by hand; and
 * the refusals that name the file and line.
 *   test_plot_script WORK_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "plot_script.h"
#include "plot_table.h"

static char path[4096];

static const char *write_file(const char *dir, const char *name, const char *text)
{
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

/* The script for text (file name), or NULL with the message in err. */
static char *script_of(const char *dir, const char *name, const char *text, gcsim_error *err)
{
    const char *file = write_file(dir, name, text);
    plot_table t;
    if (!file || plot_table_read(file, &t, err))
        return NULL;
    plot_options o = {"x.svg", true, NULL};
    char *script = NULL;
    if (plot_script_build(&t, &o, &script, err))
        script = NULL;
    plot_table_free(&t);
    return script;
}

/* The lines of data block name ("$series2"), joined with ";" (comments left out). */
static void block(const char *script, const char *name, char *out, size_t size)
{
    char head[64];
    snprintf(head, sizeof head, "%s << EOD\n", name);
    out[0] = '\0';
    const char *p = strstr(script, head);
    if (!p)
        return;
    p += strlen(head);
    size_t used = 0;
    while (*p && strncmp(p, "EOD\n", 4) != 0) {
        size_t n = strcspn(p, "\n");
        if (*p != '#' && used + n + 2 < size) {
            memcpy(out + used, p, n);
            used += n;
            out[used++] = ';';
            out[used] = '\0';
        }
        p += n + (p[n] == '\n');
    }
}

static const char sweep_header[] =
    "case,cases,id,platform,model,compressor,collective,scaling,batch,engine,gpus,status,"
    "throughput_samples_per_s\n";

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_plot_script WORK_DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    mkdir(dir, 0777);
    gcsim_error err = {0};
    char data[4096];

    /* A sweep: two compressors (one spec with commas, quoted), rows out of GPU order, one
     * row that could not run. Series: by compressor; GPUs sorted; the status row left out. */
    char sweep[4096];
    snprintf(sweep, sizeof sweep, "%s"
             "0,5,a,p,m,none,ring,weak,32,analytic,4,ok,400.5\n"
             "1,5,b,p,m,none,ring,weak,32,analytic,1,ok,100\n"
             "2,5,c,p,m,\"qsgd:s=4,bucket=512\",ring,weak,32,analytic,1,ok,110\n"
             "3,5,d,p,m,\"qsgd:s=4,bucket=512\",ring,weak,32,analytic,4,ok,430.25\n"
             "4,5,e,p,m,none,ring,weak,32,analytic,1024,too many GPUs,\n", sweep_header);
    char *s = script_of(dir, "sweep.csv", sweep, &err);
    CHECK(s != NULL);
    if (s) {
        block(s, "$series1", data, sizeof data);
        CHECK(strcmp(data, "1 100;4 400.5;") == 0);
        block(s, "$series2", data, sizeof data);
        CHECK(strcmp(data, "1 110;4 430.25;") == 0);
        CHECK_STR_CONTAINS(s, "title 'none'");
        CHECK_STR_CONTAINS(s, "title 'qsgd'"); /* the name: no other qsgd spec */
        CHECK_STR_CONTAINS(s, "1 row not ok left out");
        CHECK_STR_CONTAINS(s, "set logscale x 2");
        CHECK_STR_CONTAINS(s, "set terminal svg");
        CHECK_STR_CONTAINS(s, "if (!exists(\"out\")) out = 'x.svg'");
        CHECK_STR_CONTAINS(s, "sweep.csv line 3\n1 100\n"); /* each value names its line */
        CHECK(strstr(s, "$series3") == NULL);
        free(s);
    }

    /* Two qsgd specs: shown whole; a platform name with a quote and a backquote stays a
     * single-quoted gnuplot string (no command substitution). */
    snprintf(sweep, sizeof sweep, "%s"
             "0,2,a,it's `x`,m,\"qsgd:s=4,bucket=512\",ring,weak,32,analytic,1,ok,1\n"
             "1,2,b,it's `x`,m,\"qsgd:s=8,bucket=512\",ring,weak,32,analytic,1,ok,2\n",
             sweep_header);
    s = script_of(dir, "specs.csv", sweep, &err);
    CHECK(s != NULL);
    if (s) {
        CHECK_STR_CONTAINS(s, "title 'qsgd:s=4,bucket=512'");
        CHECK_STR_CONTAINS(s, "'it''s `x`, m, collective ring,");
        free(s);
    }

    /* tokens/s when every row has them. */
    s = script_of(dir, "tokens.jsonl",
                  "{\"schema_version\":1,\"case\":0,\"gpus\":8,\"status\":\"ok\","
                  "\"throughput_samples_per_s\":2,\"tokens_per_s\":4096}\n"
                  "{\"schema_version\":1,\"case\":1,\"gpus\":16,\"status\":\"ok\","
                  "\"throughput_samples_per_s\":4,\"tokens_per_s\":8192}\n", &err);
    CHECK(s != NULL);
    if (s) {
        block(s, "$series1", data, sizeof data);
        CHECK(strcmp(data, "8 4096;16 8192;") == 0);
        CHECK_STR_CONTAINS(s, "Throughput (tokens/s)");
        free(s);
    }

    /* A plan (JSON): rank 1 chosen, the target as a line. */
    s = script_of(dir, "plan.json",
                  "{\"schema_version\":1,\"command\":\"plan\",\"meta\":{\"feasible\":true,"
                  "\"model\":{\"name\":\"alexnet\"},\"rank_by\":\"cost_per_hour\","
                  "\"target\":{\"throughput_samples_per_s\":5000}},\"rows\":["
                  "{\"rank\":1,\"platform\":\"p\",\"gpus\":3,\"compressor\":\"none\","
                  "\"collective\":\"ring\",\"throughput_samples_per_s\":5717.5,\"why_not\":null},"
                  "{\"rank\":2,\"platform\":\"p\",\"gpus\":4,\"compressor\":\"none\","
                  "\"collective\":\"tree\",\"throughput_samples_per_s\":5581,\"why_not\":null}]}",
                  &err);
    CHECK(s != NULL);
    if (s) {
        block(s, "$chosen", data, sizeof data);
        CHECK(strcmp(data, "0 5717.5 1;") == 0);
        block(s, "$others", data, sizeof data);
        CHECK(strcmp(data, "1 5581 2;") == 0);
        CHECK_STR_CONTAINS(s, "'ring, 3 GPUs' 0, 'tree, 4 GPUs' 1");
        CHECK_STR_CONTAINS(s, "target = 5000");
        CHECK_STR_CONTAINS(s, "title 'chosen (rank 1)'");
        free(s);
    }

    /* predict (CSV): ms, the three parts, a count that cannot run, memory in GB. */
    s = script_of(dir, "predict.csv",
                  "gpus,machines,iteration_s,compute_s,comm_s,exposed_comm_s,compress_s,"
                  "memory_bytes_per_gpu,status,why\n"
                  "8,1,0.05,0.03,0.02,0.015,0.005,2500000000,ok,\n"
                  "24,3,,,,,,,infeasible,groups\n", &err);
    CHECK(s != NULL);
    if (s) {
        block(s, "$step", data, sizeof data);
        CHECK(strcmp(data, "0 30 5 15 50;1 0 0 0 ?;") == 0);
        block(s, "$memory", data, sizeof data);
        CHECK(strcmp(data, "0 2.5;1 ?;") == 0);
        CHECK_STR_CONTAINS(s, "'24 (cannot run)' 1");
        CHECK_STR_CONTAINS(s, "Time per step (ms)");
        free(s);
    }

    /* Refusals, each naming the file and line or JSON path. */
    static const struct {
        const char *name, *text, *message;
    } bad[] = {
        {"empty.csv", "", "empty.csv: empty file"},
        {"dup.csv",
         "case,cases,gpus,status,throughput_samples_per_s\n0,2,4,ok,1\n1,2,4,ok,2\n",
         "dup.csv:3: column gpus: a second row at 4 GPUs with the same settings as the row of line 2"},
        {"zero.csv", "case,cases,gpus,status,throughput_samples_per_s\n0,1,0,ok,1\n",
         "zero.csv:2: column gpus: 0 GPUs: at least 1 needed"},
        {"neg.json",
         "{\"schema_version\":1,\"command\":\"predict\",\"meta\":{\"table\":\"gpu_counts\"},"
         "\"rows\":[{\"gpus\":1,\"iteration_s\":1,\"compute_s\":-1,\"compress_s\":0,"
         "\"exposed_comm_s\":0}]}",
         "neg.json: $.rows[0].compute_s: -1 s: a time cannot be negative"},
        {"v2.json", "{\"schema_version\":2,\"command\":\"plan\",\"rows\":[]}",
         "v2.json: $.schema_version: this gcsim reads version 1"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        memset(&err, 0, sizeof err);
        s = script_of(dir, bad[k].name, bad[k].text, &err);
        CHECK(s == NULL);
        free(s);
        CHECK_STR_CONTAINS(err.message, bad[k].message);
        CHECK(!err.internal);
    }
    CHECK(plot_output_is_svg("a/b.SVG") == 1 && plot_output_is_svg("b.png") == 0 &&
          plot_output_is_svg("b.pdf") == -1 && plot_output_is_svg("d.png/x") == -1);
    CHECK_DONE();
}
