/*
 * sim/des/des_link_rates_sg.cpp: the shared links' counter tracks (des_link_rates.h), the
 * SimGrid side: the completion signal, each message's route, and the counters' sweep.
 * C++ because SimGrid 3.32's signals and Host::route_to have no C API. No exception leaves
 * it: the callback runs inside SimGrid's kernel, where one would abort the simulation.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "des_link_rates.h"

namespace s4u = simgrid::s4u;

namespace {

/* One message on one shared link: from t0 to t1 (ns, rounded once) at rate B/s. */
struct segment {
    long long t0, t1;
    double rate;
};

} // namespace

struct des_link_rates {
    std::vector<des_shared_link> links;                     // the ones SimGrid has
    std::unordered_map<const s4u::Link *, int> index;       // SimGrid link -> links[k]
    std::unordered_map<const void *, double> pending;       // sender's comm -> bytes
    std::map<std::pair<const s4u::Host *, const s4u::Host *>, std::pair<std::vector<int>, double>>
        routes;                                             // shared links crossed, latency
    std::vector<std::vector<segment>> segments;             // per link
    bool failed = false;
};

namespace {

des_link_rates *active = nullptr; // the one the completion signal feeds (one per process)
bool connected = false;

long long to_ns(double s) { return std::llround(s * 1e9); }

const std::pair<std::vector<int>, double> &route_of(des_link_rates *r, const s4u::Host *src,
                                                    const s4u::Host *dst)
{
    auto key = std::make_pair(src, dst);
    auto it = r->routes.find(key);
    if (it != r->routes.end())
        return it->second;
    std::vector<s4u::Link *> links;
    double latency = 0;
    src->route_to(dst, links, &latency);
    std::vector<int> shared;
    for (const s4u::Link *l : links) {
        auto k = r->index.find(l);
        if (k != r->index.end())
            shared.push_back(k->second);
    }
    return r->routes.emplace(key, std::make_pair(std::move(shared), latency)).first->second;
}

/* A completed comm that the DES announced (the sender's; the receiver's completes too and
 * is not in `pending`): its mean rate on every shared link of its route, from the end of
 * its latency to its finish. */
void completed(const s4u::Activity &a)
{
    des_link_rates *r = active;
    if (!r || r->failed)
        return;
    try {
        const auto *c = dynamic_cast<const s4u::Comm *>(&a);
        if (!c)
            return;
        auto p = r->pending.find(static_cast<const void *>(c));
        if (p == r->pending.end())
            return;
        double bytes = p->second;
        r->pending.erase(p);
        if (!(bytes > 0) || !c->get_source() || !c->get_destination())
            return;
        const auto &route = route_of(r, c->get_source(), c->get_destination());
        if (route.first.empty())
            return;
        double t0 = c->get_start_time() + route.second, t1 = c->get_finish_time();
        long long n0 = to_ns(t0), n1 = to_ns(t1);
        if (!(t1 > t0) || n1 <= n0)
            return; /* no time on the wire: nothing to draw */
        double rate = bytes / ((double)(n1 - n0) * 1e-9); /* integrates to bytes exactly */
        for (int k : route.first)
            r->segments[(size_t)k].push_back({n0, n1, rate});
    } catch (const std::exception &) {
        r->failed = true;
    }
}

} // namespace

extern "C" des_link_rates *des_link_rates_new(const des_shared_link *links, int n, int *failed)
{
    try {
        auto *r = new des_link_rates;
        for (int k = 0; k < n; k++) {
            const s4u::Link *l = s4u::Link::by_name_or_null(links[k].name);
            if (!l)
                continue; /* not in this platform's routes */
            r->index.emplace(l, (int)r->links.size());
            r->links.push_back(links[k]);
        }
        if (r->links.empty()) {
            delete r;
            return nullptr;
        }
        r->segments.resize(r->links.size());
        if (!connected) {
            s4u::Activity::on_completion_cb(completed);
            connected = true;
        }
        active = r;
        return r;
    } catch (const std::exception &) {
        *failed = 1;
        return nullptr;
    }
}

extern "C" void des_link_rates_message(des_link_rates *r, const void *comm, double bytes)
{
    if (!r || r->failed)
        return;
    try {
        r->pending[comm] = bytes;
    } catch (const std::exception &) {
        r->failed = true;
    }
}

namespace {

void put_counter(FILE *f, int pid, const des_shared_link &l, long long ns, double carried,
                 void (*put_us)(FILE *, long long))
{
    /* labels are generated (des_link_rates.c): nothing to escape */
    std::fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"counter\",\"ph\":\"C\",\"pid\":%d,\"ts\":",
                 l.label, pid);
    put_us(f, ns);
    std::fprintf(f, ",\"args\":{\"carried_Bps\":%.17g", carried);
    if (l.background_Bps > 0)
        std::fprintf(f, ",\"background_Bps\":%.17g", l.background_Bps);
    std::fputs("}}", f);
}

} // namespace

extern "C" int des_link_rates_write(const des_link_rates *r, FILE *f, int pid,
                                    void (*put_us)(FILE *f, long long ns))
{
    if (r->failed)
        return -1;
    try {
        std::fprintf(f, ",\n{\"name\":\"process_name\",\"cat\":\"__metadata\",\"ph\":\"M\","
                        "\"pid\":%d,\"args\":{\"name\":\"shared links\"}}",
                     pid);
        std::fprintf(f, ",\n{\"name\":\"process_sort_index\",\"cat\":\"__metadata\",\"ph\":\"M\","
                        "\"pid\":%d,\"args\":{\"sort_index\":%d}}",
                     pid, pid);
        for (size_t k = 0; k < r->links.size(); k++) {
            const des_shared_link &l = r->links[k];
            /* +rate at each start, -rate at each end; the sum at each instant where it
             * changes. Exactly 0 (not a rounding residue) when nothing is in flight. */
            std::vector<std::pair<long long, double>> ev;
            ev.reserve(2 * r->segments[k].size());
            for (const segment &s : r->segments[k]) {
                ev.emplace_back(s.t0, s.rate);
                ev.emplace_back(s.t1, -s.rate);
            }
            std::sort(ev.begin(), ev.end(), [](const auto &a, const auto &b) {
                return a.first < b.first;
            });
            long double sum = 0;
            long in_flight = 0;
            if (ev.empty() || ev[0].first > 0)
                put_counter(f, pid, l, 0, 0, put_us);
            for (size_t x = 0; x < ev.size();) {
                long long ns = ev[x].first;
                for (; x < ev.size() && ev[x].first == ns; x++) {
                    sum += ev[x].second;
                    in_flight += ev[x].second > 0 ? 1 : -1;
                }
                if (in_flight == 0)
                    sum = 0;
                put_counter(f, pid, l, ns, (double)sum, put_us);
            }
        }
        return 0;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" void des_link_rates_free(des_link_rates *r)
{
    if (active == r)
        active = nullptr;
    delete r;
}
