/*
 * tests/collectives/test_schedule_size.c: the schedule size check
 * (sim/collectives/schedule_size.c) refuses a schedule that lists more flows than a phase
 * can count, whatever memory the host has, and passes one that fits.
 *
 * Bagua's and BytePS's leader all-to-all lists j (j - 1) flows between j machines: at
 * 46,342 machines that is 2,147,534,322, over INT_MAX = 2,147,483,647 (by hand). Platform U
 * (test_platforms.h) with one GPU per node and that many nodes.
 */
#include <limits.h>
#include <string.h>

#include "../check.h"
#include "collectives.h"
#include "test_platforms.h"

int main(void)
{
    gcsim_platform p = platform_u();
    p.gpus_per_node = 1;
    p.nic.per_node = 1;
    gcsim_topology t;
    gcsim_error err;

    p.nodes = 46342;
    CHECK(gcsim_topology_init(&t, &p, p.nodes, &err) == 0);
    CHECK(gcsim_schedule_listed_flows(COLLECTIVE_BAGUA_LEADER, &t, 0, 0) > (double)INT_MAX);
    memset(&err, 0, sizeof err);
    CHECK(gcsim_schedule_size_check(COLLECTIVE_BAGUA_LEADER, &t, 0, 0, &err) != 0);
    CHECK(strstr(err.message, "more than one schedule can index") != NULL);
    CHECK(gcsim_schedule_size_check(COLLECTIVE_BYTEPS_PS, &t, 0, 0, &err) != 0);
    gcsim_topology_free(&t);

    /* a small leader exchange passes: 16 machines, 240 flows */
    p.nodes = 16;
    CHECK(gcsim_topology_init(&t, &p, p.nodes, &err) == 0);
    CHECK(gcsim_schedule_size_check(COLLECTIVE_BAGUA_LEADER, &t, 0, 0, &err) == 0);
    gcsim_topology_free(&t);
    CHECK_DONE();
}
