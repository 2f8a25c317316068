/* Loading and validating platform JSON (docs/formats.md, "Platform"). */
#include "platform.h"
#include "scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "platform_transport.h"
#include "platform_nccl_version.h"
#include "platform_nvlink_domain.h"
#include "platform_busbw_correction.h"
#include "codec_profile_file.h"
#include "data_dir.h"
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

/* Platform files are small; anything larger is not one. */
#define PLATFORM_MAX_BYTES (1L << 20)

/* A latency, at most PLATFORM_MAX_LATENCY_S: one of 1.7e308 s was accepted and ended as
 * "no analytic cost" far from the file (issue 15). A second is beyond any cluster link
 * (intercontinental round trips take a few hundred ms). */
#define PLATFORM_MAX_LATENCY_S 1.0

static int latency(const cJSON *o, const char *path, const char *key, bool required,
                   double *out, json_ctx *ctx)
{
    if (json_time_s(o, path, key, required, out, ctx))
        return -1;
    if (*out > PLATFORM_MAX_LATENCY_S)
        return gcsim_fail(ctx->err, "%s: %s.%s: %g s is more than the %g s gcsim accepts for "
                          "a latency", ctx->origin, path, key, *out, PLATFORM_MAX_LATENCY_S);
    return 0;
}

static int parse_gpu(const cJSON *root, gcsim_platform *p, json_ctx *ctx)
{
    static const char *const keys[] = {"type", "profile_as", "speed", "codec_throughput",
                                       "codec_profile", "memory", "memory_bandwidth",
                                       "speed_16bit", "comm_interference", NULL};
    const cJSON *gpu = json_member(root, "gpu");
    if (!gpu)
        return gcsim_fail(ctx->err, "%s: $.gpu: missing required key", ctx->origin);
    if (json_expect_object(gpu, "$.gpu", keys, ctx) ||
        json_string(gpu, "$.gpu", "type", true, p->gpu.type, sizeof p->gpu.type, ctx) ||
        json_string(gpu, "$.gpu", "profile_as", false, p->gpu.profile_as,
                    sizeof p->gpu.profile_as, ctx) ||
        json_flops(gpu, "$.gpu", "speed", true, &p->gpu.speed_flops, ctx) ||
        json_rate_Bps(gpu, "$.gpu", "codec_throughput", false, &p->gpu.codec_Bps, ctx) ||
        json_size_bytes(gpu, "$.gpu", "memory", false, &p->gpu.memory_bytes, ctx) ||
        json_rate_Bps(gpu, "$.gpu", "memory_bandwidth", false, &p->gpu.memory_Bps, ctx) ||
        json_flops(gpu, "$.gpu", "speed_16bit", false, &p->gpu.speed_16bit_flops, ctx))
        return -1;
    /* the share of the GPU a collective in flight takes from compute (docs/formats.md,
     * "Compute-communication interference"); absent: -1, the GPU type's default */
    p->gpu.comm_interference = -1;
    if (json_number(gpu, "$.gpu", "comm_interference", false, 0.0, 0.9,
                    &p->gpu.comm_interference, ctx))
        return -1;
    char rel[256] = "";
    if (json_string(gpu, "$.gpu", "codec_profile", false, rel, sizeof rel, ctx))
        return -1;
    if (json_member(gpu, "codec_profile")) {
        if (rel[0] == '\0')
            return gcsim_fail(ctx->err, "%s: $.gpu.codec_profile: must not be empty", ctx->origin);
        if (ctx->origin[0] == '<')
            return gcsim_fail(ctx->err, "%s: $.gpu.codec_profile: an embedded platform cannot name "
                                        "a profile file", ctx->origin);
        /* Relative to the platform file's folder, so a clone finds it wherever it lives. */
        const char *slash = strrchr(ctx->origin, '/');
        int dir_len = slash ? (int)(slash - ctx->origin) + 1 : 0;
        if (rel[0] == '/')
            dir_len = 0;
        const char *file = rel;
        while (dir_len && file[0] == '.' && file[1] == '/')
            file += 2;
        if (snprintf(p->gpu.codec_profile, sizeof p->gpu.codec_profile, "%.*s%s", dir_len,
                     ctx->origin, file) >= (int)sizeof p->gpu.codec_profile)
            return gcsim_fail(ctx->err, "%s: $.gpu.codec_profile: path too long", ctx->origin);
    }
    if (p->gpu.type[0] == '\0')
        return gcsim_fail(ctx->err, "%s: $.gpu.type: must not be empty", ctx->origin);
    if (json_member(gpu, "profile_as") &&
        (p->gpu.profile_as[0] == '\0' || strcmp(p->gpu.profile_as, p->gpu.type) == 0))
        return gcsim_fail(ctx->err, "%s: $.gpu.profile_as: must name another GPU type than "
                                    "$.gpu.type (\"%s\")", ctx->origin, p->gpu.type);
    return 0;
}

