/* Helpers for the traces tests: write raw bytes to a file under a scratch directory. */
#ifndef GCSIM_TESTS_TRACE_TEST_UTIL_H
#define GCSIM_TESTS_TRACE_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *scratch_dir = ".";

static inline void scratch_path(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", scratch_dir, name);
}

static inline void scratch_init(int argc, char **argv)
{
    if (argc > 1) {
        scratch_dir = argv[1];
        mkdir(scratch_dir, 0777);
    }
}

static inline int write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, len, f);
    fclose(f);
    return w == len ? 0 : -1;
}

/* A safetensors file from a header string and data bytes: the length prefix is
 * strlen(header) unless header_len_override is not zero. */
static inline int write_safetensors_raw(const char *path, const char *header, const void *data,
                                 size_t data_len, uint64_t header_len_override)
{
    static uint8_t buf[1 << 16];
    size_t hl = strlen(header);
    uint64_t prefix = header_len_override ? header_len_override : hl;
    if (8 + hl + data_len > sizeof buf)
        return -1;
    for (int b = 0; b < 8; b++)
        buf[b] = (uint8_t)(prefix >> (8 * b));
    memcpy(buf + 8, header, hl);
    if (data_len)
        memcpy(buf + 8 + hl, data, data_len);
    return write_bytes(path, buf, 8 + hl + data_len);
}

#endif
