/*
 * sim/step/sharding.c: the iteration of sharded data parallelism (ZeRO-1/2/3, FSDP,
 * HSDP; sim/config/sharding.h), gradient accumulation and activation checkpointing, as
 * compute blocks and the collective programs they wait for or release. Both engines run
 * the result (gcsim_iteration); docs/sharding.md draws the timelines.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "nccl_call.h"
#include "protocol.h"
#include "program.h"
#include "sharding_build.h"
#include "tuner_model.h"

/* The most collective calls (or buckets) one step may hold: ZeRO-3 on a 100-unit model
 * with a few hundred micro-batches; beyond, memory and the engines' time grow for nothing
 * a user asks for. */
#define SHARDING_MAX_CALLS 4000000

/* ---- growing arrays ---- */

static int add_block(gcsim_iteration *it, int *cap, gcsim_block b)
{
    if (it->n_blocks == *cap) {
        int n = *cap ? 2 * *cap : 64;
        gcsim_block *v = realloc(it->blocks, sizeof *v * (size_t)n);
        if (!v)
            return -1;
        it->blocks = v;
        *cap = n;
    }
    it->blocks[it->n_blocks++] = b;
    return 0;
}

static gcsim_bucket *add_bucket(gcsim_iteration *it, int *cap)
{
    if (it->n_buckets == *cap) {
        int n = *cap ? 2 * *cap : 64;
        gcsim_bucket *v = realloc(it->buckets, sizeof *v * (size_t)n);
        if (!v)
            return NULL;
        it->buckets = v;
        *cap = n;
    }
    gcsim_bucket *b = &it->buckets[it->n_buckets++];
    memset(b, 0, sizeof *b);
    return b;
}

/* ---- what goes on the wire ---- */

int sharding_micro_batches(const gcsim_scenario *s)
{
    return s->grad_accum > 1 ? s->grad_accum : 1;
}

/* GPUs a shard spans (sharding.h): all, or the HSDP group (a node by default). */
int sharding_group(const gcsim_scenario *s)
{
    int n = s->placement.gpus;
    if (s->sharding.strategy != GCSIM_SHARD_HSDP)
        return n;
    int g = s->sharding.group > 0 ? s->sharding.group : s->platform->gpus_per_node;
    return g < n ? g : n;
}

/* Seconds of a memory-bound kernel that reads and writes `bytes` in all on one GPU: how
 * ZeRO++'s quantize and dequantize kernels are costed (no measured profile here). */
static double memory_pass_s(const gcsim_scenario *s, double bytes)
{
    double bw = s->platform->gpu.memory_Bps;
    return bw > 0 ? bytes / bw : 0.0;
}

/* A gradient reduce-scatter of `elems` parameters (layers first..last): the
 * compressor's payload when one compresses, ZeRO++'s int4 under qgz, else the training
 * precision's gradient. */
static gcsim_bucket_bytes gradient_bytes(const gcsim_iteration *it, const gcsim_scenario *s,
                                         int first, int last)
{
    gcsim_bucket_bytes b = {.aggregation = PAYLOAD_DENSE_SUMMABLE};
    double elems = 0;
    for (int l = first; l <= last; l++) {
        double e = (double)gcsim_layer_params(&s->model->layers[l]);
        elems += e;
        b.dense_bytes += 4.0 * e;
        b.payload_bytes += it->layer_payload_bytes[l];
        b.encode_s += it->layer_encode_s[l];
        b.decode_s += it->layer_decode_s[l];
    }
    if (gcsim_scenario_compresses(s)) {
        b.compressed = true;
        b.aggregation = s->shared_support ? PAYLOAD_DENSE_SUMMABLE : s->payload->aggregation;
    } else if (s->sharding.qgz && s->placement.gpus > 1) {
        /* int4 values and a fp32 scale per block; a reducing hop dequantizes, adds and
         * requantizes (per-worker scale) */
        b.compressed = true;
        b.aggregation = PAYLOAD_PER_WORKER_SCALE;
        b.payload_bytes = elems * (0.5 + 4.0 / GCSIM_ZEROPP_BLOCK_ELEMS);
        b.encode_s = memory_pass_s(s, elems * (2.0 + 0.5));
        b.decode_s = memory_pass_s(s, elems * (0.5 + 2.0 + 2.0));
    }
    if (b.payload_bytes >= b.dense_bytes)
        b.fixed_bytes = b.payload_bytes;
    return b;
}

