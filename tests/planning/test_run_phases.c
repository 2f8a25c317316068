/* The phases of a 1-bit Adam / 0/1 Adam run (sim/planning/run_phases.c, issue 43): the step
 * counts against values worked out by hand and against a step-by-step replay of DeepSpeed's
 * zoadam.py counters (var_interval / var_counter, local_step_interval / local_step_counter),
 * the end-to-end sum, and the option parser's refusals.
 *
 * Hand count, 0/1 Adam var_freeze 12500 (scaler 16), local_step_scaler 32678, clipper 16,
 * 152000 steps: the variance phase is steps 1..12501; full steps at interval 1, 2, ..., 256
 * (16 each, ending at step 16 x 511 = 8176) = 144, then multiples of 512 in (8176, 12501]:
 * 24 - 15 = 9; 153 full, 12348 1-bit. Local phase (12501, 152000]: every step of the first
 * 32678 syncs (32678); then multiples of 2 in (45179, 77857]: 16339; of 4 in
 * (77857, 110535]: 8169; of 8 in (110535, 143213]: 4085; of 16 in (143213, 152000]: 550;
 * 61821 syncs, 77678 local. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "run_phases.h"

/* zoadam.py's step(), one step at a time, counting what each step communicates. */
static void replay(const run_phased_spec *s, long long total, run_phase_counts *n)
{
    *n = (run_phase_counts){0, 0, 0};
    long long var_interval = 1, var_counter = 0, local_interval = 1, local_counter = 0;
    int frozen = 0;
    for (long long step = 1; step <= total; step++) {
        if (!frozen) {
            if (step % var_interval == 0) {
                n->full++;
                if (++var_counter == s->var_update_scaler) {
                    var_counter = 0;
                    var_interval *= 2;
                }
            } else {
                n->onebit++;
            }
            if (step > s->var_freeze_step)
                frozen = 1;
        } else {
            if (step % local_interval == 0)
                n->onebit++;
            else
                n->local++;
            if (++local_counter == s->local_step_scaler) {
                local_counter = 0;
                local_interval = local_interval * 2 < s->local_step_clipper
                                     ? local_interval * 2 : s->local_step_clipper;
            }
        }
    }
}

int main(void)
{
    char why[200];
    run_phased_spec s;
    run_phase_counts n;

    /* 1-bit Adam: freeze_step uncompressed steps, then 1-bit (the tutorial's 23000) */
    CHECK(run_phased_parse("onebit-adam:freeze=23000", &s, why, sizeof why) == 0);
    CHECK(s.kind == RUN_PHASED_ONEBIT_ADAM && s.freeze_step == 23000);
    run_phases_count(&s, 152000, &n);
    CHECK(n.full == 23000 && n.onebit == 129000 && n.local == 0);
    run_phases_count(&s, 1000, &n); /* a run shorter than the warm-up: all full */
    CHECK(n.full == 1000 && n.onebit == 0 && n.local == 0);
    CHECK(run_phased_parse("onebit-adam", &s, why, sizeof why) == 0 && s.freeze_step == 100000);

    /* 0/1 Adam: the hand count above */
    CHECK(run_phased_parse("zero-one-adam:var_freeze=12500", &s, why, sizeof why) == 0);
    CHECK(s.var_update_scaler == 16 && s.local_step_scaler == 32678 && s.local_step_clipper == 16);
    run_phases_count(&s, 152000, &n);
    CHECK(n.full == 153 && n.onebit == 12348 + 61821 && n.local == 77678);

    /* against the replay, over settings that cross every branch */
    static const long long cases[][5] = {
        /* var_freeze, var_update_scaler, local_step_scaler, local_step_clipper, total */
        {1000, 16, 1000, 16, 200000}, {0, 16, 10, 4, 1000},     {10, 1, 1, 1, 500},
        {100, 3, 7, 5, 5000},         {5000, 16, 32678, 16, 3000}, {37, 2, 3, 1024, 100000},
        {1, 1, 1, 2, 2},              {99, 16, 5, 16, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_phased_spec z = {RUN_PHASED_ZERO_ONE_ADAM, 0, cases[i][0], cases[i][1], cases[i][2],
                             cases[i][3]};
        run_phase_counts a, b;
        run_phases_count(&z, cases[i][4], &a);
        replay(&z, cases[i][4], &b);
        if (a.full != b.full || a.onebit != b.onebit || a.local != b.local)
            fprintf(stderr, "case %zu: %lld/%lld/%lld, replay %lld/%lld/%lld\n", i, a.full,
                    a.onebit, a.local, b.full, b.onebit, b.local);
        CHECK(a.full == b.full && a.onebit == b.onebit && a.local == b.local);
        CHECK(a.full + a.onebit + a.local == cases[i][4]);
    }

    /* end-to-end: 23000 x 0.7 + 129000 x 0.2 + 0 = 16100 + 25800 = 41900 s */
    run_phase_counts c1 = {23000, 129000, 0};
    run_phase_step_s t1 = {.full_s = 0.7, .onebit_s = 0.2, .local_s = 0.1};
    CHECK_REL(run_phases_total_s(&c1, &t1), 41900.0, 1e-12);
    /* 153 x 0.7 + 74169 x 0.2 + 77678 x 0.1 = 107.1 + 14833.8 + 7767.8 = 22708.7 s */
    run_phase_counts c2 = {153, 74169, 77678};
    CHECK_REL(run_phases_total_s(&c2, &t1), 22708.7, 1e-12);

    /* refusals: a plain optimizer is not a run of phases; bad keys and values say why */
    CHECK(run_phased_parse("adam", &s, why, sizeof why) == 1);
    CHECK(run_phased_parse("onebit-adamx", &s, why, sizeof why) == 1);
    CHECK(run_phased_parse("onebit-adam:freeze=-1", &s, why, sizeof why) == -1);
    CHECK(strstr(why, "freeze=\"-1\": expected a whole number") != NULL);
    CHECK(run_phased_parse("onebit-adam:freeze=1e4", &s, why, sizeof why) == -1);
    CHECK(run_phased_parse("onebit-adam:var_freeze=10", &s, why, sizeof why) == -1);
    CHECK(strstr(why, "unknown key \"var_freeze\" (onebit-adam takes freeze)") != NULL);
    CHECK(run_phased_parse("zero-one-adam:local_step_clipper=0", &s, why, sizeof why) == -1);
    CHECK(run_phased_parse("zero-one-adam:var_update_scaler", &s, why, sizeof why) == -1);
    CHECK(strstr(why, "expected KEY=VALUE") != NULL);
    CHECK(run_phased_parse("onebit-adam:", &s, why, sizeof why) == -1);
    CHECK(run_phased_parse("onebit-adam:freeze=5,", &s, why, sizeof why) == -1);
    return check_failures ? 1 : 0;
}
