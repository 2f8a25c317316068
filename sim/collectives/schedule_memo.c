/*
 * sim/collectives/schedule_memo.c: prepared schedules kept per (platform, GPUs, collective,
 * shards, chunks, group) (schedule_memo.h).
 *
 * Platforms are interned by content (a copy compared byte for byte), so two loads of the
 * same file share their schedules and a platform freed and another loaded at the same
 * address never see each other's. Entries sit in an open-addressing table that doubles
 * as it fills; the memo starts over when its classes pass the byte bound.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "closed_form.h"
#include "content_hash.h"
#include "schedule_memo.h"
#include "tree_cost.h"
#include "tree_internal.h"

typedef struct {
    int platform, gpus, collective, shards, chunks, group;
} memo_key;

typedef struct {
    memo_key key;
    bool used;
    gcsim_schedule schedule;
} memo_entry;

enum { PLATFORMS_MAX = 256 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static gcsim_platform *platforms[PLATFORMS_MAX];
static uint64_t platform_hash[PLATFORMS_MAX]; /* gcsim_content_hash of each */
static int n_platforms, last_platform = -1;
static const gcsim_platform *last_address;
static memo_entry *table;
static size_t capacity, n_entries;
static double kept_bytes;

/* Tree templates (tree_cost.h) per (shape, GPUs, collective): a tree's schedule depends
 * on its chunk count, and a sweep asks for dozens of chunk counts per GPU count. A
 * template's kinds depend on the network's shape only (shape_of), its numbers on the
 * platform: set again (tree_template_value) when another platform of the shape asks.
 * `gcsim calibrate` and the tuner cost each size on platforms that differ from the
 * written one only in bandwidths and latencies (a protocol's, NCCL's tree correction at
 * that size, its overheads spread over the steps): one template serves them all, where
 * each built its own (issue 47: 11 CPU-minutes for the 20 GB200 racks' log, most of it
 * listing the 72-rail trees' flows again). */
typedef struct {
    int shape, gpus, collective;
    gcsim_platform *own;  /* the topology's platform: a copy the template's entry keeps */
    gcsim_topology *topo; /* on the heap: the template points to it, entries move */
    gcsim_tree_template *tt;
    int valued;           /* the platform id whose numbers tt holds (-1: none) */
    unsigned valued_gen;  /* ... in this generation of platform ids */
} tree_entry;

static tree_entry *trees;
static size_t tree_capacity, n_trees;
/* Bytes the templates hold (their steady forms too). Kept apart from the classes' bound:
 * a template of 2^20 GPUs alone is 2 GB, past any bound, and dropped with the classes it
 * was rebuilt for every chunk count of one GPU count (a call per bucket size). The
 * templates are dropped, all of them, before a new one is built once they pass
 * GCSIM_SCHEDULE_MEMO_BYTES: the memo holds at most that much plus the template in use,
 * which the size guard counts (what the process maps). */
static double tree_bytes;

static void drop_trees_locked(void)
{
    for (size_t k = 0; k < tree_capacity; k++)
        if (trees[k].tt) {
            gcsim_tree_template_free(trees[k].tt);
            gcsim_topology_free(trees[k].topo);
            free(trees[k].topo);
            free(trees[k].own);
        }
    free(trees);
    trees = NULL;
    tree_capacity = n_trees = 0;
    tree_bytes = 0;
}

/* Counts the times everything was dropped: a platform id taken before a drop is stale. */
static unsigned generation;

/* Shapes (shape_of), interned as the platforms are; they outlive a start-over of the
 * schedules and platforms (the templates, keyed by shape, do too). */
static gcsim_platform *shapes[PLATFORMS_MAX];
static uint64_t shape_hash[PLATFORMS_MAX];
static int n_shapes;
static int platform_shape[PLATFORMS_MAX]; /* each platform id's shape id */

static void drop_shapes_locked(void)
{
    drop_trees_locked();
    for (int k = 0; k < n_shapes; k++)
        free(shapes[k]);
    n_shapes = 0;
}

/* The schedules and platforms dropped; the templates kept (their own bound: each keeps a
 * copy of the platform its topology was built on, and takes a later platform's numbers
 * when asked). */
