/* The resolved step an engine is handed (sim/step/step.h, issue 44): what the step builder
 * decides for the papers' patterns is data in it, the engines cost it without reading a
 * scenario or changing it, and the names a bare collective accepts leave the patterns out.
 * Hand values on the cluster of analytic_fixture.h: 4 machines x 4 GPUs, a 50e6-
 * parameter model (|g| = 200e6 B fp32) at 0.25 s for its batch of 128, C_cwd = 12.5e9 B/s. */
#include <string.h>

#include "analytic.h"
#include "analytic_fixture.h"
#include "check.h"
#include "variability.h"

/* The cluster and model of analytic_fixture.h (its header gives their figures). */
static const char *platform_json = FIXTURE_PLATFORM_JSON;
static const char *model_json = FIXTURE_MODEL_JSON;

static gcsim_platform platform;
static gcsim_model model;
static double layer_bytes[1];
static gcsim_payload_plan payload;

static gcsim_scenario scenario(gcsim_collective c, int gpus, gcsim_scaling scaling,
                               const char *spec, double wire_bytes)
{
    layer_bytes[0] = wire_bytes;
    payload = (gcsim_payload_plan){.aggregation = PAYLOAD_DENSE_SUMMABLE, .n_layers = 1,
                                   .layer_bytes = layer_bytes, .total_bytes = wire_bytes,
                                   .dense_bytes = 200e6};
    strcpy(payload.spec, spec);
    gcsim_scenario s = {.platform = &platform, .model = &model, .payload = &payload,
                        .scaling = scaling, .collective = c, .batch = 128, .overlap = true};
    gcsim_error err;
    CHECK(gcsim_platform_place(&platform, gpus, &s.placement, &err) == 0);
    return s;
}

