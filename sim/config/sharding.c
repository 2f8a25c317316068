/* Parsing and naming sharding strategies (sharding.h). */
#include "sharding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcsim_error.h"
#include "plain_number.h"

static const struct {
    const char *name;
    gcsim_shard_strategy strategy;
    bool fsdp;
} strategies[] = {{"ddp", GCSIM_SHARD_DDP, false},     {"zero1", GCSIM_SHARD_ZERO1, false},
                  {"zero2", GCSIM_SHARD_ZERO2, false}, {"zero3", GCSIM_SHARD_ZERO3, false},
                  {"fsdp", GCSIM_SHARD_ZERO3, true},   {"hsdp", GCSIM_SHARD_HSDP, true}};

bool gcsim_sharding_shards_params(const gcsim_sharding *s)
{
    return s->strategy == GCSIM_SHARD_ZERO3 || s->strategy == GCSIM_SHARD_HSDP;
}

bool gcsim_sharding_deepspeed_fetch(const gcsim_sharding *s)
{
    return s->strategy == GCSIM_SHARD_ZERO3 && !s->fsdp;
}

int gcsim_sharding_parse(const char *text, gcsim_sharding *out, char *why, int why_len)
{
    memset(out, 0, sizeof *out);
    char buf[64];
    if (strlen(text) >= sizeof buf) {
        snprintf(why, (size_t)why_len, "too long (%zu characters)", strlen(text));
        return -1;
    }
    strcpy(buf, text);
    char *plus = strchr(buf, '+');
    char *opts = NULL;
    if (plus) {
        *plus = '\0';
        opts = plus + 1;
    }
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    size_t k = 0, n = sizeof strategies / sizeof *strategies;
    while (k < n && strcmp(buf, strategies[k].name) != 0)
        k++;
    if (k == n) {
        snprintf(why, (size_t)why_len, "unknown strategy \"%s\" (ddp, zero1, zero2, zero3, fsdp, "
                                       "hsdp[:GROUP])", buf);
        return -1;
    }
    out->strategy = strategies[k].strategy;
    out->fsdp = strategies[k].fsdp;
    if (colon) {
        long long g;
        if (out->strategy != GCSIM_SHARD_HSDP) {
            snprintf(why, (size_t)why_len, "only hsdp takes a group size (hsdp:GROUP)");
            return -1;
        }
        if (!gcsim_plain_int(colon + 1, 2, 1 << 20, &g)) {
            snprintf(why, (size_t)why_len, "hsdp:GROUP: expected a GPU count of at least 2 "
                                           "(plain digits, at most %d), got \"%s\"", 1 << 20, text + (colon + 1 - buf));
            return -1;
        }
        out->group = (int)g;
    }
    while (opts) {
        char *next = strchr(opts, '+');
        if (next)
            *next++ = '\0';
        if (out->strategy != GCSIM_SHARD_ZERO3) {
            snprintf(why, (size_t)why_len, "+%s: ZeRO++ options apply to zero3 (or fsdp) only",
                     opts);
            return -1;
        }
        bool *flag = strcmp(opts, "qwz") == 0   ? &out->qwz
                     : strcmp(opts, "hpz") == 0 ? &out->hpz
                     : strcmp(opts, "qgz") == 0 ? &out->qgz
                                                : NULL;
        if (flag && *flag) {
            snprintf(why, (size_t)why_len, "+%s given twice", opts);
            return -1;
        }
        if (flag)
            *flag = true;
        else {
            snprintf(why, (size_t)why_len, "unknown option \"+%s\" (qwz, hpz, qgz)", opts);
            return -1;
        }
        opts = next;
    }
    return 0;
}

void gcsim_sharding_format(const gcsim_sharding *s, char *buf, int len)
{
    const char *name = "ddp";
    for (size_t k = 0; k < sizeof strategies / sizeof *strategies; k++)
        if (strategies[k].strategy == s->strategy &&
            (strategies[k].fsdp == s->fsdp || s->strategy == GCSIM_SHARD_HSDP))
            name = strategies[k].name;
    int n = snprintf(buf, (size_t)len, "%s", name);
    if (s->strategy == GCSIM_SHARD_HSDP && s->group > 0 && n < len)
        n += snprintf(buf + n, (size_t)(len - n), ":%d", s->group);
    const char *opt[3] = {s->qwz ? "+qwz" : "", s->hpz ? "+hpz" : "", s->qgz ? "+qgz" : ""};
    for (int k = 0; k < 3 && n < len; k++)
        n += snprintf(buf + n, (size_t)(len - n), "%s", opt[k]);
}

int gcsim_sharding_check(const gcsim_sharding *s, const gcsim_platform *pf,
                         const gcsim_payload_plan *payload, int gpus, gcsim_error *err)
{
    char name[48];
    gcsim_sharding_format(s, name, sizeof name);
    int i = pf->gpus_per_node;
    /* A group of G >= N GPUs is one group of all N: zero3, exactly as plain hsdp (one node)
     * is on one node or less (docs/sharding.md). It is accepted so that a GPU list from 1
     * runs (the one-GPU reference of every speedup included) and predict's sharding note
     * says it; what is refused is a count above G that G does not divide into groups. */
    if (s->strategy == GCSIM_SHARD_HSDP) {
        int g = s->group > 0 ? s->group : i;
        if (g < gpus && (gpus % g != 0 || !(i % g == 0 || g % i == 0)))
            return gcsim_fail(err, "--sharding %s on %d GPUs: a shard group of %d GPUs must divide "
                                   "the GPU count and lie inside a %d-GPU node (a divisor of %d) "
                                   "or span whole nodes (a multiple of %d)",
                              name, gpus, g, i, i, i);
    }
    if (s->qgz && gpus > i && gpus % i != 0)
        return gcsim_fail(err, "--sharding %s on %d GPUs: qgZ reduces inside each node, then "
                               "across nodes: the GPU count must be whole %d-GPU nodes",
                          name, gpus, i);
    if (s->strategy == GCSIM_SHARD_DDP || !payload || strcmp(payload->spec, "none") == 0)
        return 0;
    if (s->qgz)
        return gcsim_fail(err, "--sharding %s with --compressor %s: qgZ is itself the gradient's "
                               "compression (int4); give one or the other",
                          name, payload->spec);
    if (payload->aggregation == PAYLOAD_SPARSE)
        return gcsim_fail(err, "--compressor %s does not compose with --sharding %s: a "
                               "reduce-scatter hands every GPU its slice of the sum, and sparse "
                               "payloads of different workers pick different coordinates, so "
                               "each hop's payload grows towards the dense slice while the "
                               "residual (error feedback) must still be kept for the whole "
                               "gradient on every GPU, which is what sharding removes; use it "
                               "with ddp",
                          payload->spec, name);
    /* a described low-rank payload (compressor_file.h) is priced as PowerSGD: the same rule */
    if (strncmp(payload->spec, "powersgd", 8) == 0 ||
        strstr(payload->spec, "described:payload=lowrank"))
        return gcsim_fail(err, "--compressor %s does not compose with --sharding %s: PowerSGD "
                               "multiplies each worker's whole gradient matrix by a shared "
                               "factor (P = M Q) and all-reduces the factors; a reduce-scatter "
                               "leaves each GPU a slice of M, not M; use it with ddp",
                          payload->spec, name);
    return 0;
}
