/* compressors/c_powersgd.c: PowerSGD (Vogels et al. 2019), the low-rank compressor of
 * PyTorch DDP's powerSGD_hook: with error feedback M = g + e, warm-started Q (cols x r),
 *   P = M Q;  P <- orthonormal basis of P (Householder QR, GSL);  Q = M^T P;
 *   approximation P Q^T;  e <- M - P Q^T.
 * The tensor is a rows x cols row-major matrix: set per tensor with gc_compressor_set_shape,
 * else cols = the key cols (0: ceil(sqrt(n))) and rows = ceil(n / cols), zero-padded. Like
 * DDP's hook, a tensor that low rank would not shrink (r (rows + cols) >= n) is sent dense.
 *
 * Body: mode byte 0 (factors): uleb128 rows, uleb128 cols, u8 rank r, then P (rows x r fp32,
 * row-major), then Q (cols x r fp32, row-major); mode 1 (dense): n fp32. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <math.h>
#include <stdlib.h>

#include "internal.h"

enum { K_RANK, K_COLS, K_WARM };
static const gc_key keys[] = {
    {"rank", GK_INT, "1", 1, 255, NULL},
    {"cols", GK_INT, "0", 0, 4294967295.0, NULL},
    {"warm_start", GK_INT, "1", 0, 1, NULL},
};

static void default_shape(const double *p, size_t n, size_t *rows, size_t *cols)
{
    size_t c = (size_t)p[K_COLS];
    if (c == 0)
        c = (size_t)ceil(sqrt((double)n));
    if (c > n)
        c = n;
    if (c == 0)
        c = 1;
    *cols = c;
    *rows = (n + c - 1) / c;
}

static int dense(size_t rows, size_t cols, size_t r, size_t n)
{
    return r >= rows || r >= cols || r * (rows + cols) >= n;
}

/* sum_k P[i][k] Q[j][k]: the one float arithmetic of the encoder's reconstruction, its
 * residual and the decoder */
static inline float approx_at(const float *Pi, const float *Qj, size_t r)
{
    float s = 0;
    for (size_t k = 0; k < r; k++)
        s += Pi[k] * Qj[k];
    return s;
}

/* out[i*cols + j] = sum_k P[i][k] Q[j][k] for the first n entries */
static void reconstruct(const float *P, const float *Q, size_t cols, size_t r, size_t n,
                        float *out)
{
    for (size_t i = 0; i * cols < n; i++) {
        size_t jend = n - i * cols < cols ? n - i * cols : cols;
        for (size_t j = 0; j < jend; j++)
            out[i * cols + j] = approx_at(P + i * r, Q + j * r, r);
    }
}

/* e = M - P Q^T in one pass (the same floats as reconstructing, then subtracting) */
static void residual(const float *P, const float *Q, size_t cols, size_t r, size_t n,
                     const float *M, float *e)
{
    for (size_t i = 0; i * cols < n; i++) {
        size_t jend = n - i * cols < cols ? n - i * cols : cols;
        for (size_t j = 0; j < jend; j++)
            e[i * cols + j] = M[i * cols + j] - approx_at(P + i * r, Q + j * r, r);
    }
}

/* sum a[i] b[i] with 8 float lanes per block of 64, blocks summed in double */
GC_HOT static double dot(const float *restrict a, const float *restrict b, size_t len)
{
    double s = 0;
    size_t i = 0;
    for (; i + 64 <= len; i += 64) {
        float acc[8] = {0};
        for (int jj = 0; jj < 64; jj += 8)
            GC_LANE_LOOP
            for (int l = 0; l < 8; l++)
                acc[l] += a[i + (size_t)(jj + l)] * b[i + (size_t)(jj + l)];
        s += (double)((acc[0] + acc[1]) + (acc[2] + acc[3])) +
             (double)((acc[4] + acc[5]) + (acc[6] + acc[7]));
    }
    for (; i < len; i++)
        s += (double)a[i] * b[i];
    return s;
}

/* acc[j r + k] += sum_i M[i][j] P[i][k]: row by row, contiguous in j */
GC_HOT static void mtp(const float *restrict mrow, size_t jend, const float *restrict prow,
                       size_t r, double *restrict acc)
{
    for (size_t j = 0; j < jend; j++)
        for (size_t k = 0; k < r; k++)
            acc[j * r + k] += (double)mrow[j] * prow[k];
}

