/*
 * tests/fuzz/fuzz_nccl_log.c: the nccl-tests log reader (nccl_log_parse, sim/calibrate/
 * nccl_log.h) on arbitrary bytes, then the busbw check and the ring fit on what it accepts.
 *
 * Contract checked: failure names the origin and a line ("line N"), and holds no rows;
 * success gives 1 to NCCL_LOG_MAX_ROWS rows, 12 or 13 columns, strictly increasing positive
 * sizes, positive finite times and finite non-negative bandwidths; a fit either fails with a
 * message naming the origin or gives a finite alpha >= 0 and a positive finite B.
 */
#include <math.h>

#include "fuzz_target.h"
#include "nccl_log.h"
#include "ring_fit.h"

#define ORIGIN "fuzz.log"

static void check_timing(const nccl_timing *t)
{
    FUZZ_REQUIRE(isfinite(t->time_s) && t->time_s > 0, "time %g", t->time_s);
    FUZZ_REQUIRE(isfinite(t->algbw_Bps) && t->algbw_Bps >= 0, "algbw %g", t->algbw_Bps);
    FUZZ_REQUIRE(isfinite(t->busbw_Bps) && t->busbw_Bps >= 0, "busbw %g", t->busbw_Bps);
    FUZZ_REQUIRE(t->wrong <= 0, "wrong %lld accepted", t->wrong);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nccl_log log;
    gcsim_error err;
    memset(&err, 0, sizeof err);
    if (nccl_log_parse((const char *)data, size, ORIGIN, &log, &err)) {
        fuzz_check_message(err.message, sizeof err.message, ORIGIN ": line ");
        FUZZ_REQUIRE(log.rows == NULL && log.n_rows == 0, "rows held after failure");
        return 0;
    }
    FUZZ_REQUIRE(log.n_rows >= 1 && log.n_rows <= NCCL_LOG_MAX_ROWS, "%d rows", log.n_rows);
    FUZZ_REQUIRE(log.columns == 12 || log.columns == 13, "%d columns", log.columns);
    FUZZ_REQUIRE(log.hosts <= log.ranks, "%d hosts for %d ranks", log.hosts, log.ranks);
    double *sizes = malloc((size_t)log.n_rows * sizeof *sizes);
    double *times = malloc((size_t)log.n_rows * sizeof *times);
    if (!sizes || !times)
        abort();
    for (int i = 0; i < log.n_rows; i++) {
        const nccl_row *r = &log.rows[i];
        FUZZ_REQUIRE(r->size_bytes > 0 && (i == 0 || r->size_bytes > log.rows[i - 1].size_bytes),
                     "row %d size %g", i, r->size_bytes);
        check_timing(&r->out_of_place);
        check_timing(&r->in_place);
        sizes[i] = r->size_bytes;
        times[i] = r->in_place.time_s;
    }
    int gpus = log.ranks >= 2 ? log.ranks : 8;
    if (nccl_log_check_busbw(&log, gpus, &err) == 0) {
        ring_fit fit;
        if (ring_fit_allreduce(ORIGIN, gpus, sizes, times, log.n_rows, 0, 1e-6, &fit, &err))
            fuzz_check_message(err.message, sizeof err.message, ORIGIN);
        else
            FUZZ_REQUIRE(isfinite(fit.alpha_s) && fit.alpha_s >= 0 && isfinite(fit.B_Bps) &&
                             fit.B_Bps > 0,
                         "alpha %g, B %g", fit.alpha_s, fit.B_Bps);
    } else {
        fuzz_check_message(err.message, sizeof err.message, ORIGIN ": line ");
    }
    free(sizes);
    free(times);
    nccl_log_free(&log);
    return 0;
}
