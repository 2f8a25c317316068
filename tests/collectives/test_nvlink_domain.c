/*
 * tests/collectives/test_nvlink_domain.c: NVLink domains across nodes ("nvlink_domain",
 * sim/config/platform_nvlink_domain.c): the loader makes the domain gcsim's node (as NCCL's
 * MNNVL does), refuses what the hardware does not allow, routes inside a domain over the
 * NVLink switch and between domains over the NICs, and the collectives take the closed
 * forms computed by hand below (an NVL72-class rack: 18 trays x 4 GPUs, 740 GB/s per GPU
 * port, NVLS 477 GB/s, 5 us; one 400 Gb/s NIC per GPU, 1 us, star with 0.13 us switches).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "collectives.h"

/* Hosts of 4 GPUs, 36 of them (two racks) unless a test changes the text. */
static const char *const RACK =
    "{\"name\": \"nvl\", \"nodes\": %d, \"gpus_per_node\": 4, %s"
    " \"gpu\": {\"type\": \"gb200\", \"speed\": \"1250Tflops\"},"
    " \"intra_node\": {\"kind\": \"%s\", \"gpu_to_host\": \"63GBps\", %s \"latency\": \"5us\"},"
    " \"nic\": {\"kind\": \"infiniband\", \"bandwidth\": \"%s\", \"latency\": \"1us\", \"per_node\": 4},"
    " \"fabric\": {\"topology\": \"star\", \"switch_latency\": \"0.13us\"}}";
static const char *const SWITCHED = "\"gpu_to_gpu\": \"740GBps\", \"nvls_bandwidth\": \"477GBps\",";

static int parse(int nodes, const char *domain, const char *kind, const char *links,
                 const char *nic, gcsim_platform *p, gcsim_error *err)
{
    char text[2048];
    snprintf(text, sizeof text, RACK, nodes, domain, kind, links, nic);
    return gcsim_platform_parse(text, "<nvl>", p, err);
}

static void refused(int nodes, const char *domain, const char *kind, const char *links,
                    const char *want)
{
    gcsim_platform p;
    gcsim_error err = {0};
    CHECK(parse(nodes, domain, kind, links, "400Gbps", &p, &err) != 0);
    CHECK_STR_CONTAINS(err.message, want);
}

static double cost(const gcsim_platform *p, int gpus, gcsim_collective c, double bytes)
{
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    if (gcsim_topology_init(&t, p, gpus, &err) ||
        gcsim_schedule_build(&s, c, &t, 0, gcsim_pipeline_chunks(c, bytes), &err)) {
        fprintf(stderr, "%s\n", err.message);
        return NAN;
    }
    gcsim_bucket_bytes b = {.dense_bytes = bytes, .payload_bytes = bytes};
    double x = gcsim_schedule_time_s(&s, &t, &b);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    return x;
}

static void loading(void)
{
    gcsim_platform p, q;
    gcsim_error err = {0};
    CHECK(parse(36, "\"nvlink_domain\": {\"nodes\": 18},", "nvswitch", SWITCHED, "400Gbps", &p,
                &err) == 0);
    /* the domain is the node: 72 GPUs and 72 NICs (4 per tray x 18), 2 domains */
    CHECK(p.gpus_per_node == 72 && p.nodes == 2 && p.nic.per_node == 72);
    CHECK(p.fabric.nodes_per_leaf == 2);
    CHECK(p.nvlink_domain.hosts == 18 && p.nvlink_domain.host_gpus == 4 &&
          p.nvlink_domain.host_nics == 4 && p.nvlink_domain.file_nodes == 36);
    /* "gpus": 72 says the same */
    CHECK(parse(36, "\"nvlink_domain\": {\"gpus\": 72},", "nvswitch", SWITCHED, "400Gbps", &q,
                &err) == 0);
    CHECK(q.gpus_per_node == 72 && q.nodes == 2 && q.nic.per_node == 72 &&
          q.nvlink_domain.hosts == 18);
    /* without the key nothing changes */
    CHECK(parse(36, "", "nvswitch", SWITCHED, "400Gbps", &q, &err) == 0);
    CHECK(q.gpus_per_node == 4 && q.nodes == 36 && q.nic.per_node == 4 &&
          q.nvlink_domain.hosts == 0);

    refused(36, "\"nvlink_domain\": {\"nodes\": 18},", "nvlink",
            "\"links_per_pair\": 2, \"link_bandwidth\": \"25GBps\",",
            "<nvl>: $.nvlink_domain: an NVLink domain across nodes is switched");
    refused(35, "\"nvlink_domain\": {\"nodes\": 18},", "nvswitch", SWITCHED,
            "<nvl>: $.nodes: 35 nodes are not whole NVLink domains of 18");
    refused(36, "\"nvlink_domain\": {\"gpus\": 70},", "nvswitch", SWITCHED,
            "<nvl>: $.nvlink_domain.gpus: 70 GPUs are not whole nodes of 4");
    refused(36, "\"nvlink_domain\": {\"nodes\": 1},", "nvswitch", SWITCHED,
            "<nvl>: $.nvlink_domain.nodes: a domain of one node");
    refused(290, "\"nvlink_domain\": {\"nodes\": 145},", "nvswitch", SWITCHED,
            "<nvl>: $.nvlink_domain.nodes: 580 GPUs in one NVLink domain; NVLink switches join "
            "at most 576");
    refused(36, "\"nvlink_domain\": {\"nodes\": 18, \"gpus\": 72},", "nvswitch", SWITCHED,
            "<nvl>: $.nvlink_domain: give exactly one of");
    refused(36, "\"nvlink_domain\": {},", "nvswitch", SWITCHED,
            "<nvl>: $.nvlink_domain: give exactly one of");
    refused(36, "\"nvlink_domain\": {\"racks\": 2},", "nvswitch", SWITCHED,
            "<nvl>: $.nvlink_domain.racks: unknown key");
    refused(36, "\"nvlink_domain\": 18,", "nvswitch", SWITCHED,
            "<nvl>: $.nvlink_domain: expected an object");
}