static int encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                  gc_bytes *out, float *q, char *err, size_t err_len)
{
    size_t rows = st->rows, cols = st->cols, r = (size_t)p[K_RANK];
    if (rows == 0)
        default_shape(p, n, &rows, &cols);
    else if (rows * cols != n) {
        gc_errf(err, err_len, "powersgd: shape %zu x %zu does not hold %zu elements", rows, cols,
                n);
        return -1;
    }
    if (n == 0 || dense(rows, cols, r, n)) {
        uint8_t *d = gc_bytes_extend(out, 1 + 4 * n);
        if (!d)
            goto oom;
        d[0] = 1;
        for (size_t i = 0; i < n; i++)
            gc_store_f32(d + 1 + 4 * i, g[i]);
        if (q && n)
            memcpy(q, g, 4 * n);
        return 0;
    }
    if (!st->a) {
        st->a = calloc(n, sizeof *st->a); /* error feedback e */
        st->a_len = n;
    }
    if (!st->b || st->b_len != cols * r || !p[K_WARM]) {
        free(st->b);
        st->b = malloc(cols * r * sizeof *st->b);
        st->b_len = cols * r;
        if (st->b)
            for (size_t i = 0; i < cols * r; i++)
                st->b[i] = (float)gc_rng_normal(rng);
    }
    if (st->c_len < n) { /* M = g + e, kept across steps */
        free(st->c);
        st->c = malloc(n * sizeof *st->c);
        st->c_len = st->c ? n : 0;
    }
    float *M = st->c, *P = malloc(rows * r * sizeof *P);
    double *acc = calloc((rows > cols ? rows : cols) * r, sizeof *acc);
    gsl_matrix *A = gsl_matrix_alloc(rows, r);
    gsl_vector *tau = gsl_vector_alloc(r), *col = gsl_vector_alloc(rows);
    float *Qf = st->b, *e = st->a;
    int rc = -1;
    if (!M || !P || !acc || !A || !tau || !col || !e || !Qf)
        goto done;
    for (size_t i = 0; i < n; i++)
        M[i] = g[i] + e[i];
    /* P = M Q (padding entries of M are zero); Q is transposed first so that each entry
     * of P is a contiguous dot product */
    float *Qt = malloc(cols * r * sizeof *Qt);
    if (!Qt)
        goto done;
    for (size_t j = 0; j < cols; j++)
        for (size_t k = 0; k < r; k++)
            Qt[k * cols + j] = Qf[j * r + k];
    for (size_t i = 0; i < rows; i++) {
        size_t jend = i + 1 < rows ? cols : n - i * cols;
        for (size_t k = 0; k < r; k++)
            acc[i * r + k] = dot(M + i * cols, Qt + k * cols, jend);
    }
    free(Qt);
    for (size_t i = 0; i < rows; i++)
        for (size_t k = 0; k < r; k++)
            gsl_matrix_set(A, i, k, acc[i * r + k]);
    /* orthogonalize: thin Q factor of the Householder QR, column k = Q e_k */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int qr = gsl_linalg_QR_decomp(A, tau);
    for (size_t k = 0; k < r && qr == 0; k++) {
        gsl_vector_set_basis(col, k);
        qr = gsl_linalg_QR_Qvec(A, tau, col);
        for (size_t i = 0; i < rows; i++)
            P[i * r + k] = (float)gsl_vector_get(col, i);
    }
    gsl_set_error_handler(old);
    if (qr != 0) {
        gc_errf(err, err_len, "powersgd: QR factorization failed (%s)", gsl_strerror(qr));
        rc = -2;
        goto done;
    }
    /* Q = M^T P */
    memset(acc, 0, cols * r * sizeof *acc);
    for (size_t i = 0; i < rows; i++)
        mtp(M + i * cols, i + 1 < rows ? cols : n - i * cols, P + i * r, r, acc);
    for (size_t j = 0; j < cols * r; j++)
        Qf[j] = (float)acc[j];
    if (gc_put_u8(out, 0) || gc_put_uleb(out, rows) || gc_put_uleb(out, cols) ||
        gc_put_u8(out, (uint8_t)r))
        goto done;
    uint8_t *d = gc_bytes_extend(out, 4 * r * (rows + cols));
    if (!d)
        goto done;
    for (size_t i = 0; i < rows * r; i++)
        gc_store_f32(d + 4 * i, P[i]);
    for (size_t j = 0; j < cols * r; j++)
        gc_store_f32(d + 4 * (rows * r + j), Qf[j]);
    /* approximation and new error; M is reused for the approximation */
    if (!q) { /* no one asked for the approximation: the residual in one pass */
        residual(P, Qf, cols, r, n, M, e);
    } else {
        reconstruct(P, Qf, cols, r, n, q);
        for (size_t i = 0; i < n; i++)
            e[i] = M[i] - q[i];
    }
    rc = 0;
done:
    if (rc == -1)
        gc_errf(err, err_len, "out of memory");
    free(P), free(acc);
    if (A)
        gsl_matrix_free(A);
    if (tau)
        gsl_vector_free(tau);
    if (col)
        gsl_vector_free(col);
    return rc ? -1 : 0;
oom:
    gc_errf(err, err_len, "out of memory");
    return -1;
}

