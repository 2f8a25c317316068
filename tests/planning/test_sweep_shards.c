/* `gcsim sweep --shard k/4` run four times (through GNU parallel when it is installed, else
 * one after the other) and joined by `gcsim merge` equals the unsharded sweep, byte for
 * byte and case for case, in CSV and in JSON lines; each shard holds exactly the cases
 * whose index i has i mod 4 = k-1; and merge refuses inputs that are not one sweep (a
 * missing or repeated shard, a foreign header, a different total), exiting 2 with the
 * file and line. */
#include "check.h"
#include "planning_test.h"

#include <string.h>

static const char *gcsim, *src, *work;
static char args[4096];
static char other_args[4096]; /* the same grid on other GPU counts */

/* Number of lines of a text. */
static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

/* The leading integer field of each data line: "case" is the first column in CSV and the
 * first member in JSON lines. */
static long long case_of_line(const char *line, int jsonl)
{
    if (jsonl) {
        const char *p = strstr(line, "\"case\":");
        return p ? strtoll(p + 7, NULL, 10) : -1;
    }
    return strtoll(line, NULL, 10);
}

static void check_format(const char *fmt, int jsonl)
{
    char full[1024], merged[1024];
    snprintf(full, sizeof full, "%s/full.%s", work, fmt);
    snprintf(merged, sizeof merged, "%s/merged.%s", work, fmt);
    CHECK(sh("%s sweep %s --format %s --output %s", gcsim, args, fmt, full) == 0);
    int have_parallel = sh("parallel --version 2>/dev/null | grep -q 'GNU parallel'") == 0;
    if (have_parallel)
        CHECK(sh("parallel --will-cite -j 4 %s sweep %s --format %s --shard {}/4 --output "
                 "%s/shard{}.%s ::: 1 2 3 4",
                 gcsim, args, fmt, work, fmt) == 0);
    else
        for (int k = 1; k <= 4; k++)
            CHECK(sh("%s sweep %s --format %s --shard %d/4 --output %s/shard%d.%s", gcsim, args,
                     fmt, k, work, k, fmt) == 0);
    fprintf(stderr, "%s: shards run %s\n", fmt, have_parallel ? "by GNU parallel" : "in sequence");
    /* Shards given in any order. */
    CHECK(sh("%s merge --output %s %s/shard3.%s %s/shard1.%s %s/shard4.%s %s/shard2.%s", gcsim,
             merged, work, fmt, work, fmt, work, fmt, work, fmt) == 0);
    char *a = slurp(full), *b = slurp(merged);
    CHECK(a && b);
    if (!a || !b)
        return;
    CHECK(strcmp(a, b) == 0);
    int n_lines = count_lines(a);
    int n_cases = n_lines - (jsonl ? 0 : 1);
    CHECK(n_cases == 2 * 3 * 2 * 2 * 13); /* platforms x compressors x collectives x scalings x GPU counts */
    /* Case for case: line by line, case indices 0, 1, 2, ... in both. */
    char *save_a = NULL, *save_b = NULL;
    char *la = strtok_r(a, "\n", &save_a), *lb = strtok_r(b, "\n", &save_b);
    if (!jsonl) {
        CHECK(la && lb && strcmp(la, lb) == 0);
        la = strtok_r(NULL, "\n", &save_a);
        lb = strtok_r(NULL, "\n", &save_b);
    }
    long long expect = 0;
    for (; la && lb; la = strtok_r(NULL, "\n", &save_a), lb = strtok_r(NULL, "\n", &save_b)) {
        CHECK(case_of_line(la, jsonl) == expect);
        CHECK(strcmp(la, lb) == 0);
        expect++;
    }
    CHECK(expect == n_cases);
    free(a);
    free(b);

    /* Each shard holds exactly its residue class. */
    int total = 0;
    for (int k = 1; k <= 4; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/shard%d.%s", work, k, fmt);
        char *s = slurp(path);
        CHECK(s != NULL);
        if (!s)
            continue;
        char *save = NULL;
        int first = !jsonl;
        for (char *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            if (first) {
                first = 0;
                continue;
            }
            CHECK(case_of_line(l, jsonl) % 4 == k - 1);
            total++;
        }
        free(s);
    }
    CHECK(total == n_cases);
}

