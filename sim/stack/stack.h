/*
 * sim/stack/stack.h: training stacks: how a framework runs gradient compression.
 *
 * The same compressor costs an order of magnitude more as a chain of framework ops run
 * tensor by tensor than as one fused kernel, and the framework decides what is exchanged
 * when: PyTorch DDP hands a communication hook one 25 MiB bucket at a time, Horovod (with
 * GRACE's compressors) compresses and gathers tensor by tensor and decodes in the
 * optimizer step, PyTorch's PowerSGD hook runs three dependent all-reduces per bucket. A
 * stack file (platforms/stacks/NAME.json, docs/stacks.md) says all of that as data:
 *
 *   - granularity: buckets (DDP: a byte cap, a smaller first bucket) or tensors (Horovod:
 *     fused per background cycle up to a byte threshold);
 *   - per compressor: its exchange (all-reduce, all-gather, PowerSGD's hook) and the op
 *     sequences it becomes (encode, between the calls, decode), or why the stack cannot
 *     run it;
 *   - the cost of every op: a "law" measured on one GPU by tensor size, split into the
 *     host's part (framework dispatch, launches) and the GPU's part; on another GPU the
 *     GPU part above its launch-bound floor scales with memory bandwidth;
 *   - fixed costs: a collective call, a host-device synchronisation, a background cycle.
 *
 * "fused" is the ideal per-tensor implementation (the codec model of sim/codec, no per-call
 * cost): below any per-tensor stack, not necessarily below one that works on whole buckets. This module only reads and evaluates stacks; sim/collectives turns a
 * stack and a scenario into the programs both engines run (program_stack.c).
 */
#ifndef GCSIM_STACK_STACK_H
#define GCSIM_STACK_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "codec.h"
#include "gcsim_error.h"

#define GCSIM_STACK_LAW_POINTS 16
/* A law point's tensor at most: 2^40 elements, the cap on a layer's weights. */
#define GCSIM_STACK_MAX_ELEMENTS 1099511627776.0
#define GCSIM_STACK_MAX_LAWS 64
#define GCSIM_STACK_MAX_ENTRIES 24
#define GCSIM_STACK_MAX_OPS 16

/* What one call of an op costs, by tensor size, as measured on one GPU type; optionally
 * also by the setting of the compressor that sets its cost (docs/stacks.md, "Laws by
 * setting"): top-k's density, QSGD's code width, PowerSGD's rank. A law without settings
 * has one (n_settings 1, parameter NONE), used for every compressor. */
#define GCSIM_STACK_LAW_SETTINGS 8

typedef enum {
    STACK_SETTING_NONE,    /* one setting, whatever the compressor's */
    STACK_SETTING_DENSITY, /* fraction of elements kept: key "ratio" (topk, dgc, randomk) */
    STACK_SETTING_BITS,    /* bits per code: QSGD's sign and level (key "s"), rounded up to
                              2, 4, 8 or 16 so that codes never straddle a byte */
    STACK_SETTING_RANK     /* PowerSGD's rank (key "rank") */
} gcsim_stack_parameter;

typedef enum {
    STACK_SCALE_LINEAR,  /* cost linear in the setting between measured ones (work per kept
                            element, per rank, per bit) */
    STACK_SCALE_LOG,     /* linear in log(setting) (a selection's passes) */
    STACK_SCALE_SECTORS, /* linear in the bytes a scatter of sorted indices moves: per kept
                            element streamed, per touched 32-byte sector (stack_law.c) */
    STACK_SCALE_GATHER,  /* linear in the bytes a gather at random indices moves: per kept
                            element streamed, per sector read from DRAM (first touches, and
                            re-touches beyond the L2: l2_bytes) */
    STACK_SCALE_PASSES   /* QSGD's decode: linear in its elementwise passes per code width */
} gcsim_stack_scale;

typedef struct {
    char name[48];
    char gpu[32];                   /* the GPU type it was measured on */
    int n_points;
    double elements[GCSIM_STACK_LAW_POINTS];
    gcsim_stack_parameter parameter;
    gcsim_stack_scale scale;
    bool host_extends;              /* "beyond": "extends": beyond the settings both parts
                                       continue the nearest segment, on both sides (else
                                       "held": the host part held, the GPU's continued above,
                                       held below; stack_law.c) */
    double reference;               /* the setting for a compressor without the parameter */
    double l2_bytes;                /* STACK_SCALE_GATHER: the L2 capacity of the GPU whose
                                       settings set the law's shape ("l2_bytes") */
    int n_settings;                 /* >= 1, settings increasing */
    double at[GCSIM_STACK_LAW_SETTINGS];
    char basis[GCSIM_STACK_LAW_SETTINGS][48]; /* "measured", or how a setting was derived */
    double host_s[GCSIM_STACK_LAW_SETTINGS][GCSIM_STACK_LAW_POINTS]; /* the host's time per
                                       call (dispatch, launches), per setting and size */
    double gpu_s[GCSIM_STACK_LAW_SETTINGS][GCSIM_STACK_LAW_POINTS];  /* the GPU's busy time */
} gcsim_stack_law;

