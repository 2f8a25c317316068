/*
 * sim/config/data_dir.h: where gcsim finds the data it ships (the platform and model catalog,
 * the codec profiles, the gradient traces) at run time, and what a catalog name is. It lives
 * in gcsim_config, not in the command, so that the command line (sim/cli/inputs.c) and the
 * baselines of `gcsim check` (sim/planning/baseline_file.c) resolve names by one rule.
 *
 * An installed gcsim (`cmake --install`: PREFIX/bin/gcsim) reads PREFIX/share/gcsim, found
 * from the executable's own location (/proc/self/exe), so a prefix can be moved or
 * unpacked anywhere. A gcsim in the build tree it was configured in (build/sim/cli/gcsim,
 * and the test programs) reads the source tree. One that is neither (an installed gcsim
 * whose share/gcsim was deleted) is told its data folder is missing, never sent to the
 * source tree. The layout is the same in both: platforms/, platforms/codec/, models/,
 * traces/data/.
 */
#ifndef GCSIM_CONFIG_DATA_DIR_H
#define GCSIM_CONFIG_DATA_DIR_H

#include <stddef.h>

/* The data folder, computed once (never NULL). The running program's location decides, so
 * a test program linking this library reads the source tree, as the build-tree gcsim does. */
const char *gcsim_data_dir(void);
/* "installed" when gcsim_data_dir() is the share/gcsim folder beside the executable,
 * "source tree" when it is the build-time fallback (an executable in the build tree),
 * "installed, missing" when an executable outside the build tree has no such folder. */
const char *gcsim_data_dir_origin(void);

/* For an installed gcsim whose data folder is missing or unusable (deleted, a symlink
 * loop), the system's reason; NULL otherwise. main refuses to run commands then. */
const char *gcsim_data_dir_missing(void);

/* Points the trace payload model at the data folder's traces/data (unless
 * $GCSIM_TRACE_DIR is set, which keeps precedence). Called once by main. */
void gcsim_data_dir_init(void);

/* A catalog name is non-empty and has no '/' ("a100-hdr" or "a100-hdr.json"); folder is
 * "platforms" or "models". Resolves it to <data>/<folder>/<name>[.json] (".json" added
 * unless the name ends with it). Returns 0 and the path in out, or -1 when name is not a
 * catalog name or the catalog has no such file (out then holds the path tried, for the
 * caller's message, or "" when name is not a catalog name). Files in the current
 * directory are not looked at: each caller tries its own paths first. */
int gcsim_data_catalog_lookup(const char *folder, const char *name, char *out, size_t size);

/* The command line's rule (--platform, --model): a name that is a file in the current
 * directory is that file; otherwise gcsim_data_catalog_lookup. Returns 0 and the catalog
 * path in out, or -1 when name is a path, an existing file, or not in the catalog (the
 * caller then reads or reports the name as given). */
int gcsim_data_catalog_path(const char *folder, const char *name, char *out, size_t size);

/* The catalog's names in folder ("platforms", "models"), sorted, without ".json", joined
 * by ", " into out (cut short with "..." when out is too small; "" when the folder cannot
 * be read): what a refusal of an unknown name lists. */
void gcsim_data_catalog_names(const char *folder, char *out, size_t size);

#endif
