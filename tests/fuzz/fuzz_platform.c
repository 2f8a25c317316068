/*
 * tests/fuzz/fuzz_platform.c: the platform loader (gcsim_platform_parse, sim/config/
 * platform.h) on arbitrary text.
 *
 * Contract checked: failure leaves a message naming the origin; success gives a platform
 * whose counts are in range and whose quantities are finite and positive (platform.h:
 * "non-positive quantities are errors"), and placement works on it for any GPU count.
 */
#include <math.h>

#include "fuzz_target.h"
#include "platform.h"

#define ORIGIN "fuzz-platform.json"

static int positive(double x) { return isfinite(x) && x > 0.0; }
static int non_negative(double x) { return isfinite(x) && x >= 0.0; }

static void check_placement(const gcsim_platform *p, int gpus)
{
    gcsim_placement pl;
    gcsim_error err;
    long long capacity = (long long)p->nodes * p->gpus_per_node;
    memset(&err, 0, sizeof err);
    int rc = gcsim_platform_place(p, gpus, &pl, &err);
    if (gpus < 1 || gpus > capacity) {
        FUZZ_REQUIRE(rc != 0, "placement of %d GPUs on %lld accepted", gpus, capacity);
        fuzz_check_message(err.message, sizeof err.message, NULL);
        return;
    }
    FUZZ_REQUIRE(rc == 0, "placement of %d GPUs failed: %s", gpus, err.message);
    /* Machines are filled first: i * (j - 1) + last = N, 1 <= last <= i. */
    FUZZ_REQUIRE(pl.gpus == gpus && pl.machines >= 1 && pl.gpus_per_machine >= 1 &&
                     pl.last_machine_gpus >= 1 && pl.last_machine_gpus <= pl.gpus_per_machine &&
                     (long long)pl.gpus_per_machine * (pl.machines - 1) + pl.last_machine_gpus ==
                         gpus &&
                     pl.machines <= p->nodes,
                 "placement %d = %d x %d (last %d)", gpus, pl.gpus_per_machine, pl.machines,
                 pl.last_machine_gpus);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    gcsim_platform p;
    gcsim_error err;
    memset(&err, 0, sizeof err);
    int rc = gcsim_platform_parse(text, ORIGIN, &p, &err);
    free(text);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == -1, "return code %d", rc);
        fuzz_check_message(err.message, sizeof err.message, ORIGIN);
        return 0;
    }
    FUZZ_REQUIRE(p.name[0] != '\0' && memchr(p.name, '\0', sizeof p.name), "name");
    FUZZ_REQUIRE(p.gpu.type[0] != '\0' && memchr(p.gpu.type, '\0', sizeof p.gpu.type), "type");
    FUZZ_REQUIRE(p.nodes >= 1 && p.gpus_per_node >= 1, "%d nodes x %d", p.nodes,
                 p.gpus_per_node);
    FUZZ_REQUIRE(p.nic.per_node >= 1 && p.nic.per_node <= p.gpus_per_node, "%d NICs",
                 p.nic.per_node);
    FUZZ_REQUIRE(positive(p.gpu.speed_flops), "speed %g", p.gpu.speed_flops);
    FUZZ_REQUIRE(non_negative(p.gpu.codec_Bps), "codec %g", p.gpu.codec_Bps);
    FUZZ_REQUIRE(positive(p.intra.gpu_to_host_Bps), "C_cwd %g", p.intra.gpu_to_host_Bps);
    FUZZ_REQUIRE(positive(p.intra.gpu_to_gpu_Bps), "C_gwd %g", p.intra.gpu_to_gpu_Bps);
    FUZZ_REQUIRE(non_negative(p.intra.latency_s), "intra latency %g", p.intra.latency_s);
    FUZZ_REQUIRE(positive(p.nic.bandwidth_Bps), "NIC %g", p.nic.bandwidth_Bps);
    FUZZ_REQUIRE(non_negative(p.nic.latency_s), "C_ncost %g", p.nic.latency_s);
    FUZZ_REQUIRE(non_negative(p.fabric.switch_latency_s), "switch %g",
                 p.fabric.switch_latency_s);
    FUZZ_REQUIRE(isfinite(p.fabric.oversubscription) && p.fabric.oversubscription >= 1.0,
                 "oversubscription %g", p.fabric.oversubscription);
    FUZZ_REQUIRE(p.fabric.nodes_per_leaf >= 1 && p.fabric.nodes_per_leaf <= p.nodes,
                 "nodes_per_leaf %d of %d", p.fabric.nodes_per_leaf, p.nodes);
    if (p.has_price)
        FUZZ_REQUIRE(positive(p.price_per_gpu_hour_usd), "price %g", p.price_per_gpu_hour_usd);
    FUZZ_REQUIRE(positive(gcsim_platform_node_network_Bps(&p)), "C_nwd");
    /* PCIe without P2P (platform_pcie_shm.c): every staged link keeps a positive, finite
     * rate, whichever of shm_efficiency, h2d_bidirectional and shm_bandwidth was given */
    FUZZ_REQUIRE(non_negative(p.intra.shm_bandwidth_Bps) &&
                     non_negative(p.intra.h2d_bidirectional_Bps),
                 "shm_bandwidth %g, h2d_bidirectional %g", p.intra.shm_bandwidth_Bps,
                 p.intra.h2d_bidirectional_Bps);
    FUZZ_REQUIRE(positive(gcsim_platform_pcie_shm_link_Bps(&p, p.intra.gpu_to_host_Bps,
                                                           p.intra.h2d_bidirectional_Bps)),
                 "staged GPU link %g", p.intra.gpu_to_host_Bps);
    if (p.intra.gpus_per_switch > 0)
        FUZZ_REQUIRE(positive(gcsim_platform_pcie_shm_link_Bps(
                         &p, p.intra.switch_uplink_Bps, p.intra.h2d_bidirectional_Bps)),
                     "staged uplink %g", p.intra.switch_uplink_Bps);

    long long capacity = (long long)p.nodes * p.gpus_per_node;
    int counts[] = {-1, 0, 1, 2, p.gpus_per_node, p.gpus_per_node + 1, (int)capacity,
                    (int)capacity + 1};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        check_placement(&p, counts[i]);
    return 0;
}
