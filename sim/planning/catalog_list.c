/*
 * sim/planning/catalog_list.c: the items of `gcsim catalog` (catalog_list.h). Each catalog
 * file goes through the loader the commands use, so a file listed here is one --platform,
 * --model or --stack accepts, and one that does not load is named with the loader's reason
 * instead of being listed with guessed fields.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_list.h"
#include "compressor.h"
#include "data_dir.h"
#include "model.h"
#include "platform.h"
#include "stack.h"

static const char *const kind_names[GCSIM_CATALOG_KINDS] = {"platforms", "models", "stacks",
                                                            "compressors"};
static const char *const kind_folders[GCSIM_CATALOG_KINDS] = {"platforms", "models",
                                                              "platforms/stacks", NULL};

const char *gcsim_catalog_kind_name(gcsim_catalog_kind k)
{
    return k < GCSIM_CATALOG_KINDS ? kind_names[k] : "?";
}

int gcsim_catalog_kind_parse(const char *text, gcsim_catalog_kind *out)
{
    for (int k = 0; k < GCSIM_CATALOG_KINDS; k++)
        if (strcmp(text, kind_names[k]) == 0) {
            *out = (gcsim_catalog_kind)k;
            return 0;
        }
    return -1;
}

const char *gcsim_catalog_kind_folder(gcsim_catalog_kind k)
{
    return k < GCSIM_CATALOG_KINDS ? kind_folders[k] : NULL;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of dir's *.json files without ".json", sorted (byte order, as the C locale),
 * NULL-terminated in a malloc'd array; NULL with err set when the folder cannot be read. */
static char **json_files(const char *dir_path, int *count, gcsim_error *err)
{
    DIR *dir = opendir(dir_path);
    if (!dir) {
        gcsim_fail(err, "%s: the catalog folder cannot be read", dir_path);
        return NULL;
    }
    int n = 0, cap = 32;
    char **names = malloc((size_t)cap * sizeof *names);
    for (struct dirent *e; names && (e = readdir(dir));) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        if (n + 1 >= cap) {
            char **more = realloc(names, (size_t)(cap *= 2) * sizeof *names);
            if (!more) {
                for (int k = 0; k < n; k++)
                    free(names[k]);
                free(names);
                names = NULL;
                break;
            }
            names = more;
        }
        if (!(names[n] = strndup(e->d_name, len - 5))) /* sorted as the names, not the files */
            break;
        n++;
    }
    closedir(dir);
    if (!names) {
        gcsim_fail_internal(err, "out of memory listing %s", dir_path);
        return NULL;
    }
    names[n] = NULL;
    qsort(names, (size_t)n, sizeof names[0], compare_names);
    *count = n;
    return names;
}

static const char *intra_name(gcsim_intra_kind k)
{
    switch (k) {
    case INTRA_PCIE_SWITCH: return "pcie-switch";
    case INTRA_NVLINK: return "nvlink";
    case INTRA_NVSWITCH: return "nvswitch";
    }
    return "?";
}

/* "8 x 200 Gb/s InfiniBand, fat tree 2:1": NICs per node, each one's bandwidth, the fabric. */
static void network_text(const gcsim_platform *p, char *out, size_t size)
{
    char fabric[32] = "star";
    if (p->fabric.topology == FABRIC_FAT_TREE)
        snprintf(fabric, sizeof fabric, p->fabric.oversubscription > 1 ? "fat tree %g:1" : "fat tree",
                 p->fabric.oversubscription);
    snprintf(out, size, "%d x %g Gb/s %s, %s", p->nic.per_node, p->nic.bandwidth_Bps * 8 / 1e9,
             p->nic.kind == NIC_INFINIBAND ? "InfiniBand" : "Ethernet", fabric);
}

/* The dataset a model's description names: the catalog files have no field for it, their
 * descriptions say it when there is one ("ResNet-50 v1.5 (torchvision), ImageNet, ..."). */
static void dataset_of(const char *description, char *out, size_t size)
{
    static const char *const known[] = {"ImageNet", "SQuAD", "PTB", "CIFAR-10", "Fashion-MNIST",
                                        NULL};
    out[0] = '\0';
    for (int k = 0; known[k]; k++)
        if (strstr(description, known[k])) {
            snprintf(out, size, "%s", known[k]);
            return;
        }
}

