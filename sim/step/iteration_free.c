/*
 * sim/step/iteration_free.c: freeing a step (step.h). Its own file so that what keeps or
 * copies steps (case_memo.c) does not depend on what builds them (iteration.c).
 */
#include <stdlib.h>

#include "case_memo.h"
#include "step.h"

void gcsim_iteration_free(gcsim_iteration *it)
{
    /* Arrays a case memo lent go back to it (case_memo.c), for its next case. */
    if (it->lender)
        case_memo_take_back(it->lender, it);
    it->lender = NULL;
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