static void check_merge_refuses(void)
{
    char err[1024];
    snprintf(err, sizeof err, "%s/merge.err", work);
    /* A shard missing. */
    CHECK(sh("%s merge %s/shard1.csv %s/shard2.csv %s/shard4.csv >/dev/null 2>%s", gcsim, work,
             work, work, err) == 2);
    char *e = slurp(err);
    CHECK_STR_CONTAINS(e, "are in none of the files: 2, 6, 10");
    free(e);
    /* A shard given twice: the second copy's first row is named with the first's. */
    CHECK(sh("%s merge %s/shard1.csv %s/shard2.csv %s/shard3.csv %s/shard4.csv %s/shard2.csv "
             ">/dev/null 2>%s", gcsim, work, work, work, work, work, err) == 2);
    e = slurp(err);
    CHECK_STR_CONTAINS(e, "shard2.csv:2: case 1 is already in");
    free(e);
    /* A header from another program. */
    CHECK(sh("sed '1s/throughput_samples_per_s/tput/' %s/shard3.csv > %s/foreign.csv", work,
             work) == 0);
    CHECK(sh("%s merge %s/shard1.csv %s/shard2.csv %s/foreign.csv %s/shard4.csv >/dev/null 2>%s",
             gcsim, work, work, work, work, err) == 2);
    e = slurp(err);
    CHECK_STR_CONTAINS(e, "foreign.csv:1: header differs from");
    free(e);
    /* A shard of a different sweep (another GPU list: another total). */
    CHECK(sh("%s sweep %s --shard 2/4 --output %s/other.csv", gcsim, other_args, work) == 0);
    CHECK(sh("%s merge %s/shard1.csv %s/other.csv %s/shard3.csv %s/shard4.csv >/dev/null 2>%s",
             gcsim, work, work, work, work, err) == 2);
    e = slurp(err);
    CHECK_STR_CONTAINS(e, "other.csv:2: cases = ");
    free(e);
    /* CSV and JSON lines do not mix. */
    CHECK(sh("%s merge %s/shard1.csv %s/shard2.jsonl >/dev/null 2>%s", gcsim, work, work, err) == 2);
    e = slurp(err);
    CHECK_STR_CONTAINS(e, "shard2.jsonl:1: JSON lines, but");
    free(e);
    /* A cut file (no end of line on its last row). */
    CHECK(sh("head -c -1 %s/shard4.csv > %s/cut.csv", work, work) == 0);
    CHECK(sh("%s merge %s/shard1.csv %s/shard2.csv %s/shard3.csv %s/cut.csv >/dev/null 2>%s",
             gcsim, work, work, work, work, err) == 2);
    e = slurp(err);
    CHECK_STR_CONTAINS(e, "cut.csv:");
    CHECK_STR_CONTAINS(e, "a cut file");
    free(e);
}

/* A case keeps its id in another sweep where it has another index. */
static void check_ids_stable(void)
{
    char small[1024];
    snprintf(small, sizeof small, "%s/small.csv", work);
    CHECK(sh("%s sweep --platform %s/platforms/a100-hdr.json --model %s/models/resnet-50.json "
             "--collective hierarchical --scaling strong --gpus 8 --output %s",
             gcsim, src, src, small) == 0);
    char *s = slurp(small);
    char full[1024];
    snprintf(full, sizeof full, "%s/full.csv", work);
    char *f = slurp(full);
    CHECK(s && f);
    if (!s || !f)
        return;
    /* Line 2 of the small sweep is case 0 there; its id and values from column 3 on must
     * appear as a row of the full sweep. */
    char *row = strchr(s, '\n');
    CHECK(row != NULL);
    if (row) {
        row++;
        char *end = strchr(row, '\n');
        if (end)
            *end = '\0';
        CHECK(strncmp(row, "0,1,", 4) == 0);
        const char *tail = row + 4; /* from the id on */
        long long found = -1;
        char *save = NULL;
        for (char *l = strtok_r(f, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            char *second = strchr(l, ',');
            second = second ? strchr(second + 1, ',') : NULL;
            if (second && strcmp(second + 1, tail) == 0)
                found = strtoll(l, NULL, 10);
        }
        /* Present, under another index. */
        CHECK(found > 0);
    }
    free(s);
    free(f);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_sweep_shards GCSIM SOURCE_DIR WORK_DIR\n");
        return 2;
    }
    gcsim = argv[1];
    src = argv[2];
    work = argv[3];
    CHECK(fresh_dir(work) == 0);
    snprintf(args, sizeof args,
             "--platform %s/platforms/a100-hdr.json,%s/platforms/cloud-v100-25gbe.json "
             "--model %s/models/resnet-50.json --compressor none,fp16,qsgd:s=4,bucket=512 "
             "--collective ring,hierarchical --scaling weak,strong --gpus 1,2,3,...,8,16,...,128,600",
             src, src, src);
    size_t grid = strstr(args, " --gpus ") - args;
    snprintf(other_args, sizeof other_args, "%.*s --gpus 1,2,4", (int)grid, args);
    check_format("csv", 0);
    check_format("jsonl", 1);
    check_merge_refuses();
    check_ids_stable();
    CHECK_DONE();
}
