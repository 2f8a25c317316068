/*
 * The 8x8 UCI digits (sim/train/digits.h): the file carried in traces/datasets/digits, its fixed
 * train/test split, malformed files, the loader choice by folder, the networks on 8x8
 * inputs (parameter counts by hand, gradients against finite differences live in
 * test_train_gradcheck) and a short training run that must learn.
 */
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "../check.h"
#include "train.h"

static char dir[64];

static void write_digits(const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, DIGITS_FILE);
    gzFile f = gzopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(gzputs(f, text) == (int)strlen(text));
    gzclose(f);
}

/* n lines of 64 pixels p, p, ... and label = line index mod 10; pixel 0 of line `bad` is
 * bad_value (as text), or the line is cut short when bad_value is NULL. */
static void write_lines(int n, int bad, const char *bad_value)
{
    static char text[65536];
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        for (int p = 0; p < 64; p++) {
            if (i == bad && p == 0 && bad_value)
                len += (size_t)snprintf(text + len, sizeof text - len, "%s,", bad_value);
            else if (i == bad && !bad_value && p == 60)
                break;
            else
                len += (size_t)snprintf(text + len, sizeof text - len, "%d,", (i + p) % 17);
        }
        len += (size_t)snprintf(text + len, sizeof text - len, "%d\n", i % 10);
    }
    write_digits(text);
}

