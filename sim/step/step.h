/*
 * sim/step/step.h: what one training step is, built once from a scenario and costed by
 * both engines (sim/analytic, sim/des).
 *
 * Offers:
 *   - gcsim_iteration: the resolved step: per-GPU compute blocks (forward, backward,
 *     recompute, per micro-batch; gated on a unit's parameter all-gather under ZeRO-3 /
 *     FSDP), the buckets or sharded units with their fp32 and payload bytes, each one's
 *     program (codec steps and collective calls, gcsim_step / gcsim_call) and the per-layer
 *     payloads and codec seconds. gcsim_iteration_build makes it from a gcsim_scenario
 *     (plain data parallelism, ZeRO-1/2/3, FSDP, HSDP, accumulation, checkpointing, the
 *     training stacks' programs, the papers' patterns); gcsim_iteration_free frees it.
 *   - gcsim_case_memo: what a group of cases differing only in GPU count shares (op prices,
 *     weak-scaling buckets), for sweeps.
 * Builds on sim/collectives (collectives.h: topology, schedules, the closed form, the
 * tuner), which never includes this room. docs/architecture.md places it among the others.
 */
#ifndef GCSIM_STEP_H
#define GCSIM_STEP_H

#include "collectives.h"

#endif
