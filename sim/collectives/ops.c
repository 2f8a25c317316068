/* Collective operations as nccl-tests defines and measures them (collectives.h). */
#include <stdlib.h>
#include <string.h>

#include "collectives.h"

static const char *const op_names[GCSIM_OP_COUNT] = {"allreduce", "allgather", "reducescatter",
                                                     "broadcast"};

const char *gcsim_op_name(gcsim_op op)
{
    return (unsigned)op < GCSIM_OP_COUNT ? op_names[op] : "?";
}

int gcsim_op_parse(const char *text, gcsim_op *out)
{
    for (int k = 0; k < GCSIM_OP_COUNT; k++)
        if (strcmp(text, op_names[k]) == 0) {
            *out = (gcsim_op)k;
            return 0;
        }
    return -1;
}

double gcsim_op_busbw_factor(gcsim_op op, int n)
{
    switch (op) {
    case GCSIM_OP_ALLREDUCE: return 2.0 * (n - 1) / n;
    case GCSIM_OP_ALLGATHER:
    case GCSIM_OP_REDUCESCATTER: return (double)(n - 1) / n;
    default: return 1.0;
    }
}

/* Keeps phase `keep` of a built schedule and drops the others. */
static void keep_phase(gcsim_schedule *s, int keep)
{
    for (int p = 0; p < s->n_phases; p++) {
        if (p == keep)
            continue;
        free(s->phases[p].flows);
        free(s->phases[p].classes);
        free(s->phases[p].interval_from);
        free(s->phases[p].interval_to);
        free(s->phases[p].interval_class);
        free(s->out_index[p]);
        free(s->out_flows[p]);
        free(s->in_index[p]);
        free(s->in_flows[p]);
    }
    if (keep < s->n_phases) {
        s->phases[0] = s->phases[keep];
        s->out_index[0] = s->out_index[keep];
        s->out_flows[0] = s->out_flows[keep];
        s->in_index[0] = s->in_index[keep];
        s->in_flows[0] = s->in_flows[keep];
        s->n_phases = 1;
    } else {
        s->n_phases = 0;
    }
}

int gcsim_op_schedule_build(gcsim_schedule *s, gcsim_op op, gcsim_collective c,
                            const gcsim_topology *t, double bytes, double *payload_bytes,
                            gcsim_error *err)
{
    *payload_bytes = bytes;
    switch (op) {
    case GCSIM_OP_ALLREDUCE:
        return gcsim_schedule_build(s, c, t, 0,
                                    gcsim_pipeline_chunks_on(t->platform, t->gpus, c, bytes), err);
    case GCSIM_OP_ALLGATHER:
        *payload_bytes = bytes / t->gpus;
        return gcsim_schedule_build(s, COLLECTIVE_ALLGATHER, t, 0, 1, err);
    case GCSIM_OP_REDUCESCATTER:
        if (gcsim_schedule_build(s, COLLECTIVE_RING, t, 0, 1, err) != 0)
            return -1;
        keep_phase(s, 0);
        return 0;
    case GCSIM_OP_BROADCAST:
        return gcsim_schedule_build_broadcast(s, t, gcsim_pipeline_chunks(COLLECTIVE_TREE, bytes),
                                              err);
    case GCSIM_OP_COUNT:
        break;
    }
    return gcsim_fail(err, "unknown collective operation");
}
