/*
 * sim/train/blas.h: the one BLAS call the training harness needs (single-precision GEMM),
 * through GSL's CBLAS interface. libgslcblas serves it unless OpenBLAS was found by CMake
 * (GCSIM_TRAIN_OPENBLAS), which is many times faster: then train_blas_init() loads
 * OpenBLAS at run time (dlopen), so that only `gcsim train` ever loads it, pinned to one
 * thread: the harness is single-threaded and a threaded GEMM would make sums
 * order-dependent.
 */
#ifndef GCSIM_TRAIN_BLAS_H
#define GCSIM_TRAIN_BLAS_H

#include <gsl/gsl_cblas.h>

/* Called by train_net_create and train_session_create; harmless to call again. */
void train_blas_init(void);

/* cblas_sgemm of the BLAS in use (GSL's until train_blas_init loads OpenBLAS). */
typedef void (*train_sgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE,
                               int, int, int, float, const float *, int, const float *, int,
                               float, float *, int);
extern train_sgemm_fn train_cblas_sgemm;

/* Which library serves cblas_sgemm, for reports: "openblas" or "gslcblas". */
const char *train_blas_name(void);

/* Row-major C = alpha * op(A) op(B) + beta * C with op(A) m x k, op(B) k x n. */
static inline void train_sgemm(int trans_a, int trans_b, int m, int n, int k, float alpha,
                               const float *a, const float *b, float beta, float *c)
{
    train_cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, trans_a ? m : k, b,
                trans_b ? k : n, beta, c, n);
}

#endif