int main(void)
{
    gcsim_error err;
    if (gcsim_platform_parse(platform_json, "test", &platform, &err) ||
        gcsim_model_parse(model_json, "test", &model, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }

    /* The names a bare collective accepts: algorithms, not the papers' patterns. */
    gcsim_collective c = COLLECTIVE_COUNT;
    CHECK(gcsim_collective_parse_algorithm("terngrad", &c) != 0 && c == COLLECTIVE_COUNT);
    CHECK(gcsim_collective_parse_algorithm("dgc-paper", &c) != 0 && c == COLLECTIVE_COUNT);
    CHECK(gcsim_collective_parse_algorithm("no-such", &c) != 0);
    CHECK(gcsim_collective_parse_algorithm("double-tree", &c) == 0 && c == COLLECTIVE_DOUBLE_TREE);
    CHECK(gcsim_collective_exchange(COLLECTIVE_TERNGRAD) == GCSIM_EXCHANGE_PATTERN);
    CHECK(gcsim_collective_exchange(COLLECTIVE_DGC_PAPER) == GCSIM_EXCHANGE_PATTERN);
    CHECK(gcsim_collective_exchange(COLLECTIVE_PARAMETER_SERVER) == GCSIM_EXCHANGE_PS);
    CHECK(gcsim_collective_exchange(COLLECTIVE_ALLGATHER) == GCSIM_EXCHANGE_ALLGATHER);
    CHECK(gcsim_collective_exchange(COLLECTIVE_REDUCE_SCATTER) == GCSIM_EXCHANGE_ALLREDUCE);
    gcsim_platform named = platform;
    strcpy(named.collective, "terngrad");
    CHECK(!gcsim_platform_default_algorithm(&named, &c) && c == COLLECTIVE_TERNGRAD);
    strcpy(named.collective, "hierarchical");
    CHECK(gcsim_platform_default_algorithm(&named, &c) && c == COLLECTIVE_HIERARCHICAL);
    named.collective[0] = '\0';
    CHECK(gcsim_platform_default_algorithm(&named, &c) && c == COLLECTIVE_RING);

    /* terngrad: the paper's closed form, its inputs resolved; no overlap, one bucket. The
     * host copy (200e6 / 12.5e9 = 16 ms) is out of the step's compute: 0.234 s weak. One
     * GPU still compresses (it copies its gradient to the host). */
    gcsim_scenario s = scenario(COLLECTIVE_TERNGRAD, 1, SCALING_WEAK, "test", 50e6);
    gcsim_resolved_step st;
    CHECK(gcsim_step_resolve(&st, &s, &err) == 0);
    CHECK(st.costing == GCSIM_COST_TERNGRAD_FORM);
    CHECK(st.compressed && st.terngrad.compressed && !st.terngrad.strong_scaling);
    CHECK_REL(st.terngrad.T1_s, 0.25, 1e-12);
    CHECK_REL(st.terngrad.g_wire_bytes, 50e6, 1e-12);
    CHECK(!st.it.overlap && st.it.n_buckets == 1 && st.it.n_calls == 1);
    CHECK(st.it.calls[0].collective == COLLECTIVE_TERNGRAD);
    CHECK_REL(st.it.compute_s, 0.25 - 200e6 / 12.5e9, 1e-12);
    CHECK_REL(st.samples_per_iteration, 128.0, 1e-12); /* weak, 1 GPU */
    gcsim_step_release(&st);

    /* dgc-paper: the same step shape, costed through its schedule like any other. */
    s = scenario(COLLECTIVE_DGC_PAPER, 8, SCALING_STRONG, "test", 1e6);
    CHECK(gcsim_step_resolve(&st, &s, &err) == 0);
    CHECK(st.costing == GCSIM_COST_PROGRAMS && st.compressed && !st.it.overlap);
    CHECK(st.it.n_buckets == 1);
    CHECK_REL(st.samples_per_iteration, 128.0, 1e-12); /* strong: the global batch */
    gcsim_step_release(&st);

    /* ring on one GPU: nothing to exchange, nothing compressed; overlap as asked; three
     * micro-batches of the profile as it is (3 x 0.25 s) and three batches of samples. */
    s = scenario(COLLECTIVE_RING, 1, SCALING_WEAK, "test", 1e6);
    s.grad_accum = 3;
    CHECK(gcsim_step_resolve(&st, &s, &err) == 0);
    CHECK(st.costing == GCSIM_COST_PROGRAMS && !st.compressed && st.it.overlap);
    CHECK_REL(st.it.compute_s, 0.75, 1e-12);
    CHECK_REL(st.samples_per_iteration, 3 * 128.0, 1e-12);
    gcsim_step_release(&st);

    /* A profile shorter than the host copy is refused by the step, naming the model. */
    gcsim_model quick = model;
    gcsim_profile fast = model.profiles[0];
    fast.points[0].time_s = 0.01;
    quick.profiles = &fast;
    s = scenario(COLLECTIVE_TERNGRAD, 8, SCALING_WEAK, "test", 50e6);
    s.model = &quick;
    CHECK(gcsim_step_resolve(&st, &s, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "shorter than copying the 2e+08-byte gradient");

    /* The engine takes the step and leaves it as it was: twice the same answer, under
     * variable compute too (the engine scales a copy of the blocks). */
    gcsim_variability v = {.on = true, .cv = 0.1,
                           .slow_factor = 1, .slow_rank = -1, .slow_rank_factor = 1,
                           .seed = 1};
    s = scenario(COLLECTIVE_RING, 16, SCALING_WEAK, "none", 200e6);
    s.variability = &v;
    CHECK(gcsim_step_resolve(&st, &s, &err) == 0);
    gcsim_topology topo;
    CHECK(gcsim_step_topology(&st, &topo, &err) == 0);
    double block0 = st.it.blocks[0].seconds;
    gcsim_prediction a, b;
    CHECK(gcsim_analytic_predict(&st, &topo, &a, &err) == 0);
    CHECK(st.it.blocks[0].seconds == block0);
    CHECK(gcsim_analytic_predict(&st, &topo, &b, &err) == 0);
    CHECK(a.iteration_s == b.iteration_s && a.iteration_s > a.compute_s);

    /* The topology is the step's: one for other GPUs is refused, not costed. */
    gcsim_topology eight;
    CHECK(gcsim_topology_init(&eight, &platform, 8, &err) == 0);
    CHECK(gcsim_analytic_predict(&st, &eight, &a, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "not the step's");
    gcsim_step_release(&st);

    /* ECMP collisions: the step is resolved on each fabric of the expectation when it is
     * built, and the engine weighs those. On a fat tree of 2 leaves of 2 nodes with 2
     * spines, the ring's most loaded leaf link carries one flow: K = 1 with P = 1, so one
     * fabric, its oversubscription 1 x S K / n = 2, its ECMP cleared, and the prediction
     * that of the same step without ECMP on that oversubscription. */
    gcsim_platform tree = platform;
    tree.fabric.topology = FABRIC_FAT_TREE;
    tree.fabric.nodes_per_leaf = 2;
    tree.fabric.oversubscription = 1;
    tree.ecmp.spines = 2;
    s = scenario(COLLECTIVE_RING, 16, SCALING_WEAK, "none", 200e6);
    s.platform = &tree;
    CHECK(gcsim_step_resolve(&st, &s, &err) == 0);
    CHECK(st.n_fabrics == 1 && st.fabrics != NULL);
    double weights = 0;
    for (int k = 0; k < st.n_fabrics; k++) {
        const gcsim_step_fabric *f = &st.fabrics[k];
        weights += f->weight;
        CHECK(f->platform.ecmp.spines == 0 && f->step.n_fabrics == 0);
        CHECK(f->step.platform == &f->platform && f->topology.platform == &f->platform);
        CHECK(f->topology.gpus == 16 && f->step.variability_stats == NULL);
    }
    CHECK_REL(weights, 1.0, 1e-12);
    CHECK_REL(st.fabrics[0].platform.fabric.oversubscription, 2.0, 1e-15);
    CHECK(gcsim_step_topology(&st, &topo, &err) == 0);
    CHECK(gcsim_analytic_predict(&st, &topo, &a, &err) == 0);
    gcsim_platform scaled = tree;
    scaled.ecmp.spines = 0;
    scaled.fabric.oversubscription = 2;
    s.platform = &scaled;
    gcsim_resolved_step plain;
    gcsim_topology plain_topo;
    CHECK(gcsim_step_resolve(&plain, &s, &err) == 0 && plain.n_fabrics == 0);
    CHECK(gcsim_step_topology(&plain, &plain_topo, &err) == 0);
    CHECK(gcsim_analytic_predict(&plain, &plain_topo, &b, &err) == 0);
    CHECK(a.iteration_s == b.iteration_s && a.comm_s == b.comm_s);
    gcsim_step_release(&plain);
    gcsim_step_release(&st);

    /* Too many spines for a leaf's uplink ports (2 nodes x 1 NIC / 1): the step is built,
     * without fabrics, and the analytic engine refuses it, naming the option (the DES
     * refuses it with its own message when it lays out its platform). */
    tree.ecmp.spines = 3;
    s.platform = &tree;
    CHECK(gcsim_step_resolve(&st, &s, &err) == 0);
    CHECK(st.n_fabrics == 0 && st.fabrics_error != NULL);
    CHECK(gcsim_step_topology(&st, &topo, &err) == 0);
    CHECK(gcsim_analytic_predict(&st, &topo, &a, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "--ecmp-spines 3: a leaf has 2 uplink ports");
    gcsim_step_release(&st);

    /* terngrad refuses variable compute: its closed form has no per-GPU compute. */
    s = scenario(COLLECTIVE_TERNGRAD, 8, SCALING_WEAK, "none", 200e6);
    s.variability = &v;
    CHECK(gcsim_step_resolve(&st, &s, &err) == 0);
    CHECK(gcsim_step_topology(&st, &topo, &err) == 0);
    CHECK(gcsim_analytic_predict(&st, &topo, &a, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "has no per-GPU compute");
    gcsim_step_release(&st);
    CHECK_DONE();
}