/* One GPU's shard of a parameter all-gather of `elems` parameters spread over `group`
 * GPUs: 16-bit (or fp32) parameters, or ZeRO++'s int8 with a scale per block (qwz). */
static gcsim_bucket_bytes param_shard_bytes(const gcsim_scenario *s, double elems, int group,
                                            bool quantized)
{
    double shard = elems / group;
    double elem = gcsim_precision_grad_elem_bytes(s->model->precision);
    gcsim_bucket_bytes b = {.dense_bytes = 4.0 * shard, .aggregation = PAYLOAD_DENSE_SUMMABLE,
                            .payload_bytes = shard * elem};
    if (quantized) {
        b.compressed = true;
        b.payload_bytes = shard * (1.0 + 4.0 / GCSIM_ZEROPP_BLOCK_ELEMS);
        b.encode_s = memory_pass_s(s, shard * (elem + 1.0));
        b.decode_s = memory_pass_s(s, shard * (1.0 + elem));
    }
    if (b.payload_bytes >= b.dense_bytes)
        b.fixed_bytes = b.payload_bytes;
    return b;
}

/* ---- programs ---- */

/* ---- NCCL's latency of the calls (nccl_call.h) ---- */

/* A layer's weight tensors (DeepSpeed's fetch granules): `matrices`, else one. */
static int layer_tensors(const gcsim_layer *l)
{
    return l->matrices > 0 ? l->matrices : 1;
}

/* NCCL's per-call base and network per-hop overheads of one all-gather or reduce-scatter
 * (NCCL's ring) over shard groups of g GPUs: a group inside a node pays the base only, a
 * group of whole nodes (or all GPUs) its nodes' hops. With the call's bytes b (NULL: none,
 * ZeRO++'s two quantized gathers), the protocol NCCL's closed-form model picks for it
 * instead (*protocol) and its fixed cost (nccl_call.h); where that cannot be costed, the
 * Simple charge. */
static double group_call_s(const gcsim_scenario *s, gcsim_collective c, int g,
                           const gcsim_bucket_bytes *b, const char **protocol)
{
    gcsim_nccl_tuned_call t;
    gcsim_error err;
    *protocol = NULL;
    if (b && g > 1 &&
        gcsim_nccl_group_call_tune(s->platform, s->placement.gpus,
                                   g == s->placement.gpus ? 0 : g, c, b, &t, &err) == 0) {
        *protocol = gcsim_protocol_name((gcsim_protocol)t.protocol);
        return t.fixed_s;
    }
    return gcsim_nccl_call_overhead_s(s->platform, g, c, -1);
}

/* HSDP's replica all-reduce: one GPU of each of the n / g groups, run by gcsim as a ring
 * (cross-group-ring) and charged as NCCL's ring on those ranks. Its ranks span a node each
 * when a group is whole nodes; when groups lie inside nodes, every node holds gpn / g of
 * them. */
static double replica_call_s(const gcsim_scenario *s, int g)
{
    int n = s->placement.gpus, gpn = s->platform->gpus_per_node > 0 ? s->platform->gpus_per_node : 1;
    int ranks = n / g;
    int nodes = g >= gpn ? ranks : (n + gpn - 1) / gpn;
    return gcsim_nccl_ranks_overhead_s(s->platform, ranks, nodes, COLLECTIVE_RING,
                                       GCSIM_NCCL_RING);
}

/* ZeRO++'s qgZ (DeepSpeed all_to_all_quant_reduce, deepspeed/runtime/comm/
 * coalesced_collectives.py, microsoft/DeepSpeed commit 03aecee8): for every gradient tensor
 * of the bucket, all_to_all_single of the int4 values and of the scales inside the node,
 * then the same two across nodes (one GPU per node, the same local rank) - four NCCL
 * all-to-alls per weight tensor, whatever gcsim's hierarchical schedule moves in one
 * call. */
static double qgz_calls_s(const gcsim_scenario *s, int first, int last)
{
    int n = s->placement.gpus, gpn = s->platform->gpus_per_node > 0 ? s->platform->gpus_per_node : 1;
    int local = n < gpn ? n : gpn, nodes = (n + gpn - 1) / gpn;
    int tensors = 0;
    for (int l = first; l <= last; l++)
        tensors += layer_tensors(&s->model->layers[l]);
    double per_tensor_s = 2 * gcsim_nccl_alltoall_overhead_s(s->platform, local, 1) +
                          2 * gcsim_nccl_alltoall_overhead_s(s->platform, nodes, nodes);
    return tensors * per_tensor_s;
}

