/*
 * bench/des/bench_graph_ring.cpp: the minimal SimGrid ring of bench_des.c run without
 * actors, as host-to-host communications that maestro starts when their dependencies are
 * done (issue 28). Each of the n ring members at round r sends S/n to its successor and
 * receives from its predecessor, and starts round r + 1 once both are done; so the
 * transfer k -> k+1 of round r + 1 waits for the transfers k-1 -> k, k -> k+1 and
 * k+1 -> k+2 of round r. Same messages, same simulated time as the actor ring.
 *
 * C++: SimGrid 3.32 has host-to-host communications (Comm::sendto_init) and completion
 * callbacks only in its C++ API. Called from C (bench_des.c) in a forked child.
 */
#include <cstdint>
#include <cstdio>
#include <vector>

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

namespace {

namespace s4u = simgrid::s4u;

struct ring_graph {
    int n, rounds;
    uint64_t bytes;
    std::vector<s4u::Host *> hosts;
    std::vector<int> round_of;        /* per member: the round its send is in */
    std::vector<signed char> missing; /* per member: dependencies left of its next send */
    std::vector<s4u::Comm *> done;    /* finished comms, released at the next callback */
};

ring_graph *graph;

void start_send(int k)
{
    ring_graph *g = graph;
    s4u::CommPtr c = s4u::Comm::sendto_init(g->hosts[k], g->hosts[(k + 1) % g->n]);
    c->set_payload_size(g->bytes);
    c->set_data(reinterpret_cast<void *>(static_cast<intptr_t>(k)));
    c->add_ref(); /* kept until its completion has been handled */
    c->start();
    /* 3 dependencies: its own previous send, its predecessor's and its successor's */
    g->missing[k] = 3;
}

/* A send of member k is done: it is one of the 3 dependencies of k-1, k and k+1's next
 * sends (when the ring has 2 members, k-1 = k+1 counts twice, as both roles it has). */
void on_done(const s4u::Activity &a)
{
    ring_graph *g = graph;
    for (s4u::Comm *c : g->done)
        c->unref();
    g->done.clear();
    g->done.push_back(const_cast<s4u::Comm *>(static_cast<const s4u::Comm *>(&a)));
    int k = static_cast<int>(reinterpret_cast<intptr_t>(a.get_data<void>()));
    int n = g->n;
    int who[3] = {(k + n - 1) % n, k, (k + 1) % n};
    for (int w : who) {
        if (--g->missing[w] == 0 && ++g->round_of[w] < g->rounds)
            start_send(w);
    }
}

} // namespace

extern "C" double bench_graph_ring(int n, int rounds, long bytes, const char *const *host_names)
{
    ring_graph g;
    g.n = n;
    g.rounds = rounds;
    g.bytes = static_cast<uint64_t>(bytes);
    g.round_of.assign(static_cast<size_t>(n), 0);
    g.missing.assign(static_cast<size_t>(n), 0);
    s4u::Engine *e = s4u::Engine::get_instance();
    for (int k = 0; k < n; k++)
        g.hosts.push_back(e->host_by_name(host_names[k]));
    graph = &g;
    s4u::Activity::on_completion_cb(on_done);
    for (int k = 0; k < n && rounds > 0; k++)
        start_send(k);
    e->run();
    for (s4u::Comm *c : g.done)
        c->unref();
    return s4u::Engine::get_clock();
}