static int item_from_file(gcsim_catalog_kind kind, const char *path, gcsim_catalog_item *it,
                          gcsim_error *err)
{
    snprintf(it->file, sizeof it->file, "%s", path);
    it->unbiased = -1;
    if (kind == GCSIM_CATALOG_PLATFORMS) {
        gcsim_platform *p = calloc(1, sizeof *p); /* several KiB: not on the stack */
        if (!p)
            return gcsim_fail_internal(err, "out of memory reading %s", path);
        int rc = gcsim_platform_load(path, p, err);
        if (rc == 0) {
            snprintf(it->description, sizeof it->description, "%s", p->description);
            it->gpus_per_node = p->gpus_per_node;
            it->nodes = p->nodes;
            snprintf(it->gpu, sizeof it->gpu, "%s", p->gpu.type);
            snprintf(it->intra, sizeof it->intra, "%s", intra_name(p->intra.kind));
            network_text(p, it->network, sizeof it->network);
        }
        free(p);
        return rc;
    }
    if (kind == GCSIM_CATALOG_MODELS) {
        gcsim_model m;
        if (gcsim_model_load(path, &m, err))
            return -1;
        snprintf(it->description, sizeof it->description, "%s", m.description);
        it->parameters = gcsim_model_params(&m);
        snprintf(it->precision, sizeof it->precision, "%s", gcsim_precision_name(m.precision));
        it->batch_per_gpu = m.batch_per_gpu;
        it->tokens_per_sample = m.tokens_per_sample;
        dataset_of(m.description, it->dataset, sizeof it->dataset);
        gcsim_model_free(&m);
        return 0;
    }
    gcsim_stack *st = calloc(1, sizeof *st);
    if (!st)
        return gcsim_fail_internal(err, "out of memory reading %s", path);
    int rc = gcsim_stack_load(path, st, err);
    if (rc == 0) {
        snprintf(it->description, sizeof it->description, "%s", st->description);
    }
    free(st);
    return rc;
}

static int list_compressors(gcsim_catalog_list *out, gcsim_error *err)
{
    const char *const *names = gc_compressor_names();
    int n = 0;
    while (names[n])
        n++;
    if (!(out->items = calloc((size_t)n, sizeof *out->items)))
        return gcsim_fail_internal(err, "out of memory listing the compressors");
    for (int k = 0; k < n; k++) {
        gcsim_catalog_item *it = &out->items[k];
        snprintf(it->name, sizeof it->name, "%s", names[k]);
        const char *summary = gc_compressor_summary(names[k]);
        snprintf(it->description, sizeof it->description, "%s", summary ? summary : "");
        gc_compressor *c = NULL;
        char msg[256];
        if (gc_compressor_create(names[k], &c, msg, sizeof msg)) /* a registered name: a bug */
            return gcsim_fail_internal(err, "compressor %s: %s", names[k], msg);
        snprintf(it->aggregation, sizeof it->aggregation, "%s",
                 gc_aggregation_name(gc_compressor_aggregation(c)));
        it->unbiased = gc_compressor_is_unbiased(c) ? 1 : 0;
        gc_compressor_free(c);
        out->n = k + 1;
    }
    return 0;
}

int gcsim_catalog_list_kind(gcsim_catalog_kind kind, gcsim_catalog_list *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    if (kind >= GCSIM_CATALOG_KINDS)
        return gcsim_fail_internal(err, "unknown catalog kind %d", (int)kind);
    int rc = 0;
    if (kind == GCSIM_CATALOG_COMPRESSORS) {
        rc = list_compressors(out, err);
    } else {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", gcsim_data_dir(), kind_folders[kind]);
        int n = 0;
        char **files = json_files(dir, &n, err);
        if (!files)
            return -1;
        out->items = calloc(n ? (size_t)n : 1, sizeof *out->items);
        if (!out->items)
            rc = gcsim_fail_internal(err, "out of memory listing %s", dir);
        for (int k = 0; rc == 0 && k < n; k++) {
            char path[sizeof out->items[k].file];
            int len = snprintf(path, sizeof path, "%s/%s.json", dir, files[k]);
            rc = len < 0 || (size_t)len >= sizeof path
                     ? gcsim_fail(err, "%s/%s.json: the path is too long", dir, files[k])
                     : item_from_file(kind, path, &out->items[k], err);
            /* the name the command line takes is the file's (data_dir.h), whatever the
             * file's own "name" says (the shipped files agree) */
            snprintf(out->items[k].name, sizeof out->items[k].name, "%s", files[k]);
            out->n = rc == 0 ? k + 1 : out->n;
        }
        for (int k = 0; k < n; k++)
            free(files[k]);
        free(files);
    }
    if (rc)
        gcsim_catalog_list_free(out);
    return rc;
}

void gcsim_catalog_list_free(gcsim_catalog_list *l)
{
    free(l->items);
    l->items = NULL;
    l->n = 0;
}
