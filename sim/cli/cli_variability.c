/* Parsing the variable-compute options (cli_variability.h). */
#include "cli_variability.h"

#include <stdio.h>
#include <string.h>

#include "cli_args.h"

/* which options were given (bits by ch - CLI_VAR_CV) */
static unsigned given;
/* --variability NAME: applied in cli_variability_finish, under explicit --compute-cv and
 * --compute-dist whichever order they came in */
static const gcsim_var_preset *preset;

void cli_variability_init(gcsim_variability *v)
{
    memset(v, 0, sizeof *v);
    v->family = GCSIM_VAR_LOGNORMAL;
    v->slow_rank = -1;
    v->slow_factor = 1.0;
    v->slow_rank_factor = 1.0;
    v->seed = 1;
    given = 0;
    preset = NULL;
}

int cli_variability_is_option(int ch)
{
    return ch >= CLI_VAR_CV && ch <= CLI_VAR_LAST;
}

int cli_variability_option(const char *cmd, int ch, const char *arg, gcsim_variability *v)
{
    given |= 1u << (ch - CLI_VAR_CV);
    switch (ch) {
    case CLI_VAR_CV:
        if (!cli_parse_double(arg, 0.0, GCSIM_VAR_MAX_CV, &v->cv)) {
            fprintf(stderr, "gcsim %s: --compute-cv: expected a coefficient of variation from 0 "
                            "to %g in plain decimal, got \"%s\"\n", cmd, GCSIM_VAR_MAX_CV, arg);
            return -1;
        }
        return 0;
    case CLI_VAR_DIST:
        if (gcsim_var_family_parse(arg, &v->family)) {
            fprintf(stderr, "gcsim %s: --compute-dist: expected normal, lognormal or pareto, got "
                            "\"%s\"\n", cmd, arg);
            return -1;
        }
        return 0;
    case CLI_VAR_SLOW_FRACTION:
        if (cli_num_option(cmd, "--slow-fraction", arg, 0.0, 1.0,
                           "a fraction from 0 to 1 in plain decimal", &v->slow_fraction))
            return -1;
        return 0;
    case CLI_VAR_SLOW_FACTOR:
        if (!cli_parse_double(arg, 1.0, GCSIM_VAR_MAX_SLOW_FACTOR, &v->slow_factor) ||
            !(v->slow_factor > 1.0)) {
            fprintf(stderr, "gcsim %s: --slow-factor: expected a compute factor above 1 and at "
                            "most %g, got \"%s\"\n", cmd, GCSIM_VAR_MAX_SLOW_FACTOR, arg);
            return -1;
        }
        return 0;
    case CLI_VAR_SLOW_RANK: {
        const char *colon = strchr(arg, ':');
        char rank[32];
        long long r = -1;
        size_t len = colon ? (size_t)(colon - arg) : 0;
        if (!colon || len == 0 || len >= sizeof rank ||
            (memcpy(rank, arg, len), rank[len] = '\0', !cli_parse_int(rank, 0, 1 << 30, &r)) ||
            !cli_parse_double(colon + 1, 1.0, GCSIM_VAR_MAX_SLOW_FACTOR, &v->slow_rank_factor)) {
            fprintf(stderr, "gcsim %s: --slow-rank: expected RANK:FACTOR, a rank from 0 and a "
                            "factor from 1 to %g, e.g. 3:2, got \"%s\"\n", cmd,
                    GCSIM_VAR_MAX_SLOW_FACTOR, arg);
            return -1;
        }
        v->slow_rank = (int)r;
        return 0;
    }
    case CLI_VAR_SEED: {
        long long seed = 0;
        if (cli_int_option(cmd, "--seed", arg, 0, 4294967295LL,
                           "an integer from 0 to 4294967295", &seed))
            return -1;
        v->seed = (unsigned long)seed;
        return 0;
    }
    case CLI_VAR_ITERATIONS: {
        long long k = 0;
        if (!cli_parse_int(arg, 1, GCSIM_VAR_MAX_ITERATIONS, &k)) {
            fprintf(stderr, "gcsim %s: --iterations: expected a count from 1 to %d, got \"%s\"\n",
                    cmd, GCSIM_VAR_MAX_ITERATIONS, arg);
            return -1;
        }
        v->iterations = (int)k;
        return 0;
    }
    case CLI_VAR_PRESET:
        preset = gcsim_var_preset_find(arg);
        if (!preset) {
            fprintf(stderr, "gcsim %s: --variability: expected a preset (%s), got \"%s\"\n", cmd,
                    gcsim_var_preset_names(), arg);
            return -1;
        }
        return 0;
    default:
        return -1;
    }
}

#define GIVEN(ch) (given & (1u << ((ch) - CLI_VAR_CV)))

int cli_variability_finish(const char *cmd, gcsim_variability *v)
{
    if (GIVEN(CLI_VAR_SLOW_FACTOR) && !GIVEN(CLI_VAR_SLOW_FRACTION)) {
        fprintf(stderr, "gcsim %s: --slow-factor needs --slow-fraction (which GPUs are slow)\n", cmd);
        return -1;
    }
    if (GIVEN(CLI_VAR_SLOW_FRACTION) && v->slow_fraction > 0 && !GIVEN(CLI_VAR_SLOW_FACTOR)) {
        fprintf(stderr, "gcsim %s: --slow-fraction needs --slow-factor (how slow they are)\n", cmd);
        return -1;
    }
    if (preset) {
        v->preset = preset;
        if (!GIVEN(CLI_VAR_CV))
            v->cv = preset->cv;
        if (!GIVEN(CLI_VAR_DIST))
            v->family = preset->family;
    }
    v->on = GIVEN(CLI_VAR_CV) || GIVEN(CLI_VAR_SLOW_FRACTION) || GIVEN(CLI_VAR_SLOW_RANK) ||
            preset != NULL;
    if (!v->on && (GIVEN(CLI_VAR_DIST) || GIVEN(CLI_VAR_SEED) || GIVEN(CLI_VAR_ITERATIONS))) {
        fprintf(stderr, "gcsim %s: --%s applies to variable compute: give --compute-cv, "
                        "--variability, --slow-fraction or --slow-rank\n", cmd,
                GIVEN(CLI_VAR_DIST) ? "compute-dist" : GIVEN(CLI_VAR_SEED) ? "seed" : "iterations");
        return -1;
    }
    return 0;
}