/* A bucket's program: encode what it sends, the call (with NCCL's latency nccl_s, paid in
 * both engines before its first flow), decode what it receives (an all-gather's group - 1
 * payloads). group 0: all GPUs. */
static int program_one(gcsim_iteration *it, const gcsim_scenario *s, int b, const char *name,
                       gcsim_collective c, int group, const gcsim_bucket_bytes *bytes,
                       double nccl_s)
{
    int g = group > 0 ? group : s->placement.gpus;
    int decodes = c == COLLECTIVE_ALLGATHER ? (g > 1 ? g - 1 : 1) : 1;
    double enc = bytes->compressed ? gcsim_bucket_encode_s(bytes) : 0;
    double dec = bytes->compressed ? decodes * bytes->decode_s : 0;
    if (program_codec(it, "encode", GCSIM_CODEC_ENCODE, enc) ||
        program_call(it, b, name, c, bytes, nccl_s))
        return -1;
    program_last_call(it)->group = group;
    return program_codec(it, "decode", GCSIM_CODEC_DECODE, dec);
}

static int begin_program(gcsim_iteration *it, int b)
{
    it->buckets[b].first_step = it->n_steps;
    return 0;
}

static void end_program(gcsim_iteration *it, int b)
{
    it->buckets[b].n_steps = it->n_steps - it->buckets[b].first_step;
    it->buckets[b].n_deferred = 0;
}

/* The gradient exchange of layers first..last: a reduce-scatter over the shard group
 * (hierarchical under qgz), then, under HSDP, the all-reduce of the shard across the
 * groups. */
static int program_gradient(gcsim_iteration *it, const gcsim_scenario *s, int b)
{
    gcsim_bucket *bk = &it->buckets[b];
    int n = s->placement.gpus, g = sharding_group(s);
    begin_program(it, b);
    if (n > 1) {
        gcsim_collective rs = s->sharding.qgz && !gcsim_scenario_compresses(s)
                                  ? COLLECTIVE_HIER_REDUCE_SCATTER
                                  : COLLECTIVE_REDUCE_SCATTER;
        int group = g == n ? 0 : g;
        const char *proto = NULL;
        double rs_s = rs == COLLECTIVE_REDUCE_SCATTER
                          ? group_call_s(s, rs, g, &bk->bytes, &proto)
                          : qgz_calls_s(s, bk->first_layer, bk->last_layer);
        if (program_one(it, s, b, rs == COLLECTIVE_REDUCE_SCATTER ? "reduce-scatter"
                                                                  : "qgZ reduce-scatter",
                        rs, group, &bk->bytes, rs_s))
            return -1;
        program_last_call(it)->protocol = proto;
        if (g < n) {
            /* the shard, summed over the groups, at the training precision */
            gcsim_bucket_bytes shard = {.dense_bytes = bk->bytes.dense_bytes / g,
                                        .aggregation = PAYLOAD_DENSE_SUMMABLE};
            shard.payload_bytes = shard.dense_bytes *
                                  gcsim_precision_grad_elem_bytes(s->model->precision) / 4.0;
            if (program_one(it, s, b, "replica all-reduce", COLLECTIVE_CROSS_GROUP_RING, g,
                            &shard, replica_call_s(s, g)))
                return -1;
        }
    }
    end_program(it, b);
    return 0;
}

/* A parameter all-gather of layers first..last over `group` GPUs (0: all). */
static int program_params(gcsim_iteration *it, const gcsim_scenario *s, int b, int group,
                          bool quantized, const char *name, double elems)
{
    gcsim_bucket *bk = &it->buckets[b];
    if (elems <= 0) /* the whole layers (else a share of one layer's: a weight tensor) */
        for (int l = bk->first_layer; l <= bk->last_layer; l++)
            elems += (double)gcsim_layer_params(&s->model->layers[l]);
    int g = group > 0 ? group : s->placement.gpus;
    bk->bytes = param_shard_bytes(s, elems, g, quantized);
    begin_program(it, b);
    /* qwZ: DeepSpeed gathers the int8 values and the scales in two all-gathers
     * (all_gather_coalesced's quantized branch, deepspeed/runtime/zero/
     * partition_parameters.py) */
    const char *proto = NULL;
    double nccl_s = (quantized ? 2 : 1) * group_call_s(s, COLLECTIVE_ALLGATHER, g,
                                                       quantized ? NULL : &bk->bytes, &proto);
    if (g > 1 && program_one(it, s, b, name, COLLECTIVE_ALLGATHER,
                             group == s->placement.gpus ? 0 : group, &bk->bytes, nccl_s))
        return -1;
    if (g > 1)
        program_last_call(it)->protocol = proto;
    end_program(it, b);
    return 0;
}

