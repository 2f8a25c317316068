/* sim/config/llm_efficiency_fit.h: written by tests/validation/sharded.py --fit --write, do
 * not edit.
 * Fitted: the fraction of the 16-bit peak at which a GPU type runs transformer training
 * (forward, backward and any recomputation), per type the median over calibration rows of
 * tests/validation/sharded/measurements.tsv of the --mfu at which gcsim predict reproduces
 * the published tokens/s per GPU (the sharded exchange costed by gcsim, so that only
 * compute is fitted). The other rows validate it: docs/validation.md. */
#ifndef GCSIM_CONFIG_LLM_EFFICIENCY_FIT_H
#define GCSIM_CONFIG_LLM_EFFICIENCY_FIT_H
static const struct {
    const char *gpu;
    double efficiency;
    int points;
} gcsim_transformer_fit[] = {
    {"a100", 0.6244, 2}, /* median of c11a 0.6427, c24a 0.6060 */
    {"h100", 0.4021, 2}, /* median of c06a 0.4656, c16 0.3386 */
};
#define GCSIM_TRANSFORMER_FIT_SOURCE "tests/validation/sharded.py --fit: rows c11a c24a c06a c16"
#endif