static int decode(const double *p, gc_reader *r, float *out, size_t n, char *err,
                  size_t err_len)
{
    (void)p;
    uint8_t mode, rank;
    size_t at = r->pos;
    if (gc_get_u8(r, &mode, "powersgd mode byte", err, err_len) != 0)
        return -1;
    if (mode == 1) {
        if (n > SIZE_MAX / 4) {
            gc_errf(err, err_len, "element count %zu too large", n);
            return -1;
        }
        const uint8_t *s = gc_get_bytes(r, 4 * n, "fp32 values", err, err_len);
        if (!s)
            return -1;
        for (size_t i = 0; i < n; i++)
            out[i] = gc_load_f32(s + 4 * i);
        return 0;
    }
    if (mode != 0) {
        gc_errf(err, err_len, "bad powersgd mode %u at byte offset %zu", mode, at);
        return -1;
    }
    uint64_t rows, cols;
    size_t shape_at = r->pos;
    if (gc_get_uleb(r, &rows, "rows", err, err_len) || gc_get_uleb(r, &cols, "cols", err, err_len) ||
        gc_get_u8(r, &rank, "rank", err, err_len))
        return -1;
    /* every valid payload has rows = ceil(n / cols) (explicit shapes have rows * cols = n) */
    if (cols == 0 || cols > n || rows != (n + cols - 1) / cols || rank == 0 || rank >= rows ||
        rank >= cols) {
        gc_errf(err, err_len,
                "bad powersgd shape at byte offset %zu: %llu x %llu rank %u for %zu elements",
                shape_at, (unsigned long long)rows, (unsigned long long)cols, rank, n);
        return -1;
    }
    size_t fl = (size_t)rank * (size_t)(rows + cols);
    size_t f_at = r->pos;
    const uint8_t *s = gc_get_bytes(r, 4 * fl, "P and Q factors", err, err_len);
    if (!s)
        return -1;
    float *f = malloc(fl * sizeof *f);
    if (!f) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < fl; i++) {
        f[i] = gc_load_f32(s + 4 * i);
        if (gc_check_finite_at(f[i], f_at + 4 * i, "factor entry", err, err_len)) {
            free(f);
            return -1;
        }
    }
    reconstruct(f, f + (size_t)rows * rank, (size_t)cols, rank, n, out);
    free(f);
    return 0;
}

static bool fixed_body(const double *p, size_t n, size_t *bytes)
{
    size_t rows, cols, r = (size_t)p[K_RANK];
    default_shape(p, n, &rows, &cols);
    if (n == 0 || dense(rows, cols, r, n))
        *bytes = 1 + 4 * n;
    else
        *bytes = 1 + gc_uleb_len(rows) + gc_uleb_len(cols) + 1 + 4 * r * (rows + cols);
    return true;
}

static bool no(const double *p) { (void)p; return false; }

const gc_codec gc_codec_powersgd = {
    .name = "powersgd", .format_id = 17, .keys = keys, .nkeys = 3,
    .agg = GC_AGG_DENSE_SUMMABLE, .unbiased = no, .encode = encode, .decode = decode,
    .fixed_body = fixed_body,
};
