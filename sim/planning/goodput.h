/*
 * sim/planning/goodput.h: useful samples per second over a run with failures, checkpoints
 * and restarts (issue 41, "Failures and goodput").
 *
 * A synchronous data-parallel job stops when any of its GPUs fails, rolls back to its last
 * checkpoint and restarts. With failures a Poisson process of rate 1/M (M: the job's mean
 * time between failures, the per-GPU one over the GPU count, or the per-node one over the
 * node count), checkpoints written every tau seconds of work taking delta seconds each (the
 * job stalls while it writes: a synchronous write, an upper bound for asynchronous
 * checkpointing) and a restart taking R seconds, the expected wall time of one segment of
 * tau + delta seconds is M e^(R/M) (e^((tau+delta)/M) - 1) (failures may strike during
 * work, checkpoint writes and restarts alike; Daly 2006's exponential model, see
 * goodput.c for the derivation), so the fraction of wall time that is useful work is
 *
 *     f(tau) = tau / (M e^(R/M) (e^((tau+delta)/M) - 1))
 *
 * and goodput = throughput x f. To first order f ~ 1 - delta/tau - tau/(2M) - R/M.
 *
 * The checkpoint interval, unless given:
 *   Young (1974):           tau = sqrt(2 delta M)
 *   Daly (2006), the default, his higher-order estimate:
 *       tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta/(2M)) + (1/9) (delta/(2M))] - delta
 *                                                                    for delta < 2M,
 *       tau = M                                                      for delta >= 2M.
 * (J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM
 * 17(9):530-531, 1974; J. T. Daly, "A higher order estimate of the optimum checkpoint
 * interval for restart dumps", Future Generation Computer Systems 22(3):303-312, 2006.)
 *
 * Checkpoint bytes: the state a restart needs, the parameters' weights (the 16-bit working
 * copy and the fp32 master under mixed precision) and the optimizer state, as gcsim's
 * memory model counts them (sim/config/memory.c; gradients are not saved): 14 B per
 * parameter for bf16 with Adam, 12 for fp32 with Adam. Sharding changes who writes, not
 * how much.
 */
#ifndef GCSIM_PLANNING_GOODPUT_H
#define GCSIM_PLANNING_GOODPUT_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "model.h"

/* Defaults, each with its source (docs/planning.md, "Goodput"):
 *
 * GPU MTBF, derived: Llama 3 pre-training on 16,384 H100 GPUs, 419 unexpected job
 * interruptions in a 54-day snapshot (Dubey et al., "The Llama 3 Herd of Models",
 * arXiv:2407.21783, July 2024, Sec. 3.3.4 and Table 5; measured counts): one interruption
 * per 16,384 x 54 x 24 / 419 = 50,676.9 GPU-hours, every cause (GPU, HBM, network, host,
 * software) charged to the GPUs; a job MTBF of 3.09 h at 16,384 GPUs. The 47 planned
 * interruptions are not failures (no work is lost) and are left out. */
#define GOODPUT_DEFAULT_GPU_MTBF_H (16384.0 * 54.0 * 24.0 / 419.0)
/* Storage write bandwidth per GPU of the job, derived: the same paper (Sec. 3.3.1,
 * "Storage"): Tectonic, 240 PB on 7,500 servers, 2 TB/s sustained (7 TB/s peak) for the
 * 16,384-GPU job; 2e12 / 16384 = 122.07 MB/s per GPU, so a job of N GPUs writes at
 * N x 122.07 MB/s (storage sized with the cluster) unless --storage-gb-per-s says. Reads
 * at restart are taken at the same rate (the paper gives one sustained figure). */
#define GOODPUT_DEFAULT_STORAGE_BYTES_PER_S_PER_GPU (2e12 / 16384.0)
/* Restart time before the checkpoint is read, measured: FlashRecovery ("Fast and Low-Cost
 * Recovery from Failures for Large-Scale Training of LLMs", arXiv:2509.03047, Sep 2025)
 * restores training on a cluster of 4,800 devices in 150 s (failure detection, restart,
 * communication groups rebuilt); a system built for fast recovery, so an
 * optimistic figure: --restart-s for another. The checkpoint load (its bytes at the storage
 * rate) is added to it. */
#define GOODPUT_DEFAULT_RESTART_S 150.0

typedef enum {
    GOODPUT_INTERVAL_DALY = 0, /* Daly's higher-order estimate (default) */
    GOODPUT_INTERVAL_YOUNG,    /* sqrt(2 delta M) */
    GOODPUT_INTERVAL_FIXED     /* interval_s as given */
} goodput_interval_rule;

typedef struct {
    bool on;                    /* report goodput at all */
    double gpu_mtbf_h;          /* per GPU; 0: not given */
    double node_mtbf_h;         /* per node; 0: not given (then per GPU, else the default) */
    double storage_bytes_per_s; /* aggregate write (and read) rate; 0: the per-GPU default */
    double restart_s;           /* < 0: the default */
    goodput_interval_rule rule;
    double interval_s;          /* GOODPUT_INTERVAL_FIXED: seconds of work per checkpoint */
} goodput_options;

/* Sets the defaults: off, Daly's interval, every rate from the sources above. */
void goodput_options_init(goodput_options *o);

typedef struct {
    double job_mtbf_s;          /* M */
    double checkpoint_bytes;
    double storage_bytes_per_s;
    double checkpoint_write_s;  /* delta */
    double restart_s;           /* R: the restart plus reading the checkpoint */
    double young_interval_s;
    double daly_interval_s;
    double interval_s;          /* tau, the one used */
    double useful_fraction;     /* f(tau) */
    double goodput_samples_per_s;
    const char *rule_name;      /* "daly", "young" or "given" */
} goodput_result;

/* The formulas, exposed for tests (seconds throughout). */
double goodput_young_interval_s(double delta_s, double mtbf_s);
double goodput_daly_interval_s(double delta_s, double mtbf_s);
double goodput_useful_fraction(double interval_s, double delta_s, double restart_s,
                               double mtbf_s);

/* Bytes a checkpoint holds for model m at its precision and optimizer. */
double goodput_checkpoint_bytes(const gcsim_model *m);

/* Goodput of a job of `gpus` GPUs on nodes of `gpus_per_node` running at
 * throughput_samples_per_s. Returns 0, or -1 with the reason in err (a non-positive input). */
int goodput_evaluate(const goodput_options *o, const gcsim_model *m, int gpus,
                     int gpus_per_node, double throughput_samples_per_s, goodput_result *out,
                     gcsim_error *err);

/* One sentence naming the formula, the interval rule and the sources, for a report note. */
void goodput_describe(const goodput_options *o, const goodput_result *g, char *buf,
                      size_t size);

#endif
