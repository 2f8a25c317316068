/* sim/config/llm_efficiency_fit.h: written by tests/validation/sharded.py --fit --write, do
 * not edit.
 * Fitted: the fraction of the 16-bit peak at which a GPU type runs transformer training
 * (forward, backward and any recomputation), e_gpu x (hidden / 4096)^beta: GEMMs as wide as
 * the model's hidden size run closer to peak. Each calibration row of
 * tests/validation/sharded/measurements.tsv gives the --mfu at which gcsim predict
 * reproduces its published tokens/s per GPU (the sharded exchange costed by gcsim, so that
 * only compute is fitted); e_gpu and the shared beta are the least-squares fit of their
 * logarithms. The other rows validate it: docs/validation.md. */
#ifndef GCSIM_CONFIG_LLM_EFFICIENCY_FIT_H
#define GCSIM_CONFIG_LLM_EFFICIENCY_FIT_H
static const struct {
    const char *gpu;
    double efficiency; /* at the reference hidden size */
    int points;
} gcsim_transformer_fit[] = {
    {"a100", 0.5894, 3}, /* rows c11a (hidden 4096) 0.6484, c24a (hidden 5120) 0.6173, c25a (hidden 8192) 0.6809 */
    {"h100", 0.4341, 3}, /* rows c02a (hidden 8192) 0.5836, c06a (hidden 4096) 0.4703, c16 (hidden 4096) 0.3701 */
};
#define GCSIM_TRANSFORMER_FIT_REFERENCE_HIDDEN 4096
#define GCSIM_TRANSFORMER_FIT_BETA 0.3120
#define GCSIM_TRANSFORMER_FIT_SOURCE "tests/validation/sharded.py --fit: rows c11a c24a c25a c02a c06a c16"
#endif