/* ---- plain, ZeRO-1 and ZeRO-2: gradient buckets ---- */

static double forward_of(const double *layer_fwd_s, int first, int last)
{
    double t = 0;
    for (int l = first; l <= last; l++)
        t += layer_fwd_s[l];
    return t;
}

/* What activation checkpointing recomputes of each layer's forward (act_ckpt.h): NULL when
 * nothing is recomputed; under the full policy, every share 1. */
static double *recompute_shares(const gcsim_scenario *s, gcsim_error *err, int *rc)
{
    *rc = 0;
    if (!s->act_ckpt)
        return NULL;
    const gcsim_model *m = s->model;
    double *share = malloc(sizeof(double) * (size_t)(m->n_layers > 0 ? m->n_layers : 1));
    if (!share) {
        *rc = gcsim_fail(err, "out of memory");
        return NULL;
    }
    if (gcsim_act_ckpt_layer_share(m, &s->act_ckpt_policy, share, err) != 0) {
        free(share);
        *rc = -1;
        return NULL;
    }
    return share;
}

/* Seconds recomputed of layers first..last: each layer's share of its forward. Under the
 * full policy every share is 1 and x * 1 is x, so this is forward_of's sum to the bit. */
static double recompute_of(const double *share, const double *layer_fwd_s, int first,
                           int last)
{
    double t = 0;
    for (int l = first; l <= last; l++)
        t += layer_fwd_s[l] * share[l];
    return t;
}

int sharding_build_bucketed(gcsim_iteration *it, const gcsim_scenario *s,
                            const double *layer_fwd_s, gcsim_error *err)
{
    int nb = it->n_buckets, K = sharding_micro_batches(s);
    gcsim_shard_strategy st = s->sharding.strategy;
    if ((long long)nb * K > SHARDING_MAX_CALLS)
        return gcsim_fail(err, "%s: %d buckets x %d micro-batches make %lld exchanges per step, "
                               "more than the %d gcsim simulates: give fewer micro-batches "
                               "(--grad-accum) or larger buckets (--bucket)",
                          s->model->source_path, nb, K, (long long)nb * K, SHARDING_MAX_CALLS);
    gcsim_bucket *orig = it->buckets;
    it->buckets = NULL;
    it->n_buckets = 0;
    free(it->blocks);
    it->blocks = NULL;
    it->n_blocks = 0;
    int block_cap = 0, bucket_cap = 0, rc = 0;
    double *share = recompute_shares(s, err, &rc);
    if (rc) {
        free(orig);
        return -1;
    }
    double fwd_total = forward_of(layer_fwd_s, 0, it->n_layers - 1);
    it->compute_s = it->forward_s = 0;
    for (int m = 0; m < K && rc == 0; m++) {
        bool sync = st == GCSIM_SHARD_ZERO2 || m == K - 1;
        int first_bucket = it->n_buckets;
        rc = add_block(it, &block_cap,
                       (gcsim_block){.kind = GCSIM_BLOCK_FORWARD, .seconds = fwd_total,
                                     .last_layer = it->n_layers - 1, .gate = -1,
                                     .micro_batch = m});
        it->forward_s += fwd_total;
        for (int b = 0; b < nb && rc == 0; b++) {
            const gcsim_bucket *ob = &orig[b];
            double r = share ? recompute_of(share, layer_fwd_s, ob->first_layer, ob->last_layer)
                             : 0;
            if (r > 0) {
                rc = add_block(it, &block_cap,
                               (gcsim_block){.kind = GCSIM_BLOCK_RECOMPUTE, .seconds = r,
                                             .first_layer = ob->first_layer,
                                             .last_layer = ob->last_layer, .gate = -1,
                                             .micro_batch = m});
                it->compute_s += r;
            }
            rc = rc || add_block(it, &block_cap,
                                 (gcsim_block){.kind = GCSIM_BLOCK_BACKWARD,
                                               .seconds = ob->backward_s,
                                               .first_layer = ob->first_layer,
                                               .last_layer = ob->last_layer, .gate = -1,
                                               .micro_batch = m});
            if (rc || !sync)
                continue;
            gcsim_bucket *nbk = add_bucket(it, &bucket_cap);
            if (!nbk) {
                rc = -1;
                break;
            }
            *nbk = *ob;
            nbk->ready_block = it->n_blocks - 1;
        }
        if (!it->overlap)
            for (int b = first_bucket; b < it->n_buckets; b++)
                it->buckets[b].ready_block = it->n_blocks - 1;
    }
    for (int k = 0; k < it->n_blocks; k++)
        it->compute_s += it->blocks[k].kind == GCSIM_BLOCK_RECOMPUTE ? 0 : it->blocks[k].seconds;
    free(orig);
    free(share);
    if (rc)
        return gcsim_fail(err, "out of memory for %d micro-batches of %d buckets", K, nb);
    if (st == GCSIM_SHARD_DDP)
        return 0; /* the caller builds the stack's programs */
    int grad_buckets = it->n_buckets;
    for (int b = 0; b < grad_buckets; b++) {
        it->buckets[b].bytes = gradient_bytes(it, s, it->buckets[b].first_layer,
                                              it->buckets[b].last_layer);
        if (program_gradient(it, s, b))
            return gcsim_fail(err, "out of memory for the programs of %d buckets", grad_buckets);
    }
    /* After the optimizer step each GPU holds its shard of the updated parameters; the
     * next forward needs all of them. */
    gcsim_bucket *ag = add_bucket(it, &bucket_cap);
    if (!ag)
        return gcsim_fail(err, "out of memory");
    ag->first_layer = 0;
    ag->last_layer = it->n_layers - 1;
    ag->ready_block = it->n_blocks - 1;
    if (program_params(it, s, it->n_buckets - 1, 0, false, "parameter all-gather", 0))
        return gcsim_fail(err, "out of memory");
    return 0;
}

