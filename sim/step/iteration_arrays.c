/*
 * sim/step/iteration_arrays.c: releasing the arrays an iteration owns. Its own file so that
 * gcsim_iteration_free (iteration_free.c), which first gives lent arrays back to their case
 * memo, and the case memo, which frees the iterations it keeps, both call it without
 * calling each other (tests/layering: no call circles).
 */
#include <stdlib.h>

#include "case_memo.h"

void iteration_arrays_free(gcsim_iteration *it)
{
    it->steps_room = it->calls_room = 0;
    free(it->steps);
    free(it->calls);
    it->steps = NULL;
    it->calls = NULL;
    it->n_steps = it->n_calls = 0;
    free(it->buckets);
    free(it->blocks);
    it->blocks = NULL;
    it->n_blocks = 0;
    free(it->layer_bucket);
    free(it->layer_payload_bytes);
    free(it->layer_encode_s);
    free(it->layer_decode_s);
    free(it->layer_elements);
    it->layers = NULL;
    it->layer_elements = NULL;
    it->buckets = NULL;
    it->layer_bucket = NULL;
    it->layer_payload_bytes = it->layer_encode_s = it->layer_decode_s = NULL;
    it->n_buckets = it->n_layers = 0;
}
