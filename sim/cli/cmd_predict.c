/* gcsim predict: training throughput of a model on a platform, per GPU count. */
#include <getopt.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor_file.h"
#include "atomic_file.h"
#include "case_build.h"
#include "predict_phases.h"
#include "cli_args.h"
#include "cli_files.h"
#include "cli_training.h"
#include "cli_groups.h"
#include "codec.h"
#include "step.h"
#include "commands.h"
#include "inputs.h"
#include "memory.h"
#include "mfu.h"
#include "sweep_space.h"
#include "sharding.h"
#include "predict_exchange.h"
#include "predict_first.h"
#include "predict_steps.h"
#include "predict_variability.h"
#include "report.h"
#include "roofline.h"
#include "stack.h"
#include "units.h"
#ifdef GCSIM_HAVE_DES
#include "des.h"
#include "report_emit.h"
#include "cli_convergence.h"
#include "cli_fabric.h"
#include "cli_goodput.h"
#endif

#define MAX_GPU_COUNTS 256

static void predict_usage(FILE *out)
{
    fprintf(out,
"usage: gcsim predict [--platform FILE] [--model FILE] [--compressor SPEC]\n"
"                     [--stack NAME] [--gpus LIST] [--scaling strong|weak]\n"
"                     [--engine analytic|des|both]\n"
"                     [--batch K] [--collective NAME] [--exchange X] [--ps-shards S]\n"
"                     [--bucket SIZE] [--des-max-messages N]\n"
"                     [--no-overlap] [--timeline FILE] [--buckets] [--tensors]\n"
"                     [--steps]\n"
"                     [--precision fp32|tf32|bf16|fp16] [--optimizer O]\n"
"                     [--sharding S] [--grad-accum K] [--act-ckpt[=P]] [--mfu F | --step-time T]\n"
"                     [--no-memory-check] [--convergence S]\n"
"                     [--format table|json|csv] [--wide]\n"
"                     [--output FILE]\n"
"\n"
"Predicts the training throughput of a model on a platform for each GPU count.\n"
"\n");
    fprintf(out,
"  --platform FILE   cluster description, a file or a catalog name such as a100-hdr\n"
"                    (default: the embedded " DEFAULT_PLATFORM_NAME ")\n"
"  --model FILE      workload description, a file or a catalog name such as resnet-50\n"
"                    (default: the embedded " DEFAULT_MODEL_NAME ")\n"
"  --compressor SPEC gradient compressor, e.g. terngrad, qsgd:s=4, dgc:ratio=0.001\n"
"                    (default: none, fp32), or file:PATH.json, a compressor described in\n"
"                    JSON (docs/compressors.md, \"Described compressors\")\n"
"  --stack NAME      training stack that runs it: pytorch-ddp (hooks per 25 MiB bucket),\n"
"                    horovod (GRACE, tensor by tensor), fused (ideal kernels per tensor,\n"
"                    no framework cost), or a stack file (default: the platform's \"stack\", else\n"
"                    " GCSIM_DEFAULT_STACK "; docs/stacks.md)\n"
"  --gpus LIST       GPU counts, e.g. 1,2,4,...,512 (default: 1,2,4,... up to the platform);\n"
"                    a count that cannot run (memory, the sharding) is a row with status\n"
"                    infeasible and why; exit 2 only when no count can run\n"
"  --scaling S       strong: the mini-batch K is split over the GPUs;\n"
"                    weak: every GPU trains K samples (default: weak)\n"
"  --batch K         mini-batch (strong: global, weak: per GPU; default: the model's)\n"
"  --engine E        analytic (default), des (SimGrid), or both with their difference\n"
"  --collective C    ring, halving-doubling, tree, double-tree, hierarchical, ps,\n"
"                    allgather (and nvls on one node whose NVSwitch reduces:\n"
"                    nvls_bandwidth), or the papers' models: terngrad (TernGrad Appendix B,\n"
"                    eq. 27-30), dgc-paper (the same steps, sparse density doubling at\n"
"                    every aggregation, as DGC Sec. 5 models it);\n"
"                    default: the platform's \"collective\"; else the stack tunes each\n"
"                    all-reduce call (ring, double-tree or nvls, as NCCL's tuner; --steps\n"
"                    lists them), except fused, which all-reduces with ring\n"
"  --exchange X      auto (default): what the stack does with the compressor (fused:\n"
"                    summable payloads all-reduce with the collective, the others\n"
"                    all-gather, N-1 payloads decoded and summed); --collective C means the\n"
"                    exchange C is, and so does a platform's terngrad, allgather or ps;\n"
"                    allreduce: the collective with the payload's hop rule;\n"
"                    allgather; ps (parameter server); best: per GPU count the fastest of\n"
"                    these, chosen with the analytic engine (the papers' patterns only\n"
"                    when named: --collective). For a compressed gradient whose\n"
"                    collective is not named, predict warns when another exchange would\n"
"                    be over 1.5x faster. docs/codec.md, docs/stacks.md\n"
"  --ps-shards S     parameter-server shards (default: one per machine)\n"
"  --bucket SIZE     gradient bucket, e.g. 25MiB (default: the stack's)\n"
"  --no-overlap      exchange gradients only after backward has finished (both engines;\n"
"                    terngrad and dgc-paper never overlap, as in the papers' model)\n"
"  --timeline FILE   DES: write a Chrome trace of the iteration (one GPU count only;\n"
"                    without --gpus, two machines' GPUs)\n"
"  --des-max-messages N  DES: run even if the simulation sends up to N SimGrid messages\n"
"                    (-1: any number). By default a DES run of more than 20 million\n"
"                    messages (minutes of CPU, e.g. GCSIM_DES_FULL=1 at thousands of GPUs)\n"
"                    is refused (exit 2) with its estimated CPU time and memory\n"
"  --buckets         DES: print each gradient bucket's size and timing instead (one GPU\n"
"                    count only; without --gpus, two machines' GPUs)\n");
    /* several strings: ISO C99 compilers need support only 4,095 characters in one */
    fprintf(out,
"  --tensors         print each layer's gradient (tensor) instead: elements, payload\n"
"                    bytes, bucket, and the codec model's encode and decode seconds on\n"
"                    one GPU for the compressor, the same figures both engines sum per\n"
"                    bucket (fused stack only; no engine runs; decode_s is one received\n"
"                    payload; one GPU count only, without --gpus two machines' GPUs)\n"
"  --steps           print every bucket's program instead, as the stack runs it: its\n"
"                    codec steps (nominal seconds) and collective calls (overhead and\n"
"                    closed-form time, payload, algorithm); one GPU count, as --tensors\n");
    fprintf(out,
"  --precision P     training precision (default: the model's, else fp32): picks the\n"
"                    profile measured at it; bf16/fp16 gradients travel at 2 bytes\n"
"  --optimizer O     optimizer state for the memory check (default: the model's, else\n"
"                    momentum); or a run of phases with --steps-total N: onebit-adam[:freeze=N]\n"
"                    (DeepSpeed's 1-bit Adam: N uncompressed warm-up steps, then 1-bit),\n"
"                    zero-one-adam[:var_freeze=N,var_update_scaler=K,local_step_scaler=A,\n"
"                    local_step_clipper=B] (0/1 Adam: 1-bit and skipped steps): each phase's\n"
"                    steps and step time, end-to-end time and speedup over all steps\n"
"                    uncompressed (docs/onebit-adam.md)\n"
"  --steps-total N   the run's optimizer steps (with a run of phases)\n"
"  --format F        table (default), json or csv: the same numbers\n"
"  --wide            the table whole, one line per row (by default it fits 100 columns);\n"
"                    alone: the full table and notes instead of the first screen\n"
"  --output FILE     write there (atomically) instead of standard output\n");
    fprintf(out,
"  --sharding S      ddp (default), zero1, zero2, zero3, fsdp (= zero3), hsdp[:GROUP]\n"
"                    (shard inside groups of GROUP GPUs, default a node; replicas across),\n"
"                    zero3 with ZeRO++'s +qwz (int8 parameter all-gathers), +hpz (backward\n"
"                    all-gathers inside the node), +qgz (int4 hierarchical reduce-scatter);\n"
"                    docs/sharding.md\n"
"  --grad-accum K    micro-batches per optimizer step (the batch is one micro-batch)\n"
"  --act-ckpt[=P]    activation checkpointing, forward work recomputed before backward:\n"
"                    full (the flag alone: each unit's whole forward, activations kept\n"
"                    at unit boundaries), op (torchtitan's op policy: every other matmul\n"
"                    of each transformer block), every:N (torchtitan: every N-th block\n"
"                    whole), fraction:P (fms-fsdp: a share P of the blocks whole)\n"
"  --mfu F           compute at this fraction of the GPU's peak (0 < F <= 1) instead of the\n"
"                    model's profile or the compute model (the time it gives: at most 1 h)\n"
"  --step-time T     one GPU's forward + backward time for the batch, e.g. 350ms (1us to\n"
"                    3600s; one of --mfu and --step-time)\n"
"  --no-memory-check predict even when the memory estimate exceeds gpu.memory (a\n"
"                    configuration known to run; the mem GB column still shows the estimate)\n"
"  --convergence S   note the compressor's convergence factor (best, catalog, train, bound;\n"
"                    docs/convergence.md): time to fp32's accuracy = time per step x factor\n"
CLI_VARIABILITY_HELP);
    fprintf(out, CLI_GOODPUT_USAGE);
    fprintf(out, CLI_FABRIC_USAGE);
    fprintf(out,
"\n"
"GPUs fill machines first: N GPUs use ceil(N / gpus_per_node) machines; when N is not a\n"
"multiple of gpus_per_node the last machine is partly filled and the models use\n"
"i = gpus_per_node, j = ceil(N / i).\n"
"\n"
"A configuration whose weights, gradients, optimizer state and activations exceed the\n"
"platform's gpu.memory is refused (exit 2) with the arithmetic.\n");
}

