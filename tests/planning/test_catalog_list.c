/*
 * tests/planning/test_catalog_list.c: the listing behind `gcsim catalog`
 * (sim/planning/catalog_list.h). Every *.json of the source tree's platforms/, models/ and
 * platforms/stacks/ is an item (read here with opendir, independently of the library),
 * every registered compressor has a one-line summary that the table shows whole, and a few
 * items carry the values their files and docs/catalog.md state.
 *   test_catalog_list SOURCE_DIR
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "catalog_list.h"
#include "check.h"
#include "compressor.h"

static const gcsim_catalog_item *find(const gcsim_catalog_list *l, const char *name)
{
    for (int k = 0; k < l->n; k++)
        if (strcmp(l->items[k].name, name) == 0)
            return &l->items[k];
    return NULL;
}

/* Every *.json file of src/folder is an item of l, and l has no other. */
static void check_files(const char *src, const char *folder, const gcsim_catalog_list *l)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", src, folder);
    DIR *dir = opendir(path);
    CHECK(dir != NULL);
    if (!dir)
        return;
    int files = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        files++;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len - 5), e->d_name);
        const gcsim_catalog_item *it = find(l, name);
        if (!it)
            fprintf(stderr, "%s/%s is not listed\n", folder, e->d_name);
        CHECK(it != NULL);
        if (it) {
            CHECK_STR_CONTAINS(it->file, e->d_name);
            CHECK(it->description[0] != '\0');
        }
    }
    closedir(dir);
    CHECK(files > 0);
    CHECK(l->n == files);
    for (int k = 1; k < l->n; k++) /* sorted by name */
        CHECK(strcmp(l->items[k - 1].name, l->items[k].name) < 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SOURCE_DIR\n", argv[0]);
        return 2;
    }
    const char *src = argv[1];
    gcsim_error err = {0};
    gcsim_catalog_list l;

    /* the kinds' names round-trip; anything else is refused */
    for (int k = 0; k < GCSIM_CATALOG_KINDS; k++) {
        gcsim_catalog_kind back;
        CHECK(gcsim_catalog_kind_parse(gcsim_catalog_kind_name((gcsim_catalog_kind)k), &back) == 0);
        CHECK((int)back == k);
    }
    gcsim_catalog_kind none;
    CHECK(gcsim_catalog_kind_parse("platform", &none) == -1);
    CHECK(gcsim_catalog_kind_parse("", &none) == -1);

    CHECK(gcsim_catalog_list_kind(GCSIM_CATALOG_PLATFORMS, &l, &err) == 0);
    check_files(src, "platforms", &l);
    /* platforms/a100-hdr.json: 64 nodes of 8 A100 on NVSwitch, one 200 Gbps InfiniBand NIC
     * per GPU, fat tree without oversubscription; h100-400g: one 400 Gbps NIC per node, star */
    const gcsim_catalog_item *p = find(&l, "a100-hdr");
    CHECK(p != NULL);
    if (p) {
        CHECK(p->gpus_per_node == 8 && p->nodes == 64);
        CHECK(strcmp(p->gpu, "a100") == 0);
        CHECK(strcmp(p->intra, "nvswitch") == 0);
        CHECK(strcmp(p->network, "8 x 200 Gb/s InfiniBand, fat tree") == 0);
        CHECK(p->parameters == 0 && p->aggregation[0] == '\0');
    }
    p = find(&l, "h100-400g");
    CHECK(p != NULL && strcmp(p->network, "1 x 400 Gb/s InfiniBand, star") == 0);
    p = find(&l, "dgc-fig6-1gbe");
    CHECK(p != NULL && p->gpus_per_node == 4 && strcmp(p->intra, "pcie-switch") == 0 &&
          strcmp(p->network, "1 x 1 Gb/s Ethernet, star") == 0);
    gcsim_catalog_list_free(&l);

    CHECK(gcsim_catalog_list_kind(GCSIM_CATALOG_MODELS, &l, &err) == 0);
    check_files(src, "models", &l);
    /* parameter counts as docs/catalog.md's table states them */
    const gcsim_catalog_item *m = find(&l, "resnet-50");
    CHECK(m != NULL);
    if (m) {
        CHECK(m->parameters == 25557032LL);
        CHECK(strcmp(m->dataset, "ImageNet") == 0);
        CHECK(m->batch_per_gpu == 32 && m->tokens_per_sample == 0);
        CHECK(strcmp(m->precision, "fp32") == 0);
    }
    m = find(&l, "gpt2-small");
    CHECK(m != NULL && m->parameters == 124439808LL && m->tokens_per_sample == 1024 &&
          m->dataset[0] == '\0');
    m = find(&l, "llama-2-70b");
    CHECK(m != NULL && m->parameters == 68976648192LL && strcmp(m->precision, "bf16") == 0);
    gcsim_catalog_list_free(&l);

    CHECK(gcsim_catalog_list_kind(GCSIM_CATALOG_STACKS, &l, &err) == 0);
    check_files(src, "platforms/stacks", &l);
    CHECK(find(&l, "pytorch-ddp") && find(&l, "horovod") && find(&l, "fused"));
    gcsim_catalog_list_free(&l);

    /* every registered compressor, in the registry's order, with a summary of at most 60
     * characters (the table's room beside name, aggregation and unbiased) */
    CHECK(gcsim_catalog_list_kind(GCSIM_CATALOG_COMPRESSORS, &l, &err) == 0);
    const char *const *names = gc_compressor_names();
    int n = 0;
    for (; names[n]; n++) {
        CHECK(n < l.n && strcmp(l.items[n].name, names[n]) == 0);
        const char *s = gc_compressor_summary(names[n]);
        if (!s)
            fprintf(stderr, "compressor %s has no summary (compressors/summary.c)\n", names[n]);
        CHECK(s != NULL && s[0] != '\0' && strlen(s) <= 60);
        CHECK(n >= l.n || strcmp(l.items[n].description, s ? s : "") == 0);
        CHECK(n >= l.n || l.items[n].file[0] == '\0');
    }
    CHECK(l.n == n && n >= 17);
    CHECK(gc_compressor_summary("zip") == NULL);
    const gcsim_catalog_item *c = find(&l, "none");
    CHECK(c != NULL && strcmp(c->aggregation, "dense-summable") == 0 && c->unbiased == 1);
    c = find(&l, "topk");
    CHECK(c != NULL && strcmp(c->aggregation, "sparse") == 0 && c->unbiased == 0);
    c = find(&l, "randomk");
    CHECK(c != NULL && c->unbiased == 1);
    gcsim_catalog_list_free(&l);
    CHECK(l.n == 0 && l.items == NULL);
    CHECK_DONE();
}