static void clear_locked(void)
{
    generation++;
    for (size_t k = 0; k < capacity; k++)
        if (table[k].used)
            gcsim_schedule_free(&table[k].schedule);
    free(table);
    table = NULL;
    capacity = n_entries = 0;
    kept_bytes = 0;
    for (int k = 0; k < n_platforms; k++)
        free(platforms[k]);
    n_platforms = 0;
    last_platform = -1;
    last_address = NULL;
}

void gcsim_schedule_memo_clear(void)
{
    pthread_mutex_lock(&lock);
    clear_locked();
    drop_shapes_locked();
    pthread_mutex_unlock(&lock);
    tree_walk_scratch_release(); /* this thread's: a leak checker sees nothing kept */
}

void gcsim_schedule_memo_drop_schedules(void)
{
    pthread_mutex_lock(&lock);
    clear_locked();
    pthread_mutex_unlock(&lock);
}

size_t gcsim_schedule_memo_templates(void)
{
    pthread_mutex_lock(&lock);
    size_t n = n_trees;
    pthread_mutex_unlock(&lock);
    return n;
}

/* What a schedule depends on of a platform: its copy with the fields no schedule reads
 * (sim/collectives reads the node, the intra-node links, the NICs, the fabric and the
 * DES-only options, never the GPU, the names, the stack, the default collective or the
 * price) cleared, so that platforms with the same network share their schedules (h100-ndr
 * and h200-ndr differ only in their GPU: a tenth of the 307,200-case sweep's schedule
 * preparation, issue 47). */
static void network_of(const gcsim_platform *p, gcsim_platform *out)
{
    memcpy(out, p, sizeof *out);
    memset(out->name, 0, sizeof out->name);
    memset(out->description, 0, sizeof out->description);
    memset(out->source_path, 0, sizeof out->source_path);
    memset(&out->gpu, 0, sizeof out->gpu);
    memset(out->collective, 0, sizeof out->collective);
    memset(out->stack, 0, sizeof out->stack);
    out->has_price = false;
    out->price_per_gpu_hour_usd = 0;
    memset(out->price_source, 0, sizeof out->price_source);
}

/* What a tree template's kinds depend on of a platform (tree_cost.h): its network with
 * the numbers that only set capacities and latencies replaced by their sign (the
 * topology's links exist where some of them are positive). Every other field is kept as
 * it is, so two platforms of one shape have the same links and routes, each link's
 * capacity from the same formula (gcsim_topology_link_type) and each route's latency from
 * the same fields. */
static double sign_of(double x)
{
    return x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? 0.0 : 2.0;
}

static void shape_of(const gcsim_platform *net, gcsim_platform *out)
{
    memcpy(out, net, sizeof *out);
    double *numbers[] = {&out->intra.gpu_to_host_Bps, &out->intra.gpu_to_gpu_Bps,
                         &out->intra.latency_s,       &out->intra.nvls_Bps,
                         &out->intra.nvlink_link_Bps, &out->intra.socket_link_Bps,
                         &out->intra.host_memory_Bps, &out->intra.switch_uplink_Bps,
                         &out->intra.h2d_bidirectional_Bps, &out->intra.shm_bandwidth_Bps,
                         &out->nic.bandwidth_Bps,     &out->nic.latency_s,
                         &out->nic.message_overhead_s, &out->nic.connection_Bps,
                         &out->nic.proxy_Bps,         &out->fabric.switch_latency_s};
    for (size_t k = 0; k < sizeof numbers / sizeof numbers[0]; k++)
        *numbers[k] = sign_of(*numbers[k]);
    /* NCCL's channel count across nodes follows the NVLink and NIC rates (topology.c,
     * gcsim_topology_net_channels), and the rails it sets are links of their own: two
     * platforms of one sign pattern but different channel counts are different shapes.
     * The count is kept in the (positive) NVLink field, where only its sign was. */
    if (net->intra.gpu_to_gpu_Bps > 0)
        out->intra.gpu_to_gpu_Bps = 1.0 + gcsim_topology_net_channels(net);
}

