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

/* Block length of the row loops below: a fixed count, so that GCC vectorizes them at -O2
 * (its very cheap cost model takes only loops without a scalar remainder) and -O3 alike.
 * Every element's arithmetic is the same whatever the block or vector length. */
enum { BLK = 64 };

/* Transposes the cols x r row-major Q into Qt (r x cols), so that each of Q's columns is
 * contiguous: the row loops below then read it with unit stride for any rank. */
static void transpose_q(const float *Q, size_t cols, size_t r, float *Qt)
{
    for (size_t j = 0; j < cols; j++)
        for (size_t k = 0; k < r; k++)
            Qt[k * cols + j] = Q[j * r + k];
}

/* One row of the approximation P Q^T, sum_k P[i][k] Q[j][k] summed in float from 0 in
 * the order k = 0..r-1 (the one float arithmetic of the encoder's reconstruction, its
 * residual and the decoder), for j < jend: x[j] = that, or with residual set x[j] = x[j]
 * minus it (x holds M: the residual e = M - P Q^T in place). A block of BLK sums is kept
 * and the ranks are swept over it, so the k loop is outside the vectorized j loop whatever
 * r is (issue 47: written per element, GCC -O3 vectorized the k loop of length r, 1 to 4
 * in practice, with alias checks and a remainder per element: slower than scalar). */
GC_HOT static void approx_row(const float *restrict p, const float *restrict Qt, size_t cols,
                              size_t r, size_t jend, bool residual, float *restrict x)
{
    size_t j = 0;
    for (; j + BLK <= jend; j += BLK) {
        float s[BLK];
        for (int l = 0; l < BLK; l++)
            s[l] = 0;
        for (size_t k = 0; k < r; k++) {
            const float pk = p[k], *q = Qt + k * cols + j;
            for (int l = 0; l < BLK; l++)
                s[l] += pk * q[l];
        }
        if (residual)
            for (int l = 0; l < BLK; l++)
                x[j + (size_t)l] -= s[l];
        else
            for (int l = 0; l < BLK; l++)
                x[j + (size_t)l] = s[l];
    }
    for (; j < jend; j++) {
        float s = 0;
        for (size_t k = 0; k < r; k++)
            s += p[k] * Qt[k * cols + j];
        x[j] = residual ? x[j] - s : s;
    }
}

/* x[i*cols + j] = sum_k P[i][k] Q[j][k], or x minus it with residual, for the first n
 * entries */
static void approx_rows(const float *P, const float *Qt, size_t cols, size_t r, size_t n,
                        bool residual, float *x)
{
    for (size_t i = 0; i * cols < n; i++) {
        size_t jend = n - i * cols < cols ? n - i * cols : cols;
        approx_row(P + i * r, Qt, cols, r, jend, residual, x + i * cols);
    }
}

/* m += g over one row (m holds e: M = g + e in place, the same sums), in blocks that
 * vectorize at -O2 */