/* ---- ZeRO-3, FSDP and HSDP: units ---- */

typedef struct {
    int first_layer, last_layer;
    double fwd_s, bwd_s, recompute_s;
} unit_span;

/* A program to place: its bucket fields, when it may start, and whether it is a
 * parameter all-gather (before a gradient exchange ready at the same block, as FSDP's
 * backward prefetch issues it) and what it gates. */
typedef struct {
    int unit, ready_block, gated_block;
    int kind; /* 0 forward all-gather, 1 backward all-gather, 2 gradient */
    int layer;    /* DeepSpeed fetch: the all-gather's layer (-1: the whole unit) */
    double elems; /* and its elements (one weight tensor's share of the layer) */
} pending;

/* ---- DeepSpeed ZeRO-3: parameters fetched per weight tensor ---- */

/* DeepSpeed fetches the parameters of each submodule that owns some (a Linear: one weight
 * tensor) when it runs, and at every submodule it runs (forward, recomputation, backward)
 * prefetches further ones in the recorded order of the step's fetches
 * (partitioned_param_coordinator.py, fetch_sub_module): those not yet in flight, one at
 * least, until the elements issued at this submodule reach stage3_prefetch_bucket_size,
 * and never while those available (in use, kept for reuse, in flight) reach
 * stage3_max_live_parameters. With tensors larger than the bucket (every matrix of a 10B+
 * transformer) that is one tensor more per submodule run: a forward all-gather overlaps
 * only the compute of the tensor before it, and a unit's reduce-scatter, on the same links,
 * delays the all-gathers queued behind it. A tensor is live from its all-gather to its last
 * use (its forward; under checkpointing its backward, after the recomputation). Not
 * modelled: stage3_max_reuse_distance keeping a tensor for a later pass, and
 * stage3_param_persistence_threshold (tensors under 1e5 elements never partitioned). */
typedef struct {
    int n, cap;
    int *gate, *release, *layer, *issue; /* blocks; issue: the block issuing it */
    double *elems;
} fetch_pass;

static int fetch_add(fetch_pass *f, int gate, int layer, double elems)
{
    if (f->n == f->cap) {
        int c = f->cap ? 2 * f->cap : 64;
        int **iv[] = {&f->gate, &f->release, &f->layer, &f->issue};
        for (int k = 0; k < 4; k++) {
            int *v = realloc(*iv[k], sizeof(int) * (size_t)c);
            if (!v)
                return -1;
            *iv[k] = v;
        }
        double *e = realloc(f->elems, sizeof(double) * (size_t)c);
        if (!e)
            return -1;
        f->elems = e;
        f->cap = c;
    }
    f->gate[f->n] = gate;
    f->release[f->n] = gate;
    f->layer[f->n] = layer;
    f->elems[f->n] = elems;
    f->n++;
    return 0;
}

/* Sets issue[] for the fetches of blocks first_block .. last_block (one micro-batch's
 * trace, fetches in block order) as fetch_sub_module does at each block. */
