/*
 * sim/planning/catalog_list.h: what ships, one item per platform, model, training stack and
 * compressor, for `gcsim catalog` (sim/cli/cmd_catalog.c prints it). Platforms, models and
 * stacks are the *.json files of the data folder gcsim reads (data_dir.h: the source tree,
 * or PREFIX/share/gcsim when installed), each loaded with its strict loader, so the listing
 * shows what --platform, --model and --stack would get; compressors are the built-in
 * registry (gc_compressor_names).
 */
#ifndef GCSIM_PLANNING_CATALOG_LIST_H
#define GCSIM_PLANNING_CATALOG_LIST_H

#include "gcsim_error.h"

typedef enum {
    GCSIM_CATALOG_PLATFORMS,
    GCSIM_CATALOG_MODELS,
    GCSIM_CATALOG_STACKS,
    GCSIM_CATALOG_COMPRESSORS,
    GCSIM_CATALOG_KINDS
} gcsim_catalog_kind;

/* "platforms", "models", "stacks", "compressors". */
const char *gcsim_catalog_kind_name(gcsim_catalog_kind k);
/* Parses one of those names; -1 otherwise. */
int gcsim_catalog_kind_parse(const char *text, gcsim_catalog_kind *out);
/* The data folder's subfolder holding the kind's files ("platforms/stacks"); NULL for
 * compressors (built in). */
const char *gcsim_catalog_kind_folder(gcsim_catalog_kind k);

typedef struct {
    char name[128];          /* the name --platform, --model, --stack or --compressor takes */
    char file[1024];         /* the file it was read from; "" for a compressor (built in) */
    char description[512];   /* the file's description; a compressor's one-line summary */
    /* platforms */
    int gpus_per_node, nodes;
    char gpu[64];            /* gpu.type */
    char intra[16];          /* intra_node.kind: pcie-switch, nvlink, nvswitch */
    char network[96];        /* "8 x 200 Gb/s InfiniBand, fat tree" */
    /* models */
    long long parameters;
    char precision[8];
    int batch_per_gpu;
    int tokens_per_sample;   /* 0: not a token model */
    char dataset[16];        /* the dataset the description names (ImageNet, ...), else "" */
    /* compressors */
    char aggregation[24];    /* dense-summable, shared-scale, sparse, per-worker-scale */
    int unbiased;            /* with the default keys: 1 yes, 0 no */
} gcsim_catalog_item;

typedef struct {
    gcsim_catalog_kind kind;
    int n;
    gcsim_catalog_item *items; /* sorted by name (compressors: in the registry's order) */
} gcsim_catalog_list;

/* Lists one kind. Fails (err names the file and the loader's reason) when a catalog file
 * does not load or the folder cannot be read; out is then empty. */
int gcsim_catalog_list_kind(gcsim_catalog_kind kind, gcsim_catalog_list *out, gcsim_error *err);
void gcsim_catalog_list_free(gcsim_catalog_list *l);

#endif