GC_HOT static void add_row(const float *restrict g, size_t len, float *restrict m)
{
    size_t j = 0;
    for (; j + BLK <= len; j += BLK)
        for (int l = 0; l < BLK; l++)
            m[j + (size_t)l] += g[j + (size_t)l];
    for (; j < len; j++)
        m[j] += g[j];
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

/* accT[k cols + j] += M[i][j] P[i][k] in double for ROWS consecutive full rows i (cols
 * entries each): Q = M^T P summed row by row, each entry's additions in row order as one
 * row at a time would make them (the product of two floats is exact in double). Kept
 * rank-major (k, then j) so that the j loop is contiguous for any rank; ROWS rows per pass
 * load and store each partial sum once instead of ROWS times. */
enum { ROWS = 4 };
GC_HOT static void mtp_rows(const float *restrict m, size_t cols, const float *restrict p,
                            size_t r, double *restrict accT)
{
    const float *m0 = m, *m1 = m + cols, *m2 = m + 2 * cols, *m3 = m + 3 * cols;
    size_t j = 0;
    for (; j + BLK <= cols; j += BLK)
        for (size_t k = 0; k < r; k++) {
            const double p0 = p[k], p1 = p[r + k], p2 = p[2 * r + k], p3 = p[3 * r + k];
            double *a = accT + k * cols + j;
            for (int l = 0; l < BLK; l++) {
                double v = a[l];
                v += (double)m0[j + (size_t)l] * p0;
                v += (double)m1[j + (size_t)l] * p1;
                v += (double)m2[j + (size_t)l] * p2;
                v += (double)m3[j + (size_t)l] * p3;
                a[l] = v;
            }
        }
    for (; j < cols; j++)
        for (size_t k = 0; k < r; k++) {
            double v = accT[k * cols + j];
            for (size_t i = 0; i < ROWS; i++)
                v += (double)m[i * cols + j] * p[i * r + k];
            accT[k * cols + j] = v;
        }
}

/* The same for one row of jend entries */
GC_HOT static void mtp_row(const float *restrict mrow, size_t jend, const float *restrict prow,
                           size_t r, size_t cols, double *restrict accT)
{
    for (size_t k = 0; k < r; k++) {
        const double pk = prow[k];
        double *a = accT + k * cols;
        size_t j = 0;
        for (; j + BLK <= jend; j += BLK)
            for (int l = 0; l < BLK; l++)
                a[j + (size_t)l] += (double)mrow[j + (size_t)l] * pk;
        for (; j < jend; j++)
            a[j] += (double)mrow[j] * pk;
    }
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
        gc_store_f32_array(d + 1, g, n);
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
    /* The payload is reserved before e is overwritten with M below */
    uint8_t *d = NULL;
    if (gc_put_u8(out, 0) || gc_put_uleb(out, rows) || gc_put_uleb(out, cols) ||
        gc_put_u8(out, (uint8_t)r) || !(d = gc_bytes_extend(out, 4 * r * (rows + cols))))
        goto oom;
    /* M = g + e is formed in e's own array and the residual M - P Q^T replaces it there:
     * each pass writes lines it has just read (no separate M to allocate, fill and read
     * back). */
    float *M = st->a, *P = malloc(rows * r * sizeof *P), *Qt = malloc(cols * r * sizeof *Qt);
    double *acc = calloc((rows > cols ? rows : cols) * r, sizeof *acc);
    gsl_matrix *A = gsl_matrix_alloc(rows, r);
    gsl_vector *tau = gsl_vector_alloc(r), *col = gsl_vector_alloc(rows);
    float *Qf = st->b;
    int rc = -1;
    if (!M || !P || !Qt || !acc || !A || !tau || !col || !Qf)
        goto done;
    /* M = g + e and P = M Q in one sweep of the rows (padding entries of M are zero): each
     * row of M is still in cache for its r dot products with the columns of Q */
    transpose_q(Qf, cols, r, Qt);
    for (size_t i = 0; i < rows; i++) {
        size_t jend = i + 1 < rows ? cols : n - i * cols;
        add_row(g + i * cols, jend, M + i * cols);
        for (size_t k = 0; k < r; k++)
            acc[i * r + k] = dot(M + i * cols, Qt + k * cols, jend);
    }
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
    if (qr != 0) { /* GSL fails only on mismatched sizes, which are never passed here;
                    * were it to fail, the tensor's residual would now hold M */
        gc_errf(err, err_len, "powersgd: QR factorization failed (%s)", gsl_strerror(qr));
        rc = -2;
        goto done;
    }
    /* Q = M^T P, rank-major in acc, then Q (cols x r) and its transpose Qt as floats; the
     * last row may be short */
    memset(acc, 0, cols * r * sizeof *acc);
    size_t i = 0;
    for (; i + ROWS < rows || (i + ROWS == rows && rows * cols == n); i += ROWS)
        mtp_rows(M + i * cols, cols, P + i * r, r, acc);
    for (; i < rows; i++)
        mtp_row(M + i * cols, i + 1 < rows ? cols : n - i * cols, P + i * r, r, cols, acc);
    for (size_t k = 0; k < r; k++)
        for (size_t j = 0; j < cols; j++)
            Qf[j * r + k] = Qt[k * cols + j] = (float)acc[k * cols + j];
    for (size_t i = 0; i < rows * r; i++)
        gc_store_f32(d + 4 * i, P[i]);
    for (size_t j = 0; j < cols * r; j++)
        gc_store_f32(d + 4 * (rows * r + j), Qf[j]);
    /* approximation and new error, e = M - P Q^T in M's (e's) array */
    if (!q) { /* no one asked for the approximation: the residual in one pass */
        approx_rows(P, Qt, cols, r, n, true, M);
    } else {
        approx_rows(P, Qt, cols, r, n, false, q);
        for (size_t i = 0; i < n; i++)
            M[i] -= q[i];
    }
    rc = 0;
done:
    if (rc == -1)
        gc_errf(err, err_len, "out of memory");
    free(P), free(Qt), free(acc);
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
    if (mode == 1)
        return gc_get_f32_array(r, out, n, "fp32 values", err, err_len);
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
    float *f = malloc(fl * sizeof *f), *Qt = malloc((size_t)cols * rank * sizeof *Qt);
    if (!f || !Qt) {
        free(f), free(Qt);
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < fl; i++) {
        f[i] = gc_load_f32(s + 4 * i);
        if (gc_check_finite_at(f[i], f_at + 4 * i, "factor entry", err, err_len)) {
            free(f), free(Qt);
            return -1;
        }
    }
    transpose_q(f + (size_t)rows * rank, (size_t)cols, rank, Qt);
    approx_rows(f, Qt, (size_t)cols, rank, n, false, out);
    free(f), free(Qt);
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
