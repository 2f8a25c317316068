/* sim/codec/setup.c: a command's --exchange, --collective and compressor turned into the
 * scenario's schedule and codec cost (codec.h). */
#include "codec.h"

#include <stdio.h>

int gcsim_codec_setup_init(gcsim_codec_setup *cs, const gcsim_platform *p, const char *spec,
                           gcsim_exchange requested, const gcsim_collective *cli_collective,
                           gcsim_error *err)
{
    gcsim_collective c = cli_collective ? *cli_collective : gcsim_platform_default_collective(p);
    gcsim_collective_origin origin = cli_collective  ? COLLECTIVE_FROM_CLI
                                     : p->collective[0] ? COLLECTIVE_FROM_PLATFORM
                                                        : COLLECTIVE_FROM_DEFAULT;
    if (gcsim_exchange_resolve(requested, c, origin, spec, &cs->exchange, err))
        return -1;
    if (gcsim_codec_init(&cs->codec, p, spec, err))
        return -1;
    if (cs->exchange.exchange == GCSIM_EXCHANGE_PATTERN && cs->codec.source != CODEC_COST_NONE)
        snprintf(cs->codec.description, sizeof cs->codec.description,
                 "none charged: the papers' models (terngrad, dgc-paper) have no codec time "
                 "(--exchange allgather or allreduce to charge it)");
    return 0;
}

void gcsim_codec_setup_apply(const gcsim_codec_setup *cs, gcsim_scenario *s)
{
    s->collective = cs->exchange.collective;
    /* The papers' patterns are kept as published, codec-free. */
    s->codec = cs->exchange.exchange == GCSIM_EXCHANGE_PATTERN ? NULL : &cs->codec;
    s->shared_support = cs->exchange.shared_support;
}
