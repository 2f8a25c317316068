/*
 * sim/step/iteration_free.c: freeing a step (step.h): arrays a case memo lent go back to it
 * first. Its own file so that what keeps or copies steps (case_memo.c) does not depend on
 * what builds them (iteration.c).
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
    iteration_arrays_free(it);
}
