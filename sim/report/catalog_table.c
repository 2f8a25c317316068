/* gcsim catalog's tables; see catalog_table.h. */
#include "catalog_table.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "data_dir.h"

/* The width a table's description is cut to: REPORT_TABLE_COLUMNS (report.h). */
#define TABLE_COLUMNS REPORT_TABLE_COLUMNS

/* The columns: key (CSV, JSON), header (table), whether it is a number. */
typedef enum {
    COL_KIND, COL_NAME, COL_GPUS_PER_NODE, COL_NODES, COL_GPU, COL_INTRA, COL_NETWORK,
    COL_PARAMETERS, COL_PRECISION, COL_BATCH, COL_TOKENS, COL_DATASET, COL_AGGREGATION,
    COL_UNBIASED, COL_DESCRIPTION, COL_FILE, COL_COUNT
} column;

static const struct {
    const char *key, *header;
    bool integer;
} columns[COL_COUNT] = {
    [COL_KIND] = {"kind", "kind", false},
    [COL_NAME] = {"name", "name", false},
    [COL_GPUS_PER_NODE] = {"gpus_per_node", "GPUs/node", true},
    [COL_NODES] = {"nodes", "nodes", true},
    [COL_GPU] = {"gpu", "GPU", false},
    [COL_INTRA] = {"intra_node", "intra-node", false},
    [COL_NETWORK] = {"network", "network (NICs per node)", false},
    [COL_PARAMETERS] = {"parameters", "parameters", true},
    [COL_PRECISION] = {"precision", "precision", false},
    [COL_BATCH] = {"batch_per_gpu", "batch/GPU", true},
    [COL_TOKENS] = {"tokens_per_sample", "tokens", true},
    [COL_DATASET] = {"dataset", "dataset", false},
    [COL_AGGREGATION] = {"aggregation", "aggregation", false},
    [COL_UNBIASED] = {"unbiased", "unbiased", false},
    [COL_DESCRIPTION] = {"description", "description", false},
    [COL_FILE] = {"file", "file", false},
};

/* The cell of an item in a column, as text; NULL when the column does not apply to the
 * item's kind (an empty cell: null in JSON). Numbers: *number set, text for widths. */
static const char *cell(const gcsim_catalog_item *it, gcsim_catalog_kind kind, column c,
                        long long *number, char *buf, size_t size)
{
    bool platform = kind == GCSIM_CATALOG_PLATFORMS, model = kind == GCSIM_CATALOG_MODELS,
         compressor = kind == GCSIM_CATALOG_COMPRESSORS;
    long long n = 0;
    switch (c) {
    case COL_KIND: { /* a row is one platform, model, stack or compressor */
        static const char *const one[GCSIM_CATALOG_KINDS] = {"platform", "model", "stack",
                                                             "compressor"};
        return kind < GCSIM_CATALOG_KINDS ? one[kind] : "?";
    }
    case COL_NAME: return it->name;
    case COL_GPUS_PER_NODE: if (!platform) return NULL; n = it->gpus_per_node; break;
    case COL_NODES: if (!platform) return NULL; n = it->nodes; break;
    case COL_GPU: return platform ? it->gpu : NULL;
    case COL_INTRA: return platform ? it->intra : NULL;
    case COL_NETWORK: return platform ? it->network : NULL;
    case COL_PARAMETERS: if (!model) return NULL; n = it->parameters; break;
    case COL_PRECISION: return model ? it->precision : NULL;
    case COL_BATCH: if (!model) return NULL; n = it->batch_per_gpu; break;
    case COL_TOKENS: if (!model || !it->tokens_per_sample) return NULL; n = it->tokens_per_sample; break;
    case COL_DATASET: return model && it->dataset[0] ? it->dataset : NULL;
    case COL_AGGREGATION: return compressor ? it->aggregation : NULL;
    case COL_UNBIASED: return compressor ? it->unbiased ? "yes" : "no" : NULL;
    case COL_DESCRIPTION: return it->description;
    case COL_FILE: return it->file[0] ? it->file : NULL;
    case COL_COUNT: break;
    }
    *number = n;
    snprintf(buf, size, "%lld", n);
    return buf;
}

