/* The payload-aggregation rule, once for both engines (collectives.h). */
#include <math.h>
#include <pthread.h>

#include "collectives.h"
#include "hop_rule.h"

/* log2(2k + 1) for the whole k a shared-scale payload's hop carries, taken from a table
 * filled once with libm's own log2 (the same values): log2 was 5% of a sweep's cases
 * (issue 47), called once per step of every growing payload's schedule. */
static double log2_odd[GCSIM_HOP_LOG2_TABLE];
static pthread_once_t log2_once = PTHREAD_ONCE_INIT;

static void fill_log2(void)
{
    for (int k = 0; k < GCSIM_HOP_LOG2_TABLE; k++)
        log2_odd[k] = log2(2.0 * k + 1.0);
}

void gcsim_hop_rule_of(const gcsim_bucket_bytes *b, gcsim_hop_rule *r)
{
    /* Layers sent uncompressed (e.g. TernGrad's fp32 last layer) are summed in fp32 and
     * never grow; the rest follows its class's rule. */
    r->fixed = b->fixed_bytes;
    r->packed = b->payload_bytes - r->fixed;
    r->dense = b->dense_bytes - r->fixed;
    r->capped = b->compressed && r->packed > 0;
    r->growth = HOP_FLAT;
    r->log2_odd = log2_odd;
    if (r->capped && b->aggregation == PAYLOAD_SHARED_SCALE) {
        pthread_once(&log2_once, fill_log2);
        r->growth = HOP_SHARED_SCALE;
    } else if (r->capped && b->aggregation == PAYLOAD_SPARSE) {
        r->growth = HOP_SPARSE;
    }
}

double gcsim_hop_bytes(const gcsim_bucket_bytes *b, double k)
{
    gcsim_hop_rule r;
    gcsim_hop_rule_of(b, &r);
    return gcsim_hop_rule_bytes(&r, k);
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