static int parse_intra(const cJSON *root, gcsim_platform *p, json_ctx *ctx)
{
    static const char *const keys[] = {"kind",           "gpu_to_host",    "gpu_to_gpu",
                                       "links_per_pair", "link_bandwidth", "latency",
                                       "nvls_bandwidth", "pcie", "host_memory_bandwidth", NULL};
    static const char *const kinds[] = {"pcie-switch", "nvlink", "nvswitch", NULL};
    const char *path = "$.intra_node";
    const cJSON *in = json_member(root, "intra_node");
    if (!in)
        return gcsim_fail(ctx->err, "%s: %s: missing required key", ctx->origin, path);
    int kind = 0;
    p->intra.latency_s = 5e-6;
    if (json_expect_object(in, path, keys, ctx) ||
        json_choice(in, path, "kind", true, kinds, &kind, ctx) ||
        json_rate_Bps(in, path, "gpu_to_host", true, &p->intra.gpu_to_host_Bps, ctx) ||
        latency(in, path, "latency", false, &p->intra.latency_s, ctx))
        return -1;
    p->intra.kind = (gcsim_intra_kind)kind;
    bool is_nvlink = p->intra.kind == INTRA_NVLINK;
    if (is_nvlink) {
        long long links = 0;
        if (json_member(in, "gpu_to_gpu"))
            return gcsim_fail(ctx->err,
                              "%s: %s.gpu_to_gpu: not used with kind \"nvlink\"; give "
                              "links_per_pair and link_bandwidth",
                              ctx->origin, path);
        if (json_integer(in, path, "links_per_pair", true, 1, 64, &links, ctx) ||
            json_rate_Bps(in, path, "link_bandwidth", true, &p->intra.nvlink_link_Bps, ctx))
            return -1;
        p->intra.nvlink_links_per_pair = (int)links;
        p->intra.gpu_to_gpu_Bps = (double)links * p->intra.nvlink_link_Bps;
    } else {
        const char *bad = json_member(in, "links_per_pair")   ? "links_per_pair"
                          : json_member(in, "link_bandwidth") ? "link_bandwidth"
                                                              : NULL;
        if (bad)
            return gcsim_fail(ctx->err, "%s: %s.%s: only used with kind \"nvlink\"", ctx->origin,
                              path, bad);
        if (json_rate_Bps(in, path, "gpu_to_gpu", true, &p->intra.gpu_to_gpu_Bps, ctx))
            return -1;
    }
    p->intra.nvls_Bps = 0;
    if (json_member(in, "nvls_bandwidth")) {
        if (p->intra.kind != INTRA_NVSWITCH)
            return gcsim_fail(ctx->err, "%s: %s.nvls_bandwidth: only an NVSwitch (kind "
                                        "\"nvswitch\") reduces in the switch",
                              ctx->origin, path);
        if (json_rate_Bps(in, path, "nvls_bandwidth", true, &p->intra.nvls_Bps, ctx))
            return -1;
    }
    return gcsim_platform_parse_pcie(in, p, ctx);
}

