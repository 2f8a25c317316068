/* The payload-aggregation rule, once for both engines (collectives.h). */
#include <math.h>
#include <pthread.h>

#include "collectives.h"

/* log2(2k + 1) for the whole k a shared-scale payload's hop carries, taken from a table
 * filled once with libm's own log2 (the same values): log2 was 5% of a sweep's cases
 * (issue 47), called once per step of every growing payload's schedule. */
enum { LOG2_TABLE = 4096 };
static double log2_odd[LOG2_TABLE];
static pthread_once_t log2_once = PTHREAD_ONCE_INIT;

static void fill_log2(void)
{
    for (int k = 0; k < LOG2_TABLE; k++)
        log2_odd[k] = log2(2.0 * k + 1.0);
}

static double log2_2k1(double k)
{
    if (k >= 0 && k < LOG2_TABLE && k == (double)(int)k) {
        pthread_once(&log2_once, fill_log2);
        return log2_odd[(int)k];
    }
    return log2(2.0 * k + 1.0);
}

double gcsim_hop_bytes(const gcsim_bucket_bytes *b, double k)
{
    /* Layers sent uncompressed (e.g. TernGrad's fp32 last layer) are summed in fp32 and
     * never grow; the rest follows its class's rule. */
    double fixed = b->fixed_bytes;
    double packed = b->payload_bytes - fixed, dense = b->dense_bytes - fixed, v = packed;
    if (k < 1)
        k = 1;
    if (b->compressed && packed > 0) {
        switch (b->aggregation) {
        case PAYLOAD_SHARED_SCALE:
            v = packed * fmax(1.0, log2_2k1(k) / 2.0);
            break;
        case PAYLOAD_SPARSE:
            v = packed * k;
            break;
        case PAYLOAD_DENSE_SUMMABLE:
        case PAYLOAD_PER_WORKER_SCALE:
            break;
        }
        if (v > dense)
            v = dense;
    }
    return v + fixed;
}

const gcsim_bucket_bytes *gcsim_phase_bucket(const gcsim_phase *ph, const gcsim_bucket_bytes *b,
                                             gcsim_bucket_bytes *tmp)
{
    if (!ph->uncompressed)
        return b;
    *tmp = *b;
    tmp->payload_bytes = b->dense_bytes;
    tmp->fixed_bytes = 0;
    tmp->compressed = false;
    tmp->aggregation = PAYLOAD_DENSE_SUMMABLE;
    return tmp;
}

double gcsim_flow_bytes(const gcsim_phase *ph, const gcsim_flow *f, int step,
                        const gcsim_bucket_bytes *b)
{
    gcsim_bucket_bytes tmp;
    b = gcsim_phase_bucket(ph, b, &tmp);
    double k = ph->fixed_k ? 1.0 : f->k0 + ph->dk * (step - f->first_step);
    return f->share * gcsim_hop_bytes(b, k);
}
