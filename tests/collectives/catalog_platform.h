/*
 * tests/collectives/catalog_platform.h: a catalog platform (platforms/NAME.json under the
 * source tree), its topology, and one bucket of each payload kind, for the tests that build
 * schedules on real clusters.
 */
#ifndef GCSIM_TEST_CATALOG_PLATFORM_H
#define GCSIM_TEST_CATALOG_PLATFORM_H

#include <stdio.h>

#include "platform.h"
#include "collectives.h"

/* Loads platforms/<name>.json under source_dir into p; -1, with the loader's message on
 * stderr, when it cannot. */
static inline int catalog_platform(const char *source_dir, const char *name, gcsim_platform *p)
{
    char path[4096];
    gcsim_error err;
    snprintf(path, sizeof path, "%s/platforms/%s.json", source_dir, name);
    if (gcsim_platform_load(path, p, &err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return -1;
    }
    return 0;
}

/* The topology of `gpus` GPUs of p (`name` for the message); -1, with the message on
 * stderr, when it cannot be built. */
static inline int catalog_topology(const gcsim_platform *p, const char *name, int gpus,
                                   gcsim_topology *t)
{
    gcsim_error err;
    if (gcsim_topology_init(t, p, gpus, &err) != 0) {
        fprintf(stderr, "%s, %d GPUs: %s\n", name, gpus, err.message);
        return -1;
    }
    return 0;
}

/* One bucket of each payload kind the schedules price differently: dense fp32, a shared
 * scale (TernGrad-like), sparse (DGC-like), and a per-worker scale whose reducing steps
 * decode and re-encode. */
static const gcsim_bucket_bytes test_payload_kinds[] = {
    {.dense_bytes = 100e6, .payload_bytes = 100e6, .aggregation = PAYLOAD_DENSE_SUMMABLE},
    {.dense_bytes = 25e6, .payload_bytes = 25e6 / 16, .aggregation = PAYLOAD_SHARED_SCALE,
     .compressed = true},
    {.dense_bytes = 40e6, .payload_bytes = 40e6 * 0.002, .aggregation = PAYLOAD_SPARSE,
     .compressed = true},
    {.dense_bytes = 3e6, .payload_bytes = 3e6 / 4, .aggregation = PAYLOAD_PER_WORKER_SCALE,
     .compressed = true, .encode_s = 1e-4, .decode_s = 5e-5},
};
enum { TEST_PAYLOAD_KINDS = sizeof test_payload_kinds / sizeof test_payload_kinds[0] };

#endif