static int parse_nic(const cJSON *root, gcsim_platform *p, json_ctx *ctx)
{
    static const char *const keys[] = {"kind", "bandwidth", "latency", "per_node",
                                       "transport", "gpudirect", "channels",
                                       "message_overhead", "socket_threads",
                                       "sockets_per_thread", "stream_bandwidth",
                                       "thread_bandwidth", "mtu", "flow_balance",
                                       "proxy_bandwidth", "attach", NULL};
    static const char *const kinds[] = {"ethernet", "infiniband", NULL};
    static const char *const attaches[] = {"pcie-switch", "cpu-c2c", NULL};
    const cJSON *nic = json_member(root, "nic");
    if (!nic)
        return gcsim_fail(ctx->err, "%s: $.nic: missing required key", ctx->origin);
    int kind = 0, attach = 0;
    long long per_node = 1;
    if (json_expect_object(nic, "$.nic", keys, ctx) ||
        json_choice(nic, "$.nic", "kind", true, kinds, &kind, ctx) ||
        json_choice(nic, "$.nic", "attach", false, attaches, &attach, ctx) ||
        json_rate_Bps(nic, "$.nic", "bandwidth", true, &p->nic.bandwidth_Bps, ctx) ||
        latency(nic, "$.nic", "latency", true, &p->nic.latency_s, ctx) ||
        /* per host: at most one per GPU (checked after gpus_per_node); 64 is above any host
         * with GPUDirect NIC rails (DGX H100/B200: 8, a GB200 compute tray: 4). An NVLink
         * domain's NICs are its hosts' sum, 72 on an NVL72 (platform_nvlink_domain.c). */
        json_integer(nic, "$.nic", "per_node", false, 1, 64, &per_node, ctx))
        return -1;
    p->nic.kind = (gcsim_nic_kind)kind;
    p->nic.per_node = (int)per_node;
    p->nic.cpu_c2c = attach == 1;
    return gcsim_platform_parse_transport(nic, p, ctx);
}

static int parse_fabric(const cJSON *root, gcsim_platform *p, json_ctx *ctx)
{
    static const char *const keys[] = {"topology", "oversubscription", "nodes_per_leaf",
                                       "switch_latency", "placement", NULL};
    static const char *const placements[] = {"node", "rail-optimized", NULL};
    static const char *const topologies[] = {"star", "fat-tree", NULL};
    const cJSON *f = json_member(root, "fabric");
    if (!f)
        return gcsim_fail(ctx->err, "%s: $.fabric: missing required key", ctx->origin);
    int topology = 0, placement = 0;
    long long per_leaf = 0;
    p->fabric.oversubscription = 1.0;
    p->fabric.switch_latency_s = 0.0;
    if (json_expect_object(f, "$.fabric", keys, ctx) ||
        json_choice(f, "$.fabric", "topology", true, topologies, &topology, ctx) ||
        latency(f, "$.fabric", "switch_latency", false, &p->fabric.switch_latency_s, ctx))
        return -1;
    p->fabric.topology = (gcsim_fabric_topology)topology;
    if (p->fabric.topology == FABRIC_FAT_TREE) {
        if (json_number(f, "$.fabric", "oversubscription", false, 1.0, 1024.0,
                        &p->fabric.oversubscription, ctx) ||
            json_integer(f, "$.fabric", "nodes_per_leaf", true, 1, 1 << 20, &per_leaf, ctx) ||
            json_choice(f, "$.fabric", "placement", false, placements, &placement, ctx))
            return -1;
        p->fabric.nodes_per_leaf = (int)per_leaf;
        p->fabric.placement = (gcsim_fabric_placement)placement;
    } else {
        const char *bad = json_member(f, "oversubscription") ? "oversubscription"
                          : json_member(f, "nodes_per_leaf") ? "nodes_per_leaf"
                          : json_member(f, "placement")      ? "placement"
                                                             : NULL;
        if (bad)
            return gcsim_fail(ctx->err, "%s: $.fabric.%s: only used with topology \"fat-tree\"",
                              ctx->origin, bad);
        p->fabric.nodes_per_leaf = p->nodes;
    }
    return 0;
}

