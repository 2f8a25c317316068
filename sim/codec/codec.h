/*
 * sim/codec/codec.h: what compressing costs on a GPU, and which exchange a compressor's
 * payload needs. docs/codec.md describes the model, its parameters and their sources.
 *
 * Offers:
 *   - gcsim_gpu_params: memory bandwidth, fp32 FLOP/s and kernel launch latency of every
 *     GPU type of the platform catalog (gpu_params.c, with sources).
 *   - gcsim_codec: the encode and decode(+accumulate) seconds of one tensor, from either
 *     a measured codec profile the platform names (codec_profile.c), the model of the
 *     work the C library in compressors/ does (codec_model.c), or the deprecated single
 *     "codec_throughput" of a platform. gcsim_codec_describe says which was used.
 *   - gcsim_exchange: all-reduce, all-gather or parameter server, and the default each
 *     compressor's payload needs (exchange.c).
 */
#ifndef GCSIM_CODEC_H
#define GCSIM_CODEC_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "codec_profile_file.h"
#include "platform.h"
#include "scenario.h"

/* ---- GPU parameters ---- */

typedef struct {
    const char *type;        /* as platforms name it in gpu.type */
    double mem_Bps;          /* device memory bandwidth, datasheet peak */
    double fp32_flops;       /* plain fp32 (non-tensor-core) peak */
    double launch_s;         /* one kernel launch, as a sequential codec pays it */
    const char *source;
    /* Streaming multiprocessors (datasheet or whitepaper, per row of gpu_params.c): what
     * a collective's thread blocks take from compute (sim/step/interference.c); 0: not
     * known. Last, so that a row written without it leaves it 0. */
    int sms;
} gcsim_gpu_params;

/* The parameters of a GPU type, or an error naming the type and the types known. */
int gcsim_gpu_params_find(const char *type, const gcsim_gpu_params **out, gcsim_error *err);
/* Every known GPU type, NULL-terminated (for tests and docs). */
const char *const *gcsim_gpu_types(void);

/* ---- the work of one compressor on one tensor (the model) ---- */

typedef struct {
    double enc_bytes_per_elem;   /* fp32-side bytes read + written per element */
    double enc_payload_passes;   /* payload bytes written (and re-read) per payload byte */
    double enc_kernels;          /* kernel launches per tensor */
    /* Encode work that is not moving bytes, per element of the tensor (docs/codec.md,
     * "Compute terms"); counted from the C library's loops: */
    double enc_draws_per_elem;        /* uniforms from the vectorized block generator */
    double enc_scalar_draws_per_elem; /* bounded draws one at a time (rejection + division) */
    double enc_flops_per_elem;        /* fp32 operations (PowerSGD's products: by rank) */
    double enc_sorted_per_elem;       /* elements radix-sorted (levels from sorted buckets) */
    double enc_serial_per_elem;       /* element-serial steps: compaction, histogram */
    double enc_chained_per_elem;      /* fp64 additions in one dependent chain (an ordered
                                         sum, a prefix sum): latency-bound on a CPU */
    double enc_gathers_per_elem;      /* random accesses (cache line / sector) per element */
    double enc_gathers_per_payload_byte; /* random accesses per payload byte (sparse pairs) */
    double enc_check_bytes_per_elem;  /* the C library's NaN/Inf check of the input (4 when
                                         the codec's own pass does not check): counted on
                                         a CPU only, a GPU stack does not make this pass */
    double dec_bytes_per_elem;   /* decode + add into the fp32 sum, per element */
    double dec_payload_passes;
    double dec_kernels;
    int powersgd_rank;           /* > 0: low-rank matrix products (FLOPs) */
} gcsim_codec_work;

/* The spec whose codec costs (model, measured profile) price spec: spec itself, normalized,
 * for a built-in; for a described compressor (compressor_file.h) the built-in it names,
 * with its error feedback and a low-rank payload's rank. */
