/* `gcsim predict --format json` and `--format csv` carry the same numbers as the table:
 * every cell of every row, the table rounded to its printed precision. CSV and JSON give
 * times in seconds (_s keys), the table in milliseconds; the table leaves out a column
 * that is empty in every row, CSV and JSON keep it (docs/schema.md). */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static char *run(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    if (pclose(p) != 0) {
        fprintf(stderr, "command failed: %s\n", cmd);
        free(buf);
        return NULL;
    }
    return buf;
}

/* Splits text into lines in place; returns the count. */
static int lines_of(char *text, char **lines, int max)
{
    int n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && n < max;
         l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    return n;
}

static int split(char *line, const char *sep, char **fields, int max)
{
    int n = 0;
    for (char *save = NULL, *f = strtok_r(line, sep, &save); f && n < max;
         f = strtok_r(NULL, sep, &save))
        fields[n++] = f;
    return n;
}

/* Splits a CSV line (no quoted cells here) in place, keeping empty cells. */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    while (n < max) {
        fields[n++] = line;
        char *comma = strchr(line, ',');
        if (!comma)
            break;
        *comma = '\0';
        line = comma + 1;
    }
    return n;
}

/* A time column: seconds in CSV, milliseconds in the table. */
static double table_scale(const char *key)
{
    size_t n = strlen(key);
    bool rate = n > 6 && strcmp(key + n - 6, "_per_s") == 0;
    if (strcmp(key, "memory_bytes_per_gpu") == 0) /* GB in the table */
        return 1e-9;
    return !rate && n > 2 && strcmp(key + n - 2, "_s") == 0 ? 1e3 : 1.0;
}

static void compare(const char *gcsim, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s predict %s --format csv", gcsim, args);
    char *csv = run(cmd);
    snprintf(cmd, sizeof cmd, "%s predict %s --format json", gcsim, args);
    char *json = run(cmd);
    /* --wide: the plain layout, one line per row (by default the table fits 100 columns in
     * stacked tables, issue 46) */
    snprintf(cmd, sizeof cmd, "%s predict %s --format table --wide", gcsim, args);
    char *table = run(cmd);
    CHECK(csv && json && table);
    if (!csv || !json || !table)
        return;

    char *csv_lines[600], *table_lines[600];
    int n_csv = lines_of(csv, csv_lines, 600);
    int n_table = lines_of(table, table_lines, 600);
    char *keys[32];
    int n_keys = split_csv(csv_lines[0], keys, 32);
    cJSON *root = cJSON_Parse(json);
    cJSON *rows = cJSON_GetObjectItem(root, "rows");
    CHECK(cJSON_GetArraySize(rows) == n_csv - 1);
    CHECK(n_csv > 2);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "schema_version")) == 1);
    char *cells[600][32];
    bool shown[32] = {false};
    for (int r = 1; r < n_csv; r++) {
        int n_cells = split_csv(csv_lines[r], cells[r], 32);
        CHECK(n_cells == n_keys);
        for (int k = 0; k < n_keys && k < n_cells; k++)
            if (cells[r][k][0])
                shown[k] = true;
    }
    int n_shown = 0;
    for (int k = 0; k < n_keys; k++)
        n_shown += shown[k];
    CHECK(n_shown < n_keys); /* tokens_per_s: a CNN has none */
    /* The table ends with one line per row. */
    int first_table_row = n_table - (n_csv - 1);
    for (int r = 1; r < n_csv; r++) {
        char *tcells[32];
        int n_tcells = split(table_lines[first_table_row + r - 1], " ", tcells, 32);
        CHECK(n_tcells == n_shown);
        cJSON *row = cJSON_GetArrayItem(rows, r - 1);
        for (int k = 0, t = 0; k < n_keys && t < n_tcells; k++) {
            cJSON *v = cJSON_GetObjectItem(row, keys[k]);
            CHECK(v != NULL);
            if (!shown[k])
                continue;
            const char *tcell = tcells[t++];
            if (!v || !cJSON_IsNumber(v)) {
                CHECK(!v || cJSON_IsString(v) || (cJSON_IsNull(v) && !cells[r][k][0]));
                continue;
            }
            double from_csv = strtod(cells[r][k], NULL);
            double from_table = strtod(tcell, NULL) / table_scale(keys[k]);
            /* CSV and JSON: the same double. */
            CHECK(from_csv == v->valuedouble);
            /* The table: rounded to the digits it prints. */
            const char *dot = strchr(tcell, '.');
            int digits = dot ? (int)strlen(dot + 1) : 0;
            double half_ulp = 0.5 * pow(10.0, -digits) / table_scale(keys[k]) * (1 + 1e-9);
            if (!(fabs(from_table - from_csv) <= half_ulp))
                fprintf(stderr, "%s: table %s vs csv %s\n", keys[k], tcell, cells[r][k]);
            CHECK(fabs(from_table - from_csv) <= half_ulp);
        }
    }
    cJSON_Delete(root);
    free(csv);
    free(json);
    free(table);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_predict_formats GCSIM SOURCE_DIR\n");
        return 2;
    }
    char args[1024];
    compare(argv[1], "--gpus 1,2,4,...,512");
    snprintf(args, sizeof args,
             "--platform %s/platforms/terngrad-fig5b.json --model %s/models/vgg-a.json "
             "--scaling strong --batch 512 --gpus 1,3,8,64 --collective ring --compressor fp16",
             argv[2], argv[2]);
    compare(argv[1], args);
    CHECK_DONE();
}
