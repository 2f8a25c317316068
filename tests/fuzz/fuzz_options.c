/*
 * tests/fuzz/fuzz_options.c: the parsers behind the command-line option values of the
 * commands that predict (issue 45): the plain decimal numbers every option goes through
 * (gcsim_plain_int, gcsim_plain_double, sim/config/plain_number.h), --sharding
 * (gcsim_sharding_parse) and --act-ckpt (gcsim_act_ckpt_parse).
 *
 * The first byte picks the parser (and, for numbers, the range); the rest is the value.
 * Contract checked:
 *   - numbers: accepted only in plain decimal (an optional '-', then a digit, or for reals a
 *     point; then only digits, a point, e, E, + and -), inside [min, max], finite, and equal
 *     to what strtoll / strtod read; an integer prints back ("%lld") to a value that parses
 *     to itself;
 *   - --sharding: a failure gives a non-empty message; a success has a group of 0 or 2 to
 *     2^20 only under hsdp, ZeRO++ options only under zero3, and its canonical spelling
 *     (gcsim_sharding_format) parses back to the same settings;
 *   - --act-ckpt: a failure gives a non-empty message; a success has every:N in [1, 2^20]
 *     and fraction:P in (0, 1], and its spelling (gcsim_act_ckpt_format) parses back to it.
 *   - nothing accepted holds a space, a '+' before a digit of a count, or "0x".
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "act_ckpt.h"
#include "fuzz_target.h"
#include "plain_number.h"
#include "sharding.h"

static bool plain_chars(const char *t, bool real)
{
    const char *p = t[0] == '-' ? t + 1 : t;
    if (!((*p >= '0' && *p <= '9') || (real && *p == '.')))
        return false;
    for (; *p; p++)
        if (!strchr(real ? "0123456789.eE+-" : "0123456789", *p))
            return false;
    return true;
}

static void check_int(const char *text, long long min, long long max)
{
    long long v = 12345;
    if (!gcsim_plain_int(text, min, max, &v)) {
        FUZZ_REQUIRE(v == 12345, "a refused \"%s\" wrote %lld", text, v);
        return;
    }
    FUZZ_REQUIRE(plain_chars(text, false), "\"%s\" accepted as an integer", text);
    FUZZ_REQUIRE(v >= min && v <= max, "\"%s\" gave %lld outside [%lld, %lld]", text, v, min,
                 max);
    errno = 0;
    FUZZ_REQUIRE(strtoll(text, NULL, 10) == v && errno == 0, "\"%s\" read as %lld", text, v);
    char again[32];
    long long w = 0;
    snprintf(again, sizeof again, "%lld", v);
    FUZZ_REQUIRE(gcsim_plain_int(again, min, max, &w) && w == v, "%lld does not parse back", v);
}

static void check_double(const char *text, double min, double max)
{
    double v = 0.25;
    if (!gcsim_plain_double(text, min, max, &v)) {
        FUZZ_REQUIRE(v == 0.25, "a refused \"%s\" wrote %.17g", text, v);
        return;
    }
    FUZZ_REQUIRE(plain_chars(text, true), "\"%s\" accepted as a number", text);
    FUZZ_REQUIRE(isfinite(v) && v >= min && v <= max, "\"%s\" gave %.17g outside [%g, %g]",
                 text, v, min, max);
    FUZZ_REQUIRE(strtod(text, NULL) == v, "\"%s\" read as %.17g", text, v);
}

static void check_sharding(const char *text)
{
    gcsim_sharding s, t;
    char why[160], name[64], why2[160];
    why[0] = '\0';
    if (gcsim_sharding_parse(text, &s, why, sizeof why)) {
        fuzz_check_message(why, sizeof why, NULL);
        return;
    }
    FUZZ_REQUIRE(!strchr(text, ' ') && !strstr(text, "0x") && !strstr(text, ":+"),
                 "--sharding \"%s\" accepted", text);
    FUZZ_REQUIRE(s.group == 0 || (s.strategy == GCSIM_SHARD_HSDP && s.group >= 2 &&
                                  s.group <= 1 << 20),
                 "\"%s\": group %d", text, s.group);
    FUZZ_REQUIRE(!(s.qwz || s.hpz || s.qgz) || s.strategy == GCSIM_SHARD_ZERO3,
                 "\"%s\": ZeRO++ options off zero3", text);
    gcsim_sharding_format(&s, name, sizeof name);
    FUZZ_REQUIRE(gcsim_sharding_parse(name, &t, why2, sizeof why2) == 0, "\"%s\" (from \"%s\")"
                 " does not parse back: %s", name, text, why2);
    FUZZ_REQUIRE(t.strategy == s.strategy && t.group == s.group && t.qwz == s.qwz &&
                     t.hpz == s.hpz && t.qgz == s.qgz,
                 "\"%s\" (from \"%s\") parses back to other settings", name, text);
}

static void check_act_ckpt(const char *text)
{
    gcsim_act_ckpt c, d;
    char why[160], name[64], why2[160];
    why[0] = '\0';
    if (gcsim_act_ckpt_parse(text, &c, why, sizeof why)) {
        fuzz_check_message(why, sizeof why, NULL);
        return;
    }
    FUZZ_REQUIRE(!strchr(text, ' ') && !strstr(text, "0x") && !strstr(text, ":+"),
                 "--act-ckpt=\"%s\" accepted", text);
    if (c.mode == GCSIM_CKPT_EVERY)
        FUZZ_REQUIRE(c.every >= 1 && c.every <= GCSIM_ACT_CKPT_MAX_EVERY, "every:%d", c.every);
    if (c.mode == GCSIM_CKPT_FRACTION)
        FUZZ_REQUIRE(c.fraction > 0 && c.fraction <= 1, "fraction:%.17g", c.fraction);
    gcsim_act_ckpt_format(&c, name, sizeof name);
    FUZZ_REQUIRE(gcsim_act_ckpt_parse(name, &d, why2, sizeof why2) == 0,
                 "\"%s\" (from \"%s\") does not parse back: %s", name, text, why2);
    FUZZ_REQUIRE(d.mode == c.mode && d.every == c.every && d.fraction == c.fraction,
                 "\"%s\" (from \"%s\") parses back to another policy", name, text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    char *text = fuzz_cstring(data + 1, size - 1);
    switch (data[0] % 6) {
    case 0: check_int(text, 1, 1 << 24); break;           /* --gpus, --batch */
    case 1: check_int(text, -1, 9223372036854775807LL); break; /* --des-max-messages */
    case 2: check_double(text, 0.0, 1.0); break;          /* --mfu */
    case 3: check_double(text, -1e300, 1e300); break;
    case 4: check_sharding(text); break;
    default: check_act_ckpt(text); break;
    }
    free(text);
    return 0;
}
