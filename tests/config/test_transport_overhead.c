/*
 * tests/config/test_transport_overhead.c: the per-transport default of nic.message_overhead
 * (issue 42, sim/config/platform_transport.c), by hand. EFA: what aws-ofi-nccl reports to
 * NCCL as a network step (src/platform-aws.c: 75 us on the GPUDirect RDMA instances, 150 us
 * otherwise) less nic.latency, at least 0; a stated value replaces it; other transports 0.
 */
#include <stdio.h>

#include "check.h"
#include "platform.h"
#include "platform_transport.h"

/* A 2 x 1 GPU platform whose $.nic is NIC (a JSON object's members). */
static int parse(const char *nic, gcsim_platform *p)
{
    char text[1024];
    gcsim_error err = {0};
    snprintf(text, sizeof text,
             "{\"name\": \"t\", \"nodes\": 2, \"gpus_per_node\": 1,"
             " \"gpu\": {\"type\": \"x\", \"speed\": \"10Tflops\"},"
             " \"intra_node\": {\"kind\": \"pcie-switch\", \"gpu_to_host\": \"16GBps\","
             " \"gpu_to_gpu\": \"16GBps\"},"
             " \"nic\": {\"kind\": \"ethernet\", \"bandwidth\": \"100Gbps\", %s},"
             " \"fabric\": {\"topology\": \"star\"}}",
             nic);
    int rc = gcsim_platform_parse(text, "<t>", p, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.message);
    return rc;
}

int main(void)
{
    gcsim_platform p;
    /* GPUDirect (efa's default), nic.latency 20 us: 75 - 20 = 55 us (a100-efa-p4d.json). */
    CHECK(parse("\"latency\": \"20us\", \"transport\": \"efa\"", &p) == 0);
    CHECK_REL(p.nic.message_overhead_s, 55e-6, 1e-12);
    /* Without GPUDirect, nic.latency 30 us: 150 - 30 = 120 us (t4-aws-g4dn-8xl.json). */
    CHECK(parse("\"latency\": \"30us\", \"transport\": \"efa\", \"gpudirect\": false", &p) == 0);
    CHECK_REL(p.nic.message_overhead_s, 120e-6, 1e-12);
    /* A latency at or above the plugin's figure leaves nothing to add. */
    CHECK(parse("\"latency\": \"75us\", \"transport\": \"efa\"", &p) == 0);
    CHECK(p.nic.message_overhead_s == 0);
    CHECK(parse("\"latency\": \"200us\", \"transport\": \"efa\", \"gpudirect\": false", &p) == 0);
    CHECK(p.nic.message_overhead_s == 0);
    /* A stated overhead replaces the default, with or without GPUDirect. */
    CHECK(parse("\"latency\": \"20us\", \"transport\": \"efa\", \"message_overhead\": \"7us\"",
                &p) == 0);
    CHECK_REL(p.nic.message_overhead_s, 7e-6, 1e-12);
    /* The default overhead is charged where the link model looks for transport costs. */
    CHECK(parse("\"latency\": \"20us\", \"transport\": \"efa\"", &p) == 0);
    CHECK(gcsim_platform_has_transport_links(&p));
    /* Other transports and no transport: no default overhead. */
    static const char *const others[] = {
        "\"latency\": \"2us\", \"transport\": \"ib\"",
        "\"latency\": \"2us\", \"transport\": \"roce\"",
        "\"latency\": \"10us\", \"transport\": \"tcpxo\"",
        "\"latency\": \"30us\", \"transport\": \"tcp\"",
        "\"latency\": \"30us\"",
    };
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        CHECK(parse(others[k], &p) == 0);
        CHECK(p.nic.message_overhead_s == 0);
    }
    /* The helper itself, at the boundary. */
    CHECK_REL(gcsim_efa_message_overhead_s(true, 0), 75e-6, 1e-12);
    CHECK_REL(gcsim_efa_message_overhead_s(false, 0), 150e-6, 1e-12);
    CHECK(gcsim_efa_message_overhead_s(true, 75e-6) == 0);
    CHECK_DONE();
}
