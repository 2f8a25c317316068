/* compressors/qsgd_core.h: the QSGD quantizer (Alistarh et al. 2017; ECQ-SGD Eq. 8-9) and
 * its encodings (fixed width, Elias omega, Elias gamma), shared by the qsgd and ecq compressors. */
#ifndef GCSIM_COMPRESSORS_QSGD_CORE_H
#define GCSIM_COMPRESSORS_QSGD_CORE_H

#include "internal.h"

typedef struct {
    int s;          /* non-zero levels per sign */
    size_t bucket;  /* elements per bucket (0: whole tensor) */
    int linf;       /* scale by max |x| instead of ||x||_2 */
    int code;       /* gc_qsgd_code: index into gc_code_choices */
} gc_qsgd_params;

/* Values of the key code (same order as gc_code_choices). */
enum gc_qsgd_code { GC_QSGD_FIXED = 0, GC_QSGD_ELIAS = 1 /* omega */, GC_QSGD_GAMMA = 2 };

extern const char *const gc_norm_choices[];
extern const char *const gc_code_choices[];

/* Bits per element of the fixed-width code: ceil(log2(2s+1)). */
int gc_qsgd_width(int s);
/* Quantize x and append the body; q (may be NULL) receives the reconstruction. */
int gc_qsgd_encode_body(const gc_qsgd_params *qp, const float *x, size_t n, gc_rng *rng,
                        gc_bytes *out, float *q, char *err, size_t err_len);
int gc_qsgd_decode_body(const gc_qsgd_params *qp, gc_reader *r, float *out, size_t n,
                        char *err, size_t err_len);
bool gc_qsgd_fixed_body(const gc_qsgd_params *qp, size_t n, size_t *bytes);
/* E||Q(x)-x||^2 bound (see compressor.h). */
double gc_qsgd_variance_bound(const gc_qsgd_params *qp, const float *x, size_t n);

#endif