/* A compressor's settings as the laws read them (gcsim_stack_setting_of): 0 where the
 * compressor has no such parameter. */
typedef struct {
    double density;
    double bits;
    double rank;
} gcsim_stack_setting;

/* What an op's element count is taken from, and how many times it runs. */
typedef enum {
    STACK_PER_UNIT,      /* once per exchange unit, on all its elements (a DDP bucket) */
    STACK_PER_TENSOR,    /* once per parameter tensor of the unit */
    STACK_PER_MATRIX,    /* once per weight matrix a low-rank compressor compresses */
    STACK_PER_VECTOR,    /* once per tensor it leaves uncompressed (1-D, small) */
    STACK_PER_WEIGHT,    /* once per weight tensor (dim > 1), whatever the compressor: what
                            DGC's code sparsifies (train.py: param.dim() > 1) */
    STACK_PER_1D         /* once per 1-D tensor (bias, norm scale or shift): what DGC's code
                            all-reduces dense */
} gcsim_stack_per;

typedef struct {
    int law;                 /* index into the stack's laws */
    gcsim_stack_per per;
    bool per_payload;        /* once more for every payload decoded (an all-gather's) */
    double fraction;         /* share of the measured call this op is (1: all of it) */
    double gpu_scale;        /* its GPU work relative to the law's (1: as measured) */
    int rank;                /* > 0: only for a low-rank compressor of this (measured) rank;
                                a rank between measured ones uses the next lower one's ops,
                                their GPU work scaled by the ratio of the ranks */
} gcsim_stack_op;

typedef struct {
    int n;
    gcsim_stack_op ops[GCSIM_STACK_MAX_OPS];
} gcsim_stack_ops;

typedef enum {
    STACK_EXCHANGE_ALLREDUCE,        /* summable payload: one all-reduce */
    STACK_EXCHANGE_ALLGATHER,        /* every worker's payload gathered and decoded */
    STACK_EXCHANGE_POWERSGD_HOOK,    /* PyTorch's powerSGD_hook: all-reduces of the
                                        uncompressed tensors, then of P, then of Q */
    STACK_EXCHANGE_POWERSGD_BLOCKING /* GRACE's PowerSGD: per matrix, two all-reduces
                                        inside the gradient hook, backward waiting */
} gcsim_stack_exchange;

/* How the stack runs one compressor (by compressors/ name: "topk", "powersgd", ...). */
typedef struct {
    char compressor[32];
    char refusal[384];          /* non-empty: the stack cannot run it, and why */
    gcsim_stack_exchange exchange;
    gcsim_stack_ops encode;     /* before the first call */
    gcsim_stack_ops unpack;     /* PowerSGD hook: after the uncompressed tensors' call */
    gcsim_stack_ops between;    /* PowerSGD: after P's call, before Q's */
    gcsim_stack_ops decode;     /* after the last call (all-gather: per payload) */
    bool decode_own;            /* all-gather: its own payload is decoded too (N, not N-1) */
    bool size_exchange;         /* all-gather of payloads whose size varies: a blocking
                                   all-gather of the sizes first (GRACE's dgc, threshold) */
    bool host_sync;             /* the encode waits for the GPU inside the hook (a CUDA
                                   scalar read on the host, a boolean-mask index): its host
                                   time is not hidden behind the queued backward
                                   (stack_hook.c) */
    char source[1024];
} gcsim_stack_entry;

typedef enum { STACK_UNIT_BUCKET, STACK_UNIT_TENSOR } gcsim_stack_unit;

/* What a compressor's payload allows an exchange to do with it (stack_exchanges.c): a stack
 * lists, per kind, the exchanges its implementation has (docs/stacks.md, "Exchanges a stack
 * implements"). */
typedef enum {
    STACK_PAYLOAD_SUMMABLE,  /* values that add as sent: none, fp16, bf16, random-k (a seed
                                the workers share) */
    STACK_PAYLOAD_LOW_RANK,  /* PowerSGD's factors */
    STACK_PAYLOAD_SPARSE,    /* values at indices that differ per worker: top-k, DGC,
                                threshold */
    STACK_PAYLOAD_QUANTIZED, /* levels with per-worker (or shared) scales: QSGD, TernGrad,
                                sign, 1-bit, ECQ, ORQ, linear, BinGrad */
    STACK_PAYLOAD_KINDS
} gcsim_stack_payload;

