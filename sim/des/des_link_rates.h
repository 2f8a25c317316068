/*
 * sim/des/des_link_rates.h: the timeline's counter tracks of the shared links (issue 41):
 * a fat tree's leaf uplinks and downlinks, the spine links that ECMP splits them into, and
 * the NICs when --background-load takes a share of them. One counter per link, on a
 * process "shared links" after the endpoints, with the rate the simulated messages carry
 * over it (carried_Bps) and, where a background load is set on that link class, the rate
 * the load holds (background_Bps, constant: fraction x the link's full capacity).
 *
 * How: the DES tells the timeline each message it sends (its SimGrid comm and bytes,
 * des_collectives.c); when the comm completes (SimGrid's Activity::on_completion signal),
 * its route between the two hosts (Host::route_to) names the links it crossed, and each
 * shared one carries bytes / (finish - start - route latency) from start + latency to
 * finish: under the default alpha-beta model a message moves no bytes during its latency
 * and then its bytes at its share. A counter is the sum over the messages in flight on the
 * link, piecewise constant. It is the message's mean rate: exact while a link's flows keep
 * their shares (a ring's steps, a coalesced phase), an average where max-min re-shares a
 * message's bandwidth in flight; either way it integrates to the bytes carried. SimGrid's
 * Link::get_usage() gives the solver's instantaneous value but only between its solves,
 * which no public signal marks, so it is not sampled.
 *
 * Only with --timeline (des_timeline_new creates it); without shared links (a star without
 * background load) it is NULL and the timeline is as it was.
 */
#ifndef GCSIM_DES_LINK_RATES_H
#define GCSIM_DES_LINK_RATES_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A shared link as the DES's platform names it (des_platform.c), what the timeline calls
 * it, and the rate a background load holds on it (0: none). */
typedef struct {
    char name[32];
    char label[64];
    double background_Bps;
} des_shared_link;

typedef struct des_link_rates des_link_rates;

/* The links issue 41 calls shared, from the topology (des_link_rates.c): each leaf's uplink
 * and downlink of a fat tree, or its spine links under ECMP, and every NIC when a
 * background load is on the NICs. *out is malloc'd (NULL when none). Returns how many, or
 * -1 out of memory. */
int des_shared_links(const void *topology, des_shared_link **out);

/* Watches the links of `links` that SimGrid has (call after the platform is built, before
 * the simulation runs); NULL when none of them exists or out of memory (*failed set then).
 * Connects to SimGrid's completion signal once per process (des_link_rates_sg.cpp). */
des_link_rates *des_link_rates_new(const des_shared_link *links, int n, int *failed);
/* A message the DES sent: comm is its sg_comm_t (the sender's), bytes its simulated size. */
void des_link_rates_message(des_link_rates *r, const void *comm, double bytes);
/* Writes, after the other events (each line starts with ",\n"), the process "shared links"
 * as pid `pid` and one counter track per link. ts in microseconds from integer
 * nanoseconds, written by put_us as the slices' are. Returns 0, or -1 out of memory. */
int des_link_rates_write(const des_link_rates *r, FILE *f, int pid,
                         void (*put_us)(FILE *f, long long ns));
void des_link_rates_free(des_link_rates *r);

#ifdef __cplusplus
}
#endif

#endif
