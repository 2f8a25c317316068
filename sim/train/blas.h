/*
 * sim/train/blas.h: the one BLAS call the training harness needs (single-precision GEMM),
 * through GSL's CBLAS interface. The same symbol, cblas_sgemm, is provided by libgslcblas
 * (always linked) and by OpenBLAS when CMake finds it (GCSIM_TRAIN_OPENBLAS); OpenBLAS is
 * many times faster, so it is linked first. train_blas_init() pins OpenBLAS to one thread:
 * the harness is single-threaded and a threaded GEMM would make sums order-dependent.
 */
#ifndef GCSIM_TRAIN_BLAS_H
#define GCSIM_TRAIN_BLAS_H

#include <gsl/gsl_cblas.h>

/* Called by train_net_create; harmless to call again. */
void train_blas_init(void);

/* Which library serves cblas_sgemm, for reports: "openblas" or "gslcblas". */
const char *train_blas_name(void);

/* Row-major C = alpha * op(A) op(B) + beta * C with op(A) m x k, op(B) k x n. */
static inline void train_sgemm(int trans_a, int trans_b, int m, int n, int k, float alpha,
                               const float *a, const float *b, float beta, float *c)
{
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, trans_a ? m : k, b,
                trans_b ? k : n, beta, c, n);
}

#endif