typedef struct {
    const char *platform_path, *model_path, *compressor, *gpus, *timeline, *output, *stack;
    gcsim_scaling scaling;
    gcsim_engine engine;
    gcsim_collective collective;
    bool collective_given;
    gcsim_exchange exchange;
    bool exchange_best;           /* --exchange best: the fastest per GPU count */
    bool exchange_mixed;          /* ... and the counts' fastest are not all the same */
    report_format format;
    long long batch, ps_shards;
    long long des_max_messages;   /* 0: the engine's default limit, < 0: none */
    double bucket_bytes;
    bool overlap;
    bool buckets;
    bool tensors;
    bool steps;
    int precision, optimizer;     /* -1: the model's */
    bool phased;                  /* --optimizer onebit-adam / zero-one-adam (run_phases.h) */
    run_phased_spec phases;
    long long steps_total;        /* --steps-total; 0: not given */
    gcsim_sharding sharding;
    long long grad_accum;
    bool act_ckpt;
    gcsim_act_ckpt act_ckpt_policy;
    double mfu, step_time_s;      /* compute overrides; 0: not given */
    bool no_memory_check;
    bool convergence_given;       /* --convergence: notes only, the rows are per step */
    conv_source convergence;
    goodput_options goodput;      /* --goodput and its inputs (cli_goodput.h); off: as before */
    cli_fabric_options fabric;    /* --background-load, --background-links (cli_fabric.h) */
    gcsim_variability variability; /* --compute-cv and the straggler options */
} predict_options;

/* --optimizer onebit-adam / zero-one-adam and --steps-total come together; the phases
 * replace predict's compressor (the warm-up is uncompressed, the rest 1-bit) and print
 * their own table. */
static int predict_phases_options(const predict_options *o)
{
    if (o->steps_total && !o->phased) {
        fprintf(stderr, "gcsim predict: --steps-total: only with --optimizer onebit-adam or "
                        "zero-one-adam (a run of phases)\n");
        return -1;
    }
    if (!o->phased)
        return 0;
    const char *clash = !o->steps_total ? NULL
                        : o->compressor && strcmp(o->compressor, "none") ? "--compressor"
                        : o->sharding.strategy != GCSIM_SHARD_DDP ? "--sharding"
                        : o->exchange_best ? "--exchange best"
                        : o->buckets ? "--buckets" : o->tensors ? "--tensors"
                        : o->steps ? "--steps" : o->timeline ? "--timeline"
                        : o->goodput.on ? "--goodput"
                        : o->variability.on ? "variable compute" : NULL;
    if (!o->steps_total) {
        fprintf(stderr, "gcsim predict: --optimizer %s: give the run's length with "
                        "--steps-total N (its end-to-end time is the sum over its phases)\n",
                o->phases.kind == RUN_PHASED_ONEBIT_ADAM ? "onebit-adam" : "zero-one-adam");
        return -1;
    }
    if (clash) {
        fprintf(stderr, "gcsim predict: --optimizer %s: not with %s (the phases set the "
                        "compressor per step, uncompressed then 1-bit, and print their own "
                        "table; docs/onebit-adam.md)\n",
                o->phases.kind == RUN_PHASED_ONEBIT_ADAM ? "onebit-adam" : "zero-one-adam",
                clash);
        return -1;
    }
    return 0;
}