/* text cut to at most room bytes, ending "..." when cut, never inside a UTF-8 sequence. */
static void cut(const char *text, size_t room, char *out, size_t size)
{
    size_t len = strlen(text);
    if (len <= room) {
        snprintf(out, size, "%s", text);
        return;
    }
    size_t keep = room - 3;
    while (keep > 0 && ((unsigned char)text[keep] & 0xC0) == 0x80)
        keep--;
    snprintf(out, size, "%.*s...", (int)keep, text);
}

/* Adds the lists' rows to r. Table: the kind and file columns left out, and the
 * description cut so the line fits TABLE_COLUMNS (the widths are the report's: the widest
 * of header and cells, two spaces between columns). */
static void fill(report *r, const gcsim_catalog_list *lists, int n_lists, bool table)
{
    int index[COL_COUNT];
    for (int c = 0; c < COL_COUNT; c++)
        index[c] = table && (c == COL_KIND || c == COL_FILE)
                       ? -1
                       : report_column(r, columns[c].key, columns[c].header, columns[c].integer ? 0 : -1);
    size_t room = 0;
    if (table && n_lists == 1) {
        size_t used = 0;
        for (int c = 0; c < COL_COUNT; c++) {
            if (index[c] < 0 || c == COL_DESCRIPTION)
                continue;
            size_t width = 0;
            char buf[64];
            long long num;
            for (int k = 0; k < lists[0].n; k++) {
                const char *t = cell(&lists[0].items[k], lists[0].kind, (column)c, &num, buf, sizeof buf);
                if (t && strlen(t) > width)
                    width = strlen(t);
            }
            if (width) /* a column empty in every row is not shown */
                used += (strlen(columns[c].header) > width ? strlen(columns[c].header) : width) + 2;
        }
        /* a description cut shorter than this says too little: left to json and csv */
        enum { MIN_DESCRIPTION = 30 };
        room = used + MIN_DESCRIPTION <= TABLE_COLUMNS ? TABLE_COLUMNS - used : 0;
    }
    for (int l = 0; l < n_lists; l++)
        for (int k = 0; k < lists[l].n; k++) {
            report_row(r);
            for (int c = 0; c < COL_COUNT; c++) {
                char buf[64], shown[sizeof lists[l].items[k].description];
                long long num = 0;
                const char *t = cell(&lists[l].items[k], lists[l].kind, (column)c, &num, buf, sizeof buf);
                if (index[c] < 0 || !t)
                    continue;
                if (columns[c].integer)
                    report_int(r, index[c], num);
                else if (c == COL_DESCRIPTION && table) {
                    if (room) { /* else the column stays empty, so the table leaves it out */
                        cut(t, room, shown, sizeof shown);
                        report_str_table(r, index[c], t, shown);
                    }
                } else
                    report_str(r, index[c], t);
            }
        }
}

/* What one kind's table says above its rows. */
static void note_kind(report *r, gcsim_catalog_kind kind, int n)
{
    char msg[1200];
    const char *folder = gcsim_catalog_kind_folder(kind);
    if (folder)
        snprintf(msg, sizeof msg, "%d in %s/%s", n, gcsim_data_dir(), folder);
    else
        snprintf(msg, sizeof msg, "%d built in (a spec adds keys: qsgd:s=4, ef+topk:ratio=0.01)", n);
    report_note(r, gcsim_catalog_kind_name(kind), msg);
}

int catalog_table_write(FILE *out, const gcsim_catalog_list *lists, int n_lists,
                        report_format format, int kind)
{
    if (format != REPORT_TABLE) {
        report *r = report_new_for_file("catalog");
        report_meta_str(r, "data_dir", gcsim_data_dir());
        report_meta_str(r, "kind", kind == GCSIM_CATALOG_KINDS
                                       ? "all" : gcsim_catalog_kind_name((gcsim_catalog_kind)kind));
        for (int l = 0; l < n_lists; l++)
            note_kind(r, lists[l].kind, lists[l].n);
        fill(r, lists, n_lists, false);
        int rc = report_write(r, format, out);
        report_free(r);
        return rc;
    }
    for (int l = 0; l < n_lists; l++) {
        report *r = report_new_for_file("catalog");
        note_kind(r, lists[l].kind, lists[l].n);
        /* --wide (main.c): every column and the whole descriptions, as CSV has them */
        fill(r, &lists[l], 1, report_table_limit() != 0);
        int rc = (l ? fputc('\n', out) == EOF : 0) || report_write(r, REPORT_TABLE, out);
        report_free(r);
        if (rc)
            return -1;
    }
    return 0;
}

