/* sim/train/fmnist.c: IDX (gzip) reader for Fashion-MNIST; see fmnist.h. */
#include "fmnist.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gz_read.h"

enum { IDX_UBYTE = 0x08, SIDE = 28, CLASSES = 10 };

/* The gzip trailer's ISIZE: the uncompressed length modulo 2^32 (RFC 1952, section 2.3.1),
 * read from the last 4 bytes of the file. */
static int gzip_isize(const char *path, uint32_t *isize)
{
    FILE *f = fopen(path, "rb");
    unsigned char b[4];
    int ok = f && fseek(f, -4, SEEK_END) == 0 && fread(b, 1, 4, f) == 4;
    if (f) fclose(f);
    if (!ok) return -1;
    *isize = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return 0;
}

/* Decompresses the file into memory: all of it (Fashion-MNIST's largest file is 47 MB), or
 * when want > 0 only its first want bytes; then *total is the length the gzip trailer
 * records, so sizes can still be checked without inflating the rest. */
static int read_gz(const char *path, size_t want_bytes, unsigned char **data, size_t *len,
                   size_t *total, char *err, size_t err_len)
{
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        int e = errno;
        if (e == ENOENT)
            snprintf(err, err_len,
                     "%s: file not found; Fashion-MNIST is provided by the Debian package %s "
                     "(apt-get install %s), or pass --data DIR",
                     path, FMNIST_DEBIAN_PACKAGE, FMNIST_DEBIAN_PACKAGE);
        else
            snprintf(err, err_len, "%s: cannot open: %s", path, strerror(e));
        return -1;
    }
    fclose(probe);
    unsigned char *buf;
    size_t n;
    int stopped_early;
    if (train_gz_read(path, want_bytes, 0, &buf, &n, &stopped_early, err, err_len))
        return -1;
    *total = n;
    if (stopped_early) {
        uint32_t isize;
        if (gzip_isize(path, &isize) != 0) {
            free(buf);
            snprintf(err, err_len, "%s: cannot read the gzip trailer", path);
            return -1;
        }
        /* Fashion-MNIST files are far below 4 GiB, where ISIZE is the exact length. */
        *total = isize;
    }
    *data = buf;
    *len = n;
    return 0;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Checks the IDX header of an unsigned-byte file with ndim dimensions; fills dims. */
/* len: bytes in data; total: bytes in the whole decompressed file (>= len). */
static int check_idx(const char *path, const unsigned char *data, size_t len, size_t total,
                     int ndim, uint32_t *dims, char *err, size_t err_len)
{
    const size_t header = 4 + 4 * (size_t)ndim;
    if (len < header) {
        snprintf(err, err_len, "%s: byte offset %zu: file ends inside the %zu-byte IDX header",
                 path, len, header);
        return -1;
    }
    if (data[0] != 0 || data[1] != 0 || data[2] != IDX_UBYTE || data[3] != ndim) {
        snprintf(err, err_len,
                 "%s: byte offset 0: IDX magic is 0x%02x%02x%02x%02x, expected 0x000008%02x "
                 "(unsigned bytes, %d dimensions)",
                 path, data[0], data[1], data[2], data[3], ndim, ndim);
        return -1;
    }
    size_t expect = 1;
    for (int i = 0; i < ndim; i++) {
        dims[i] = be32(data + 4 + 4 * i);
        expect *= dims[i];
    }
    if (ndim == 3 && (dims[1] != SIDE || dims[2] != SIDE)) {
        snprintf(err, err_len, "%s: byte offset 8: images are %ux%u, expected %dx%d", path,
                 dims[1], dims[2], SIDE, SIDE);
        return -1;
    }
    if (total - header != expect) {
        snprintf(err, err_len,
                 "%s: byte offset %zu: header announces %zu bytes of data, file has %zu", path,
                 header, expect, total - header);
        return -1;
    }
    return 0;
}

int fmnist_load(const char *dir, const char *prefix, size_t limit, fmnist_split *out,
                char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    char ipath[4096], lpath[4096];
    snprintf(ipath, sizeof ipath, "%s/%s-images-idx3-ubyte.gz", dir, prefix);
    snprintf(lpath, sizeof lpath, "%s/%s-labels-idx1-ubyte.gz", dir, prefix);
    unsigned char *idata = NULL, *ldata = NULL;
    size_t ilen = 0, llen = 0, itotal = 0, ltotal = 0;
    uint32_t idims[3], ldims[1];
    const size_t pixels = (size_t)SIDE * SIDE;
    /* With a limit only the first samples are inflated; sizes are checked against the gzip
     * trailers, labels only as far as they are read. */
    if (read_gz(ipath, limit ? 16 + limit * pixels : 0, &idata, &ilen, &itotal, err, err_len) != 0)
        return -1;
    if (check_idx(ipath, idata, ilen, itotal, 3, idims, err, err_len) != 0) goto fail;
    if (read_gz(lpath, limit ? 8 + limit : 0, &ldata, &llen, &ltotal, err, err_len) != 0) goto fail;
    if (check_idx(lpath, ldata, llen, ltotal, 1, ldims, err, err_len) != 0) goto fail;
    if (idims[0] != ldims[0]) {
        snprintf(err, err_len, "%s: byte offset 4: %u labels, but %s has %u images", lpath,
                 ldims[0], ipath, idims[0]);
        goto fail;
    }
    size_t count = idims[0];
    if (limit > 0 && limit < count) count = limit;
    if (ilen < 16 + count * pixels || llen < 8 + count) {
        snprintf(err, err_len, "%s: byte offset %zu: gzip stream ends early", ilen < 16 + count * pixels ? ipath : lpath,
                 ilen < 16 + count * pixels ? ilen : llen);
        goto fail;
    }
    for (size_t i = 0; i < count; i++)
        if (ldata[8 + i] >= CLASSES) {
            snprintf(err, err_len, "%s: byte offset %zu: label %u is not a class 0..%d", lpath,
                     8 + i, ldata[8 + i], CLASSES - 1);
            goto fail;
        }
    out->count = count;
    out->pixels = pixels;
    out->side = SIDE;
    out->name = "Fashion-MNIST";
    /* Keep only the payloads: shift them to the start of their buffers. */
    memmove(idata, idata + 16, count * out->pixels);
    memmove(ldata, ldata + 8, count);
    out->images = idata;
    out->labels = ldata;
    return 0;
fail:
    free(idata);
    free(ldata);
    return -1;
}

void fmnist_free(fmnist_split *s)
{
    free(s->images);
    free(s->labels);
    memset(s, 0, sizeof *s);
}
