/*
 * tests/stack/test_stack_cpu_codec.c: a stack's host-CPU codec ("cpu_codec",
 * sim/stack/stack_cpu_codec.c) with a thread pool: a pass the code leaves serial (onebit's
 * scale in BytePS) streams at min(DRAM, threads x one thread's rate), the other passes at
 * the DRAM's; values by hand, the shipped byteps.json's onebit by hand, and the refusals.
 * Argument: the source tree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stack.h"
#include "stack_cpu_codec.h"

static const char *const frame =
    "{\"schema\": \"gcsim-stack/1\", \"name\": \"c\", \"description\": \"d\", \"source\": \"s\","
    " \"codec\": \"model\", \"granularity\": {\"unit\": \"bucket\", \"bucket_bytes\": \"4MB\","
    " \"source\": \"s\"}, \"cpu_codec\": {\"dram_bandwidth\": \"100GBps\", \"source\": \"s\"%s,"
    " \"compressors\": {\"onebit\": {\"encode_bytes_per_element\": 40,"
    " \"decode_bytes_per_element\": 4%s, \"source\": \"s\"}}}}";

static int parse(const char *pool, const char *serial, gcsim_stack *s, gcsim_error *err)
{
    char json[2048];
    snprintf(json, sizeof json, frame, pool, serial);
    return gcsim_stack_parse(json, "cpu.json", s, err);
}

/* encode and decode seconds per element of onebit under s */
static void priced(const gcsim_stack *s, double *enc, double *dec)
{
    gcsim_codec codec;
    gcsim_error err;
    memset(&codec, 0, sizeof codec);
    codec.source = CODEC_COST_MODEL;
    CHECK(stack_cpu_codec_apply(s, "onebit", &codec, &err) == 0);
    CHECK(codec.on_host && codec.n_points == 1 && codec.elements[0] == 1);
    *enc = codec.encode_s[0];
    *dec = codec.decode_s[0];
}

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * want)) {
        fprintf(stderr, "got %.17g, want %.17g\n", got, want);
        CHECK(0);
    }
}

static void by_hand(void)
{
    gcsim_stack *s = malloc(sizeof *s);
    gcsim_error err;
    double enc, dec;
    /* no pool: every byte at the DRAM's 100 GB/s: 40 B -> 0.4 ns, 4 B -> 0.04 ns */
    CHECK(parse("", "", s, &err) == 0 && s->cpu_threads == 0);
    priced(s, &enc, &dec);
    near(enc, 40 / 100e9);
    near(dec, 4 / 100e9);
    /* 2 threads at 10 GB/s, 4 of the encode's 40 B serial: 36 / 100e9 + 4 / 20e9 = 0.56 ns
     * (the serial pass alone takes 5x its DRAM-peak time); the decode has none */
    CHECK(parse(", \"threads\": 2, \"thread_bandwidth\": \"10GBps\", \"threads_source\": \"t\"",
                ", \"serial_encode_bytes_per_element\": 4", s, &err) == 0);
    CHECK(s->cpu_threads == 2 && s->cpu_thread_Bps == 10e9);
    priced(s, &enc, &dec);
    near(enc, 36 / 100e9 + 4 / 20e9);
    near(dec, 4 / 100e9);
    /* a serial decode pass too: 3 of 4 B at 20 GB/s, 1 at 100 */
    CHECK(parse(", \"threads\": 2, \"thread_bandwidth\": \"10GBps\", \"threads_source\": \"t\"",
                ", \"serial_decode_bytes_per_element\": 3", s, &err) == 0);
    priced(s, &enc, &dec);
    near(enc, 40 / 100e9);
    near(dec, 1 / 100e9 + 3 / 20e9);
    /* 20 threads x 10 GB/s exceed the DRAM: the serial bytes go at the DRAM's 100 GB/s */
    CHECK(parse(", \"threads\": 20, \"thread_bandwidth\": \"10GBps\", \"threads_source\": \"t\"",
                ", \"serial_encode_bytes_per_element\": 4", s, &err) == 0);
    priced(s, &enc, &dec);
    near(enc, 40 / 100e9);
    free(s);
}

/* The shipped BytePS stack: onebit's encode 40.125 B per element, 4 of them (the scale's
 * serial L1 pass) by one of 16 pool threads (BYTEPS_THREADPOOL_SIZE=16 in the published
 * runs' scripts) at 11.1 GB/s: 16 x 11.1 = 177.6 GB/s is above the DRAM's 153.6, so the
 * serial pass streams at the DRAM's rate too: 40.125 / 153.6e9 = 0.26123046875 ns; decode
 * 4.125 / 153.6e9. */
static void shipped(const char *src)
{
    char path[1024];
    gcsim_error err;
    gcsim_stack *s = malloc(sizeof *s);
    double enc, dec;
    snprintf(path, sizeof path, "%s/platforms/stacks/byteps.json", src);
    CHECK(gcsim_stack_load(path, s, &err) == 0);
    CHECK(s->cpu_codec && s->cpu_threads == 16);
    priced(s, &enc, &dec);
    near(enc, 40.125 / 153.6e9);
    near(enc, 0.26123046875e-9); /* by hand: 40.125 / 153.6 */
    near(dec, 4.125 / 153.6e9);
    free(s);
}

static void expect_bad(const char *pool, const char *serial, const char *message)
{
    gcsim_stack *s = malloc(sizeof *s);
    gcsim_error err;
    CHECK(parse(pool, serial, s, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "cpu.json: ");
    CHECK_STR_CONTAINS(err.message, message);
    free(s);
}

static void refusals(void)
{
    const char *pool = ", \"threads\": 4, \"thread_bandwidth\": \"10GBps\", \"threads_source\": \"t\"";
    expect_bad("", ", \"serial_encode_bytes_per_element\": 4",
               "$.cpu_codec.compressors.onebit: serial bytes need $.cpu_codec.threads");
    expect_bad(pool, ", \"serial_encode_bytes_per_element\": 41",
               "$.cpu_codec.compressors.onebit: serial_encode_bytes_per_element and");
    expect_bad(pool, ", \"serial_decode_bytes_per_element\": 5", "at most those");
    expect_bad(", \"threads\": 4", "", "$.cpu_codec: threads, thread_bandwidth");
    expect_bad(", \"threads\": 4, \"thread_bandwidth\": \"10GBps\"", "", "threads_source");
    expect_bad(", \"threads\": 0, \"thread_bandwidth\": \"10GBps\", \"threads_source\": \"t\"", "",
               "$.cpu_codec.threads");
    expect_bad(pool, ", \"serial_encode_bytes_per_element\": -1",
               "serial_encode_bytes_per_element");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_stack_cpu_codec SOURCE_DIR\n");
        return 2;
    }
    by_hand();
    shipped(argv[1]);
    refusals();
    CHECK_DONE();
}
