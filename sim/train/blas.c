/* sim/train/blas.c: which BLAS serves cblas_sgemm, and pinning it to one thread. */
#include "blas.h"

#ifdef GCSIM_TRAIN_OPENBLAS
/* Declared here rather than through OpenBLAS's cblas.h, whose prototypes clash with
 * gsl_cblas.h; the function exists in every OpenBLAS since 0.2. */
void openblas_set_num_threads(int num_threads);
#endif

void train_blas_init(void)
{
#ifdef GCSIM_TRAIN_OPENBLAS
    openblas_set_num_threads(1);
#endif
}

const char *train_blas_name(void)
{
#ifdef GCSIM_TRAIN_OPENBLAS
    return "openblas";
#else
    return "gslcblas";
#endif
}
