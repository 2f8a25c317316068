/*
 * tests/fuzz/replay_main.c: a stand-alone driver for the fuzz targets, for builds without
 * libFuzzer (gcc, or clang without GCSIM_FUZZ). It feeds every file named on the command
 * line, or found in a directory named there, to LLVMFuzzerTestOneInput once, so the
 * committed corpora and regression inputs are replayed by CTest with any compiler. A
 * broken contract aborts inside the target; a corpus that yields no file is an error, so
 * a mistyped path cannot pass silently.
 *
 *   replay_<target> FILE_OR_DIR...
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_target.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            fprintf(stderr, "%s: out of memory\n", path);
            return -1;
        }
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap)
            break;
        cap *= 2;
        uint8_t *grown = realloc(buf, cap);
        if (!grown)
            free(buf);
        buf = grown;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        fprintf(stderr, "%s: read error\n", path);
        return -1;
    }
    /* An exact-size copy, as libFuzzer passes it, so overreads are caught by ASan. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    if (len)
        memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int filter_hidden(const struct dirent *d) { return d->d_name[0] != '.'; }

int main(int argc, char **argv)
{
    long replayed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            return 2;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (replay_file(argv[i]) != 0)
                return 2;
            replayed++;
            continue;
        }
        struct dirent **entries = NULL;
        int n = scandir(argv[i], &entries, filter_hidden, alphasort);
        if (n < 0) {
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            return 2;
        }
        int rc = 0;
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], entries[k]->d_name);
            if (rc == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (replay_file(path) != 0)
                    rc = 2;
                else
                    replayed++;
            }
            free(entries[k]);
        }
        free(entries);
        if (rc)
            return rc;
    }
    if (replayed == 0) {
        fprintf(stderr, "no input replayed: give corpus files or non-empty directories\n");
        return 2;
    }
    printf("replayed %ld inputs\n", replayed);
    return 0;
}
