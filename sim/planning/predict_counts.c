/* sim/planning/predict_counts.c: predict's GPU counts (predict_counts.h). */
#include "predict_counts.h"

#include <stdio.h>

#include "gpu_list.h"
#include "sweep_space.h"

int predict_counts(const gcsim_platform *pf, const char *gpus, const char *one_table,
                   int *counts, int max, char *note, size_t note_len, gcsim_error *err)
{
    int n;
    note[0] = '\0';
    if (gpus) {
        char msg[1024]; /* messages quote the path: 256 bytes cut the reason off */
        if ((n = gpu_list_parse(gpus, counts, max, msg, sizeof msg)) < 0)
            return gcsim_fail(err, "%s", msg);
    } else if (one_table) {
        /* One count is needed: two machines (one when the platform has one), enough to show
         * both intra- and inter-machine transfers in a trace of readable size. */
        int machines = pf->nodes < 2 ? pf->nodes : 2;
        counts[0] = machines * pf->gpus_per_node;
        n = 1;
        snprintf(note, note_len, "%s without --gpus: %d GPUs (%d machine%s of %d)", one_table,
                 counts[0], machines, machines == 1 ? "" : "s", pf->gpus_per_node);
    } else {
        n = sweep_default_gpus((long long)pf->nodes * pf->gpus_per_node, counts, max);
    }
    if (one_table && n != 1)
        return gcsim_fail(err, "%s needs exactly one GPU count in --gpus", one_table);
    return n;
}
