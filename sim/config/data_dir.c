/* sim/config/data_dir.c: the data folder of an installed or build-tree gcsim (data_dir.h). */
#include "data_dir.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "payload_model.h"

#ifndef GCSIM_SOURCE_DIR
#define GCSIM_SOURCE_DIR "."
#endif

/* Below the install prefix; matches the install rules (top CMakeLists.txt and
 * sim/cli/CMakeLists.txt: bin/gcsim, share/gcsim/). GCSIM_SOURCE_DIR comes from
 * sim/config/CMakeLists.txt. */
#define PREFIX_TO_DATA "/share/gcsim"

static char data_dir[PATH_MAX];
static const char *origin = "source tree";

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* PREFIX/share/gcsim when the running executable is PREFIX/<dir>/gcsim and that folder
 * holds the catalog; 0 on success. /proc/self/exe is already absolute with links resolved,
 * so dropping its last two components gives PREFIX. */
static int installed_dir(char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || (size_t)n >= sizeof exe - 1)
        return -1;
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return -1;
        *slash = '\0';
    }
    char platforms[PATH_MAX + 32];
    snprintf(platforms, sizeof platforms, "%s" PREFIX_TO_DATA "/platforms", exe);
    if (!is_dir(platforms))
        return -1;
    int len = snprintf(out, size, "%s" PREFIX_TO_DATA, exe);
    return len > 0 && (size_t)len < size ? 0 : -1;
}

const char *gcsim_data_dir(void)
{
    if (!data_dir[0]) {
        if (installed_dir(data_dir, sizeof data_dir) == 0) {
            origin = "installed";
        } else {
            snprintf(data_dir, sizeof data_dir, "%s", GCSIM_SOURCE_DIR);
            origin = "source tree";
        }
    }
    return data_dir;
}

const char *gcsim_data_dir_origin(void)
{
    gcsim_data_dir();
    return origin;
}

void gcsim_data_dir_init(void)
{
    char traces[PATH_MAX + 16];
    snprintf(traces, sizeof traces, "%s/traces/data", gcsim_data_dir());
    gc_trace_payload_set_default_dir(traces);
}

int gcsim_data_catalog_lookup(const char *folder, const char *name, char *out, size_t size)
{
    if (size)
        out[0] = '\0';
    if (!name || !*name || strchr(name, '/'))
        return -1;
    size_t len = strlen(name);
    int has_ext = len > 5 && strcmp(name + len - 5, ".json") == 0;
    int n = snprintf(out, size, "%s/%s/%s%s", gcsim_data_dir(), folder, name,
                     has_ext ? "" : ".json");
    return n > 0 && (size_t)n < size && is_file(out) ? 0 : -1;
}

int gcsim_data_catalog_path(const char *folder, const char *name, char *out, size_t size)
{
    if (!name || is_file(name))
        return -1;
    return gcsim_data_catalog_lookup(folder, name, out, size);
}