#define GCSIM_STACK_MAX_CPU_CODECS 8
typedef struct {
    char compressor[32];           /* a built-in's name, as the spec starts */
    double encode_bytes_per_elem;  /* host DRAM bytes read + written per fp32 element */
    double decode_bytes_per_elem;
    /* the part of each streamed by one thread per partition (a loop the code leaves serial,
     * such as onebit's scale): at most the stack's threads x thread rate (stack_cpu_codec.c) */
    double serial_encode_bytes_per_elem;
    double serial_decode_bytes_per_elem;
} gcsim_stack_cpu_codec;

#define GCSIM_STACK_MAX_GPU_PASSES 8
typedef struct {
    char compressor[32];          /* a built-in's name, as the spec starts */
    double encode_bytes_per_elem; /* GPU memory bytes read + written per gradient element */
    double decode_bytes_per_elem;
} gcsim_stack_gpu_pass;

typedef struct gcsim_stack {
    char name[64];
    char path[512];
    char description[512];
    bool codec_model;           /* "fused": codec time from sim/codec, no stack costs */
    gcsim_stack_unit unit;
    double bucket_bytes;        /* STACK_UNIT_BUCKET: fp32 bytes at which a bucket closes */
    double first_bucket_bytes;  /* the first bucket's cap (0: bucket_bytes) */
    double fusion_bytes;        /* STACK_UNIT_TENSOR: a fused group's cap */
    double cycle_s;             /* STACK_UNIT_TENSOR: the background thread's cycle */
    /* STACK_UNIT_TENSOR, "wait_for_data": "thread" (Horovod <= 0.22): the background
     * thread itself waits for each fused group's tensors on the GPU before it enqueues the
     * collective, then fuses everything the host enqueued meanwhile; false ("stream", the
     * default): a group is what the GPU produced in one cycle (gcsim_stack_fuses_ahead) */
    bool wait_on_thread;
    bool deferred_decode;       /* decodes run in the optimizer step, after backward */
    double call_s;              /* issuing one collective call (host, library) */
    double sync_s;              /* one host-device synchronisation */
    double negotiation_bytes;   /* bytes of the readiness all-reduce per fused group (0:
                                   none) */
    /* The host model (stack_host.c): false, the laws' host parts as measured (PyTorch
     * eager); true, a graph-executed framework, graph_op_host_s per op in their place. */
    bool graph_host;
    double graph_op_host_s;
    /* An all-gather's payloads decoded in one batched pass ("gathered_decode": "batched"):
     * a per-payload op runs once, plus the GPU work of the other payloads (program_stack.c);
     * false: once per payload ("looped", what GRACE and torch-op hooks do). */
    bool batched_decode;
    /* "hook_host": {"runs": "queued"} (stack_hook.c): the encode's host part passes while
     * the GPU runs the backward queued ahead of it; false: charged on the stream. */
    bool hook_host_queued;
    char reference_gpu[32];     /* GPU type the laws were measured on */
    int n_laws;
    gcsim_stack_law laws[GCSIM_STACK_MAX_LAWS];
    int n_entries;
    gcsim_stack_entry entries[GCSIM_STACK_MAX_ENTRIES];
    gcsim_stack_ops error_feedback; /* what the "ef+" prefix adds to encode */
    /* Per payload kind, the exchanges the stack's implementation has: bit (1u << e) for
     * each gcsim_exchange e (allreduce, allgather, ps). From the file's "exchanges", else
     * only the exchanges its compressors run with (stack_exchanges.c). */
    unsigned exchanges[STACK_PAYLOAD_KINDS];
    bool exchanges_listed;       /* the file lists them ("exchanges") */
    /* "compressed_allreduce" (stack_leader.c): a quantized payload's all-reduce runs this
     * collective, not the platform's or the library's (Bagua's leader exchange); with
     * "payloads", the all-reduce of each payload kind listed (bit 1u << kind; BytePS runs
     * its uncompressed partitions through the same servers). */
    bool has_compressed_allreduce;
    gcsim_collective compressed_allreduce;
    unsigned compressed_allreduce_kinds;
    /* "allgather" (stack_allgather.c): the collective the stack's all-gathers of GPU
     * payloads run as: COLLECTIVE_ALLGATHER (the library's ring, the default) or
     * COLLECTIVE_MPI_HOST_ALLGATHER (Horovod without a GPU all-gather: host memory and
     * OpenMPI). */
    gcsim_collective allgather;
    /* "cpu_codec" (stack_cpu_codec.c): a codec-model stack whose compressors run on the
     * host's CPU (BytePS): bytes per element of each one's passes over the DRAM bandwidth. */
    bool cpu_codec;
    double cpu_dram_Bps;
    /* "threads", "thread_bandwidth": partitions the host codes at once (BytePS's
     * BYTEPS_THREADPOOL_SIZE) and the rate one thread streams; 0 when the file has none
     * (then no compressor may list serial bytes) */
    int cpu_threads;
    double cpu_thread_Bps;
    int n_cpu_codecs;
    gcsim_stack_cpu_codec cpu_codecs[GCSIM_STACK_MAX_CPU_CODECS];
    /* "gpu_passes" (stack_gpu_passes.c): a codec-model stack whose compressors run as
     * unfused framework ops on the GPU (DeepSpeed's torch/cupy 1-bit all-reduce): bytes per
     * element of their passes over the GPU's memory bandwidth. */
    int n_gpu_passes;
    gcsim_stack_gpu_pass gpu_passes[GCSIM_STACK_MAX_GPU_PASSES];
} gcsim_stack;

