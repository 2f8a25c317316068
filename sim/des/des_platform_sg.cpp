/*
 * sim/des/des_platform_sg.cpp: the platform described by des_platform.c, created in
 * SimGrid through its C++ platform API (SimGrid 3.32 has no C one), in the simulation child.
 *
 * It makes the same calls, in the same order, as SimGrid's XML loader makes for the file
 * gcsim_des_write_topology writes (SimGrid 3.32 src/surf/sg_platf.cpp: a zone is created
 * and given its parent, a host is created and sealed, a link gets its sharing policy and
 * latency and is sealed, a route is added one way, a zone is sealed when it is closed;
 * on_platform_created is fired at the end), so the simulated times are
 * those of the XML, bit for bit. The differences are the lookups and the order in which
 * the tree is joined. The XML loader resolves each <link_ctn> by searching the links of
 * every zone in turn (quadratic in the number of zones); here names map to objects in hash
 * tables (constant time). And the root's children are built apart from the root and joined
 * to it only once all of them are complete (see zone_open): SimGrid checks each new host's
 * and link's name against every zone reachable from the root.
 *
 * Only this file is C++; it is called from C (des_platform.h) and no exception leaves it.
 */
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <unordered_map>
#include <vector>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "des_platform.h"

namespace {

namespace s4u = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

struct builder {
    const gcsim_topology *topology;
    sg_host_t *hosts;
    int n_endpoints;
    std::vector<s4u::NetZone *> open;                    // enclosing zones, innermost last
    std::vector<s4u::NetZone *> apart;                   // the root's children, not joined yet
    std::unordered_map<std::string, NetPoint *> points;  // zones, hosts and routers
    std::unordered_map<std::string, s4u::Link *> links;
    std::string error;                                   // the first failure; then no-ops
};

builder *self(void *ctx) { return static_cast<builder *>(ctx); }

/* Runs one step unless an earlier one failed; records what it throws. */
template <typename F> void guarded(void *ctx, F step)
{
    builder *b = self(ctx);
    if (!b->error.empty())
        return;
    try {
        step(b);
    } catch (const std::exception &e) {
        b->error = e.what();
    }
}

NetPoint *point(builder *b, const char *name)
{
    auto it = b->points.find(name);
    if (it == b->points.end())
        throw std::runtime_error(std::string("no netpoint named ") + name);
    return it->second;
}

/* Every zone, host and router by name, refusing a second one of a name. */
void remember(builder *b, const char *name, NetPoint *p)
{
    if (!b->points.emplace(name, p).second)
        throw std::runtime_error(std::string("two netpoints named ") + name);
}

/* The root's children (the fabric's top-level groups) are built apart from the root:
 * SimGrid 3.32 refuses a second host or link of one name by searching, for every new one,
 * each zone reachable from the root (the HostImpl and StandardLinkImpl constructors via
 * NetZoneImpl::get_{host,link}_by_name_or_null), which with zones proportional to the GPUs
 * made building quadratic (a tenth of a 16,384-GPU run), and sealing a zone scans every
 * host reachable from the root (NetZoneImpl::get_all_hosts). A detached child takes the
 * root's models by hand, as set_parent would have given them, and is joined by join_apart
 * before the root's first route (a route's ends must be the root's children) or its close.
 * SimGrid then no longer sees every earlier host when it checks a new one, so remember()
 * refuses a repeated name itself. */
void adopt_root_models(s4u::NetZone *zone, const s4u::NetZone *root)
{
    auto *z = zone->get_impl();
    const auto *r = root->get_impl();
    z->set_network_model(r->get_network_model());
    z->set_cpu_pm_model(r->get_cpu_pm_model());
    z->set_cpu_vm_model(r->get_cpu_vm_model());
    z->set_disk_model(r->get_disk_model());
    z->set_host_model(r->get_host_model());
}

void join_apart(builder *b)
{
    for (s4u::NetZone *z : b->apart)
        z->set_parent(b->open.front());
    b->apart.clear();
}

void zone_open(void *ctx, const char *id)
{
    guarded(ctx, [id](builder *b) {
        s4u::NetZone *z = s4u::create_full_zone(id);
        if (b->open.size() == 1) {
            adopt_root_models(z, b->open.front());
            b->apart.push_back(z);
        } else if (!b->open.empty()) {
            z->set_parent(b->open.back());
        }
        remember(b, id, z->get_netpoint());
        b->open.push_back(z);
    });
}

/* A zone is sealed when it is closed, as SimGrid's XML loader does (</zone>); sealing
 * looks only inside the zone, which is complete by then. The root's children are the
 * exception: SimGrid refuses to give a sealed zone a parent, so they are sealed with the
 * root, once joined to it. */
void zone_close(void *ctx)
{
    guarded(ctx, [](builder *b) {
        if (b->open.size() == 1)
            join_apart(b);
        if (b->open.size() != 2)
            b->open.back()->seal();
        b->open.pop_back();
    });
}

/* Endpoint index of a host name: g<k> is GPU k, c<n> node n's CPU; -1 otherwise. */
int endpoint_of(const gcsim_topology *t, const char *id)
{
    char *end = nullptr;
    long k = std::strtol(id + 1, &end, 10);
    if (*end != '\0' || k < 0)
        return -1;
    if (id[0] == 'g')
        return k < t->gpus ? static_cast<int>(k) : -1;
    if (id[0] == 'c')
        return t->gpus + static_cast<int>(k);
    return -1;
}

void host(void *ctx, const char *id, double speed_flops)
{
    guarded(ctx, [id, speed_flops](builder *b) {
        s4u::Host *h = b->open.back()->create_host(id, speed_flops);
        h->seal();
        remember(b, id, h->get_netpoint());
        int e = endpoint_of(b->topology, id);
        if (e >= 0 && e < b->n_endpoints)
            b->hosts[e] = h;
    });
}

void router(void *ctx, const char *id)
{
    guarded(ctx, [id](builder *b) { remember(b, id, b->open.back()->create_router(id)); });
}

/* Every link is created in the root zone, whatever zone the description declares it in:
 * SimGrid 3.32 checks that a new link's name is unused by searching the links of every
 * zone, one map per zone (StandardLinkImpl's constructor), so a link count and a zone count
 * both proportional to the GPUs made that quadratic (half of a 16,384-GPU run); with all
 * links in one map the other zones' maps are empty. A route may name any link of the
 * platform, as in the XML, and the links are created in the same order, so nothing else
 * changes. */
void link(void *ctx, const char *id, double bandwidth_Bps, double latency_s, bool fatpipe)
{
    guarded(ctx, [=](builder *b) {
        s4u::Link *l = b->open.front()->create_link(id, bandwidth_Bps);
        l->set_sharing_policy(fatpipe ? s4u::Link::SharingPolicy::FATPIPE
                                      : s4u::Link::SharingPolicy::SHARED);
        l->set_latency(latency_s);
        l->seal();
        b->links[id] = l;
    });
}

void route(void *ctx, bool zone_route, const char *src, const char *dst, const char *gw_src,
           const char *gw_dst, const char *const *names, int n_links)
{
    guarded(ctx, [=](builder *b) {
        std::vector<s4u::LinkInRoute> list;
        list.reserve(static_cast<size_t>(n_links));
        for (int k = 0; k < n_links; k++) {
            auto it = b->links.find(names[k]);
            if (it == b->links.end())
                throw std::runtime_error(std::string("no link named ") + names[k]);
            list.emplace_back(it->second);
        }
        if (b->open.size() == 1)
            join_apart(b);
        b->open.back()->add_route(point(b, src), point(b, dst),
                                  zone_route ? point(b, gw_src) : nullptr,
                                  zone_route ? point(b, gw_dst) : nullptr, list, false);
    });
}

} // namespace

extern "C" int des_platform_build(const gcsim_topology *t, sg_host_t *hosts, int n_endpoints,
                                  char *msg, size_t msg_len)
{
    builder b;
    b.topology = t;
    b.hosts = hosts;
    b.n_endpoints = n_endpoints;
    des_platform_sink sink = {&b, zone_open, zone_close, host, router, link, route};
    gcsim_error err;
    err.message[0] = '\0';
    err.internal = 0;
    int rc = des_platform_describe(t, n_endpoints > t->gpus, &sink, &err);
    if (rc != 0) {
        std::snprintf(msg, msg_len, "%s", err.message);
        return -1;
    }
    if (!b.error.empty()) {
        std::snprintf(msg, msg_len, "building the SimGrid platform: %s", b.error.c_str());
        return -1;
    }
    try {
        /* What the XML loader fires at </platform>: the engine's presolve listens. */
        s4u::Engine::on_platform_created();
    } catch (const std::exception &e) {
        std::snprintf(msg, msg_len, "building the SimGrid platform: %s", e.what());
        return -1;
    }
    return 0;
}
