/*
 * tests/collectives/test_tuner_memo.c: the tuner's per-call choice kept per process
 * (sim/collectives/tuner_memo.h): a question asked again is answered from the memo with
 * the same answer, bit for bit; answers are keyed by the platform's contents (the same
 * address with other figures, or a copy elsewhere), the exact bytes and the question;
 * failures are not kept. Platforms U and R of test_platforms.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "protocol.h"
#include "test_platforms.h"
#include "tuner_memo.h"
#include "tuner_model.h"

static int choose(const gcsim_platform *p, int gpus, double bytes, gcsim_protocol pr,
                  gcsim_tuned *t, gcsim_error *err)
{
    memset(t, 0, sizeof *t);
    return gcsim_tuner_choose(p, gpus, GCSIM_OP_ALLREDUCE, bytes, COLLECTIVE_COUNT, pr, t, err);
}

int main(void)
{
    gcsim_error err;
    gcsim_tuned a, b;
    gcsim_platform r = platform_r(), u = platform_u();
    gcsim_tuner_memo_clear();
    size_t hits0 = gcsim_tuner_memo_hits();

    /* Asked twice: the second answer from the memo, the same bytes as the first. */
    CHECK(choose(&r, 16, 65536, GCSIM_PROTO_COUNT, &a, &err) == 0);
    CHECK(gcsim_tuner_memo_entries() == 1 && gcsim_tuner_memo_hits() == hits0);
    CHECK(choose(&r, 16, 65536, GCSIM_PROTO_COUNT, &b, &err) == 0);
    CHECK(gcsim_tuner_memo_hits() == hits0 + 1);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(a.collective == COLLECTIVE_DOUBLE_TREE); /* small messages on R: a tree */

    /* The exact bytes: the next double up is another question. */
    CHECK(choose(&r, 16, nextafter(65536, INFINITY), GCSIM_PROTO_COUNT, &b, &err) == 0);
    CHECK(gcsim_tuner_memo_entries() == 2 && gcsim_tuner_memo_hits() == hits0 + 1);
    /* Another GPU count, another protocol allowed: other questions. */
    CHECK(choose(&r, 8, 65536, GCSIM_PROTO_COUNT, &b, &err) == 0);
    CHECK(choose(&r, 16, 65536, GCSIM_PROTO_LL, &b, &err) == 0 && b.protocol == GCSIM_PROTO_LL);
    CHECK(gcsim_tuner_memo_entries() == 4);

    /* Keyed by contents: 8 GB on R is the ring; with NVLS in R's nodes (same address) the
     * NVLS-tree, as asked fresh; a copy of R elsewhere shares R's answer. */
    CHECK(choose(&r, 16, 8e9, GCSIM_PROTO_COUNT, &a, &err) == 0);
    CHECK(a.collective == COLLECTIVE_RING);
    r.intra.nvls_Bps = 274e9;
    r.nccl_version = 22705; /* before NVLS-tree's per-channel cap (2.28.3), whose row for
                             * R's (pre-Hopper) GPU ranks it behind the ring (test_protocol) */
    CHECK(choose(&r, 16, 8e9, GCSIM_PROTO_COUNT, &b, &err) == 0);
    CHECK(b.collective == COLLECTIVE_NVLS_TREE && b.algo == GCSIM_NCCL_NVLS_TREE);
    gcsim_platform copy = platform_r();
    size_t hits = gcsim_tuner_memo_hits();
    CHECK(choose(&copy, 16, 8e9, GCSIM_PROTO_COUNT, &b, &err) == 0);
    CHECK(gcsim_tuner_memo_hits() == hits + 1 && memcmp(&a, &b, sizeof a) == 0);

    /* A failure is not kept: asked again, it fails again with the same message. */
    size_t entries = gcsim_tuner_memo_entries();
    CHECK(choose(&u, 4, 65536, GCSIM_PROTO_LL128, &a, &err) != 0);
    char first[sizeof err.message];
    memcpy(first, err.message, sizeof first);
    CHECK_STR_CONTAINS(first, "LL128");
    CHECK(choose(&u, 4, 65536, GCSIM_PROTO_LL128, &a, &err) != 0);
    CHECK(strcmp(first, err.message) == 0);
    CHECK(gcsim_tuner_memo_entries() == entries);

    /* The raw interface: answers of another size or kind are other answers. */
    gcsim_tuner_memo_key k = {.kind = GCSIM_TUNER_MEMO_STACK, .gpus = 16, .nodes = 2, .op = -1,
                              .collective = -1, .protocol = -1, .bytes = 1e6};
    gcsim_collective c = COLLECTIVE_RING, got = COLLECTIVE_COUNT;
    double wide;
    CHECK(!gcsim_tuner_memo_get(&u, &k, &got, sizeof got));
    gcsim_tuner_memo_put(&u, &k, &c, sizeof c);
    CHECK(gcsim_tuner_memo_get(&u, &k, &got, sizeof got) && got == COLLECTIVE_RING);
    CHECK(!gcsim_tuner_memo_get(&u, &k, &wide, sizeof wide));
    k.kind = GCSIM_TUNER_MEMO_CHOOSE;
    CHECK(!gcsim_tuner_memo_get(&u, &k, &got, sizeof got));

    gcsim_tuner_memo_clear();
    CHECK(gcsim_tuner_memo_entries() == 0);
    CHECK_DONE();
}