int main(void)
{
    char err[1024];
    fmnist_split tr, te;

    /* The carried file: 1,797 images; the last quarter rounded up (450) is the test set. */
    CHECK(train_data_load(GCSIM_SOURCE_DIR "/traces/datasets/digits", "train", 0, &tr, err, sizeof err) == 0);
    CHECK(train_data_load(GCSIM_SOURCE_DIR "/traces/datasets/digits", "t10k", 0, &te, err, sizeof err) == 0);
    CHECK(tr.count == 1347 && te.count == 450);
    CHECK(tr.pixels == 64 && tr.side == 8 && te.side == 8);
    CHECK_STR_CONTAINS(tr.name, "digits");
    /* Line 1: "0,0,5,13,9,1,0,0,..." label 0; lines 2 and 3 are a 1 and a 2. */
    CHECK(tr.images[2] == 5 && tr.images[3] == 13 && tr.labels[0] == 0);
    CHECK(tr.labels[1] == 1 && tr.labels[2] == 2);
    /* Line 1,348 (the first test image) starts 0,0,7,16 and is a 3; line 1,797 is an 8. */
    CHECK(te.images[2] == 7 && te.images[3] == 16 && te.labels[0] == 3 && te.labels[449] == 8);
    /* The test split's classes, counted with awk over the last 450 lines. */
    size_t per_class[10] = {0};
    const size_t expect[10] = {43, 46, 43, 47, 48, 45, 47, 45, 41, 45};
    for (size_t i = 0; i < te.count; i++) per_class[te.labels[i]]++;
    for (int k = 0; k < 10; k++) CHECK(per_class[k] == expect[k]);
    int max_pixel = 0;
    for (size_t i = 0; i < tr.count * tr.pixels; i++)
        if (tr.images[i] > max_pixel) max_pixel = tr.images[i];
    CHECK(max_pixel == 16);

    /* Training on 8x8 inputs learns: the MLP (64-128-10) passes 85% on the 450 test images
     * within 10 epochs (fp32 reaches 90 to 92% there, docs/train.md). */
    train_config c;
    train_config_defaults(&c);
    c.epochs = 10;
    c.workers = 4;
    train_summary sum;
    CHECK(train_run(&c, &tr, &te, NULL, NULL, &sum, err, sizeof err) == 0);
    CHECK(sum.params == 64 * 128 + 128 + 128 * 10 + 10);
    CHECK(sum.final_accuracy > 0.85);
    /* --stop-at-target ends the run at the evaluation that reaches the target, and the
     * iterations to it are those of the full run (the same steps up to there). */
    const long full_steps = sum.steps;
    c.target_accuracy = 0.8;
    c.eval_every = 2;
    CHECK(train_run(&c, &tr, &te, NULL, NULL, &sum, err, sizeof err) == 0);
    const long to_target = sum.steps_to_target;
    CHECK(to_target > 0 && sum.steps == full_steps);
    c.stop_at_target = 1;
    CHECK(train_run(&c, &tr, &te, NULL, NULL, &sum, err, sizeof err) == 0);
    CHECK(sum.steps_to_target == to_target && sum.steps == to_target && sum.steps < full_steps);
    CHECK(sum.final_accuracy >= 0.8);
    c.stop_at_target = 0;
    c.target_accuracy = 0;
    c.eval_every = 0;
    c.model = TRAIN_MODEL_LENET;
    c.epochs = 1;
    CHECK(train_run(&c, &tr, &te, NULL, NULL, &sum, err, sizeof err) == 0);
    /* conv1 156, conv2 (padded: 4x4 stays 4x4) 2,416, fc1 on 2x2x16 = 64 features 7,800,
     * fc2 10,164, fc3 850. */
    CHECK(sum.params == 21386);
    /* Images that do not match the network: 8x8 test images with a 28x28 training split. */
    fmnist_split wrong = tr;
    wrong.pixels = 784;
    wrong.side = 28;
    CHECK(train_run(&c, &wrong, &te, NULL, NULL, &sum, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "pixels");
    fmnist_free(&tr);
    fmnist_free(&te);

    snprintf(dir, sizeof dir, "/tmp/gcsim-digits-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    /* Eight lines: the test split is the last 2, a limit keeps the first of a split. */
    write_lines(8, -1, NULL);
    CHECK(train_data_load(dir, "train", 0, &tr, err, sizeof err) == 0);
    CHECK(tr.count == 6 && tr.labels[5] == 5 && tr.images[64 + 1] == 2);
    fmnist_free(&tr);
    CHECK(digits_load(dir, "t10k", 1, &te, err, sizeof err) == 0);
    CHECK(te.count == 1 && te.labels[0] == 6 && te.images[0] == 6);
    fmnist_free(&te);
    /* A pixel of 17, on line 3 field 1. */
    write_lines(8, 2, "17");
    CHECK(digits_load(dir, "train", 0, &tr, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "digits.csv.gz: line 3, field 1: 17 is out of range 0..16 (pixel)");
    /* Not a number. */
    write_lines(8, 4, "x");
    CHECK(digits_load(dir, "t10k", 0, &te, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "line 5, field 1: expected a non-negative integer");
    /* A short line (61 fields), even in the other split. */
    write_lines(8, 7, NULL);
    CHECK(digits_load(dir, "train", 0, &tr, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "line 8: 61 fields, expected 65");
    /* A label of 10 on the first of four lines. */
    {
        char text[1024] = "";
        for (int i = 0; i < 4; i++) {
            for (int p = 0; p < 64; p++) strcat(text, "0,");
            strcat(text, i == 0 ? "10\n" : "1\n");
        }
        write_digits(text);
    }
    CHECK(digits_load(dir, "train", 0, &tr, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "line 1, field 65: 10 is out of range 0..9 (label)");
    /* Too few lines to split. */
    write_lines(3, -1, NULL);
    CHECK(digits_load(dir, "train", 0, &tr, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "3 lines, need at least 4");
    /* Without digits.csv.gz the folder is read as Fashion-MNIST IDX files. */
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, DIGITS_FILE);
    unlink(path);
    CHECK(train_data_load(dir, "train", 0, &tr, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "train-images-idx3-ubyte.gz");
    rmdir(dir);

    /* LeNet needs at least 4x4 images; the dense models take any side. */
    CHECK(train_net_create_sized(TRAIN_MODEL_LENET, 1, 3) == NULL);
    train_net *n8 = train_net_create_sized(TRAIN_MODEL_SOFTMAX, 1, 8);
    CHECK(n8 && train_net_params(n8) == 650 && train_net_input_size(n8) == 64);
    train_net_free(n8);
    CHECK_DONE();
}