static int parse_price(const cJSON *root, gcsim_platform *p, json_ctx *ctx)
{
    static const char *const keys[] = {"usd_per_gpu_hour", "source", NULL};
    const cJSON *price = json_member(root, "price");
    if (!price)
        return 0;
    if (json_expect_object(price, "$.price", keys, ctx) ||
        json_number(price, "$.price", "usd_per_gpu_hour", true, 1e-9, 1e6,
                    &p->price_per_gpu_hour_usd, ctx) ||
        json_string(price, "$.price", "source", true, p->price_source, sizeof p->price_source,
                    ctx))
        return -1;
    p->has_price = true;
    return 0;
}

static int parse_sources(const cJSON *root, json_ctx *ctx)
{
    const cJSON *s = json_member(root, "sources");
    char got[96];
    if (!s)
        return 0;
    if (!cJSON_IsObject(s))
        return gcsim_fail(ctx->err, "%s: $.sources: expected an object, got %s", ctx->origin,
                          json_describe(s, got, sizeof got));
    for (const cJSON *m = s->child; m; m = m->next)
        if (!cJSON_IsString(m))
            return gcsim_fail(ctx->err, "%s: $.sources.%s: expected a string, got %s",
                              ctx->origin, m->string, json_describe(m, got, sizeof got));
    return 0;
}

/* "stack": a catalog name as it is, a path relative to the platform file's folder. */
static int parse_stack_name(const cJSON *root, gcsim_platform *p, json_ctx *ctx)
{
    char value[256] = "";
    if (json_string(root, "$", "stack", false, value, sizeof value, ctx))
        return -1;
    if (!json_member(root, "stack"))
        return 0;
    if (value[0] == '\0')
        return gcsim_fail(ctx->err, "%s: $.stack: must not be empty", ctx->origin);
    bool path = strchr(value, '/') || strstr(value, ".json");
    if (path && ctx->origin[0] == '<')
        return gcsim_fail(ctx->err, "%s: $.stack: an embedded platform can name a catalog "
                                    "stack only", ctx->origin);
    const char *slash = strrchr(ctx->origin, '/');
    int dir_len = path && value[0] != '/' && slash ? (int)(slash - ctx->origin) + 1 : 0;
    const char *rel = value;
    while (dir_len && rel[0] == '.' && rel[1] == '/') /* "./a.json" beside "./p.json": no "././" */
        rel += 2;
    if (snprintf(p->stack, sizeof p->stack, "%.*s%s", dir_len, ctx->origin, rel) >=
        (int)sizeof p->stack)
        return gcsim_fail(ctx->err, "%s: $.stack: path too long", ctx->origin);
    /* Checked here, where the platform file can be named; the stack is read later. */
    char found[PATH_MAX];
    struct stat st;
    if (path && stat(p->stack, &st) != 0)
        return gcsim_fail(ctx->err, "%s: $.stack: \"%s\": %s", ctx->origin, p->stack,
                          strerror(errno));
    if (!path && gcsim_data_catalog_lookup("platforms/stacks", value, found, sizeof found)) {
        char names[256];
        gcsim_data_catalog_names("platforms/stacks", names, sizeof names);
        return gcsim_fail(ctx->err, "%s: $.stack: \"%s\" is no stack of the catalog (%s) and "
                                    "no path (a path has a '/' or ends in .json)",
                          ctx->origin, value, names);
    }
    return 0;
}

