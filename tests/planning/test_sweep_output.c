/*
 * The sweep writer's cells (sim/planning/sweep_output.c) against printf, which they
 * replaced for speed: an integer cell is exactly "%lld" and a number cell exactly
 * "%.17g" (empty when not finite), for edge values, for 2,000,000 random bit patterns
 * of doubles (every exponent, subnormals included), for the exact halfway cases at the
 * seventeenth digit and for short mantissas at every exponent; strings are written as before (plain,
 * quoted, quotes doubled, line breaks as spaces). Usage: test_sweep_output
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_rng.h"
#include "planning.h"

/* The CSV text of one row of cells written by `fill`. */
static char *row(void (*fill)(sweep_writer *, const void *), const void *arg)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    sweep_writer w;
    static const char *const keys[] = {"a", "b", "c"};
    sweep_writer_begin(&w, SWEEP_CSV, f, keys, 3); /* header "a,b,c\n" */
    sweep_row_begin(&w);
    fill(&w, arg);
    sweep_row_end(&w);
    fclose(f);
    return text;
}

static void fill_int(sweep_writer *w, const void *arg)
{
    sweep_cell_int(w, *(const long long *)arg);
}

static void fill_num(sweep_writer *w, const void *arg)
{
    sweep_cell_num(w, *(const double *)arg);
}

static void fill_str(sweep_writer *w, const void *arg)
{
    sweep_cell_str(w, (const char *)arg);
}

static int int_same(long long v)
{
    char *got = row(fill_int, &v), want[64];
    snprintf(want, sizeof want, "a,b,c\n%lld\n", v);
    int ok = got && strcmp(got, want) == 0;
    if (!ok)
        fprintf(stderr, "int %lld: got \"%s\", want \"%s\"\n", v, got ? got : "", want);
    free(got);
    return ok;
}

/* Many numbers in one row each time would be faster, but one per row names the one that
 * differs. */
static int num_same(double v)
{
    char *got = row(fill_num, &v), want[64];
    if (isfinite(v))
        snprintf(want, sizeof want, "a,b,c\n%.17g\n", v);
    else
        snprintf(want, sizeof want, "a,b,c\n\n");
    int ok = got && strcmp(got, want) == 0;
    if (!ok)
        fprintf(stderr, "double %a: got \"%s\", want \"%s\"\n", v, got ? got : "", want);
    free(got);
    return ok;
}

static int str_is(const char *s, const char *want_cell)
{
    char *got = row(fill_str, s), want[256];
    snprintf(want, sizeof want, "a,b,c\n%s\n", want_cell);
    int ok = got && strcmp(got, want) == 0;
    if (!ok)
        fprintf(stderr, "string: got \"%s\", want \"%s\"\n", got ? got : "", want);
    free(got);
    return ok;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next_u64(void) { return test_xorshift64star(&rng); }

int main(void)
{
    const long long ints[] = {0, 1, -1, 9, 10, -10, 99, 100, 307199, 307200,
                              1000000007, INT_MAX, INT_MIN, LLONG_MAX, LLONG_MIN,
                              LLONG_MIN + 1, 12345678901234567LL};
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
        CHECK(int_same(ints[k]));

    const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1e-300, DBL_MIN, DBL_MAX,
                            DBL_TRUE_MIN, -DBL_TRUE_MIN, DBL_MIN / 3, DBL_EPSILON, 1e22, 1e23,
                            9007199254740993.0, 123456789012345678.0, 0x1p-25 /* ties at 18 digits */,
                            2.98023223876953125e-08, 5e-324, 1.7976931348623157e308,
                            938.00381064048088, 0.034114999999999993, INFINITY, -INFINITY,
                            NAN};
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++)
        CHECK(num_same(edges[k]));
    /* every power of ten a double holds, and its neighbours */
    for (int e = -323; e <= 308; e++) {
        double p = pow(10.0, e);
        CHECK(num_same(p));
        CHECK(num_same(nextafter(p, 0)));
        CHECK(num_same(nextafter(p, INFINITY)));
    }
    int bad = 0;
    for (long k = 0; k < 2000000 && bad < 10; k++) {
        uint64_t u = next_u64();
        double v;
        memcpy(&v, &u, sizeof v);
        if (!num_same(v))
            bad++;
    }
    CHECK(bad == 0);
    /* Exact halfway cases at the seventeenth digit, which the writer's fast path must
     * leave to the exact one (sim/planning/number_text.c): v x 10^(16 - X) = n + 1/2 needs
     * v = m x 2^-(17 - X) with m odd, possible for X = 0..15 only. Both signs. */
    bad = 0;
    for (int X = 0; X <= 15; X++) {
        double lo_m = pow(10.0, X) * ldexp(1.0, 17 - X), span = 9 * lo_m; /* m's range */
        for (int k = 0; k < 2000 && bad < 10; k++) {
            double m = lo_m + (double)(next_u64() % (uint64_t)span);
            if (fmod(m, 2.0) == 0)
                m += 1;
            double v = ldexp(m, -(17 - X));
            if (!num_same(v) || !num_same(-v))
                bad++;
        }
    }
    CHECK(bad == 0);
    /* short mantissas (1 to 53 bits) at every binary exponent: exact values and ties */
    bad = 0;
    for (int e = -1074; e <= 971 && bad < 10; e++)
        for (int k = 0; k < 40; k++) {
            int bits = 1 + (int)(next_u64() % 53);
            uint64_t m = next_u64() >> (64 - bits);
            double v = ldexp((double)(m | 1), e);
            if (isfinite(v) && !num_same(v))
                bad++;
        }
    CHECK(bad == 0);

    CHECK(str_is("resnet-50", "resnet-50"));
    CHECK(str_is("qsgd:s=4,bucket=512", "\"qsgd:s=4,bucket=512\""));
    CHECK(str_is("say \"hi\"", "\"say \"\"hi\"\"\""));
    CHECK(str_is("two\nlines\r", "two lines "));
    CHECK(str_is("", ""));
    CHECK_DONE();
}
