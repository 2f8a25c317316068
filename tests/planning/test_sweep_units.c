/* The pieces of gcsim sweep and merge on their own: list options (compressor specs keep
 * their own commas), and rows written as CSV or JSON lines read back to the same values
 * (strings with commas, quotes and line breaks; doubles exactly; NaN as empty / null). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "sweep_lists.h"
#include "sweep_output.h"

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

int main(void)
{
    lists();
    csv_round_trip();
    jsonl_round_trip();
    CHECK_DONE();
}
