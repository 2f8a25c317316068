/*
 * traces/mapped_file.c: read-only memory mapping of a whole trace file, and the small
 * helpers every reader uses (errors as values, little-endian loads).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traces_internal.h"

int gc_trace_fail(char *err, size_t err_len, const char *fmt, ...)
{
    if (err && err_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

char *gc_trace_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int gc_trace_map_file(const char *path, const uint8_t **map, size_t *bytes, char *err,
                      size_t err_len)
{
    *map = NULL;
    *bytes = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return gc_trace_fail(err, err_len, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return gc_trace_fail(err, err_len, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return gc_trace_fail(err, err_len, "%s: not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return 0;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd); /* the mapping keeps the file alive */
    if (m == MAP_FAILED)
        return gc_trace_fail(err, err_len, "%s: cannot map: %s", path, strerror(e));
    *map = m;
    *bytes = (size_t)st.st_size;
    return 0;
}

void gc_trace_unmap_file(const uint8_t *map, size_t bytes)
{
    if (map && bytes)
        munmap((void *)(uintptr_t)map, bytes);
}

uint64_t gc_trace_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

uint32_t gc_trace_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

uint16_t gc_trace_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