/* The shape id of network net; -1 when out of memory. */
static int shape_id(const gcsim_platform *net)
{
    gcsim_platform *sh = malloc(sizeof *sh);
    if (!sh)
        return -1;
    shape_of(net, sh);
    uint64_t h = gcsim_content_hash(sh, sizeof *sh);
    for (int k = 0; k < n_shapes; k++)
        if (shape_hash[k] == h && memcmp(shapes[k], sh, sizeof *sh) == 0) {
            free(sh);
            return k;
        }
    if (n_shapes == PLATFORMS_MAX) {
        clear_locked(); /* the platform ids name shapes: none may outlive its shape */
        drop_shapes_locked();
    }
    shapes[n_shapes] = sh;
    shape_hash[n_shapes] = h;
    return n_shapes++;
}

bool gcsim_schedule_memo_same_network(const gcsim_platform *a, const gcsim_platform *b)
{
    if (a == b)
        return true;
    gcsim_platform *na = malloc(sizeof *na), *nb = malloc(sizeof *nb);
    bool same = false; /* out of memory: "not known to be the same" */
    if (na && nb) {
        network_of(a, na);
        network_of(b, nb);
        same = memcmp(na, nb, sizeof *na) == 0;
    }
    free(na);
    free(nb);
    return same;
}

bool gcsim_schedule_memo_same_shape(const gcsim_platform *a, const gcsim_platform *b)
{
    gcsim_platform *na = malloc(sizeof *na), *nb = malloc(sizeof *nb);
    gcsim_platform *sa = malloc(sizeof *sa), *sb = malloc(sizeof *sb);
    bool same = false; /* out of memory: "not known to be the same" */
    if (na && nb && sa && sb) {
        network_of(a, na);
        network_of(b, nb);
        shape_of(na, sa);
        shape_of(nb, sb);
        same = memcmp(sa, sb, sizeof *sa) == 0;
    }
    free(na);
    free(nb);
    free(sa);
    free(sb);
    return same;
}

/* The last platform asked for, whole, and its id: a sweep asks for one platform thousands
 * of times in a row. */
static gcsim_platform last_whole;

/* The id of p's network (network_of) by content; -1 when out of memory. */
static int platform_id(const gcsim_platform *p)
{
    if (last_platform >= 0 && p == last_address && memcmp(&last_whole, p, sizeof *p) == 0)
        return last_platform;
    gcsim_platform *net = malloc(sizeof *net);
    if (!net)
        return -1;
    network_of(p, net);
    uint64_t h = gcsim_content_hash(net, sizeof *net);
    int id = -1;
    for (int k = 0; k < n_platforms && id < 0; k++)
        if (platform_hash[k] == h && memcmp(platforms[k], net, sizeof *net) == 0)
            id = k;
    if (id >= 0) {
        free(net);
    } else {
        if (n_platforms == PLATFORMS_MAX)
            clear_locked();
        int shape = shape_id(net);
        if (shape < 0) {
            free(net);
            return -1;
        }
        platforms[n_platforms] = net;
        platform_hash[n_platforms] = h;
        platform_shape[n_platforms] = shape;
        id = n_platforms++;
    }
    memcpy(&last_whole, p, sizeof last_whole);
    last_platform = id;
    last_address = p;
    return id;
}

