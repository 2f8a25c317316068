/* The pieces of gcsim sweep and merge on their own: list options (compressor specs keep
 * their own commas), and rows written as CSV or JSON lines read back to the same values
 * (strings with commas, quotes and line breaks; doubles exactly; NaN as empty / null), and
 * the case limit (issue 45). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "sweep_lists.h"
#include "sweep_output.h"
#include "sweep_space.h"

static void lists(void)
{
    char err[256];
    sweep_list l = {0};
    CHECK(sweep_list_add_compressors(&l, "none,qsgd:s=4,bucket=512,dgc:ratio=0.001", err,
                                     sizeof err) == 0);
    CHECK(sweep_list_add_compressors(&l, "terngrad", err, sizeof err) == 0);
    CHECK(l.n == 4);
    if (l.n == 4) {
        CHECK(strcmp(l.items[0], "none") == 0);
        CHECK(strcmp(l.items[1], "qsgd:s=4,bucket=512") == 0);
        CHECK(strcmp(l.items[2], "dgc:ratio=0.001") == 0);
        CHECK(strcmp(l.items[3], "terngrad") == 0);
    }
    /* An option with no spec before it, in a new option value. */
    CHECK(sweep_list_add_compressors(&l, "bucket=512", err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "no compressor before it");
    sweep_list_free(&l);
    CHECK(l.n == 0);

    CHECK(sweep_list_add(&l, "a.json,b.json", "--platform", err, sizeof err) == 0);
    CHECK(sweep_list_add(&l, "c.json", "--platform", err, sizeof err) == 0);
    CHECK(l.n == 3 && strcmp(l.items[2], "c.json") == 0);
    CHECK(sweep_list_add(&l, "a,,b", "--platform", err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "--platform: empty item");
    CHECK(sweep_list_add(&l, "a,", "--platform", err, sizeof err) == -1);
    sweep_list_free(&l);
}

static const char *const keys[] = {"case", "name", "value", "missing", "text"};

static void write_row(sweep_writer *w)
{
    sweep_row_begin(w);
    sweep_cell_int(w, 42);
    sweep_cell_str(w, "qsgd:s=4,bucket=512");
    sweep_cell_num(w, 0.1);
    sweep_cell_num(w, NAN);
    sweep_cell_str(w, "say \"hi\"\nand go");
    sweep_row_end(w);
}

static char *written(sweep_format format)
{
    FILE *f = tmpfile();
    sweep_writer w;
    sweep_writer_begin(&w, format, f, keys, 5);
    write_row(&w);
    long n = ftell(f);
    rewind(f);
    char *text = calloc((size_t)n + 1, 1);
    CHECK(fread(text, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    return text;
}

static void csv_round_trip(void)
{
    char *text = written(SWEEP_CSV);
    /* Exactly two lines: the line break inside the string became a space. */
    char *nl = strchr(text, '\n');
    CHECK(nl && strchr(nl + 1, '\n') && strchr(nl + 1, '\n')[1] == '\0');
    if (!nl)
        return;
    *nl = '\0';
    CHECK(strcmp(text, "case,name,value,missing,text") == 0);
    char *row = nl + 1;
    row[strlen(row) - 1] = '\0';
    char *f[8];
    CHECK(sweep_csv_split(row, f, 8) == 5);
    CHECK(strcmp(f[0], "42") == 0);
    CHECK(strcmp(f[1], "qsgd:s=4,bucket=512") == 0);
    CHECK(strtod(f[2], NULL) == 0.1); /* %.17g reads back as the same double */
    CHECK(strcmp(f[3], "") == 0);
    CHECK(strcmp(f[4], "say \"hi\" and go") == 0);
    free(text);

    char bad1[] = "1,\"open", bad2[] = "1,\"x\"y,2", bad3[] = "a,b,c", bad4[] = "a,b\"c";
    CHECK(sweep_csv_split(bad1, f, 8) == -1);
    CHECK(sweep_csv_split(bad2, f, 8) == -1);
    CHECK(sweep_csv_split(bad3, f, 2) == -1);
    CHECK(sweep_csv_split(bad4, f, 8) == -1);
    char empty[] = ",,";
    CHECK(sweep_csv_split(empty, f, 8) == 3);
}

static void jsonl_round_trip(void)
{
    char *text = written(SWEEP_JSONL);
    CHECK(strchr(text, '\n') == text + strlen(text) - 1);
    cJSON *o = cJSON_Parse(text);
    CHECK(cJSON_IsObject(o));
    CHECK(cJSON_GetObjectItem(o, "case")->valuedouble == 42);
    CHECK(strcmp(cJSON_GetObjectItem(o, "name")->valuestring, "qsgd:s=4,bucket=512") == 0);
    CHECK(cJSON_GetObjectItem(o, "value")->valuedouble == 0.1);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(o, "missing")));
    CHECK(strcmp(cJSON_GetObjectItem(o, "text")->valuestring, "say \"hi\" and go") == 0);
    /* schema_version first (docs/schema.md), then the members in column order. */
    CHECK(o->child && strcmp(o->child->string, "schema_version") == 0 &&
          o->child->valuedouble == 1);
    int k = 0;
    for (cJSON *m = o->child ? o->child->next : NULL; m; m = m->next, k++)
        CHECK(k < 5 && strcmp(m->string, keys[k]) == 0);
    CHECK(k == 5);
    cJSON_Delete(o);
    free(text);
}

/* A space of the given list lengths, GPU counts per platform from gpus[]. */
static void space_of(sweep_space *s, int platforms, int models, int compressors, int stacks,
                     int collectives, int scalings, int batches, int engines, const int *gpus)
{
    CHECK(sweep_space_alloc(s, platforms, models, compressors, stacks, collectives, scalings,
                            batches, engines, 1) == 0);
    s->n_engines = engines;
    for (int p = 0; p < platforms; p++)
        s->n_gpus[p] = gpus[p];
}

static void case_limit(void)
{
    char err[1024];
    sweep_space s = {0};
    /* bench/planning/sweep_307k.sh: 10 platforms x 5 models x 6 compressors x
     * 4 collectives x 256 GPU counts = 307,200 cases, run with no option. */
    int g256[10] = {256, 256, 256, 256, 256, 256, 256, 256, 256, 256};
    space_of(&s, 10, 5, 6, 1, 4, 1, 1, 1, g256);
    CHECK(sweep_space_count(&s) == 307200);
    CHECK(sweep_space_check_limit(&s, 0, 0, SWEEP_DEFAULT_MAX_CASES, err, sizeof err) == 0);
    sweep_space_free(&s);
    /* 11,809,800 cases: refused with the product and the ways past it */
    int g2187[2] = {2187, 2187};
    space_of(&s, 2, 5, 6, 3, 5, 2, 3, 1, g2187);
    CHECK(sweep_space_count(&s) == 2LL * 5 * 6 * 3 * 5 * 2 * 3 * 2187);
    CHECK(sweep_space_check_limit(&s, 0, 0, SWEEP_DEFAULT_MAX_CASES, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "11809800 cases (2 platforms x 5 models x 6 compressors x 3 stacks "
                            "x 5 collectives x 2 scalings x 3 batches x 1 engine x 2187 GPU "
                            "counts): more than the 10000000");
    CHECK_STR_CONTAINS(err, "--max-cases N");
    CHECK_STR_CONTAINS(err, "--shard K/N");
    /* asked for: allowed up to the number given, inclusive */
    CHECK(sweep_space_check_limit(&s, 0, 0, 11809800, err, sizeof err) == 0);
    CHECK(sweep_space_check_limit(&s, 0, 0, 11809799, err, sizeof err) == -1);
    /* a shard counts its own cases: two of 5,904,900 pass, one of all of them does not */
    CHECK(sweep_space_check_limit(&s, 2, 2, SWEEP_DEFAULT_MAX_CASES, err, sizeof err) == 0);
    CHECK(sweep_space_check_limit(&s, 1, 1, SWEEP_DEFAULT_MAX_CASES, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "shard 1/1 holds 11809800 of 11809800 cases");
    sweep_space_free(&s);
    /* 65 cases in two shards: 33 and 32, exactly */
    int g65[1] = {65};
    space_of(&s, 1, 1, 1, 1, 1, 1, 1, 1, g65);
    CHECK(sweep_space_check_limit(&s, 2, 2, 32, err, sizeof err) == 0);
    CHECK(sweep_space_check_limit(&s, 1, 2, 32, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "shard 1/2 holds 33 of 65 cases");
    sweep_space_free(&s);
    /* platforms with different GPU lists: the counts summed over them */
    int g_mixed[3] = {10, 4, 7};
    space_of(&s, 3, 2, 1, 1, 1, 1, 1, 1, g_mixed);
    CHECK(sweep_space_check_limit(&s, 0, 0, 41, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "42 cases (2 models x 1 compressor x 1 stack x 1 collective x "
                            "1 scaling x 1 batch x 1 engine x 21 GPU counts over the 3 "
                            "platforms)");
    sweep_space_free(&s);
    /* a product past long long (2^31 x 2^31 x 2^4 ...) is refused, not wrapped to a small
     * or negative count */
    int g4096[1] = {4096};
    space_of(&s, 1, 1, 1, 1, 1, 1, 1, 1, g4096);
    s.n_models = s.n_compressors = s.n_collectives = 1 << 30;
    CHECK(sweep_space_check_limit(&s, 0, 0, 1LL << 62, err, sizeof err) == -1);
    s.n_models = s.n_compressors = s.n_collectives = 1;
    sweep_space_free(&s);
}

int main(void)
{
    case_limit();
    lists();
    csv_round_trip();
    jsonl_round_trip();
    CHECK_DONE();
}