int gcsim_platform_parse(const char *text, const char *origin, gcsim_platform *p,
                         gcsim_error *err)
{
    static const char *const keys[] = {"name", "description", "sources", "nodes",
                                       "gpus_per_node", "gpu", "intra_node", "nic",
                                       "fabric", "price", "collective", "stack",
                                       "nvlink_domain", "busbw_correction", "nccl_version",
                                       NULL};
    json_ctx ctx = {origin, err};
    memset(p, 0, sizeof *p);
    snprintf(p->source_path, sizeof p->source_path, "%s", origin);
    cJSON *root = NULL;
    if (json_parse_document(text, &ctx, &root))
        return -1;
    long long nodes = 0, gpus_per_node = 0;
    int rc = -1;
    if (json_expect_object(root, "$", keys, &ctx) ||
        json_string(root, "$", "name", true, p->name, sizeof p->name, &ctx) ||
        json_string(root, "$", "description", false, p->description, sizeof p->description,
                    &ctx) ||
        parse_sources(root, &ctx) ||
        json_integer(root, "$", "nodes", true, 1, 1 << 20, &nodes, &ctx) ||
        json_integer(root, "$", "gpus_per_node", true, 1, 256, &gpus_per_node, &ctx))
        goto out;
    p->nodes = (int)nodes;
    p->gpus_per_node = (int)gpus_per_node;
    if (parse_gpu(root, p, &ctx) || parse_intra(root, p, &ctx) || parse_nic(root, p, &ctx) ||
        parse_fabric(root, p, &ctx) || parse_price(root, p, &ctx))
        goto out;
    if (json_string(root, "$", "collective", false, p->collective, sizeof p->collective, &ctx) ||
        parse_stack_name(root, p, &ctx) || gcsim_platform_parse_nccl_version(root, p, &ctx))
        goto out;
    gcsim_collective unused;
    if (p->collective[0] && gcsim_collective_parse(p->collective, &unused) != 0) {
        gcsim_fail(err, "%s: $.collective: \"%s\" is not one of terngrad, ring, "
                        "halving-doubling, tree, double-tree, hierarchical, ps, allgather",
                   origin, p->collective);
        goto out;
    }
    if (p->name[0] == '\0') {
        gcsim_fail(err, "%s: $.name: must not be empty", origin);
        goto out;
    }
    if (p->nic.per_node > p->gpus_per_node) {
        gcsim_fail(err, "%s: $.nic.per_node: %d NICs for %d GPUs per node; at most one per GPU",
                   origin, p->nic.per_node, p->gpus_per_node);
        goto out;
    }
    if (p->fabric.topology == FABRIC_FAT_TREE && p->fabric.nodes_per_leaf > p->nodes) {
        gcsim_fail(err, "%s: $.fabric.nodes_per_leaf: %d is more than the %d nodes", origin,
                   p->fabric.nodes_per_leaf, p->nodes);
        goto out;
    }
    /* Last: it makes the domain the node, after every per-host check above. */
    if (gcsim_platform_parse_nvlink_domain(root, p, &ctx) ||
        gcsim_platform_parse_busbw_correction(root, p, &ctx))
        goto out;
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}

int gcsim_platform_load(const char *path, gcsim_platform *out, gcsim_error *err)
{
    char *text = NULL;
    if (json_read_file(path, PLATFORM_MAX_BYTES, &text, err))
        return -1;
    int rc = gcsim_platform_parse(text, path, out, err);
    free(text);
    /* The codec profile is read whole now: a broken one used to pass until a compressor
     * needed it, so some runs of a platform worked and others did not (issue 45). */
    gcsim_error why;
    if (rc == 0 && out->gpu.codec_profile[0] &&
        gcsim_codec_profile_read(out->gpu.codec_profile, out->gpu.type, NULL, NULL, &why))
        return gcsim_fail(err, "%s: $.gpu.codec_profile: %s", path, why.message);
    return rc;
}

double gcsim_platform_node_network_Bps(const gcsim_platform *p)
{
    return p->nic.bandwidth_Bps * p->nic.per_node;
}

int gcsim_platform_place(const gcsim_platform *p, int gpus, gcsim_placement *out,
                         gcsim_error *err)
{
    long long capacity = (long long)p->nodes * p->gpus_per_node;
    if (gpus < 1)
        return gcsim_fail(err, "GPU count %d: must be at least 1", gpus);
    if (gpus > capacity)
        return gcsim_fail(err, "%s: GPU count %d does not fit the platform: %d nodes x %d GPUs "
                               "= %lld GPUs",
                          p->source_path, gpus, p->nodes, p->gpus_per_node, capacity);
    out->gpus = gpus;
    if (gpus <= p->gpus_per_node) {
        out->gpus_per_machine = gpus;
        out->machines = 1;
        out->last_machine_gpus = gpus;
    } else {
        out->gpus_per_machine = p->gpus_per_node;
        out->machines = (gpus + p->gpus_per_node - 1) / p->gpus_per_node;
        out->last_machine_gpus = gpus - (out->machines - 1) * p->gpus_per_node;
    }
    return 0;
}
