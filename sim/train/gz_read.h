/*
 * sim/train/gz_read.h: a gzip file inflated into memory, for the dataset loaders
 * (fmnist.c, digits.c). Callers open the file themselves first, so that a missing file gets
 * their own message (Fashion-MNIST names its Debian package).
 */
#ifndef GCSIM_TRAIN_GZ_READ_H
#define GCSIM_TRAIN_GZ_READ_H

#include <stddef.h>

/* Inflates path into *data (malloc'd, one NUL byte after the *len bytes): all of it, or when
 * want_bytes > 0 only about its first want_bytes (*stopped_early = 1 when it stopped before
 * the end). More than max_bytes inflated (0: no limit) is refused. Returns 0, or -1 with the
 * reason (file, decompressed byte offset) in err. */
int train_gz_read(const char *path, size_t want_bytes, size_t max_bytes, unsigned char **data,
                  size_t *len, int *stopped_early, char *err, size_t err_len);

#endif