static void routes(void)
{
    gcsim_platform p;
    gcsim_error err = {0};
    gcsim_topology t;
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat = 0;
    CHECK(parse(36, "\"nvlink_domain\": {\"nodes\": 18},", "nvswitch", SWITCHED, "400Gbps", &p,
                &err) == 0);
    CHECK(gcsim_topology_init(&t, &p, 144, &err) == 0);
    /* GPU 1 (tray 0) to GPU 70 (tray 17), one domain: up into the switch, down out of it,
     * 740 GB/s each, no NIC, the NVLink latency */
    int n = gcsim_topology_route(&t, 1, 70, links, &lat);
    CHECK(n == 2 && lat == 5e-6);
    for (int k = 0; k < n; k++) {
        CHECK(!gcsim_topology_is_nic_link(&t, links[k]));
        CHECK(gcsim_topology_capacity_Bps(&t, links[k]) == 740e9);
    }
    CHECK(gcsim_topology_node_of(&t, 1) == gcsim_topology_node_of(&t, 70));
    /* GPU 1 to GPU 73, the other domain: its PCIe, its NIC, the far NIC and PCIe;
     * nic.latency plus two switch latencies. NCCL's 15 channels run on 18 rails of 4 GPUs
     * (channels() below): GPU 1 on rail 0, GPU 71 on rail 17, each NIC link at 15/18 of
     * 50 GB/s */
    n = gcsim_topology_route(&t, 1, 73, links, &lat);
    CHECK(n == 4);
    CHECK_REL(lat, 1e-6 + 2 * 0.13e-6, 1e-12);
    int nics = 0;
    for (int k = 0; k < n; k++)
        if (gcsim_topology_is_nic_link(&t, links[k])) {
            nics++;
            CHECK_REL(gcsim_topology_capacity_Bps(&t, links[k]), 50e9 * 15 / 18, 1e-12);
        }
    CHECK(nics == 2);
    CHECK(t.nics_per_node == 18 && t.net_channels == 15);
    CHECK(gcsim_topology_nic_of(&t, 1) == 0 && gcsim_topology_nic_of(&t, 71) == 17);
    gcsim_topology_free(&t);
}