static void prefetch_issue(fetch_pass *f, int first_block, int last_block)
{
    int next = 0, rel = 0, n = f->n;
    double live = 0;
    /* fetches by release block, to retire them in order */
    int *order = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!order) { /* no room to simulate: every tensor fetched when needed */
        for (int j = 0; j < n; j++)
            f->issue[j] = f->gate[j];
        return;
    }
    for (int j = 0; j < n; j++)
        order[j] = j;
    for (int j = 1; j < n; j++) /* insertion sort: nearly in order already */
        for (int k = j; k > 0 && f->release[order[k - 1]] > f->release[order[k]]; k--) {
            int t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    for (int blk = first_block; blk <= last_block; blk++) {
        while (rel < n && f->release[order[rel]] < blk && order[rel] < next)
            live -= f->elems[order[rel++]];
        if (next < n && f->gate[next] == blk) { /* its own tensor, not prefetched */
            f->issue[next] = blk;
            live += f->elems[next++];
        }
        double budget = fmin(GCSIM_DS_MAX_LIVE_PARAMS - live, GCSIM_DS_PREFETCH_BUCKET_ELEMS);
        double numel = 0;
        while (next < n && numel < budget) {
            f->issue[next] = blk;
            numel += f->elems[next];
            live += f->elems[next++];
        }
    }
    free(order);
}

/* Appends the micro-batch's all-gathers to todo (room reserved by the caller) and empties
 * the list: forward ones before the backward pass begins (its first block bwd_block). */
static void fetch_flush(fetch_pass *f, pending *todo, int *n_todo, int first_block,
                        int last_block, int bwd_block)
{
    prefetch_issue(f, first_block, last_block);
    for (int j = 0; j < f->n; j++)
        todo[(*n_todo)++] = (pending){.unit = -1, .ready_block = f->issue[j] - 1,
                                      .gated_block = f->gate[j],
                                      .kind = f->gate[j] >= bwd_block ? 1 : 0,
                                      .layer = f->layer[j], .elems = f->elems[j]};
    f->n = 0;
}

static void fetch_free(fetch_pass *f)
{
    free(f->gate);
    free(f->release);
    free(f->layer);
    free(f->issue);
    free(f->elems);
}

static int pending_order(const void *a, const void *b)
{
    const pending *x = a, *y = b;
    if (x->ready_block != y->ready_block)
        return x->ready_block < y->ready_block ? -1 : 1;
    int px = x->kind == 2, py = y->kind == 2;
    if (px != py)
        return px - py;
    return x->gated_block < y->gated_block ? -1 : x->gated_block > y->gated_block;
}

