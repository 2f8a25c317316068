/*
 * tests/collectives/catalog_platform.h: a catalog platform (platforms/NAME.json under the
 * source tree) for the tests that build schedules on real clusters.
 */
#ifndef GCSIM_TEST_CATALOG_PLATFORM_H
#define GCSIM_TEST_CATALOG_PLATFORM_H

#include <stdio.h>

#include "platform.h"

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

#endif