int gcsim_codec_cost_spec(const char *spec, char *out, size_t out_len, gcsim_error *err);

/* The passes the C library's encoder and decoder make for a compressor spec
 * (codec_model.c). "none" does no work. */
int gcsim_codec_work_of(const char *spec, gcsim_codec_work *out, gcsim_error *err);

/* The rates a machine does each kind of work at: a GPU's from its datasheet
 * (gcsim_codec_rates_of_gpu), a CPU core's measured (bench/compressors). */
typedef struct {
    double launch_s;          /* per kernel */
    double mem_Bps;           /* streaming bytes (read + written) */
    double draws_per_s;       /* block-generator uniforms */
    double scalar_draws_per_s;
    double flops;             /* fp32 operations */
    double sorted_per_s;      /* elements radix-sorted */
    double serial_per_s;      /* element-serial steps */
    double chained_per_s;     /* dependent fp64 additions */
    double gathers_per_s;     /* random accesses */
    double line_elems;        /* fp32 elements per access (a cache line, a DRAM sector) */
    bool input_check;         /* count enc_check_bytes_per_elem (the C library on a CPU) */
} gcsim_codec_rates;

/* A GPU's rates: memory and fp32 peak from its datasheet; each draw, sorted element and
 * serial step as the integer operations it takes, issued at the fp32 rate; a random access
 * as one 32-byte DRAM sector (codec_model.c gives the counts and their reasons). */
void gcsim_codec_rates_of_gpu(const gcsim_gpu_params *g, gcsim_codec_rates *out);
/* Encode seconds of one tensor of n elements into payload_bytes at the given rates: the
 * sum of every term (one thread or one kernel after another does each in turn). With
 * terms != NULL, terms[0..GCSIM_CODEC_TERMS-1] get launch, bytes, draws, bounded draws,
 * FLOPs, sorting, serial steps, random accesses and chained additions, in seconds. */
#define GCSIM_CODEC_TERMS 9
double gcsim_codec_work_encode_s(const gcsim_codec_work *w, const gcsim_codec_rates *r,
                                 double n, double payload_bytes,
                                 double terms[GCSIM_CODEC_TERMS]);

/* ---- codec cost ---- */

typedef enum {
    CODEC_COST_NONE,        /* "none": nothing to encode */
    CODEC_COST_MODEL,       /* gcsim_codec_work on gcsim_gpu_params */
    CODEC_COST_PROFILE,     /* measured profile, interpolated in size */
    CODEC_COST_THROUGHPUT   /* deprecated platform gpu.codec_throughput */
} gcsim_codec_cost_source;

typedef struct gcsim_codec {
    char spec[256];                 /* normalized compressor spec */
    gcsim_codec_cost_source source;
    char description[768];          /* which source, file and entry: printed by commands */
    gcsim_gpu_params gpu;
    gcsim_codec_work work;
    double throughput_Bps;          /* CODEC_COST_THROUGHPUT */
    /* CODEC_COST_PROFILE: per tensor of elements[k], non-decreasing in k. */
    int n_points;
    double elements[GCSIM_CODEC_PROFILE_MAX_POINTS];
    double encode_s[GCSIM_CODEC_PROFILE_MAX_POINTS];
    double decode_s[GCSIM_CODEC_PROFILE_MAX_POINTS];
    /* The codec runs on the host's CPU threads, not on the GPU (a stack's $.cpu_codec:
     * BytePS): its steps take no GPU time from the compute beside them. */
    bool on_host;
} gcsim_codec;

/* The cost of compressor `spec` on platform p: the deprecated gpu.codec_throughput if the
 * platform gives one, else the platform's codec profile if it has an entry for the
 * compressor, else the model on the platform's GPU type. Bad profile files are errors
 * naming the file and JSON path. */
int gcsim_codec_init(gcsim_codec *c, const gcsim_platform *p, const char *spec,
                     gcsim_error *err);