int sharding_build_units(gcsim_iteration *it, const gcsim_scenario *s,
                         const double *layer_fwd_s, const double *layer_bwd_s,
                         gcsim_error *err)
{
    const gcsim_model *m = s->model;
    int L = m->n_layers, K = sharding_micro_batches(s), n = s->placement.gpus;
    int g = sharding_group(s), gpn = s->platform->gpus_per_node;
    int *unit_of = malloc(sizeof(int) * (size_t)L);
    unit_span *units = calloc((size_t)L, sizeof *units);
    pending *todo = NULL;
    int rc = 0;
    double *share = recompute_shares(s, err, &rc);
    if (rc) {
        free(unit_of);
        free(units);
        return -1;
    }
    if (!unit_of || !units) {
        rc = -1;
        goto out;
    }
    int U = gcsim_model_units(m, unit_of);
    for (int l = 0; l < L; l++) {
        unit_span *u = &units[unit_of[l]];
        if (l == 0 || unit_of[l] != unit_of[l - 1])
            u->first_layer = l;
        u->last_layer = l;
        u->fwd_s += layer_fwd_s[l];
        u->bwd_s += layer_bwd_s[l];
    }
    for (int u = 0; share && u < U; u++)
        units[u].recompute_s = recompute_of(share, layer_fwd_s, units[u].first_layer,
                                            units[u].last_layer);
    free(it->buckets);
    free(it->blocks);
    it->buckets = NULL;
    it->blocks = NULL;
    it->n_buckets = it->n_blocks = 0;
    it->compute_s = it->forward_s = 0;
    for (int l = 0; l < L; l++)
        it->layer_bucket[l] = -1;
    bool ds = gcsim_sharding_deepspeed_fetch(&s->sharding);
    int tensors = 0; /* DeepSpeed's fetch steps per pass at most */
    for (int l = 0; l < L; l++)
        tensors += layer_tensors(&m->layers[l]);
    int per_micro = ds ? 2 * tensors + U : 3 * U;
    if ((long long)per_micro * K > SHARDING_MAX_CALLS) {
        free(unit_of);
        free(units);
        return gcsim_fail(err, "%s: %d units x %d micro-batches make %lld collective calls per "
                               "step, more than the %d gcsim simulates: give fewer micro-batches "
                               "(--grad-accum)",
                          m->source_path, U, K, (long long)per_micro * K, SHARDING_MAX_CALLS);
    }
    todo = malloc(sizeof *todo * (size_t)(per_micro * K));
    if (!todo) {
        rc = -1;
        goto out;
    }
    int n_todo = 0, block_cap = 0;
    fetch_pass fp = {0};
    int *first_fetch = ds ? malloc(sizeof(int) * (size_t)L) : NULL;
    if (ds && !first_fetch)
        rc = -1;
    for (int mb = 0; ds && mb < K && rc == 0; mb++) {
        int mb_first = it->n_blocks;
        for (int u = 0; u < U && rc == 0; u++)
            for (int l = units[u].first_layer; l <= units[u].last_layer && rc == 0; l++) {
                int nt = layer_tensors(&m->layers[l]);
                double e = (double)gcsim_layer_params(&m->layers[l]) / nt;
                for (int t = 0; t < nt && rc == 0; t++) {
                    double f = layer_fwd_s[l] / nt;
                    rc = (e > 0 && fetch_add(&fp, it->n_blocks, l, e)) ||
                         add_block(it, &block_cap,
                                   (gcsim_block){.kind = GCSIM_BLOCK_FORWARD, .seconds = f,
                                                 .first_layer = l, .last_layer = l,
                                                 .gate = -1, .micro_batch = mb});
                    it->forward_s += f;
                    it->compute_s += f;
                }
            }
        if (rc)
            break;
        int bwd_first = it->n_blocks;
        for (int t = 0; t < U && rc == 0; t++) {
            int u = U - 1 - t;
            bool rec = units[u].recompute_s > 0;
            /* the checkpointed unit's forward again, its tensors fetched in forward order */
            for (int l = units[u].first_layer; rec && l <= units[u].last_layer && rc == 0; l++) {
                int nt = layer_tensors(&m->layers[l]);
                double e = (double)gcsim_layer_params(&m->layers[l]) / nt;
                double r = share[l] * layer_fwd_s[l] / nt;
                first_fetch[l] = e > 0 ? fp.n : -1;
                for (int k = 0; r > 0 && k < nt && rc == 0; k++) {
                    rc = (e > 0 && fetch_add(&fp, it->n_blocks, l, e)) ||
                         add_block(it, &block_cap,
                                   (gcsim_block){.kind = GCSIM_BLOCK_RECOMPUTE, .seconds = r,
                                                 .first_layer = l, .last_layer = l,
                                                 .gate = -1, .micro_batch = mb});
                    it->compute_s += r;
                }
            }
            /* backward in reverse order; a tensor not recomputed is fetched for it */
            for (int l = units[u].last_layer; l >= units[u].first_layer && rc == 0; l--) {
                int nt = layer_tensors(&m->layers[l]);
                double e = (double)gcsim_layer_params(&m->layers[l]) / nt;
                bool fetched = rec && share[l] * layer_fwd_s[l] > 0;
                for (int k = 0; k < nt && rc == 0; k++) {
                    double b = layer_bwd_s[l] / nt;
                    if (fetched && first_fetch[l] >= 0) /* live until this backward */
                        fp.release[first_fetch[l] + k] = it->n_blocks;
                    rc = (!fetched && e > 0 && fetch_add(&fp, it->n_blocks, l, e)) ||
                         add_block(it, &block_cap,
                                   (gcsim_block){.kind = GCSIM_BLOCK_BACKWARD, .seconds = b,
                                                 .first_layer = l, .last_layer = l,
                                                 .gate = -1, .micro_batch = mb});
                    it->compute_s += b;
                }
            }
            todo[n_todo++] = (pending){.unit = u, .ready_block = it->n_blocks - 1,
                                       .gated_block = -1, .kind = 2, .layer = -1};
        }
        if (rc == 0)
            fetch_flush(&fp, todo, &n_todo, mb_first, it->n_blocks - 1, bwd_first);
    }
    fetch_free(&fp);
    free(first_fetch);
    for (int mb = 0; !ds && mb < K && rc == 0; mb++) {
        int base = it->n_blocks;
        for (int u = 0; u < U && rc == 0; u++) {
            int prefetch = base + u - 2 > base - 1 ? base + u - 2 : base - 1;
            todo[n_todo++] = (pending){.unit = u, .ready_block = prefetch,
                                       .gated_block = it->n_blocks, .kind = 0,
                                       .layer = -1};
            rc = add_block(it, &block_cap,
                           (gcsim_block){.kind = GCSIM_BLOCK_FORWARD, .seconds = units[u].fwd_s,
                                         .first_layer = units[u].first_layer,
                                         .last_layer = units[u].last_layer, .gate = -1,
                                         .micro_batch = mb});
            it->forward_s += units[u].fwd_s;
            it->compute_s += units[u].fwd_s;
        }
        int fwd_end = it->n_blocks - 1;
        for (int t = 0; t < U && rc == 0; t++) {
            int u = U - 1 - t, q = it->n_blocks;
            int prefetch = q - 2 > fwd_end ? q - 2 : fwd_end;
            todo[n_todo++] = (pending){.unit = u, .ready_block = prefetch, .gated_block = q,
                                       .kind = 1, .layer = -1};
            if (units[u].recompute_s > 0) {
                rc = add_block(it, &block_cap,
                               (gcsim_block){.kind = GCSIM_BLOCK_RECOMPUTE,
                                             .seconds = units[u].recompute_s,
                                             .first_layer = units[u].first_layer,
                                             .last_layer = units[u].last_layer,
                                             .gate = -1, .micro_batch = mb});
                it->compute_s += units[u].recompute_s;
            }
            rc = rc || add_block(it, &block_cap,
                                 (gcsim_block){.kind = GCSIM_BLOCK_BACKWARD,
                                               .seconds = units[u].bwd_s,
                                               .first_layer = units[u].first_layer,
                                               .last_layer = units[u].last_layer,
                                               .gate = -1, .micro_batch = mb});
            it->compute_s += units[u].bwd_s;
            todo[n_todo++] = (pending){.unit = u, .ready_block = it->n_blocks - 1,
                                       .gated_block = -1, .kind = 2, .layer = -1};
        }
    }
    if (rc)
        goto out;
    qsort(todo, (size_t)n_todo, sizeof *todo, pending_order);
    it->buckets = calloc((size_t)n_todo, sizeof *it->buckets);
    if (!it->buckets) {
        rc = -1;
        goto out;
    }
    /* hpZ: the backward all-gathers read the secondary copy inside the node */
    int bwd_group = s->sharding.hpz && gpn < g && g % gpn == 0 ? gpn : (g == n ? 0 : g);
    int fwd_group = g == n ? 0 : g;
    for (int k = 0; k < n_todo && rc == 0; k++) {
        const pending *p = &todo[k];
        int b = it->n_buckets++;
        gcsim_bucket *bk = &it->buckets[b];
        bk->first_layer = p->layer >= 0 ? p->layer : units[p->unit].first_layer;
        bk->last_layer = p->layer >= 0 ? p->layer : units[p->unit].last_layer;
        bk->ready_block = p->ready_block;
        if (p->kind == 2) {
            bk->backward_s = units[p->unit].bwd_s;
            bk->bytes = gradient_bytes(it, s, bk->first_layer, bk->last_layer);
            for (int l = bk->first_layer; l <= bk->last_layer; l++)
                it->layer_bucket[l] = b;
            rc = program_gradient(it, s, b);
            continue;
        }
        /* DeepSpeed gathers the tensors one prefetch issues in one coalesced call
         * (all_gather_coalesced): those issued at the same block, of the same pass */
        double elems = p->elems;
        it->blocks[p->gated_block].gate = b;
        while (p->layer >= 0 && k + 1 < n_todo && todo[k + 1].layer >= 0 &&
               todo[k + 1].kind == p->kind && todo[k + 1].ready_block == p->ready_block) {
            k++;
            elems += todo[k].elems;
            it->blocks[todo[k].gated_block].gate = b;
            if (todo[k].layer < bk->first_layer)
                bk->first_layer = todo[k].layer;
            if (todo[k].layer > bk->last_layer)
                bk->last_layer = todo[k].layer;
        }
        rc = program_params(it, s, b, p->kind == 1 ? bwd_group : fwd_group, s->sharding.qwz,
                            p->kind == 1 ? "backward all-gather" : "forward all-gather",
                            p->layer >= 0 ? elems : 0);
    }
out:
    free(unit_of);
    free(units);
    free(todo);
    free(share);
    if (rc)
        return gcsim_fail(err, "out of memory building the sharded iteration of %d layers", L);
    return 0;
}