static uint64_t key_hash(const memo_key *k)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the six fields */
    const int v[6] = {k->platform, k->gpus, k->collective, k->shards, k->chunks, k->group};
    for (int i = 0; i < 6; i++) {
        h ^= (uint64_t)(uint32_t)v[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

static bool same_key(const memo_key *a, const memo_key *b)
{
    return a->platform == b->platform && a->gpus == b->gpus &&
           a->collective == b->collective && a->shards == b->shards &&
           a->chunks == b->chunks && a->group == b->group;
}

/* The slot of key k: its entry, or the free slot where it belongs. */
static memo_entry *slot_of(const memo_key *k)
{
    size_t i = (size_t)key_hash(k) & (capacity - 1);
    while (table[i].used && !same_key(&table[i].key, k))
        i = (i + 1) & (capacity - 1);
    return &table[i];
}

static int grow(void)
{
    size_t old_cap = capacity, cap = capacity ? 2 * capacity : 1024;
    memo_entry *old = table, *fresh = calloc(cap, sizeof *fresh);
    if (!fresh)
        return -1;
    table = fresh;
    capacity = cap;
    for (size_t k = 0; k < old_cap; k++)
        if (old[k].used)
            *slot_of(&old[k].key) = old[k];
    free(old);
    return 0;
}

static double schedule_bytes(const gcsim_schedule *s)
{
    double bytes = sizeof(memo_entry) + sizeof(gcsim_phase) * (double)s->n_phases;
    for (int p = 0; p < s->n_phases; p++)
        bytes += sizeof(gcsim_flow_class) * (double)s->phases[p].n_classes +
                 3.0 * sizeof(int) * (s->phases[p].n_intervals + 1);
    return bytes;
}

static size_t tree_slot(int shape, int gpus, int collective)
{
    memo_key k = {shape, gpus, collective, 0, 0, 0};
    size_t i = (size_t)key_hash(&k) & (tree_capacity - 1);
    while (trees[i].tt && !(trees[i].shape == shape && trees[i].gpus == gpus &&
                            trees[i].collective == collective))
        i = (i + 1) & (tree_capacity - 1);
    return i;
}

static int trees_grow(void)
{
    size_t old_cap = tree_capacity, cap = tree_capacity ? 2 * tree_capacity : 256;
    tree_entry *old = trees, *fresh = calloc(cap, sizeof *fresh);
    if (!fresh)
        return -1;
    trees = fresh;
    tree_capacity = cap;
    for (size_t k = 0; k < old_cap; k++)
        if (old[k].tt)
            trees[tree_slot(old[k].shape, old[k].gpus, old[k].collective)] = old[k];
    free(old);
    return 0;
}

/* The tree template of k's platform, GPUs and collective, built on first use; NULL with
 * err when it cannot be. */
static gcsim_tree_template *tree_template(const gcsim_platform *p, const memo_key *k,
                                          gcsim_error *err)
{
    int shape = platform_shape[k->platform];
    if (tree_capacity) {
        tree_entry *e = &trees[tree_slot(shape, k->gpus, k->collective)];
        if (e->tt) {
            if (e->valued != k->platform || e->valued_gen != generation) {
                /* another platform of this shape: its numbers */
                gcsim_topology t;
                if (gcsim_topology_init(&t, p, k->gpus, err) != 0)
                    return NULL;
                double before = gcsim_tree_template_bytes(e->tt);
                tree_template_value(e->tt, &t);
                gcsim_topology_free(&t);
                tree_bytes += gcsim_tree_template_bytes(e->tt) - before;
                e->valued = k->platform;
                e->valued_gen = generation;
            }
            return e->tt;
        }
    }
    if (tree_bytes > GCSIM_SCHEDULE_MEMO_BYTES)
        drop_trees_locked();
    if (2 * (n_trees + 1) > tree_capacity && trees_grow() != 0) {
        gcsim_fail(err, "out of memory keeping a tree template");
        return NULL;
    }
    tree_entry *e = &trees[tree_slot(shape, k->gpus, k->collective)];
    /* a copy of the interned network: it lives as long as the template */
    gcsim_topology *topo = malloc(sizeof *topo);
    gcsim_platform *own = malloc(sizeof *own);
    if (!topo || !own) {
        free(topo);
        free(own);
        gcsim_fail(err, "out of memory building a tree template");
        return NULL;
    }
    /* from the caller's platform, so that a refusal names its file; then the interned
     * network's copy, which lives as long as the template (the same network: the same
     * links, capacities and latencies) */
    if (gcsim_topology_init(topo, p, k->gpus, err) != 0 ||
        gcsim_schedule_size_check((gcsim_collective)k->collective, topo, 0, 0, err) != 0) {
        free(topo);
        free(own);
        return NULL;
    }
    memcpy(own, platforms[k->platform], sizeof *own);
    topo->platform = own;
    e->tt = gcsim_tree_template_new(topo, (gcsim_collective)k->collective);
    if (!e->tt) {
        gcsim_topology_free(topo);
        free(topo);
        free(own);
        gcsim_fail(err, "out of memory building a tree template");
        return NULL;
    }
    e->topo = topo;
    e->own = own;
    e->shape = shape;
    e->gpus = k->gpus;
    e->collective = k->collective;
    e->valued = k->platform;
    e->valued_gen = generation;
    n_trees++;
    tree_bytes += gcsim_tree_template_bytes(e->tt) + sizeof *topo + sizeof *own;
    return e->tt;
}

/* Builds and prepares the schedule of k into *s, keeping only its classes. Trees over all
 * GPUs are prepared from their template (the same classes, tree_cost.h). */
static int build(const gcsim_platform *p, const memo_key *k, gcsim_schedule *s,
                 gcsim_error *err)
{
    gcsim_collective c = (gcsim_collective)k->collective;
    if ((c == COLLECTIVE_TREE || c == COLLECTIVE_DOUBLE_TREE || c == COLLECTIVE_NVLS_TREE) &&
        k->group == 0 && k->gpus > 1) {
        gcsim_tree_template *tt = tree_template(p, k, err);
        if (!tt)
            return -1;
        double before = gcsim_tree_template_bytes(tt);
        int rc = gcsim_tree_template_prepare(tt, k->chunks, s);
        tree_bytes += gcsim_tree_template_bytes(tt) - before; /* its steady form, once built */
        if (rc < 0)
            return gcsim_fail(err, "out of memory preparing the %s schedule",
                              gcsim_collective_name(c));
        if (rc == 0)
            return 0;
    }
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, k->gpus, err) != 0)
        return -1;
    /* Symmetric schedules from their classes alone, without a flow (closed_form.h). */
    if (gcsim_closed_form_preferred(c, &t, k->shards, k->group)) {
        int cf = gcsim_closed_form_prepare(s, c, &t, k->shards, k->group, err);
        if (cf <= 0)
            return cf;
    }
    int rc = gcsim_schedule_build_for_cost(s, c, &t, k->shards, k->chunks, k->group, err);
    if (rc == 0 && gcsim_schedule_prepare(s, &t) != 0) {
        gcsim_schedule_free(s);
        rc = gcsim_fail(err, "out of memory preparing the %s schedule",
                        gcsim_collective_name(c));
    }
    gcsim_topology_free(&t);
    if (rc == 0)
        gcsim_schedule_drop_flows(s);
    return rc;
}