static int parse_options(int argc, char **argv, predict_options *o)
{
    static const struct option longopts[] = {
        {"platform", required_argument, 0, 'p'}, {"model", required_argument, 0, 'm'},
        {"compressor", required_argument, 0, 'c'}, {"gpus", required_argument, 0, 'g'},
        {"scaling", required_argument, 0, 's'},  {"engine", required_argument, 0, 'e'},
        {"batch", required_argument, 0, 'b'},    {"collective", required_argument, 0, 'C'},
        {"ps-shards", required_argument, 0, 'S'}, {"bucket", required_argument, 0, 'B'},
        {"no-overlap", no_argument, 0, 'n'},     {"timeline", required_argument, 0, 't'},
        {"format", required_argument, 0, 'f'},   {"output", required_argument, 0, 'o'},
        {"buckets", no_argument, 0, 'k'},        {"help", no_argument, 0, 'h'},
        {"precision", required_argument, 0, 'P'}, {"optimizer", required_argument, 0, 'O'},
        {"exchange", required_argument, 0, 'X'},
        {"des-max-messages", required_argument, 0, 'M'},
        {"tensors", no_argument, 0, 'T'},      {"stack", required_argument, 0, 'K'},
        {"steps", no_argument, 0, 'Y'},
        {"sharding", required_argument, 0, 1000}, {"grad-accum", required_argument, 0, 1001},
        {"act-ckpt", optional_argument, 0, 1002},       {"mfu", required_argument, 0, 1003},
        {"step-time", required_argument, 0, 1004},
        {"no-memory-check", no_argument, 0, 1005}, {"wide", no_argument, 0, 1006},
        {"convergence", required_argument, 0, 1007},
        {"steps-total", required_argument, 0, 1008},
        {0, 0, 0, 0}};
    *o = (predict_options){.scaling = SCALING_WEAK, .engine = ENGINE_ANALYTIC,
                           .collective = COLLECTIVE_TERNGRAD, .format = REPORT_TABLE,
                           .overlap = true, .precision = -1, .optimizer = -1};
    cli_groups groups = {.variability = &o->variability, .goodput = &o->goodput,
                         .fabric = &o->fabric};
    const struct option *all_longopts = cli_groups_begin(&groups, longopts);
    optind = 1;
    opterr = 0;
    int ch;
    /* the training options take one value each: a second one replaced the first */
    static const int once[] = {'K', 1000, 1001, 1002, 1003, 1004, 0};
    unsigned seen = 0;
    while ((ch = cli_getopt_long(argc, argv, ":h", all_longopts, "predict")) != -1) {
        if (cli_option_once("predict", ch, once, &seen, argv))
            return -1;
        int group = cli_groups_option(&groups, "predict", ch, optarg, argv);
        if (group < 0)
            return -1;
        if (group == 0)
            continue;
        switch (ch) {
        case 'p': o->platform_path = optarg; break;
        case 'm': o->model_path = optarg; break;
        case 'c': o->compressor = optarg; break;
        case 'g': o->gpus = optarg; break;
        case 't': o->timeline = optarg; break;
        case 'o': o->output = optarg; break;
        case 'n': o->overlap = false; break;
        case 'k': o->buckets = true; break;
        case 'T': o->tensors = true; break;
        case 'K':
            if (cli_stack_option("predict", optarg, &o->stack))
                return -1;
            break;
        case 'Y': o->steps = true; break;
        case 'P':
            if (cli_training_precision("predict", optarg, &o->precision))
                return -1;
            break;
        case 'O':
            if (cli_training_optimizer_phased("predict", optarg, &o->optimizer, &o->phases,
                                              &o->phased))
                return -1;
            break;
        case 's':
            if (strcmp(optarg, "strong") == 0)
                o->scaling = SCALING_STRONG;
            else if (strcmp(optarg, "weak") == 0)
                o->scaling = SCALING_WEAK;
            else {
                fprintf(stderr, "gcsim predict: --scaling: expected strong or weak, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'e':
            if (engine_parse(optarg, &o->engine)) {
                fprintf(stderr, "gcsim predict: --engine: expected analytic, des or both, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'C':
            o->collective_given = true;
            if (gcsim_collective_parse(optarg, &o->collective)) {
                fprintf(stderr, "gcsim predict: --collective: unknown collective \"%s\" (terngrad, "
                                "ring, halving-doubling, tree, double-tree, hierarchical, nvls, ps, allgather, "
                                "dgc-paper)\n",
                        optarg);
                return -1;
            }
            break;
        case 'M': {
            long long v = 0;
            if (!cli_parse_int(optarg, -1, LLONG_MAX, &v) || v == 0) {
                fprintf(stderr, "gcsim predict: --des-max-messages: expected a positive count or "
                                "-1 (no limit), got \"%s\"\n", optarg);
                return -1;
            }
            o->des_max_messages = v;
            break;
        }
        case 'X':
            if (exchange_option_parse(optarg, &o->exchange, &o->exchange_best)) {
                fprintf(stderr, "gcsim predict: --exchange: expected auto, allreduce, allgather, "
                                "ps or best, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'f':
            if (report_format_parse(optarg, &o->format)) {
                fprintf(stderr, "gcsim predict: --format: expected table, json or csv, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'b':
            if (!cli_parse_int(optarg, 1, 1 << 24, &o->batch)) {
                fprintf(stderr, "gcsim predict: --batch: expected a positive integer, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'S':
            if (!cli_parse_int(optarg, 1, 1 << 20, &o->ps_shards)) {
                fprintf(stderr, "gcsim predict: --ps-shards: expected a positive integer, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'B':
            if (!gcsim_parse_whole_bytes(optarg, &o->bucket_bytes)) {
                fprintf(stderr, "gcsim predict: --bucket: expected a size such as 25MiB, got \"%s\" "
                                "(whole bytes, at most 2^50)\n", optarg);
                return -1;
            }
            break;
        case 1000:
            if (cli_training_sharding("predict", optarg, &o->sharding))
                return -1;
            break;
        case 1001:
            if (cli_training_grad_accum("predict", optarg, &o->grad_accum))
                return -1;
            break;
        case 1002:
            if (cli_training_act_ckpt("predict", optarg, &o->act_ckpt_policy))
                return -1;
            o->act_ckpt = true;
            break;
        case 1005: o->no_memory_check = true; break;
        case 1006: break; /* the full table: what any option prints */
        case 1007:
            if (cli_convergence_option("predict", optarg, &o->convergence))
                return -1;
            o->convergence_given = true;
            break;
        case 1003:
            if (cli_training_mfu("predict", optarg, &o->mfu))
                return -1;
            break;
        case 1004:
            if (cli_training_step_time("predict", optarg, &o->step_time_s))
                return -1;
            break;
        case 1008:
            if (cli_training_steps_total("predict", optarg, &o->steps_total))
                return -1;
            break;
        case 'h':
            predict_usage(stdout);
            return 1;
        case ':':
            fprintf(stderr, "gcsim predict: %s needs a value\n", argv[optind - 1]);
            return -1;
        default:
            fprintf(stderr, "gcsim predict: unknown option \"%s\" (see gcsim predict --help)\n",
                    argv[optind - 1]);
            return -1;
        }
    }
    if (cli_training_compute_conflict("predict", o->mfu, o->step_time_s) ||
        cli_groups_finish(&groups, "predict"))
        return -1;
    if (cli_fabric_des_only(&o->fabric) && o->engine == ENGINE_ANALYTIC) {
        fprintf(stderr, "gcsim predict: %s is simulated by the DES only: use "
                        "--engine des or both\n",
                o->fabric.fraction > 0 ? "--background-load"
                : o->fabric.spines > 0 ? "--ecmp-spines" : "--jitter-us");
        return -1;
    }
    if (o->goodput.on && (o->buckets || o->tensors || o->steps)) {
        fprintf(stderr, "gcsim predict: goodput is reported beside the GPU counts' throughput: "
                        "not with --buckets, --tensors or --steps\n");
        return -1;
    }
    if (optind < argc) {
        cli_training_unexpected("predict", argv[optind]);
        return -1;
    }
    return predict_phases_options(o);
}

typedef struct {
    int gpus;
    gcsim_placement placement;
    gcsim_engine engine;
    gcsim_prediction p;
    double speedup;
    gcsim_exchange exchange;      /* what ran (per count with --exchange best) */
    gcsim_var_stats var;          /* with variable compute: the iteration's distribution */
} predict_row;

/* A listed GPU count that cannot run the inputs (case_build_feasible): its row says why. */
typedef struct {
    int gpus;
    char why[1024];
} predict_skip;

static void describe(report *r, const predict_options *o, const gcsim_platform *pf,
                     const gcsim_model *m, const gcsim_payload_plan *pl, int batch,
                     double T1_s, const gcsim_stack_setup *ss, int max_gpus)
{
    const gcsim_codec_setup *cs = &ss->cs;
    char buf[2048];
    snprintf(buf, sizeof buf, "%s (%s)", pf->name, pf->source_path);
    report_note(r, "platform", buf);
    snprintf(buf, sizeof buf, "%s (%s), %lld parameters, |g| = %.2f MiB fp32", m->name,
             m->source_path, gcsim_model_params(m), pl->dense_bytes / 1048576.0);
    report_note(r, "model", buf);
    snprintf(buf, sizeof buf, "%s: %.2f MiB per worker, %.2fx smaller than fp32 (%s)", pl->spec,
             pl->total_bytes / 1048576.0, pl->dense_bytes / pl->total_bytes, pl->method);
    report_note(r, "compressor", buf);
    snprintf(buf, sizeof buf, "%s scaling, %s %d, T(1,1,K) = %.3f ms on %s",
             gcsim_scaling_name(o->scaling),
             o->scaling == SCALING_STRONG ? "global mini-batch K =" : "mini-batch per GPU K =",
             batch, T1_s * 1e3, pf->gpu.type);
    report_note(r, "workload", buf);
    gcsim_profile roofline, *no_profile = NULL;
    gcsim_error unused;
    const gcsim_profile *prof = gcsim_platform_profile(m, pf);
    if (!prof)
        prof = no_profile = (gcsim_profile *)gcsim_compute_profile(m, pf, batch, &roofline, &unused);
    snprintf(buf, sizeof buf, "%s training; %s for %s at %s: %s; %s",
             gcsim_precision_name(m->precision),
             !no_profile ? "profile"
             : strncmp(prof->source, "modelled", 8) == 0
                 ? "the model has no profile: TRANSFORMER EFFICIENCY MODEL"
                 : "the model has no profile: ROOFLINE MODEL",
             prof->gpu, gcsim_precision_name(prof->precision), prof->framework, prof->source);
    if (prof->layer_backward_s) /* bucket backward times follow them (sim/collectives) */
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "; backward shared between "
                 "buckets by per-layer times, %s", prof->layer_times_source);
    report_note(r, "compute", buf);
    gcsim_memory mem;
    gcsim_memory_estimate_sharded(m, pf, &o->sharding, max_gpus,
                                  gcsim_samples_per_gpu(o->scaling, batch, max_gpus),
                                  o->act_ckpt ? &o->act_ckpt_policy : NULL, o->bucket_bytes,
                                  &mem);
    gcsim_memory_describe(m, &mem, buf, sizeof buf);
    char at[64];
    snprintf(at, sizeof at, " (at %d GPUs; column mem GB per count)", max_gpus);
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s", at);
    report_note(r, "memory", buf);
    char strategy[48];
    gcsim_sharding_format(&o->sharding, strategy, sizeof strategy);
    if (o->sharding.strategy != GCSIM_SHARD_DDP || o->grad_accum > 1 || o->act_ckpt) {
        char ckpt_note[200] = "";
        if (o->act_ckpt) {
            char what[160];
            gcsim_act_ckpt_describe(&o->act_ckpt_policy, what, sizeof what);
            snprintf(ckpt_note, sizeof ckpt_note, "; activations checkpointed (%s)", what);
        }
        char group_note[96] = "";
        if (o->sharding.strategy == GCSIM_SHARD_HSDP && o->sharding.group > 0)
            snprintf(group_note, sizeof group_note,
                     "; on %d GPUs or fewer one group of all of them, which is zero3",
                     o->sharding.group);
        snprintf(buf, sizeof buf,
                 "%s%s; %lld micro-batch%s of %d per optimizer step%s%s", strategy, group_note,
                 o->grad_accum > 1 ? o->grad_accum : 1LL, o->grad_accum > 1 ? "es" : "", batch,
                 ckpt_note,
                 o->sharding.strategy == GCSIM_SHARD_ZERO3 || o->sharding.strategy == GCSIM_SHARD_HSDP
                     ? "; per unit: parameter all-gather before forward and before backward "
                       "(prefetched one unit ahead), gradient reduce-scatter after backward "
                       "(ring); one communication stream (docs/sharding.md)"
                 : o->sharding.strategy != GCSIM_SHARD_DDP
                     ? "; gradient buckets reduce-scattered, updated parameters all-gathered "
                       "after the step (ring; docs/sharding.md)"
                     : "");
        report_note(r, "sharding", buf);
    }
    report_meta_str(r, "sharding", strategy);
    report_meta_int(r, "grad_accum", o->grad_accum > 1 ? (int)o->grad_accum : 1);
    report_meta_bool(r, "act_ckpt", o->act_ckpt);
    char policy[48];
    gcsim_act_ckpt_format(&o->act_ckpt_policy, policy, sizeof policy);
    report_meta_str(r, "act_ckpt_policy", o->act_ckpt ? policy : "none");
    report_meta_str(r, "compute_source", gcsim_compute_source(m, pf));
    snprintf(buf, sizeof buf, "MFU = %.4g training FLOPs per sample (3 x forward) x samples/s / "
                              "(GPUs x %s %.4g TFLOP/s)",
             gcsim_model_train_flops_per_sample(m), gcsim_mfu_peak_name(m, pf),
             gcsim_mfu_peak_flops(m, pf) / 1e12);
    report_note(r, "mfu", buf);
    bool tuned = ss->tune && cs->exchange.exchange == GCSIM_EXCHANGE_ALLREDUCE;
    snprintf(buf, sizeof buf, "%s, collective %s%s%s, %s%s", engine_name(o->engine),
             tuned ? "tuned per call" : gcsim_collective_name(o->collective),
             tuned ? " (the stack's library picks ring, double-tree or nvls per call, as NCCL's "
                     "tuner; predict --steps lists them)"
             : o->collective_given ? "" : " (chosen by the exchange)",
             o->collective == COLLECTIVE_TERNGRAD    ? " (TernGrad Appendix B, eq. 27-30)"
             : o->collective == COLLECTIVE_DGC_PAPER ? " (DGC Sec. 5: TernGrad's pattern, sparse "
                                                       "density doubling per aggregation)"
                                                     : "",
             gcsim_step_overlaps(o->collective, o->overlap)
                 ? "buckets exchanged while backward runs"
                 : "exchange after backward (no overlap)",
             o->engine == ENGINE_ANALYTIC ? ""
                                          : "; the DES also sees contention between flows, "
                                            "buckets and codec work, the analytic engine not");
    if (o->sharding.strategy != GCSIM_SHARD_DDP) /* the DDP tuner does not apply */
        snprintf(buf, sizeof buf, "%s, the sharded exchange's ring reduce-scatters and "
                 "all-gathers%s", engine_name(o->engine),
                 o->engine == ENGINE_ANALYTIC ? ""
                                              : "; the DES also sees contention between flows, "
                                                "units and codec work, the analytic engine not");
    report_note(r, "engine", buf);
    snprintf(buf, sizeof buf, "%s%s, schedule %s (%s)",
             !o->exchange_best ? ""
             : o->exchange_mixed ? "best per GPU count, not the same at every count (the exchange "
                                   "column and the exchange search note); the stack's own: "
                                 : "best at every GPU count: ",
             gcsim_exchange_name(cs->exchange.exchange),
             tuned ? "tuned per call" : gcsim_collective_name(cs->exchange.collective),
             cs->exchange.why);
    if (ss->unimplemented[0]) /* named, a what-if: said where the exchange is */
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "; a what-if: %s",
                 ss->unimplemented);
    if (o->sharding.strategy == GCSIM_SHARD_DDP) {
        report_note(r, "exchange", buf);
        snprintf(buf, sizeof buf, "%s (%s): %s", ss->stack->name, ss->stack->path,
                 ss->stack->description);
        report_note(r, "stack", buf);
        report_note(r, "codec cost", ss->description);
    } else if (strcmp(pl->spec, "none") != 0 || o->sharding.qwz || o->sharding.qgz) {
        report_note(r, "codec cost", "compressor: the codec model per tensor (docs/codec.md); "
                                     "ZeRO++ quantization: memory-bound passes at "
                                     "gpu.memory_bandwidth (docs/sharding.md)");
    }
    report_meta_scenario(r, pf, m, pl, ss);
    report_meta_str(r, "engine", engine_name(o->engine));
    report_meta_str(r, "scaling", gcsim_scaling_name(o->scaling));
    report_meta_int(r, "batch", batch);
    report_meta_str(r, "batch_kind", o->scaling == SCALING_STRONG ? "global" : "per_gpu");
    report_meta_num(r, "single_gpu_iteration_s", T1_s);
    report_meta_bool(r, "overlap", gcsim_step_overlaps(o->collective, o->overlap));
    report_meta_str(r, "precision", gcsim_precision_name(m->precision));
    report_meta_str(r, "compute_profile", !no_profile ? "profile"
                                          : strncmp(prof->source, "modelled", 8) == 0
                                              ? "transformer-efficiency"
                                              : "roofline");
    report_meta_str(r, "mfu_peak", gcsim_mfu_peak_name(m, pf));
    report_meta_num(r, "mfu_peak_flops", gcsim_mfu_peak_flops(m, pf));
}

/* The row of a count that cannot run: its count and placement, status and reason; the
 * table shows a marker and the reason as a note. */
static void skip_row(report *r, const gcsim_platform *pf, const predict_skip *sk, int c_gpus,
                     int c_j, int c_i, int c_status, int c_why)
{
    report_row(r);
    report_int(r, c_gpus, sk->gpus);
    gcsim_placement pl;
    gcsim_error ignored;
    if (!gcsim_platform_place(pf, sk->gpus, &pl, &ignored)) {
        report_int(r, c_j, pl.machines);
        report_int(r, c_i, pl.gpus_per_machine);
    }
    report_str(r, c_status, "infeasible");
    char key[64];
    snprintf(key, sizeof key, "infeasible at %d GPUs", sk->gpus);
    report_str_table(r, c_why, sk->why, "see notes");
    report_note(r, key, sk->why);
}

/* --goodput (issue 41): columns after every other, only when asked, so that the table of a
 * run without it is as it was. */
enum { GOODPUT_COLS = 6 };

static void goodput_columns(report *r, int *c)
{
    c[0] = report_column(r, "goodput_samples_per_s", "goodput/s", 1);
    c[1] = report_column(r, "useful_pct", "useful %", 2);
    c[2] = report_column(r, "checkpoint_interval_s", "ckpt every s", 1);
    c[3] = report_column(r, "checkpoint_write_s", "ckpt write s", 2);
    c[4] = report_column(r, "restart_s", "restart s", 1);
    c[5] = report_column_scaled(r, "job_mtbf_s", "job MTBF h", 3, 1.0 / 3600.0);
}

static void goodput_cells(report *r, const int *c, const goodput_options *o,
                          const gcsim_model *m, const gcsim_platform *pf, const predict_row *row)
{
    goodput_result g;
    gcsim_error err;
    if (goodput_evaluate(o, m, row->gpus, pf->gpus_per_node, row->p.throughput_samples_per_s,
                         &g, &err))
        return; /* options are checked when parsed: nothing here can be refused */
    report_num(r, c[0], g.goodput_samples_per_s);
    report_num(r, c[1], 100.0 * g.useful_fraction);
    report_num(r, c[2], g.interval_s);
    report_num(r, c[3], g.checkpoint_write_s);
    report_num(r, c[4], g.restart_s);
    report_num(r, c[5], g.job_mtbf_s);
}

/* The formula, the interval rule and each input's source, once (the inputs that do not
 * depend on the GPU count go to the JSON meta as well). */
static void goodput_note(report *r, const goodput_options *o, const gcsim_model *m,
                         const gcsim_platform *pf, const predict_row *rows, int n_rows)
{
    goodput_result g;
    gcsim_error err;
    int gpus = n_rows > 0 ? rows[n_rows - 1].gpus : pf->gpus_per_node;
    if (goodput_evaluate(o, m, gpus, pf->gpus_per_node, 0.0, &g, &err))
        return;
    char buf[1400];
    goodput_describe(o, &g, buf, sizeof buf);
    report_note(r, "goodput", buf);
    report_meta_str(r, "goodput.checkpoint_interval_rule", g.rule_name);
    report_meta_num(r, "goodput.checkpoint_bytes", g.checkpoint_bytes);
    report_meta_num(r, o->node_mtbf_h > 0 ? "goodput.node_mtbf_hours" : "goodput.gpu_mtbf_hours",
                    o->node_mtbf_h > 0   ? o->node_mtbf_h
                    : o->gpu_mtbf_h > 0 ? o->gpu_mtbf_h
                                        : GOODPUT_DEFAULT_GPU_MTBF_H);
}

static report *build_report(const predict_row *rows, int n_rows, bool both,
                            const gcsim_model *m, const gcsim_platform *pf,
                            const predict_options *o, int batch, const int *listed,
                            int n_listed, const predict_skip *skips, int n_skips)
{
    report *r = report_new();
    report_meta_str(r, "table", "gpu_counts");
    int c_gpus = report_column(r, "gpus", "GPUs", 0);
    int c_j = report_column(r, "machines", "j", 0);
    int c_i = report_column(r, "gpus_per_machine", "i", 0);
    /* Every column is always there (null where it does not apply), so one header fits
     * every run; the engine columns come last, after the ones scripts read by position.
     * Times are seconds (_s) in CSV and JSON, milliseconds in the text table. */
    int c_samples = report_column(r, "samples_per_iteration", "samples/iter", 0);
    int c_iter = report_column_scaled(r, "iteration_s", "iter ms", 3, 1e3);
    int c_comp = report_column_scaled(r, "compute_s", "compute ms", 3, 1e3);
    int c_comm = report_column_scaled(r, "comm_s", "comm ms", 3, 1e3);
    int c_exposed = report_column_scaled(r, "exposed_comm_s", "exposed ms", 3, 1e3);
    int c_codec = report_column_scaled(r, "compress_s", "codec ms", 3, 1e3);
    int c_tput = report_column(r, "throughput_samples_per_s", "samples/s", 1);
    int c_speed = report_column(r, "speedup", "speedup", 2);
    int c_eff = report_column(r, "efficiency_pct", "eff %", 1);
    int c_tokens = report_column(r, "tokens_per_s", "tokens/s", 0);
    int c_mfu = report_column(r, "mfu_pct", "MFU %", 1);
    double train_flops = gcsim_model_train_flops_per_sample(m);
    /* added after the columns scripts read by position */
    int c_enc = report_column_scaled(r, "encode_s", "encode ms", 3, 1e3);
    int c_dec = report_column_scaled(r, "decode_s", "decode ms", 3, 1e3);
    int c_exch = report_column(r, "exchange", "exchange", 0);
    int c_engine = report_column(r, "engine", "engine", 0);
    int c_diff = report_column(r, "des_vs_analytic_pct", "DES vs analytic %", 1);
    int c_mem = report_column_scaled(r, "memory_bytes_per_gpu", "mem GB", 1, 1e-9);
    int c_csrc = report_column(r, "compute_source", "compute", 0);
    const char *csrc = gcsim_compute_source(m, pf);
    /* the text table in 100 columns (issue 46): the answer first, then where the time goes */
    report_column_brief(r, c_diff, "DES-ana %");
    report_column_brief(r, c_samples, "smp/iter");
    {
        const int lead[] = {c_gpus, c_engine, c_tput, c_tokens, c_mfu, c_speed, c_eff, c_mem,
                            c_iter, c_comp, c_exposed, c_codec, c_comm, c_enc, c_dec, c_exch};
        report_table_lead(r, 2, lead, (int)(sizeof lead / sizeof lead[0]));
    }
    /* variable compute: its columns and notes only when asked (predict_variability.c) */
    predict_var_columns vc;
    if (o->variability.on)
        predict_variability_columns(r, &o->variability, both, &vc);
    /* only where a count could not run, so the columns of a run that answers every count
     * stay as they were */
    int c_status = -1, c_why = -1;
    int gp_cols[GOODPUT_COLS] = {0};
    if (o->goodput.on)
        goodput_columns(r, gp_cols);
    if (n_skips) {
        c_status = report_column(r, "status", "status", 0);
        c_why = report_column(r, "why", "why", 0);
        report_note(r, "infeasible", "a count marked infeasible cannot run this configuration "
                                     "(the reason follows); the others are answered. Speedup "
                                     "and efficiency stay over one GPU, predicted without the "
                                     "memory check even where one GPU cannot hold the state");
    }
    /* the listed counts in their order: a skipped one's row, or its engines' rows */
    int next_skip = 0, k = 0;
    for (int li = 0; li < n_listed; li++) {
        if (next_skip < n_skips && skips[next_skip].gpus == listed[li]) {
            skip_row(r, pf, &skips[next_skip++], c_gpus, c_j, c_i, c_status, c_why);
            continue;
        }
        for (int e = 0; e < (both ? 2 : 1) && k < n_rows; e++, k++) {
            const predict_row *row = &rows[k];
            report_row(r);
            if (n_skips)
                report_str(r, c_status, "ok");
            report_int(r, c_gpus, row->gpus);
            report_int(r, c_j, row->placement.machines);
            report_int(r, c_i, row->placement.gpus_per_machine);
            report_str(r, c_engine, engine_name(row->engine));
            report_num(r, c_samples, row->p.samples_per_iteration);
            report_num(r, c_iter, row->p.iteration_s);
            report_num(r, c_comp, row->p.compute_s);
            report_num(r, c_comm, row->p.comm_s);
            report_num(r, c_exposed, row->p.exposed_comm_s);
            report_num(r, c_codec, row->p.compress_s);
            report_num(r, c_enc, row->p.encode_s);
            report_num(r, c_dec, row->p.decode_s);
            report_str(r, c_exch, sweep_exchange_label(&o->sharding, row->exchange));
            report_num(r, c_tput, row->p.throughput_samples_per_s);
            report_num(r, c_speed, row->speedup);
            report_num(r, c_eff, 100.0 * row->speedup / row->gpus);
            if (both && row->engine == ENGINE_DES && k > 0)
                report_num(r, c_diff, 100.0 * (row->p.throughput_samples_per_s /
                                                   rows[k - 1].p.throughput_samples_per_s -
                                               1.0));
            if (m->tokens_per_sample > 0)
                report_num(r, c_tokens, row->p.throughput_samples_per_s * m->tokens_per_sample);
            report_num(r, c_mfu, 100.0 * train_flops * row->p.throughput_samples_per_s /
                                     ((double)row->gpus * gcsim_mfu_peak_flops(m, pf)));
            gcsim_memory mem;
            gcsim_memory_estimate_sharded(m, pf, &o->sharding, row->gpus,
                                          gcsim_samples_per_gpu(o->scaling, batch, row->gpus),
                                          o->act_ckpt ? &o->act_ckpt_policy : NULL,
                                          o->bucket_bytes, &mem);
            report_num(r, c_mem, mem.total_bytes);
            report_str(r, c_csrc, csrc);
            if (o->variability.on)
                predict_variability_row(r, &vc, &row->var, row->engine == ENGINE_DES,
                                        row->p.samples_per_iteration);
            if (o->goodput.on)
                goodput_cells(r, gp_cols, &o->goodput, m, pf, row);
        }
    }
    if (o->goodput.on)
        goodput_note(r, &o->goodput, m, pf, rows, n_rows);
    return r;
}

/* The DES's gradient buckets for one GPU count: sizes and simulated times. */
static report *bucket_report(const gcsim_scenario *s, gcsim_error *err)
{
#ifdef GCSIM_HAVE_DES
    gcsim_prediction p;
    gcsim_des_details d = {0};
    if (engine_run_des(s, &p, &d, err))
        return NULL;
    report *r = report_new();
    report_meta_str(r, "table", "buckets");
    int c_b = report_column(r, "bucket", "bucket", 0);
    int c_first = report_column(r, "first_layer", "first layer", 0);
    int c_last = report_column(r, "last_layer", "last layer", 0);
    int c_dense = report_column_scaled(r, "dense_bytes", "fp32 MiB", 3, 1.0 / 1048576.0);
    int c_payload = report_column_scaled(r, "payload_bytes", "payload MiB", 3, 1.0 / 1048576.0);
    int c_ready = report_column_scaled(r, "ready_s", "ready ms", 3, 1e3);
    int c_start = report_column_scaled(r, "exchange_start_s", "start ms", 3, 1e3);
    int c_end = report_column_scaled(r, "exchange_end_s", "end ms", 3, 1e3);
    int c_enc = report_column_scaled(r, "encode_s", "encode ms", 3, 1e3);
    int c_dec = report_column_scaled(r, "decode_s", "decode ms", 3, 1e3);
    for (int b = 0; b < d.n_buckets; b++) {
        const gcsim_des_bucket *k = &d.buckets[b];
        report_row(r);
        report_int(r, c_b, b);
        report_str(r, c_first, s->model->layers[k->first_layer].name);
        report_str(r, c_last, s->model->layers[k->last_layer].name);
        report_num(r, c_dense, k->dense_bytes);
        report_num(r, c_payload, k->payload_bytes);
        report_num(r, c_ready, k->ready_s);
        report_num(r, c_start, k->exchange_start_s);
        report_num(r, c_end, k->exchange_end_s);
        report_num(r, c_enc, k->encode_s);
        report_num(r, c_dec, k->decode_s);
    }
    report_meta_int(r, "gpus", s->placement.gpus);
    report_meta_num(r, "iteration_s", p.iteration_s);
    report_meta_num(r, "compute_end_s", d.compute_end_s);
    report_meta_num(r, "exposed_comm_s", p.exposed_comm_s);
    report_meta_int(r, "transfers", d.transfers);
    report_meta_str(r, "network_model", d.network_model);
    char buf[256];
    snprintf(buf, sizeof buf, "%d GPUs: iteration %.3f ms, backward done at %.3f ms, exposed "
                              "communication %.3f ms, %lld simulated transfers, network model %s",
             s->placement.gpus, p.iteration_s * 1e3, d.compute_end_s * 1e3,
             p.exposed_comm_s * 1e3, d.transfers, d.network_model);
    report_note(r, "iteration", buf);
    gcsim_des_details_free(&d);
    return r;
#else
    (void)s;
    gcsim_fail(err, "--buckets: this build has no SimGrid engine");
    return NULL;
#endif
}

/* Per layer, the codec model's figures that both engines sum into a bucket's encode_s
 * and decode_s (gcsim_iteration_build); no engine runs. */
static report *tensor_report(const gcsim_scenario *s, gcsim_error *err)
{
    gcsim_iteration it;
    if (gcsim_iteration_build(&it, s, err))
        return NULL;
    report *r = report_new();
    report_meta_str(r, "table", "tensors");
    report_meta_int(r, "gpus", s->placement.gpus);
    report_meta_int(r, "buckets", it.n_buckets);
    int c_l = report_column(r, "layer", "layer", 0);
    int c_name = report_column(r, "name", "name", 0);
    int c_b = report_column(r, "bucket", "bucket", 0);
    int c_el = report_column(r, "elements", "elements", 0);
    int c_dense = report_column(r, "dense_bytes", "fp32 bytes", 0);
    int c_payload = report_column(r, "payload_bytes", "payload bytes", 0);
    int c_enc = report_column_scaled(r, "encode_s", "encode us", 3, 1e6);
    int c_dec = report_column_scaled(r, "decode_s", "decode us", 3, 1e6);
    double enc_s = 0, dec_s = 0;
    for (int l = 0; l < it.n_layers; l++) {
        long long elems = gcsim_layer_params(&s->model->layers[l]);
        report_row(r);
        report_int(r, c_l, l);
        report_str(r, c_name, s->model->layers[l].name);
        report_int(r, c_b, it.layer_bucket[l]);
        report_int(r, c_el, elems);
        report_num(r, c_dense, 4.0 * (double)elems);
        report_num(r, c_payload, it.layer_payload_bytes[l]);
        report_num(r, c_enc, it.layer_encode_s[l]);
        report_num(r, c_dec, it.layer_decode_s[l]);
        enc_s += it.layer_encode_s[l];
        dec_s += it.layer_decode_s[l];
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%d layers in %d buckets: encode %.3f ms, decode of one received "
                              "payload %.3f ms per GPU (an all-gather decodes N-1 of them)",
             it.n_layers, it.n_buckets, enc_s * 1e3, dec_s * 1e3);
    report_note(r, "tensors", buf);
    gcsim_iteration_free(&it);
    return r;
}

/* Sets ss and s up for the case that won the search at one count: that case's setup,
 * applied to s. */
static int exchange_use(const exchange_search_count *pc, gcsim_stack_setup *ss, gcsim_scenario *s,
                        gcsim_error *err)
{
    if (case_build_setup(exchange_search_winner(pc), ss, err))
        return -1;
    gcsim_stack_setup_apply(ss, s);
    return 0;
}

/* predict's case record (sim/planning/case_build.h): every row, the one-GPU reference and
 * the exchange search's tries are built from it, so no option is left out of any of them. */
static sweep_case predict_case(const predict_options *o, const gcsim_platform *pf,
                               const gcsim_model *m, const gcsim_payload_plan *pl,
                               const gcsim_stack *st, int batch)
{
    return (sweep_case){.platform = pf, .model = m, .payload = pl, .stack = st,
                        .collective = o->collective, .collective_given = o->collective_given,
                        .exchange = o->exchange, .scaling = o->scaling, .engine = o->engine,
                        .batch = batch, .gpus = 1, .ps_shards = (int)o->ps_shards,
                        .bucket_bytes = o->bucket_bytes, .overlap = o->overlap,
                        .sharding = o->sharding, .grad_accum = (int)o->grad_accum,
                        .act_ckpt = o->act_ckpt, .act_ckpt_policy = o->act_ckpt_policy,
                        .no_memory_check = o->no_memory_check,
                        .des_max_messages = o->des_max_messages,
                        .variability = o->variability.on ? &o->variability : NULL};
}

int cmd_predict(int argc, char **argv)
{
    /* No option at all: the README's run command, a newcomer's first screen. */
    if (argc <= 1 && report_table_limit()) /* `predict --wide`: the full table (main.c) */
        return predict_first_screen(stdout);
    predict_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    /* Both outputs are renamed into place at the end: the report, written last, replaced
     * the timeline, or an input, without a word. */
    cli_files files;
    cli_files_init(&files, "predict");
    cli_files_platform(&files, "--platform", o.platform_path);
    cli_files_model(&files, "--model", o.model_path);
    cli_files_stack(&files, "--stack", o.stack);
    if (o.convergence_given)
        cli_convergence_files(&files, o.convergence);
    cli_files_output(&files, "--timeline", o.timeline);
    cli_files_output(&files, "--output", o.output);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;
    if (o.engine != ENGINE_ANALYTIC && !engine_des_available()) {
        fprintf(stderr, "gcsim predict: --engine %s: this build has no SimGrid engine\n",
                engine_name(o.engine));
        return EXIT_BAD_INPUT;
    }
    if ((o.tensors || o.steps) && (o.buckets || o.timeline || (o.tensors && o.steps))) {
        fprintf(stderr, "gcsim predict: %s prints its own table: not with %s\n",
                o.tensors ? "--tensors" : "--steps",
                o.buckets ? "--buckets" : o.timeline ? "--timeline" : "--steps");
        return EXIT_BAD_INPUT;
    }
    if (o.timeline && o.engine == ENGINE_ANALYTIC) {
        fprintf(stderr, "gcsim predict: --timeline needs --engine des or both\n");
        return EXIT_BAD_INPUT;
    }

    gcsim_error err = {.internal = 0};
    gcsim_platform platform;
    gcsim_model model = {0};
    gcsim_payload_plan plan = {0}, onebit_plan = {0};
    gcsim_stack *stack = malloc(sizeof *stack);
    predict_row *rows = NULL;
    predict_skip *skips = NULL;
    exchange_search_count *search = NULL;
    report *r = NULL;
    int status = EXIT_BAD_INPUT;
    if (!stack) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    if (inputs_load_platform(o.platform_path, &platform, &err) ||
        inputs_load_model(o.model_path, &model, &err) ||
        (gcsim_stack_load(gcsim_stack_choice(o.stack, &platform), stack, &err) &&
         (gcsim_stack_blame_platform(o.stack, &platform, &err), 1)))
        goto fail;
    if (cli_fabric_apply("predict", &o.fabric, &platform))
        goto done; /* the reason is printed; status is still EXIT_BAD_INPUT */
    if (o.precision >= 0)
        gcsim_model_set_precision(&model, (gcsim_precision)o.precision);
    if (o.optimizer >= 0)
        model.optimizer = (gcsim_optimizer)o.optimizer;
    int batch = o.batch ? (int)o.batch : model.batch_per_gpu;
    if ((o.mfu > 0 || o.step_time_s > 0) &&
        gcsim_compute_override(&model, &platform, batch, o.mfu, o.step_time_s, &err))
        goto fail;
    if (o.sharding.strategy != GCSIM_SHARD_DDP && o.stack && strcmp(o.stack, "fused") != 0) {
        gcsim_fail(&err, "--stack %s: sharded strategies run their own exchange (reduce-scatters "
                         "and all-gathers as FSDP and DeepSpeed issue them, docs/sharding.md), "
                         "not a DDP stack's hooks: leave --stack out or give fused", o.stack);
        goto fail;
    }
    gcsim_profile roofline;
    const gcsim_profile *prof = gcsim_compute_profile(&model, &platform, batch, &roofline, &err);
    double T1_s = 0.0;
    if (!prof)
        goto fail;
    if (gcsim_profile_time_s(prof, batch, &T1_s, &err))
        goto fail;
    char spec[256]; /* a description file's spec (file:PATH.json), else the name given */
    if (gcsim_compressor_resolve(o.compressor, spec, sizeof spec, &err))
        goto fail;
    o.compressor = spec;
    if (gcsim_payload_plan_build(o.compressor, &model, &plan, &err))
        goto fail;
    sweep_case base = predict_case(&o, &platform, &model, &plan, stack, batch);
    gcsim_stack_setup ss;
    if (case_build_setup(&base, &ss, &err))
        goto fail;
    base.collective = o.collective = ss.cs.exchange.collective;
    if (ss.unimplemented[0])
        fprintf(stderr, "gcsim predict: warning: %s; running it as asked, a what-if "
                        "(--exchange best and the exchange warning never pick it; --stack fused "
                        "or a stack file whose \"exchanges\" lists it for the ideal or your own "
                        "implementation)\n",
                ss.unimplemented);

    int counts[MAX_GPU_COUNTS], n_counts, listed[MAX_GPU_COUNTS];
    char msg[1024]; /* output messages quote the path: 256 bytes cut the reason off */
    if (o.gpus) {
        n_counts = cli_parse_gpu_list(o.gpus, counts, MAX_GPU_COUNTS, msg, sizeof msg);
        if (n_counts < 0) {
            fprintf(stderr, "gcsim predict: %s\n", msg);
            goto done;
        }
    } else if (o.timeline || o.buckets || o.tensors || o.steps) {
        /* One count is needed: two machines (one when the platform has one), enough to show
         * both intra- and inter-machine transfers in a trace of readable size. */
        int machines = platform.nodes < 2 ? platform.nodes : 2;
        counts[0] = machines * platform.gpus_per_node;
        n_counts = 1;
        fprintf(stderr, "gcsim predict: %s without --gpus: %d GPUs (%d machine%s of %d)\n",
                o.timeline ? "--timeline" : o.buckets ? "--buckets" : o.steps ? "--steps" : "--tensors",
                counts[0], machines,
                machines == 1 ? "" : "s", platform.gpus_per_node);
    } else {
        /* powers of two up to the platform's size, and its size: sweep's default */
        n_counts = sweep_default_gpus((long long)platform.nodes * platform.gpus_per_node, counts,
                                      MAX_GPU_COUNTS);
    }
    if ((o.timeline || o.buckets || o.tensors || o.steps) && n_counts != 1) {
        fprintf(stderr, "gcsim predict: %s needs exactly one GPU count in --gpus\n",
                o.timeline ? "--timeline" : o.buckets ? "--buckets" : o.steps ? "--steps" : "--tensors");
        goto done;
    }
    if (o.buckets && o.engine == ENGINE_ANALYTIC) {
        fprintf(stderr, "gcsim predict: --buckets needs --engine des or both\n");
        goto done;
    }
    if (o.variability.on && predict_variability_check(&o.variability, counts, n_counts))
        goto done;

    /* Every count is checked before any engine runs. Bad inputs fail the run; a count
     * that alone cannot run them (memory, a sharding's refusal) is a row with its reason
     * and the others are answered (issue 46); none running is a failure with every reason. */
    if (o.act_ckpt && gcsim_act_ckpt_check(&model, &o.act_ckpt_policy, &err))
        goto fail;
    int n_listed = n_counts, n_skips = 0;
    memcpy(listed, counts, sizeof counts);
    skips = calloc((size_t)n_listed, sizeof *skips);
    if (!skips) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    n_counts = 0;
    for (int k = 0; k < n_listed; k++) {
        base.gpus = listed[k];
        int feasible = case_build_feasible(&base, &err);
        if (feasible < 0)
            goto fail;
        if (feasible > 0) {
            skips[n_skips].gpus = listed[k];
            snprintf(skips[n_skips].why, sizeof skips[n_skips].why, "%s", err.message);
            n_skips++;
        } else {
            counts[n_counts++] = listed[k];
        }
    }
    if (!n_counts) {
        for (int k = 0; k < n_skips; k++)
            fprintf(stderr, "gcsim predict: %s\n", skips[k].why);
        if (n_listed > 1)
            fprintf(stderr, "gcsim predict: none of the %d GPU counts in the list can run\n",
                    n_listed);
        goto done;
    }
    base.gpus = 1;
    gcsim_scenario s;
    if (case_build_scenario(&base, &ss, &s, &err))
        goto fail;
    /* The other exchanges, tried with the analytic engine (predict_exchange.h): --exchange
     * best runs the fastest; otherwise a warning when it is much faster than this one,
     * for a compressed payload whose schedule nobody named (a collective given on the
     * command line or by the platform, such as the papers' patterns, is a choice). */
    bool check_exchange = !(o.tensors || o.steps) && !o.collective_given &&
                          o.sharding.strategy == GCSIM_SHARD_DDP &&
                          !platform.collective[0] && strcmp(plan.spec, "none") != 0;
    if (check_exchange || o.exchange_best) {
        search = calloc((size_t)n_counts, sizeof *search);
        if (!search) {
            gcsim_fail(&err, "out of memory");
            goto fail;
        }
        if (exchange_search_run(&base, counts, n_counts, o.exchange, o.exchange_best, search,
                                &err))
            goto fail;
    }
    if ((o.tensors || o.steps) && o.exchange_best && search[0].searched) {
        /* one count: its winner's program */
        if (exchange_use(&search[0], &ss, &s, &err))
            goto fail;
        o.collective = ss.cs.exchange.collective;
    }
    if (o.tensors && ss.entry) {
        gcsim_fail(&err, "--tensors lists the codec model's per-tensor figures, which only the "
                         "fused stack charges; stack %s prices its ops per %s: use --steps, or "
                         "--stack fused", stack->name,
                   stack->unit == STACK_UNIT_BUCKET ? "bucket" : "tensor group");
        goto fail;
    }
    if (o.steps) {
        r = report_new();
        if (gcsim_platform_place(&platform, counts[0], &s.placement, &err) ||
            predict_steps_fill(r, &s, &err))
            goto fail;
        goto print;
    }
    if (o.tensors) {
        /* the count matters only in whether it compresses at all (not on one GPU) */
        if (gcsim_platform_place(&platform, counts[0], &s.placement, &err) ||
            !(r = tensor_report(&s, &err)))
            goto fail;
        goto print;
    }
    bool both = o.engine == ENGINE_BOTH;
    int per_count = both ? 2 : 1;
    rows = calloc((size_t)n_counts * per_count, sizeof *rows);
    if (!rows) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    int n_rows = 0;
    for (int e = 0; e < per_count; e++) {
        gcsim_engine engine = both ? (e == 0 ? ENGINE_ANALYTIC : ENGINE_DES) : o.engine;
        /* Speedup is over one GPU with the same engine, batch and compressor. */
        gcsim_prediction one;
        gcsim_scenario s1;
        if (case_build_scenario(&base, &ss, &s1, &err) || engine_run(engine, &s1, &one, &err))
            goto fail;
        for (int k = 0; k < n_counts; k++) {
            /* with --exchange best, this count's winner: the case its search ran, with its
             * own setup, so the row is what predict --exchange <winner> prints */
            const sweep_case *won = o.exchange_best ? exchange_search_winner(&search[k]) : NULL;
            sweep_case ck = won ? *won : base;
            ck.gpus = counts[k];
            gcsim_stack_setup ss_k;
            const gcsim_stack_setup *used = &ss;
            if (won) {
                if (case_build_setup(&ck, &ss_k, &err))
                    goto fail;
                used = &ss_k;
            }
            gcsim_scenario s_k;
            if (case_build_scenario(&ck, used, &s_k, &err))
                goto fail;
            s_k.timeline_path = engine == ENGINE_DES ? o.timeline : NULL;
            predict_row *row = &rows[both ? 2 * k + e : k];
            s_k.variability_stats = &row->var;
            row->gpus = counts[k];
            row->placement = s_k.placement;
            row->engine = engine;
            row->exchange = used->cs.exchange.exchange;
            if (engine_run(engine, &s_k, &row->p, &err))
                goto fail;
            if (o.buckets && k == n_counts - 1 && used == &ss_k) {
                /* the bucket table below needs the setup that ran */
                ss = ss_k;
                gcsim_stack_setup_apply(&ss, &s);
            }
            /* A winner is over one GPU of its own case, as predict --exchange <winner>
             * computes it: where the stack's own exchange is a paper's pattern (a platform
             * that names terngrad), its one-GPU run charges a gradient copy to the host
             * that the other exchanges do not (issue 45: efficiencies above 100%). */
            double one_tput = one.throughput_samples_per_s;
            if (won) {
                sweep_case c1 = ck;
                c1.gpus = 1;
                gcsim_scenario s1_k;
                gcsim_prediction one_k;
                if (case_build_scenario(&c1, used, &s1_k, &err) ||
                    engine_run(engine, &s1_k, &one_k, &err))
                    goto fail;
                one_tput = one_k.throughput_samples_per_s;
            }
            row->speedup = row->p.throughput_samples_per_s / one_tput;
            n_rows++;
        }
    }

    if (o.buckets) {
        s.placement = rows[n_rows - 1].placement;
        s.timeline_path = NULL;
        if (!(r = bucket_report(&s, &err)))
            goto fail;
    } else if (o.phased) {
        gcsim_engine engines[2] = {rows[0].engine, both ? ENGINE_DES : rows[0].engine};
        if (gcsim_payload_plan_build(RUN_PHASES_ONEBIT_COMPRESSOR, &model, &onebit_plan, &err) ||
            !(r = predict_phases_report(&o.phases, o.steps_total, &base, &onebit_plan, counts,
                                        n_counts, engines, both ? 2 : 1, &err)))
            goto fail;
    } else {
        r = build_report(rows, n_rows, both, &model, &platform, &o, batch, listed, n_listed,
                         skips, n_skips);
    }
print:
    if (o.exchange_best) {
        int w = exchange_search_uniform_winner(search, n_counts);
        if (w >= 0) {
            if (exchange_use(&search[w], &ss, &s, &err))
                goto fail;
            o.collective = ss.cs.exchange.collective;
        } else {
            o.exchange_mixed = true;
        }
    }
    int max_gpus = 1;
    for (int k = 0; k < n_counts; k++)
        max_gpus = counts[k] > max_gpus ? counts[k] : max_gpus;
    describe(r, &o, &platform, &model, &plan, batch, T1_s, &ss, max_gpus);
    cli_fabric_report(r, &platform);
    if (search)
        predict_exchange_report(r, search, n_counts, o.exchange_best);
    if (o.convergence_given) {
        conv_factor cf;
        const char *spec = plan.spec;
        if (cli_convergence_factors("predict", o.convergence, model.name, &spec, 1, 0, &cf))
            goto done;
        cli_convergence_notes(r, o.convergence, &spec, 1, &cf);
        cli_convergence_meta(r, &cf, max_gpus);
    }
    if (o.output) {
        atomic_file f;
        if (atomic_file_open(&f, o.output, msg, sizeof msg)) {
            fprintf(stderr, "gcsim predict: %s\n", msg);
            goto done;
        }
        if ((errno = 0), report_write(r, o.format, f.stream)) {
            int write_errno = errno;
            atomic_file_abort(&f);
            fprintf(stderr, "gcsim predict: %s: write failed: %s\n", o.output, atomic_file_reason(write_errno));
            goto done;
        }
        if (atomic_file_commit(&f, msg, sizeof msg)) {
            fprintf(stderr, "gcsim predict: %s\n", msg);
            goto done;
        }
    } else if ((errno = 0), report_write(r, o.format, stdout) || fflush(stdout)) {
        fprintf(stderr, "gcsim predict: cannot write to standard output: %s\n", atomic_file_reason(errno));
        goto done;
    }
    status = EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "gcsim predict: %s\n", err.message);
    status = exit_code_for(&err);
done:
    report_free(r);
    free(rows);
    free(skips);
    free(search);
    free(stack);
    gcsim_payload_plan_free(&plan);
    gcsim_payload_plan_free(&onebit_plan);
    gcsim_model_free(&model);
    return status;
}