/* The stack a name or path means: a catalog name ("pytorch-ddp", looked up in
 * <data>/platforms/stacks/) or a file. Errors name the file and JSON path. */
int gcsim_stack_load(const char *name_or_path, gcsim_stack *out, gcsim_error *err);
int gcsim_stack_parse(const char *json_text, const char *origin, gcsim_stack *out,
                      gcsim_error *err);

/* The names of the shipped stacks, NULL-terminated. */
const char *const *gcsim_stack_catalog(void);
/* The stack used when neither the command line nor the platform names one. */
#define GCSIM_DEFAULT_STACK "pytorch-ddp"

/* How the stack runs a compressor spec ("none" included): its entry, or an error saying
 * the stack has none (or refuses it, with the reason). Never fails for a codec-model
 * stack (fused), which runs everything with the default exchange. */
int gcsim_stack_entry_for(const gcsim_stack *s, const char *spec,
                          const gcsim_stack_entry **out, gcsim_error *err);

/* Whether running entry e charges any op (its own or, for an "ef+" spec, error feedback's
 * is not counted here): a stack's plain all-reduce of uncompressed gradients charges none. */
bool gcsim_stack_entry_has_ops(const gcsim_stack *s, const gcsim_stack_entry *e);

/* The GPU a stack prices ops on: the platform's gpu.memory_bandwidth when it gives one,
 * else the datasheet figure of its gpu.type (codec.h); an error naming the file when
 * neither is known. */
int gcsim_stack_gpu(const gcsim_platform *p, gcsim_gpu_params *out, gcsim_error *err);

/* Seconds of one call of law `law` on a tensor of `elements` fp32 values on a GPU, for a
 * compressor of setting `set` (NULL: the law's reference setting): the larger of the host's
 * part and the GPU's part (docs/stacks.md). */
double gcsim_stack_law_s(const gcsim_stack *s, const gcsim_stack_law *law, double elements,
                         const gcsim_stack_setting *set, double fraction, double gpu_scale,
                         const gcsim_gpu_params *gpu);

/* The settings a normalized compressor spec gives the laws ("topk:ratio=0.01,...": density
 * 0.01; "qsgd:s=255,...": 16 bits; "powersgd:rank=4,...": rank 4; "ef+X": X's). */
gcsim_stack_setting gcsim_stack_setting_of(const char *spec);
/* QSGD's code width for s levels: 1 + ceil(log2(s + 1)) bits rounded up to 2, 4, 8, 16
 * (32 above 32,767 levels). */
int gcsim_stack_qsgd_bits(double levels);
/* Whether the stack's fused groups are cut by the fusion threshold alone, each released
 * when its last tensor is ready on the GPU (stack_hook.c, docs/stacks.md "Fused groups"):
 * a Horovod that waits for the data on its background thread, running entry e (compressed
 * or not; all-gathered or not), whose hooks leave the host ahead of the GPU. */
bool gcsim_stack_fuses_ahead(const gcsim_stack *s, const gcsim_stack_entry *e, bool compressed,
                             bool allgather);

/* The stream's charge for an encode priced priced_s (host and GPU, the larger per op) whose
 * GPU part alone is gpu_s, issued in the hook with queued_s of backward GPU work queued ahead
 * of it (stack_hook.c): priced_s unless the stack's hook host time runs queued. */
