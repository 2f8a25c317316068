/* gc_trace_find over the name index gc_trace_open builds (issue 45: compress looked every
 * tensor of a series up by a linear scan, quadratic in tensors): every name of a file
 * written in an order that is neither sorted nor reversed is found at the index the file
 * gives it, names that are prefixes, extensions or neighbours of real ones are not found,
 * and a file filled by hand (no index) answers the same by a scan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "trace_test_util.h"
#include "traces.h"

#define N 1000

int main(int argc, char **argv)
{
    scratch_init(argc, argv);
    char path[512], err[512];
    scratch_path(path, sizeof path, "find.safetensors");
    static char names[N][32];
    static gc_trace_write_tensor t[N];
    static float value[N];
    static uint64_t one[1] = {1};
    for (int i = 0; i < N; i++) {
        /* 7 is coprime with N: a permutation whose sorted order is no input order */
        snprintf(names[i], sizeof names[i], "layer%d.w", (i * 7) % N);
        value[i] = (float)i;
        t[i] = (gc_trace_write_tensor){names[i], &value[i], 1, one, GC_TRACE_F32};
    }
    CHECK(gc_trace_write_safetensors(path, t, N, NULL, 0, err, sizeof err) == 0);
    gc_trace_file f;
    int rc = gc_trace_open(path, &f, err, sizeof err);
    CHECK(rc == 0);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        CHECK_DONE();
    }
    CHECK(f.n_tensors == N && f.by_name != NULL);
    int found = 0;
    for (size_t i = 0; i < f.n_tensors; i++)
        found += gc_trace_find(&f, f.tensors[i].name) == (long)i;
    CHECK(found == N);
    const char *absent[] = {"", "layer", "layer1", "layer1.", "layer1.w2", "layer999.w ",
                            "layer1000.w", "Layer1.w", "zzz", "\x01"};
    for (size_t k = 0; k < sizeof absent / sizeof absent[0]; k++)
        CHECK(gc_trace_find(&f, absent[k]) == -1);
    /* without the index: the same answers by a scan */
    size_t *index = f.by_name;
    f.by_name = NULL;
    int scanned = 0;
    for (size_t i = 0; i < f.n_tensors; i += 37)
        scanned += gc_trace_find(&f, f.tensors[i].name) == (long)i;
    CHECK(scanned == (N + 36) / 37 && gc_trace_find(&f, "layer1.w2") == -1);
    f.by_name = index;
    gc_trace_close(&f);
    CHECK_DONE();
}
