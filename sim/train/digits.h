/*
 * sim/train/digits.h: the UCI "Optical Recognition of Handwritten Digits" images (Alpaydin
 * and Kaynak 1998) in scikit-learn's copy, digits.csv.gz: 1,797 images of 8x8 pixels with
 * values 0..16, one per line as 64 comma-separated integers followed by the label 0..9.
 * The repository carries the file in traces/datasets/digits/ (README.md there: source, licence).
 *
 * The file has no train/test split; this loader fixes one: the last quarter of the lines
 * (rounded up: 450 of 1,797, scikit-learn's train_test_split default fraction) is "t10k"
 * (the test split, named as Fashion-MNIST's so callers need not care), the rest "train".
 * Errors name the file and line.
 */
#ifndef GCSIM_TRAIN_DIGITS_H
#define GCSIM_TRAIN_DIGITS_H

#include <stddef.h>

#include "fmnist.h"

#define DIGITS_FILE "digits.csv.gz"
#define DIGITS_SIDE 8
#define DIGITS_MAX_PIXEL 16

/* Reads <dir>/digits.csv.gz; prefix "train" or "t10k". limit > 0 keeps only the first
 * limit samples of the split. Returns 0, or -1 with a message in err. */
int digits_load(const char *dir, const char *prefix, size_t limit, fmnist_split *out,
                char *err, size_t err_len);

/* The split a loader for --data DIR picks: digits when DIR holds digits.csv.gz, else
 * Fashion-MNIST's IDX files (fmnist_load). */
int train_data_load(const char *dir, const char *prefix, size_t limit, fmnist_split *out,
                    char *err, size_t err_len);

#endif
