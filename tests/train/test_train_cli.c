/*
 * `gcsim train` end to end (argv[1] is the gcsim binary): two runs with the same seed print
 * identical CSV, a missing data directory and an uneven batch split exit 2 with messages
 * naming the problem, and --dump-trace writes worker 0's gradients as readable safetensors.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "traces.h"

static const char *gcsim;

/* Runs gcsim with args (stderr merged into the capture); returns the exit code. */
static int run(const char *args, char *out, size_t out_len)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", gcsim, args);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, out_len - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 1;
    gcsim = argv[1];
    static char a[65536], b[65536], c[65536];
    const char *common = "train --limit-train 256 --limit-test 100 --epochs 2 --batch 32 "
                         "--workers 2 --format csv";
    char args[1024];
    snprintf(args, sizeof args, "%s --seed 3", common);
    CHECK(run(args, a, sizeof a) == 0);
    CHECK(run(args, b, sizeof b) == 0);
    CHECK(strcmp(a, b) == 0);
    CHECK_STR_CONTAINS(a, "epoch,iteration,train_loss,test_loss,test_accuracy,bits_per_worker");
    /* 2 epochs x 8 iterations. Each iteration a worker sends the 4 MLP tensors as "none"
     * payloads: a 1-byte format id, the element count as LEB128, then 4 bytes per element:
     *   fc1.weight 100,352 -> 1 + 3 + 401,408      fc1.bias 128 -> 1 + 2 + 512
     *   fc2.weight   1,280 -> 1 + 2 +   5,120      fc2.bias  10 -> 1 + 1 + 40
     * = 407,092 bytes = 3,256,736 bits; after 16 iterations 52,107,776 bits. */
    CHECK_STR_CONTAINS(a, "\n2,16,");
    CHECK_STR_CONTAINS(a, ",52107776\n");
    snprintf(args, sizeof args, "%s --seed 4", common);
    CHECK(run(args, c, sizeof c) == 0);
    CHECK(strcmp(a, c) != 0);

    CHECK(run("train --data /nonexistent-gcsim-dir --epochs 1", a, sizeof a) == 2);
    CHECK_STR_CONTAINS(a, "/nonexistent-gcsim-dir/train-images-idx3-ubyte.gz");
    CHECK_STR_CONTAINS(a, "dataset-fashion-mnist");
    CHECK(run("train --limit-train 256 --limit-test 10 --batch 30 --workers 4", a, sizeof a) == 2);
    CHECK_STR_CONTAINS(a, "--batch");
    CHECK(run("train --model resnet", a, sizeof a) == 2);
    CHECK_STR_CONTAINS(a, "--model");
    CHECK(run("train --dump-steps 1", a, sizeof a) == 2);

    char dir[64] = "/tmp/gcsim-train-cli-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    snprintf(args, sizeof args,
             "train --limit-train 256 --limit-test 10 --epochs 1 --batch 32 --workers 4 "
             "--dump-trace %s --dump-steps 0,3 --format json", dir);
    CHECK(run(args, a, sizeof a) == 0);
    CHECK_STR_CONTAINS(a, "\"test_accuracy\"");
    for (int step = 0; step <= 3; step += 3) {
        char path[256], err[512];
        snprintf(path, sizeof path, "%s/mlp-step%06d.safetensors", dir, step);
        gc_trace_file f;
        CHECK(gc_trace_open(path, &f, err, sizeof err) == 0);
        CHECK(f.n_tensors == 4);
        long idx = gc_trace_find(&f, "fc1.weight");
        CHECK(idx >= 0);
        if (idx >= 0) CHECK(f.tensors[idx].ndim == 2 && f.tensors[idx].shape[0] == 128 && f.tensors[idx].shape[1] == 784);
        long long s = -1;
        CHECK(gc_trace_step(&f, &s, err, sizeof err) == 0 && s == step);
        CHECK_STR_CONTAINS(gc_trace_meta_get(&f, "workers"), "4");
        gc_trace_close(&f);
        unlink(path);
    }
    rmdir(dir);
    CHECK_DONE();
}