static void closed_forms(void)
{
    gcsim_platform p, slow, flat;
    gcsim_error err = {0};
    const double S = 8589934592.0; /* 8 GiB */
    CHECK(parse(36, "\"nvlink_domain\": {\"nodes\": 18},", "nvswitch", SWITCHED, "400Gbps", &p,
                &err) == 0);
    /* NVLS inside one 72-GPU domain: the switch reduces at nvls_bandwidth per port, plus
     * GCSIM_NVLS_STEPS (7) NVLink latencies: 8 GiB / 477 GB/s + 35 us = 18043.25 us;
     * busbw = S / t x 2 x 71/72 = 938.93 GB/s */
    double t_nvls = cost(&p, 72, COLLECTIVE_NVLS, S);
    CHECK_REL(t_nvls, S / 477e9 + 7 * 5e-6, 1e-12);
    CHECK_REL(S / t_nvls * 2 * 71 / 72 / 1e9, 938.93, 1e-5);
    /* the ring over NVLink inside the domain: 2 x 71 steps of S/72 at 740 GB/s + 5 us:
     * 23603.51 us, busbw 717.74 GB/s (the NVLink ring bound 740 GB/s less the latencies) */
    double t_ring = cost(&p, 72, COLLECTIVE_RING, S);
    CHECK_REL(t_ring, 142 * (S / 72 / 740e9 + 5e-6), 1e-12);
    CHECK_REL(S / t_ring * 2 * 71 / 72 / 1e9, 717.74, 1e-5);

    /* two domains over the NICs, hierarchical: ring reduce-scatter in the domain (71 steps
     * of S/72 at 740 GB/s + 5 us), an all-reduce of each GPU's S/72 with its rail's peer in
     * the other domain (2 steps of S/144), all-gather in the domain as the reduce-scatter.
     * The domain's NICs carry NCCL's 15 channels (740 / 50 -> 15) on 18 rails at 15/18 of
     * 50 GB/s, 4 GPUs a rail: each GPU's S/144 at 50 GB/s x 15/72, + 1.26 us (PCIe's
     * 63 GB/s does not bind). */
    double intra = 71 * (S / 72 / 740e9 + 5e-6);
    CHECK_REL(cost(&p, 144, COLLECTIVE_HIERARCHICAL, S),
              2 * intra + 2 * (S / 144 / (50e9 * 15 / 72) + 1.26e-6), 1e-9);
    /* the same racks with 1 Gb/s NICs: 740 GB/s / 0.125 GB/s asks for 5920 channels, more
     * than the 72 NICs: every NIC carries one, 2 x (S/144 / 125e6 + 1.26 us) */
    CHECK(parse(36, "\"nvlink_domain\": {\"nodes\": 18},", "nvswitch", SWITCHED, "1Gbps", &slow,
                &err) == 0);
    CHECK_REL(cost(&slow, 144, COLLECTIVE_HIERARCHICAL, S),
              2 * intra + 2 * (S / 144 / 125e6 + 1.26e-6), 1e-9);

    /* Without the domain the same trays are 18 nodes of 4 joined by 4 NICs each: the ring
     * over 72 GPUs runs one ring per rail (a NIC carries 1/4 of each step's S/72), and each
     * step waits for the crossing at 50 GB/s instead of the switch's 740 GB/s, and each
     * phase for one chunk's route (gcsim_ring_route_s: the cycle of 54 NVLink hops of 5 us
     * and 18 crossings of 1.26 us, less one crossing): 142 x S/72/4 / 50e9 + 2 x (54 x 5
     * + 17 x 1.26) us = 85.29 ms, 3.6 times the domain's ring. */
    CHECK(parse(36, "", "nvswitch", SWITCHED, "400Gbps", &flat, &err) == 0);
    double t_flat = cost(&flat, 72, COLLECTIVE_RING, S);
    CHECK_REL(t_flat, 142 * (S / 72 / 4 / 50e9) + 2 * (54 * 5e-6 + 17 * 1.26e-6), 1e-5);
    CHECK(t_flat > 3.5 * t_ring);
}

/* NCCL's channels across nodes (topology.c, gcsim_topology_net_channels): channels of the
 * GPU-to-NIC rate, min(nic.bandwidth, gpu_to_host), are added until they reach the GPU's
 * NVLink port (gpu_to_gpu), at most one per NIC; they run on the smallest divisor of the
 * node's GPUs at least that count, each rail at channels / rails of a NIC. */
static void channels(void)
{
    gcsim_platform p;
    gcsim_error err = {0};
    /* an NVL72 rack: 740 / min(50, 63) = 14.8 -> 15 channels of 72 NICs, 18 rails */
    CHECK(parse(36, "\"nvlink_domain\": {\"nodes\": 18},", "nvswitch", SWITCHED, "400Gbps", &p,
                &err) == 0);
    CHECK(gcsim_topology_net_channels(&p) == 15);
    CHECK(gcsim_topology_channel_rails(72, 15) == 18);
    /* 16 trays a domain (64 GPUs): 15 channels on 16 rails */
    CHECK(gcsim_topology_channel_rails(64, 15) == 16);
    CHECK(gcsim_topology_channel_rails(72, 7) == 8 && gcsim_topology_channel_rails(8, 8) == 8 &&
          gcsim_topology_channel_rails(72, 72) == 72 && gcsim_topology_channel_rails(4, 1) == 1);
    /* the PCIe path binds: gpu_to_host 24 GB/s -> 740 / 24 = 30.8 -> 31 channels, 36 rails */
    p.intra.gpu_to_host_Bps = 24e9;
    CHECK(gcsim_topology_net_channels(&p) == 31);
    /* NCCL's own figures, 720 GB/s of NVLink over 48 GB/s: exactly 15, not 16 */
    p.intra.gpu_to_gpu_Bps = 720e9;
    p.intra.gpu_to_host_Bps = 48e9;
    CHECK(gcsim_topology_net_channels(&p) == 15);
    /* a DGX H100-like node: 8 GPUs, 8 NICs of 50 GB/s, 370 GB/s NVLink: 7.4 -> 8, every NIC */
    p.gpus_per_node = 8;
    p.nic.per_node = 8;
    p.intra.gpu_to_gpu_Bps = 370e9;
    p.intra.gpu_to_host_Bps = 63e9;
    CHECK(gcsim_topology_net_channels(&p) == 8);
    /* over PCIe the rule is not modelled: every NIC */
    p.intra.kind = INTRA_PCIE_SWITCH;
    p.intra.gpu_to_gpu_Bps = 20e9;
    CHECK(gcsim_topology_net_channels(&p) == 8);
    /* without the domain the trays keep their 4 NICs: 15 channels ask for more */
    CHECK(parse(36, "", "nvswitch", SWITCHED, "400Gbps", &p, &err) == 0);
    CHECK(gcsim_topology_net_channels(&p) == 4);
}

int main(void)
{
    channels();
    loading();
    routes();
    closed_forms();
    CHECK_DONE();
}
