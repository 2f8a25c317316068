/*
 * sim/des/des_fabric.h: what the DES adds to the topology's links on a shared fabric
 * (issue 41): a background load of a fraction f of the capacity of the leaf uplinks and
 * downlinks of a fat tree, or of the NICs (platform.h, "background"). The analytic engine
 * costs the unloaded links.
 *
 * Model: the other traffic is a constant-rate stream (another job's collectives, rate
 * limited, or a storage stream) holding f x C on each loaded link in each direction, so the
 * collective sees (1 - f) C there. A collective whose time is set by those links' bandwidth
 * therefore slows by 1 / (1 - f); one set elsewhere (NVLink, a NIC when the uplinks are
 * loaded but not the bottleneck) slows less, down to not at all: the bound
 *     T(f) <= T(0) / (1 - f)
 * with equality when the loaded links are the bottleneck (tests/des/background_load.sh).
 */
#ifndef GCSIM_DES_FABRIC_H
#define GCSIM_DES_FABRIC_H

#include "collectives.h"

/* The capacity the DES gives link l of t, a NIC link (nic true) or a leaf link. */
double des_fabric_capacity_Bps(const gcsim_topology *t, int l, bool nic);

/*
 * ECMP collisions (platform.h, "ecmp"; --ecmp-spines S, --ecmp-seed): each leaf's uplink of
 * capacity U becomes S links of U / S, one to each spine switch, and the downlink likewise.
 * A switch hashes each flow's header to one of its equal-cost uplinks; here the key is the
 * endpoint: GPU (or node CPU) e's traffic to other leaves leaves on spine
 * des_fabric_spine(seed, e, 0) and traffic to e arrives from spine des_fabric_spine(seed,
 * e, 1), uniform and independent over e. Where each endpoint has one flow crossing leaves at
 * a time (a ring, a tree, the hierarchical all-reduce's inter-node ring), that is a hash per
 * flow; a parameter server's or all-to-all's several flows of one endpoint share its spine
 * (they share its NIC anyway). The downlink's spine is hashed on its own rather than being
 * the uplink's (SimGrid routes are per endpoint, not per pair): per link, the number of
 * flows is the same balls-into-bins count. Traffic between nodes of one leaf crosses no
 * spine. With S = 1 nothing can collide: the one spine link is the aggregate uplink.
 * k flows hashed onto one spine link share it: each gets U / (S k) when that is the
 * tightest link of its route. The analytic engine costs the aggregate uplink (no collision).
 */
int des_fabric_spine(unsigned long long seed, int endpoint, int direction, int spines);

/*
 * Network jitter (platform.h, "jitter"; --jitter-us M, --jitter-seed N): the k-th message
 * an actor of endpoint e (lane l) receives in simulated iteration i arrives an extra
 * J = -M ln(1 - U) seconds after the network delivered it, U uniform in [0, 1) from a hash
 * of (seed, i, e, l, k): exponential with mean M, independent across messages, the same on
 * every run. Exponential: the memoryless waiting time of a queue in a switch or a host's
 * progress thread, one parameter; a stated model, not a measured shape. The receiver's step
 * ends when its last message has arrived, so a step waits for the largest jitter among its
 * messages and a ring's steps pass the delays on; the DES simulates every step on its own
 * (no coalesced phases) while jitter is on. The analytic engine does not include it.
 */
double des_fabric_jitter_s(unsigned long long seed, double mean_s, int iteration, int endpoint,
                           int lane, long long k);

#endif
