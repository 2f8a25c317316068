/* The payload plan of a hand-built model: DGC sends weight matrices sparse and 1-D tensors
 * (bias, normalization parameters) dense, as its reference implementation does; sampled
 * selections are sized at their expected count (exact top-k). Sizes by hand. */
#include <string.h>

#include "check.h"
#include "payload.h"

int main(void)
{
    gcsim_layer layers[2] = {
        {.name = "conv", .kind = "conv", .weights = 100000, .bias = 64, .other_params = 128},
        {.name = "fc", .kind = "fc", .weights = 100000, .bias = 10},
    };
    gcsim_model m = {.name = "hand", .source_path = "hand.json", .batch_per_gpu = 1,
                     .n_layers = 2, .layers = layers};
    gcsim_error err;
    gcsim_payload_plan pl;

    /* Weights, 100000 values, exact top-100: header 1 + uleb(100000) (3 bytes) = 4,
     * uleb(100) 1, 100 rle entries of 6 (a run of 65535 zeros among 100 picks of 100000 is
     * absent in this draw; a run would add 2 bytes) -> 605.
     * Bias 64, dense: header 2, uleb(65) 1, 256 -> 259. BN 128: header 3, uleb(129) 2,
     * 512 -> 517. fc bias 10: header 2, uleb(11) 1, 40 -> 43. */
    CHECK(gcsim_payload_plan_build("dgc:sample=0", &m, &pl, &err) == 0);
    CHECK(pl.n_layers == 2);
    CHECK(pl.layer_bytes[0] == 605 + 259 + 517);
    CHECK(pl.layer_bytes[1] == 605 + 43);
    CHECK(pl.total_bytes == 605 + 259 + 517 + 605 + 43);
    CHECK(pl.dense_bytes == 4.0 * (100000 + 64 + 128 + 100000 + 10));
    CHECK(pl.measured);
    gcsim_payload_plan_free(&pl);

    /* The default sampled threshold is sized at its expected count: the same plan. */
    CHECK(gcsim_payload_plan_build("dgc", &m, &pl, &err) == 0);
    CHECK(pl.total_bytes == 605 + 259 + 517 + 605 + 43);
    gcsim_payload_plan_free(&pl);

    /* dense_1d=0: every tensor sparsified, at least one value each: bias 64 -> header 2,
     * uleb(1) 1, entry 6 = 9; BN 128 -> 3 + 1 + 6 = 10; fc bias 10 -> 2 + 1 + 6 = 9. */
    CHECK(gcsim_payload_plan_build("dgc:sample=0,dense_1d=0", &m, &pl, &err) == 0);
    CHECK(pl.total_bytes == 605 + 9 + 10 + 605 + 9);
    gcsim_payload_plan_free(&pl);

    /* Other compressors keep their own rule for 1-D tensors: fp16 sends every tensor as
     * header + 2n, the last layer's bias included. */
    CHECK(gcsim_payload_plan_build("fp16", &m, &pl, &err) == 0);
    CHECK(pl.total_bytes == (4 + 200000) + (2 + 128) + (3 + 256) + (4 + 200000) + (2 + 20));
    CHECK(!pl.measured);
    gcsim_payload_plan_free(&pl);
    CHECK_DONE();
}
