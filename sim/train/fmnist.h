/*
 * sim/train/fmnist.h: Fashion-MNIST from its IDX files, read directly (gzip through zlib).
 *
 * Debian's dataset-fashion-mnist package installs train-images-idx3-ubyte.gz,
 * train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz under
 * /usr/share/datasets/fashion-mnist/. Loading validates the IDX magic numbers, the
 * dimensions (28x28), that image and label counts agree, that the payload has exactly the
 * announced length and that labels are 0..9; an error names the file and the byte offset
 * (in the decompressed stream). A missing file names the Debian package that provides it.
 */
#ifndef GCSIM_TRAIN_FMNIST_H
#define GCSIM_TRAIN_FMNIST_H

#include <stddef.h>

#define FMNIST_DEFAULT_DIR "/usr/share/datasets/fashion-mnist"
#define FMNIST_DEBIAN_PACKAGE "dataset-fashion-mnist"

/* One split of an image-classification dataset: Fashion-MNIST (this loader) or the UCI
 * digits (digits.h); the trainer takes either. */
typedef struct {
    size_t count;          /* images */
    size_t pixels;         /* per image: side * side (784 for Fashion-MNIST) */
    unsigned char *images; /* [count][pixels], 0..255 (the digits: 0..16) */
    unsigned char *labels; /* [count], 0..9 */
    int side;              /* square images of side x side pixels (28 for Fashion-MNIST) */
    const char *name;      /* "Fashion-MNIST", ... (static string) */
} fmnist_split;

/* Reads <dir>/<prefix>-images-idx3-ubyte.gz and <dir>/<prefix>-labels-idx1-ubyte.gz,
 * prefix "train" or "t10k". limit > 0 keeps only the first limit samples and inflates only
 * those (fast for tests); the data length is then checked against the gzip trailer's
 * uncompressed size and labels are checked as far as they are read. Returns 0, or -1 with
 * a message in err. */
int fmnist_load(const char *dir, const char *prefix, size_t limit, fmnist_split *out,
                char *err, size_t err_len);
void fmnist_free(fmnist_split *s);

#endif
