/*
 * tests/codec/test_codec_profile_memo.c: gcsim_codec_profile_read keeps the answers of the
 * files it parsed (sim/config/codec_profile_file.c, issue 47) and must give what a fresh
 * parse gives, whatever came before (argv[1]: the repository root):
 *   - the same file and spec read again: the same entry, byte for byte;
 *   - the same text asked for another spec or another GPU type: that question's answer (an
 *     entry, "no entry" (1), or the error naming the file);
 *   - the file rewritten in place with one number changed (the same length): the new number;
 *   - the file made invalid: the error, though its earlier text was kept;
 *   - more distinct questions than the memo keeps, asked twice over: every answer again.
 */
#define _GNU_SOURCE /* strdup, mkstemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "codec_profile_file.h"
#include "compressor.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *copy = malloc(n + 1);
    if (copy)
        memcpy(copy, buf, n + 1);
    return copy;
}

static int spill(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* text with the first `from` replaced by `to` (the same length) */
static char *replaced(const char *text, const char *from, const char *to)
{
    char *copy = strdup(text), *at = copy ? strstr(copy, from) : NULL;
    if (at)
        memcpy(at, to, strlen(to));
    return copy;
}

/* spec with every default filled in, as the reader matches it */
static const char *normalized(const char *spec)
{
    static char buf[256];
    gc_compressor *gc;
    char msg[256];
    if (gc_compressor_create(spec, &gc, msg, sizeof msg) != 0)
        return spec;
    snprintf(buf, sizeof buf, "%s", gc_compressor_spec(gc));
    gc_compressor_free(gc);
    return buf;
}

static int read_entry(const char *path, const char *gpu, const char *spec,
                      gcsim_codec_profile_entry *e, gcsim_error *err)
{
    memset(e, 0, sizeof *e);
    return gcsim_codec_profile_read(path, gpu, spec, e, err);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s REPO\n", argv[0]);
        return 2;
    }
    char shipped[1024], tmp[] = "/tmp/gcsim-profile-memo-XXXXXX";
    snprintf(shipped, sizeof shipped, "%s/platforms/codec/h100-pytorch.json", argv[1]);
    char *text = slurp(shipped);
    CHECK(text != NULL);
    if (!text)
        CHECK_DONE();
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd < 0)
        CHECK_DONE();
    close(fd);
    CHECK(spill(tmp, text) == 0);

    gcsim_error err;
    gcsim_codec_profile_entry a, b;
    /* fp16 encode at 4,194,304 elements: 13.584 us in the shipped file */
    CHECK(read_entry(tmp, "h100", "fp16", &a, &err) == 0);
    CHECK(a.n_points >= 4 && a.elements[3] == 4194304 && a.encode_s[3] == 13.584 * 1e-6);
    CHECK(read_entry(tmp, "h100", "fp16", &b, &err) == 0);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    /* another spec of the same text: its own entry, not fp16's */
    CHECK(read_entry(tmp, "h100", normalized("terngrad"), &b, &err) == 0);
    CHECK(b.entry != a.entry && strstr(b.measured_as, "fp16") != b.measured_as);
    /* a spec the file lacks, then another GPU type: not fp16's answer */
    CHECK(read_entry(tmp, "h100", normalized("ecq"), &b, &err) == 1);
    CHECK(read_entry(tmp, "v100", "fp16", &b, &err) == -1);
    CHECK_STR_CONTAINS(err.message, "$.gpu");
    CHECK_STR_CONTAINS(err.message, tmp);
    /* without a spec (the platform reader's check) */
    CHECK(gcsim_codec_profile_read(tmp, "h100", NULL, NULL, &err) == 0);

    /* the same path, one digit changed: the new value */
    char *changed = replaced(text, "13.584", "13.585");
    CHECK(changed && strcmp(changed, text) != 0 && strlen(changed) == strlen(text));
    CHECK(spill(tmp, changed) == 0);
    CHECK(read_entry(tmp, "h100", "fp16", &b, &err) == 0);
    CHECK(b.encode_s[3] == 13.585 * 1e-6);
    /* and back: the first answer again */
    CHECK(spill(tmp, text) == 0);
    CHECK(read_entry(tmp, "h100", "fp16", &b, &err) == 0);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    /* made invalid: the error, not the kept answer */
    char *broken = replaced(text, "\"fp16\"", "\"fp17\"");
    CHECK(spill(tmp, broken) == 0);
    for (int again = 0; again < 2; again++) { /* and again: an error is not kept */
        err.message[0] = '\0';
        CHECK(read_entry(tmp, "h100", "fp16", &b, &err) == -1);
        CHECK_STR_CONTAINS(err.message, "fp17");
    }

    /* 24 distinct texts (more than the memo's 16), each asked twice in two passes */
    double want[24];
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < 24; k++) {
            char to[8];
            snprintf(to, sizeof to, "13.%03d", 600 + k);
            char *t = replaced(text, "13.584", to);
            CHECK(spill(tmp, t) == 0);
            for (int again = 0; again < 2; again++) {
                CHECK(read_entry(tmp, "h100", "fp16", &b, &err) == 0);
                if (pass == 0 && again == 0)
                    want[k] = (600 + k) * 1e-9 + 13e-6;
                CHECK(b.encode_s[3] == b.encode_s[3] && b.elements[3] == 4194304);
                CHECK(fabs(b.encode_s[3] - want[k]) < 1e-15);
            }
            free(t);
        }
    remove(tmp);
    free(text);
    free(changed);
    free(broken);
    CHECK_DONE();
}
