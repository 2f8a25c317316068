/*
 * sim/cli/data_dir.h: where gcsim finds the data it ships (the platform and model catalog,
 * the codec profiles, the gradient traces) at run time.
 *
 * An installed gcsim (`cmake --install`: PREFIX/bin/gcsim) reads PREFIX/share/gcsim, found
 * from the executable's own location (/proc/self/exe), so a prefix can be moved or
 * unpacked anywhere. A gcsim that has no such folder beside it (the build tree's
 * build/sim/cli/gcsim) reads the source tree it was configured from. The layout is the
 * same in both: platforms/, platforms/codec/, models/, traces/data/.
 */
#ifndef GCSIM_CLI_DATA_DIR_H
#define GCSIM_CLI_DATA_DIR_H

#include <stddef.h>

/* The data folder, computed once (never NULL). */
const char *gcsim_data_dir(void);
/* "installed" when gcsim_data_dir() is the share/gcsim folder beside the executable,
 * "source tree" when it is the build-time fallback. */
const char *gcsim_data_dir_origin(void);

/* Points the trace payload model at the data folder's traces/data (unless
 * $GCSIM_TRACE_DIR is set, which keeps precedence). Called once by main. */
void gcsim_data_dir_init(void);

/* A catalog name ("a100-hdr" or "a100-hdr.json", no '/') that is not a file in the
 * current directory, resolved to <data>/<folder>/<name>[.json]. Returns 0 and the path in
 * out, or -1 when name is a path, an existing file, or not in the catalog (the caller then
 * reports the name as given). */
int gcsim_data_catalog_path(const char *folder, const char *name, char *out, size_t size);

#endif