/* The model on GPU parameters given by the caller (tests, sensitivity). */
int gcsim_codec_init_model(gcsim_codec *c, const gcsim_gpu_params *gpu, const char *spec,
                           gcsim_error *err);

/* Seconds to encode one tensor of `elements` fp32 values into payload_bytes. */
double gcsim_codec_encode_s(const gcsim_codec *c, double elements, double payload_bytes);
/* Seconds to decode one received payload of such a tensor and add it into the fp32 sum. */
double gcsim_codec_decode_s(const gcsim_codec *c, double elements, double payload_bytes);

/* Loads a codec profile file and fills c for `spec` (codec_profile.c). Returns 1 when the
 * file has no entry for the compressor (c untouched), 0 when filled, -1 on a bad file. */
int gcsim_codec_profile_load(gcsim_codec *c, const char *path, const char *spec,
                             const char *gpu_type, gcsim_error *err);

/* ---- the exchange ---- */

/* gcsim_exchange is declared in scenario.h. */
const char *gcsim_exchange_name(gcsim_exchange e);
/* auto, allreduce, allgather or ps. */
int gcsim_exchange_parse(const char *text, gcsim_exchange *out);

/* Whether a compressor's payloads can be summed as they are: none, fp16, bf16, PowerSGD's
 * factors, and random-k with a seed shared by the workers. */
bool gcsim_compressor_summable(const char *spec);
/* The exchanges a compressor's format supports (gc_compressor_exchanges' bits: a described
 * compressor may list fewer), and whether it supports e (auto and the papers' patterns:
 * always). */
unsigned gcsim_compressor_exchanges(const char *spec);
bool gcsim_compressor_allows(const char *spec, gcsim_exchange e);

typedef enum {
    COLLECTIVE_FROM_DEFAULT,   /* neither the command line nor the platform named one */
    COLLECTIVE_FROM_PLATFORM,  /* the platform's "collective" key */
    COLLECTIVE_FROM_CLI        /* --collective */
} gcsim_collective_origin;

typedef struct {
    gcsim_exchange exchange;        /* never AUTO */
    gcsim_collective collective;    /* the schedule both engines run */
    bool shared_support;            /* random-k summed in place (scenario.shared_support) */
    char why[160];                  /* one line for reports */
} gcsim_exchange_choice;

/* The exchange and the schedule for a compressor:
 *   auto: a collective named by --collective is kept (an all-reduce algorithm as
 *         all-reduce with the payload class's hop rule); a terngrad, allgather or ps
 *         collective named by the platform is kept; otherwise summable payloads use
 *         all-reduce with the platform's all-reduce collective and the others all-gather.
 *   allreduce: the collective, which must be an all-reduce algorithm when --collective
 *         names it (a platform's non-all-reduce collective falls back to ring);
 *   allgather, ps: that schedule; a --collective naming another is an error.
 * Errors are bad input (exit 2 in the commands). */
int gcsim_exchange_resolve(gcsim_exchange requested, gcsim_collective collective,
                           gcsim_collective_origin origin, const char *compressor_spec,
                           gcsim_exchange_choice *out, gcsim_error *err);

/* ---- both together, for the commands ---- */

typedef struct {
    gcsim_codec codec;
    gcsim_exchange_choice exchange;
} gcsim_codec_setup;

/* The exchange and codec cost of compressor `spec` on platform p: cli_collective is the
 * --collective given, or NULL (then the platform's "collective" key, else ring). */
int gcsim_codec_setup_init(gcsim_codec_setup *cs, const gcsim_platform *p, const char *spec,
                           gcsim_exchange requested, const gcsim_collective *cli_collective,
                           gcsim_error *err);
/* Sets the scenario's collective, codec and shared_support from cs (which must outlive
 * the scenario's use). The TernGrad paper's pattern gets no codec: its model, as
 * published, has no codec time. */
void gcsim_codec_setup_apply(const gcsim_codec_setup *cs, gcsim_scenario *s);

#endif