/* The schedule of k, whose platform id is p's, built and kept when it is not yet. */
static const gcsim_schedule *lookup_id_locked(const gcsim_platform *p, memo_key *k,
                                              gcsim_error *err)
{
    if (capacity && table) {
        memo_entry *e = slot_of(k);
        if (e->used)
            return &e->schedule;
    }
    gcsim_schedule s;
    if (build(p, k, &s, err) != 0)
        return NULL;
    double bytes = schedule_bytes(&s);
    if (kept_bytes + bytes > GCSIM_SCHEDULE_MEMO_BYTES) {
        clear_locked();
        k->platform = platform_id(p);
    }
    if ((k->platform < 0 || (2 * (n_entries + 1) > capacity && grow() != 0))) {
        gcsim_schedule_free(&s);
        gcsim_fail(err, "out of memory keeping the %s schedule",
                   gcsim_collective_name((gcsim_collective)k->collective));
        return NULL;
    }
    memo_entry *e = slot_of(k);
    e->used = true;
    e->key = *k;
    e->schedule = s;
    n_entries++;
    kept_bytes += bytes;
    return &e->schedule;
}

int gcsim_schedule_memo_times(const gcsim_platform *p, int gpus, int shards,
                              gcsim_schedule_memo_query *q, int n, gcsim_error *err)
{
    pthread_mutex_lock(&lock);
    /* the platform found once (it compares a platform's whole contents), again only after
     * a drop */
    int id = -1, done = 0;
    unsigned seen = 0;
    for (; done < n; done++) {
        if (id < 0 || seen != generation) {
            id = platform_id(p);
            seen = generation;
            if (id < 0) {
                gcsim_fail(err, "out of memory keeping a platform's schedules");
                break;
            }
        }
        memo_key k = {id, gpus, (int)q[done].collective, shards, q[done].chunks, q[done].group};
        const gcsim_schedule *s = lookup_id_locked(p, &k, err);
        if (!s)
            break;
        q[done].time_s = gcsim_schedule_prepared_time_s(s, q[done].bytes);
    }
    pthread_mutex_unlock(&lock);
    return done;
}

int gcsim_schedule_memo_time_s(const gcsim_platform *p, int gpus, gcsim_collective c,
                               int shards, int chunks, int group, const gcsim_bucket_bytes *b,
                               double *time_s, gcsim_error *err)
{
    gcsim_schedule_memo_query q = {c, chunks, group, b, 0};
    if (gcsim_schedule_memo_times(p, gpus, shards, &q, 1, err) != 1)
        return -1;
    *time_s = q.time_s;
    return 0;
}