double gcsim_stack_hook_encode_s(const gcsim_stack *s, const gcsim_stack_entry *e,
                                 double priced_s, double gpu_s, double queued_s);

/* One call of a law with its host part left out (fraction x the GPU part, stack_law.c). */
double gcsim_stack_law_gpu_s(const gcsim_stack *s, const gcsim_stack_law *law, double elements,
                             const gcsim_stack_setting *set, double fraction, double gpu_scale,
                             const gcsim_gpu_params *gpu);

/* The value of the law's parameter the compressor has (its reference when it has none). */
double gcsim_stack_law_setting(const gcsim_stack_law *law, const gcsim_stack_setting *set);
/* How law is priced at setting value v: "measured at density 0.01 (measured)",
 * "interpolated between density 0.01 and 0.05 (log)", "modelled above density 0.5 (...)",
 * or "measured (one setting)" for a law without settings. Returns buf. */
const char *gcsim_stack_law_basis(const gcsim_stack_law *law, double v, char *buf, size_t size);
/* "density", "bits", "rank" or "none". */
const char *gcsim_stack_parameter_name(gcsim_stack_parameter p);

/* ---- the exchanges a stack implements (stack_exchanges.c) ---- */

/* "summable", "low-rank", "sparse", "quantized": the keys of a stack file's "exchanges". */
const char *gcsim_stack_payload_name(gcsim_stack_payload k);
/* The kind of compressor spec's payload ("ef+" specs: the inner compressor's); -1 with a
 * message for a spec the library does not know. */
int gcsim_stack_payload_of(const char *spec, gcsim_stack_payload *out, gcsim_error *err);
/* Whether the stack's implementation exchanges spec's payloads by e (allreduce, allgather
 * or ps; for a payload that is not summable, allreduce is the hop rule's all-reduce). AUTO
 * (the stack's own) and the papers' pattern (run only when named, not an exchange of a
 * stack) are always true; an unknown spec false. */
bool gcsim_stack_implements(const gcsim_stack *s, const char *spec, gcsim_exchange e);
/* When the stack does not implement e for spec: writes why ("stack horovod does not
 * implement ps for quantized payloads (qsgd); it implements allgather") and returns 1;
 * else 0 (buf untouched). */
int gcsim_stack_unimplemented(const gcsim_stack *s, const char *spec, gcsim_exchange e,
                              char *buf, size_t size);

/* ---- a stack set up for one compressor on one platform (stack_setup.c) ---- */

/* The stack a command uses: the name given (--stack), else the platform's "stack", else
 * GCSIM_DEFAULT_STACK. */
const char *gcsim_stack_choice(const char *given, const gcsim_platform *p);
/* After a failed load of gcsim_stack_choice(given, p): when the name came from the platform's
 * "stack" (given NULL or empty), prefixes err with "PLATFORM: $.stack: ", so a broken stack
 * file is traced to the platform that names it. */
void gcsim_stack_blame_platform(const char *given, const gcsim_platform *p, gcsim_error *err);

typedef struct {
    gcsim_codec_setup cs;           /* the exchange, and the codec model's cost (what the
                                       fused stack charges; per-tensor views of the others) */
    const gcsim_stack *stack;       /* not owned */
    const gcsim_stack_entry *entry; /* how the stack runs the compressor; NULL: fused */
    bool tune;                      /* no collective named: the library picks per call */
    /* Non-empty: the exchange that runs was named (--exchange, --collective, the platform's
     * collective) but the stack does not implement it for this payload: a what-if, run as
     * asked; commands warn with this text (gcsim_stack_unimplemented). */
    char unimplemented[384];
    char description[2048];         /* what the codec costs and where they come from (the
                                       laws by setting at the compressor's, then the entry's
                                       source) */
} gcsim_stack_setup;

/* The exchange and costs of compressor `spec` under stack st on platform p. With a stack
 * that has op laws, --exchange auto (and no --collective, no platform naming allgather,
 * ps or a paper's pattern) means the exchange the stack runs the compressor with; the
 * rest is as gcsim_codec_setup_init. Errors (exit 2): the stack refuses the compressor
 * or the exchange, or cannot price ops on the platform's GPU type. */
int gcsim_stack_setup_init(gcsim_stack_setup *ss, const gcsim_platform *p, const gcsim_stack *st,
                           const char *spec, gcsim_exchange requested,
                           const gcsim_collective *cli_collective, gcsim_error *err);
/* Sets the scenario's collective, codec, shared support and stack (ss must outlive it). */
void gcsim_stack_setup_apply(const gcsim_stack_setup *ss, gcsim_scenario *s);

#endif
