/*
 * sim/planning/sweep_case.h: what `gcsim sweep`, `plan` and `check` share: a cache of loaded
 * inputs (each platform and model file read once, each payload plan built once per
 * (model, compressor), since data-dependent compressors encode real gradients to size
 * their payloads), one case put to an engine, and the case's stable id.
 */
#ifndef GCSIM_PLANNING_SWEEP_CASE_H
#define GCSIM_PLANNING_SWEEP_CASE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "scenario.h"

typedef struct sweep_cache sweep_cache;

/* How the cache reads a platform or model the first time it is asked for one. The command
 * passes its own (sim/cli/inputs.h: catalog names, the embedded defaults for a NULL path);
 * NULL loaders read plain files (gcsim_platform_load, gcsim_model_load), and a NULL path
 * is then an error. */
typedef struct sweep_loaders {
    int (*platform)(const char *path, gcsim_platform *out, gcsim_error *err);
    int (*model)(const char *path, gcsim_model *out, gcsim_error *err);
} sweep_loaders;

sweep_cache *sweep_cache_new(const sweep_loaders *loaders);
void sweep_cache_free(sweep_cache *c);

/* The loaded file (NULL path: the embedded default); pointers stay valid until
 * sweep_cache_free. NULL on failure with a message in err. */
const gcsim_platform *sweep_cache_platform(sweep_cache *c, const char *path, gcsim_error *err);
const gcsim_model *sweep_cache_model(sweep_cache *c, const char *path, gcsim_error *err);
const gcsim_payload_plan *sweep_cache_payload(sweep_cache *c, const gcsim_model *m,
                                              const char *spec, gcsim_error *err);

typedef struct {
    const gcsim_platform *platform;
    const gcsim_model *model;
    const gcsim_payload_plan *payload;
    gcsim_collective collective;
    bool collective_given;    /* false: the platform's, chosen with the exchange */
    gcsim_exchange exchange;  /* GCSIM_EXCHANGE_AUTO (0) unless asked */
    gcsim_scaling scaling;
    gcsim_engine engine;      /* ENGINE_ANALYTIC or ENGINE_DES */
    int batch;                /* 0: the model's batch_per_gpu */
    int gpus;
    int ps_shards;            /* 0: one per machine */
    double bucket_bytes;      /* DES bucket; 0: 25 MiB */
    bool overlap;
} sweep_case;

typedef enum { BOTTLENECK_COMPUTE, BOTTLENECK_NETWORK, BOTTLENECK_COMPRESSION } sweep_bottleneck;

typedef struct {
    int batch;                /* the batch used (the model's when the case says 0) */
    gcsim_exchange exchange;  /* the exchange used */
    gcsim_collective collective; /* its schedule */
    gcsim_placement placement;
    gcsim_prediction p;
} sweep_result;

/* Runs one case, with the exchange and codec cost of its compressor (sim/codec). Fails (with the reason in err) when the GPUs do not fit the platform,
 * a strong-scaling batch is smaller than the GPU count, the model has no profile for the
 * platform's GPU, or the engine fails. */
int sweep_case_run(const sweep_case *c, sweep_result *out, gcsim_error *err);

/* The batch a case uses. */
int sweep_case_batch(const sweep_case *c);

/* The largest of compute_s, exposed_comm_s and compress_s names what limits the
 * iteration; ties go to compute, then network. */
sweep_bottleneck sweep_bottleneck_of(const gcsim_prediction *p);
const char *sweep_bottleneck_name(sweep_bottleneck b);

/* A 16-hex-digit id (FNV-1a 64 of the case's canonical text: platform and model names,
 * normalized compressor spec, collective, scaling, batch, engine, GPU count). It does not
 * depend on the case's position, the other cases or where the files are, so a case keeps
 * its id across sweeps, shards and machines. */
void sweep_case_id(const sweep_case *c, char out[17]);

#endif
