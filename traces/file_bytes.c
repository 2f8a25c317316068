/*
 * traces/file_bytes.c: a whole trace file read into memory, and the small helpers every
 * reader uses (errors as values, little-endian loads).
 *
 * Read, not memory-mapped: a mapped file that another program truncates while gcsim reads
 * it kills gcsim with SIGBUS (issue 15); a read sees the shorter file and says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_file.h"
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

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a folder"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
                            : "not a plain file";
}

int gc_open_regular(const char *path, char *err, size_t err_len)
{
    /* An empty argument (--log "") read as ": cannot open: No such file or directory". */
    if (!path[0]) {
        gc_trace_fail(err, err_len, "\"\": an empty file name");
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        gc_trace_fail(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        gc_trace_fail(err, err_len, "%s: cannot stat: %s", path, strerror(e));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        gc_trace_fail(err, err_len, "%s: not a regular file (%s)", path, file_kind(st.st_mode));
        return -1;
    }
    /* Reads of a regular file never block; clear the flag all the same. */
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

FILE *gc_fopen_regular(const char *path, char *err, size_t err_len)
{
    int fd = gc_open_regular(path, err, err_len);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        gc_trace_fail(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

int gc_trace_read_file(const char *path, const uint8_t **data, size_t *bytes, char *err,
                       size_t err_len)
{
    *data = NULL;
    *bytes = 0;
    int fd = gc_open_regular(path, err, err_len);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return gc_trace_fail(err, err_len, "%s: cannot stat: %s", path, strerror(e));
    }
    if (st.st_size == 0) {
        close(fd);
        return 0;
    }
    if ((unsigned long long)st.st_size > GC_TRACE_MAX_FILE_BYTES) {
        close(fd);
        return gc_trace_fail(err, err_len, "%s: %lld bytes, more than the %llu bytes gcsim "
                             "reads from one trace file", path, (long long)st.st_size,
                             (unsigned long long)GC_TRACE_MAX_FILE_BYTES);
    }
    size_t size = (size_t)st.st_size;
    uint8_t *buf = malloc(size);
    if (!buf) {
        close(fd);
        return gc_trace_fail(err, err_len, "%s: out of memory: cannot hold its %zu bytes",
                             path, size);
    }
    size_t got = 0;
    while (got < size) {
        size_t want = size - got < ((size_t)1 << 30) ? size - got : (size_t)1 << 30;
        ssize_t r = pread(fd, buf + got, want, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = errno;
            close(fd);
            free(buf);
            if (r == 0)
                return gc_trace_fail(err, err_len, "%s: the file shrank to %zu bytes while "
                                     "being read (it had %zu): truncated by another program?",
                                     path, got, size);
            return gc_trace_fail(err, err_len, "%s: read error at byte offset %zu: %s", path,
                                 got, strerror(e));
        }
        got += (size_t)r;
    }
    close(fd);
    *data = buf;
    *bytes = size;
    return 0;
}

void gc_trace_free_file(const uint8_t *data)
{
    free((void *)(uintptr_t)data);
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
