/* sim/train/gz_read.c: see gz_read.h. */
#include "gz_read.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

int train_gz_read(const char *path, size_t want_bytes, size_t max_bytes, unsigned char **data,
                  size_t *len, int *stopped_early, char *err, size_t err_len)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return snprintf(err, err_len, "%s: cannot open as gzip", path), -1;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap + 1);
    *stopped_early = 0;
    for (;;) {
        if (!buf) {
            gzclose(gz);
            return snprintf(err, err_len, "%s: out of memory after %zu bytes", path, n), -1;
        }
        if (want_bytes > 0 && n >= want_bytes) {
            *stopped_early = 1;
            break;
        }
        if (n == cap) {
            if (max_bytes > 0 && cap >= max_bytes) {
                free(buf);
                gzclose(gz);
                return snprintf(err, err_len, "%s: more than %zu bytes once inflated", path,
                                max_bytes), -1;
            }
            unsigned char *grown = cap > (SIZE_MAX - 1) / 2 ? NULL : realloc(buf, cap * 2 + 1);
            if (!grown)
                free(buf);
            buf = grown;
            cap *= 2;
            continue;
        }
        /* gzread takes an unsigned count: at most 1 GiB a call. */
        size_t want = cap - n > (1u << 30) ? (1u << 30) : cap - n;
        if (want_bytes > 0 && want > want_bytes - n)
            want = want_bytes - n;
        int got = gzread(gz, buf + n, (unsigned)want);
        if (got < 0) {
            int code;
            const char *msg = gzerror(gz, &code);
            snprintf(err, err_len, "%s: gzip error at decompressed byte offset %zu: %s", path, n,
                     msg ? msg : "unknown");
            free(buf);
            gzclose(gz);
            return -1;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    gzclose(gz);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}
