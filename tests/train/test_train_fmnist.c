/*
 * Fashion-MNIST IDX loading: the real Debian files, and hand-made IDX files that are
 * valid, have a wrong magic number, a wrong size, a bad label, or are missing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "../check.h"
#include "fmnist.h"

static char dir[64];

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void write_gz(const char *name, const unsigned char *data, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gzFile f = gzopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(gzwrite(f, data, (unsigned)len) == (int)len);
    gzclose(f);
}

/* Writes a 3-image dataset "syn": images filled with i*10+1, labels 2, 5, 9, with the
 * given images magic, rows and label value for the last label. */
static void write_synthetic(uint32_t magic, uint32_t rows, unsigned char last_label, size_t drop)
{
    size_t ilen = 16 + 3 * 28 * 28;
    unsigned char *img = calloc(1, ilen);
    put_be32(img, magic);
    put_be32(img + 4, 3);
    put_be32(img + 8, rows);
    put_be32(img + 12, 28);
    for (int i = 0; i < 3; i++)
        for (int p = 0; p < 784; p++) img[16 + i * 784 + p] = (unsigned char)(i * 10 + 1);
    write_gz("syn-images-idx3-ubyte.gz", img, ilen - drop);
    unsigned char lab[8 + 3] = {0, 0, 8, 1, 0, 0, 0, 3, 2, 5, 0};
    lab[10] = last_label;
    write_gz("syn-labels-idx1-ubyte.gz", lab, sizeof lab);
    free(img);
}

int main(void)
{
    char err[1024];
    fmnist_split s;

    /* The real files: 60,000 + 10,000 images of 28x28, labels 0..9. */
    CHECK(fmnist_load(FMNIST_DEFAULT_DIR, "t10k", 0, &s, err, sizeof err) == 0);
    CHECK(s.count == 10000 && s.pixels == 784);
    size_t per_class[10] = {0};
    for (size_t i = 0; i < s.count; i++) per_class[s.labels[i]]++;
    for (int k = 0; k < 10; k++) CHECK(per_class[k] == 1000); /* the test set is balanced */
    fmnist_free(&s);
    CHECK(fmnist_load(FMNIST_DEFAULT_DIR, "train", 100, &s, err, sizeof err) == 0);
    CHECK(s.count == 100);
    fmnist_free(&s);

    snprintf(dir, sizeof dir, "/tmp/gcsim-fmnist-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);

    /* Missing files name the path and the Debian package. */
    CHECK(fmnist_load(dir, "syn", 0, &s, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "syn-images-idx3-ubyte.gz");
    CHECK_STR_CONTAINS(err, "dataset-fashion-mnist");

    /* A valid file round-trips. */
    write_synthetic(0x00000803, 28, 9, 0);
    CHECK(fmnist_load(dir, "syn", 0, &s, err, sizeof err) == 0);
    CHECK(s.count == 3);
    if (s.count == 3) {
        CHECK(s.images[0] == 1 && s.images[784] == 11 && s.images[3 * 784 - 1] == 21);
        CHECK(s.labels[0] == 2 && s.labels[1] == 5 && s.labels[2] == 9);
    }
    fmnist_free(&s);

    /* Wrong magic (a float IDX file, type byte 0x0D) at byte 0. */
    write_synthetic(0x00000d03, 28, 9, 0);
    CHECK(fmnist_load(dir, "syn", 0, &s, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "syn-images-idx3-ubyte.gz: byte offset 0");
    CHECK_STR_CONTAINS(err, "magic");

    /* 27 rows: wrong image size, reported at the rows field (byte 8). */
    write_synthetic(0x00000803, 27, 9, 0);
    CHECK(fmnist_load(dir, "syn", 0, &s, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "byte offset 8");

    /* Truncated data: 16 + 3*784 - 5 bytes; the data starts at byte 16. */
    write_synthetic(0x00000803, 28, 9, 5);
    CHECK(fmnist_load(dir, "syn", 0, &s, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "byte offset 16");
    CHECK_STR_CONTAINS(err, "2352 bytes of data, file has 2347");
    /* Reading only the first image still catches it, through the gzip trailer. */
    CHECK(fmnist_load(dir, "syn", 1, &s, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "2352 bytes of data, file has 2347");
    /* A limit on a valid file keeps the first images. */
    write_synthetic(0x00000803, 28, 9, 0);
    CHECK(fmnist_load(dir, "syn", 2, &s, err, sizeof err) == 0);
    CHECK(s.count == 2 && s.images[784] == 11 && s.labels[1] == 5);
    fmnist_free(&s);

    /* Label 10 is not a class; the third label sits at byte 8 + 2 = 10. */
    write_synthetic(0x00000803, 28, 10, 0);
    CHECK(fmnist_load(dir, "syn", 0, &s, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "syn-labels-idx1-ubyte.gz: byte offset 10");

    char path[256];
    snprintf(path, sizeof path, "%s/syn-images-idx3-ubyte.gz", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/syn-labels-idx1-ubyte.gz", dir);
    unlink(path);
    rmdir(dir);
    CHECK_DONE();
}
