/* `gcsim predict --format json` and `--format csv` carry the same numbers as the table:
 * every cell of every row, the table rounded to its printed precision. */
#include <cjson/cJSON.h>
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

static void compare(const char *gcsim, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s predict %s --format csv", gcsim, args);
    char *csv = run(cmd);
    snprintf(cmd, sizeof cmd, "%s predict %s --format json", gcsim, args);
    char *json = run(cmd);
    snprintf(cmd, sizeof cmd, "%s predict %s --format table", gcsim, args);
    char *table = run(cmd);
    CHECK(csv && json && table);
    if (!csv || !json || !table)
        return;

    char *csv_lines[600], *table_lines[600];
    int n_csv = lines_of(csv, csv_lines, 600);
    int n_table = lines_of(table, table_lines, 600);
    char *keys[32];
    int n_keys = split(csv_lines[0], ",", keys, 32);
    cJSON *root = cJSON_Parse(json);
    cJSON *rows = cJSON_GetObjectItem(root, "rows");
    CHECK(cJSON_GetArraySize(rows) == n_csv - 1);
    CHECK(n_csv > 2);
    /* The table ends with one line per row. */
    int first_table_row = n_table - (n_csv - 1);
    for (int r = 1; r < n_csv; r++) {
        char *cells[32], *tcells[32];
        int n_cells = split(csv_lines[r], ",", cells, 32);
        int n_tcells = split(table_lines[first_table_row + r - 1], " ", tcells, 32);
        CHECK(n_cells == n_keys);
        CHECK(n_tcells == n_keys);
        cJSON *row = cJSON_GetArrayItem(rows, r - 1);
        for (int k = 0; k < n_keys && k < n_cells && k < n_tcells; k++) {
            cJSON *v = cJSON_GetObjectItem(row, keys[k]);
            CHECK(v != NULL);
            if (!v || !cJSON_IsNumber(v))
                continue;
            double from_csv = strtod(cells[k], NULL);
            double from_table = strtod(tcells[k], NULL);
            /* CSV and JSON: the same double. */
            CHECK(from_csv == v->valuedouble);
            /* The table: rounded to the digits it prints. */
            const char *dot = strchr(tcells[k], '.');
            int digits = dot ? (int)strlen(dot + 1) : 0;
            double half_ulp = 0.5 * pow(10.0, -digits) * (1 + 1e-9);
            if (!(fabs(from_table - from_csv) <= half_ulp))
                fprintf(stderr, "%s: table %s vs csv %s\n", keys[k], tcells[k], cells[k]);
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
