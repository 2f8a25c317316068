/* sim/config/data_dir.c: the data folder of an installed or build-tree gcsim (data_dir.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "data_dir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "payload_model.h"

#ifndef GCSIM_SOURCE_DIR
#define GCSIM_SOURCE_DIR "."
#endif
#ifndef GCSIM_BUILD_DIR
#define GCSIM_BUILD_DIR ""
#endif

/* Below the install prefix; matches the install rules (top CMakeLists.txt and
 * sim/cli/CMakeLists.txt: bin/gcsim, share/gcsim/). GCSIM_SOURCE_DIR comes from
 * sim/config/CMakeLists.txt. */
#define PREFIX_TO_DATA "/share/gcsim"

static char data_dir[PATH_MAX];
static const char *origin = "source tree";
static char missing[256]; /* why an installed gcsim's data folder is unusable, else "" */

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

/* The running executable, absolute with links resolved (/proc/self/exe); 0 on success. */
static int executable(char *exe, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", exe, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return -1;
    exe[n] = '\0';
    return 0;
}

/* PREFIX/share/gcsim for the executable PREFIX/<dir>/gcsim: dropping the last two
 * components of its resolved path gives PREFIX. */
static int prefix_data_dir(const char *exe, char *out, size_t size)
{
    char prefix[PATH_MAX];
    snprintf(prefix, sizeof prefix, "%s", exe);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(prefix, '/');
        if (!slash)
            return -1;
        *slash = '\0';
    }
    int len = snprintf(out, size, "%s" PREFIX_TO_DATA, prefix);
    return len > 0 && (size_t)len < size ? 0 : -1;
}

/* Whether the executable is one of the build tree CMake configured (build/sim/cli/gcsim, a
 * test program): only those read the source tree. An executable in a folder named bin is
 * installed (PREFIX/bin/gcsim), even below the build tree (tests/install installs there). */
static int in_build_tree(const char *exe)
{
    char build[PATH_MAX];
    if (!GCSIM_BUILD_DIR[0] || !realpath(GCSIM_BUILD_DIR, build))
        return 0;
    size_t len = strlen(build);
    if (strncmp(exe, build, len) != 0 || exe[len] != '/')
        return 0;
    const char *slash = strrchr(exe, '/');
    return !(slash - exe >= 4 && strncmp(slash - 4, "/bin", 4) == 0);
}

/* Why PREFIX/share/gcsim/platforms is no folder: the system's reason (a symlink loop says
 * "Too many levels of symbolic links"), or "not a folder". */
static void record_missing(const char *dir)
{
    char platforms[PATH_MAX + 32];
    struct stat st;
    snprintf(platforms, sizeof platforms, "%s/platforms", dir);
    if (stat(platforms, &st) != 0)
        snprintf(missing, sizeof missing, "%s", strerror(errno));
    else
        snprintf(missing, sizeof missing, "its platforms/ is not a folder");
}

/* An installed gcsim reads PREFIX/share/gcsim; one in the build tree, the source tree.
 * An installed gcsim whose folder is gone (deleted, a symlink loop) silently read the
 * source tree it was built from (issue 29); it now records why, for main to refuse. */
static void find_data_dir(void)
{
    char exe[PATH_MAX], platforms[PATH_MAX + 32];
    if (executable(exe, sizeof exe) != 0 ||
        prefix_data_dir(exe, data_dir, sizeof data_dir) != 0) {
        snprintf(data_dir, sizeof data_dir, "%s", GCSIM_SOURCE_DIR);
        origin = "source tree";
        return;
    }
    snprintf(platforms, sizeof platforms, "%s/platforms", data_dir);
    if (is_dir(platforms)) {
        origin = "installed";
    } else if (in_build_tree(exe)) {
        snprintf(data_dir, sizeof data_dir, "%s", GCSIM_SOURCE_DIR);
        origin = "source tree";
    } else {
        record_missing(data_dir);
        origin = "installed, missing";
    }
}

const char *gcsim_data_dir(void)
{
    if (!data_dir[0])
        find_data_dir();
    return data_dir;
}

const char *gcsim_data_dir_missing(void)
{
    gcsim_data_dir();
    return missing[0] ? missing : NULL;
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

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void gcsim_data_catalog_names(const char *folder, char *out, size_t size)
{
    if (!size)
        return;
    out[0] = '\0';
    char dir_path[PATH_MAX];
    int n = snprintf(dir_path, sizeof dir_path, "%s/%s", gcsim_data_dir(), folder);
    DIR *dir = n > 0 && (size_t)n < sizeof dir_path ? opendir(dir_path) : NULL;
    if (!dir)
        return;
    enum { MAX_NAMES = 256 }; /* the catalog holds a few dozen */
    char *names[MAX_NAMES];
    int count = 0;
    for (struct dirent *e; count < MAX_NAMES && (e = readdir(dir));) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 &&
            (names[count] = strndup(e->d_name, len - 5)))
            count++;
    }
    closedir(dir);
    qsort(names, (size_t)count, sizeof names[0], compare_names);
    size_t used = 0;
    for (int k = 0; k < count; k++) {
        size_t need = strlen(names[k]) + (k ? 2 : 0);
        if (used + need + 4 >= size) {
            snprintf(out + used, size - used, "...");
            for (; k < count; k++)
                free(names[k]);
            break;
        }
        used += (size_t)snprintf(out + used, size - used, "%s%s", k ? ", " : "", names[k]);
        free(names[k]);
    }
}
