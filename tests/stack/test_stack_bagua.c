/*
 * tests/stack/test_stack_bagua.c: the bagua stack (platforms/stacks/bagua.json) and its
 * "compressed_allreduce" key (sim/stack/stack_leader.c): quantized payloads' all-reduces
 * run Bagua's leader schedule unless a collective is named; other payloads, all-gathers
 * and named collectives keep theirs; "payloads" widens it (BytePS's byteps-ps for its
 * uncompressed partitions too); bad values of the key are refused with the file and
 * JSON path. Argument: the source tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "platform.h"
#include "stack.h"
#include "stack_leader.h"

static const char *const minimal =
    "{\"schema\": \"gcsim-stack/1\", \"name\": \"m\", \"description\": \"d\", \"source\": \"s\","
    " \"codec\": \"model\", \"granularity\": {\"unit\": \"bucket\", \"bucket_bytes\": \"10MiB\","
    " \"source\": \"s\"}%s}";

static void expect_bad(const char *member, const char *message)
{
    char json[1024];
    snprintf(json, sizeof json, minimal, member);
    gcsim_stack *s = malloc(sizeof *s);
    gcsim_error err;
    CHECK(gcsim_stack_parse(json, "bad.json", s, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "bad.json: ");
    CHECK_STR_CONTAINS(err.message, message);
    free(s);
}

static void refusals(void)
{
    char json[1024];
    gcsim_stack *s = malloc(sizeof *s);
    gcsim_error err;
    snprintf(json, sizeof json, minimal, "");
    CHECK(gcsim_stack_parse(json, "ok.json", s, &err) == 0 && !s->has_compressed_allreduce);
    snprintf(json, sizeof json, minimal,
             ", \"compressed_allreduce\": {\"schedule\": \"bagua-leader\", \"source\": \"x\"}");
    CHECK(gcsim_stack_parse(json, "ok.json", s, &err) == 0 && s->has_compressed_allreduce &&
          s->compressed_allreduce == COLLECTIVE_BAGUA_LEADER);
    free(s);
    expect_bad(", \"compressed_allreduce\": {\"schedule\": \"ring\", \"source\": \"x\"}",
               "$.compressed_allreduce.schedule");
    expect_bad(", \"compressed_allreduce\": {\"schedule\": \"bagua-leader\"}",
               "$.compressed_allreduce.source");
    expect_bad(", \"compressed_allreduce\": {\"schedule\": \"bagua-leader\", \"source\": \"\"}",
               "$.compressed_allreduce.source: must say where");
    expect_bad(", \"compressed_allreduce\": {\"schedule\": \"bagua-leader\", \"source\": \"x\","
               " \"hops\": 2}",
               "hops");
    expect_bad(", \"compressed_allreduce\": \"bagua-leader\"", "$.compressed_allreduce");
    expect_bad(", \"compressed_allreduce\": {\"schedule\": 3, \"source\": \"x\"}",
               "$.compressed_allreduce.schedule");
    /* "payloads": which kinds run it (default: quantized only) */
    s = malloc(sizeof *s);
    snprintf(json, sizeof json, minimal,
             ", \"compressed_allreduce\": {\"schedule\": \"byteps-ps\", \"payloads\":"
             " [\"summable\", \"quantized\"], \"source\": \"x\"}");
    CHECK(gcsim_stack_parse(json, "ok.json", s, &err) == 0 &&
          s->compressed_allreduce == COLLECTIVE_BYTEPS_PS &&
          s->compressed_allreduce_kinds ==
              ((1u << STACK_PAYLOAD_SUMMABLE) | (1u << STACK_PAYLOAD_QUANTIZED)));
    free(s);
    expect_bad(", \"compressed_allreduce\": {\"schedule\": \"byteps-ps\", \"payloads\": [],"
               " \"source\": \"x\"}",
               "$.compressed_allreduce.payloads: expected a non-empty array");
    expect_bad(", \"compressed_allreduce\": {\"schedule\": \"byteps-ps\", \"payloads\":"
               " [\"quantized\", \"dense\"], \"source\": \"x\"}",
               "$.compressed_allreduce.payloads[1]");
    expect_bad(", \"compressed_allreduce\": {\"schedule\": \"byteps-ps\", \"payloads\":"
               " [\"sparse\", \"sparse\"], \"source\": \"x\"}",
               "$.compressed_allreduce.payloads[1]");
    expect_bad(", \"compressed_allreduce\": {\"schedule\": \"byteps-ps\", \"payloads\":"
               " \"summable\", \"source\": \"x\"}",
               "$.compressed_allreduce.payloads");
}

/* BytePS: its uncompressed partitions go through the servers too (byteps.json lists
 * summable payloads), quantized ones as before; a sparse one does not. */
static void byteps_choice(const char *src)
{
    char path[1024];
    gcsim_error err;
    gcsim_platform p;
    gcsim_stack *st = malloc(sizeof *st);
    gcsim_stack_setup *ss = malloc(sizeof *ss);
    snprintf(path, sizeof path, "%s/platforms/cloud-v100-25gbe.json", src);
    CHECK(gcsim_platform_load(path, &p, &err) == 0);
    snprintf(path, sizeof path, "%s/platforms/stacks/byteps.json", src);
    CHECK(gcsim_stack_load(path, st, &err) == 0);
    CHECK(gcsim_stack_setup_init(ss, &p, st, "none", GCSIM_EXCHANGE_AUTO, NULL, &err) == 0);
    CHECK(ss->cs.exchange.collective == COLLECTIVE_BYTEPS_PS);
    CHECK(gcsim_stack_setup_init(ss, &p, st, "onebit", GCSIM_EXCHANGE_ALLREDUCE, NULL, &err) == 0);
    CHECK(ss->cs.exchange.collective == COLLECTIVE_BYTEPS_PS);
    gcsim_collective c, ring = COLLECTIVE_RING;
    CHECK(stack_leader_collective(st, "none", false, &c) && c == COLLECTIVE_BYTEPS_PS);
    CHECK(!stack_leader_collective(st, "topk:ratio=0.01", false, &c));
    CHECK(gcsim_stack_setup_init(ss, &p, st, "none", GCSIM_EXCHANGE_AUTO, &ring, &err) == 0);
    CHECK(ss->cs.exchange.collective == COLLECTIVE_RING);
    free(ss);
    free(st);
}

static void setup_choice(const char *src)
{
    char path[1024];
    gcsim_error err;
    gcsim_platform p;
    gcsim_stack *st = malloc(sizeof *st);
    snprintf(path, sizeof path, "%s/tests/validation/platforms/bagua-v100-10g-tcp.json", src);
    CHECK(gcsim_platform_load(path, &p, &err) == 0);
    snprintf(path, sizeof path, "%s/platforms/stacks/bagua.json", src);
    CHECK(gcsim_stack_load(path, st, &err) == 0);
    CHECK(st->has_compressed_allreduce && st->compressed_allreduce == COLLECTIVE_BAGUA_LEADER);
    CHECK(st->codec_model && st->bucket_bytes == 10.0 * 1024 * 1024);

    gcsim_stack_setup *ss = malloc(sizeof *ss);
    const char *q8 = "qsgd:s=127,bucket=0,norm=linf";
    /* ByteGrad's 8-bit and QAdam's 1-bit payloads: the leader schedule, asked or by default */
    CHECK(gcsim_stack_setup_init(ss, &p, st, q8, GCSIM_EXCHANGE_ALLREDUCE, NULL, &err) == 0);
    CHECK(ss->cs.exchange.exchange == GCSIM_EXCHANGE_ALLREDUCE &&
          ss->cs.exchange.collective == COLLECTIVE_BAGUA_LEADER);
    CHECK_STR_CONTAINS(ss->cs.exchange.why, "stack bagua runs it as bagua-leader");
    CHECK(gcsim_stack_setup_init(ss, &p, st, "onebit", GCSIM_EXCHANGE_AUTO, NULL, &err) == 0);
    CHECK(ss->cs.exchange.exchange == GCSIM_EXCHANGE_ALLREDUCE &&
          ss->cs.exchange.collective == COLLECTIVE_BAGUA_LEADER);
    /* uncompressed (GradientAllReduce, flat) and a sparse payload: not the leader schedule */
    CHECK(gcsim_stack_setup_init(ss, &p, st, "none", GCSIM_EXCHANGE_AUTO, NULL, &err) == 0);
    CHECK(ss->cs.exchange.collective != COLLECTIVE_BAGUA_LEADER);
    CHECK(gcsim_stack_setup_init(ss, &p, st, "topk:ratio=0.01", GCSIM_EXCHANGE_ALLREDUCE, NULL,
                                 &err) == 0);
    CHECK(ss->cs.exchange.collective != COLLECTIVE_BAGUA_LEADER);
    /* a named collective or another exchange is kept */
    gcsim_collective ring = COLLECTIVE_RING;
    CHECK(gcsim_stack_setup_init(ss, &p, st, q8, GCSIM_EXCHANGE_ALLREDUCE, &ring, &err) == 0);
    CHECK(ss->cs.exchange.collective == COLLECTIVE_RING);
    CHECK(gcsim_stack_setup_init(ss, &p, st, q8, GCSIM_EXCHANGE_ALLGATHER, NULL, &err) == 0);
    CHECK(ss->cs.exchange.exchange == GCSIM_EXCHANGE_ALLGATHER &&
          ss->cs.exchange.collective == COLLECTIVE_ALLGATHER);
    /* the helper on its own: only quantized payloads, only when nothing is named */
    gcsim_collective c;
    CHECK(stack_leader_collective(st, q8, false, &c) && c == COLLECTIVE_BAGUA_LEADER);
    CHECK(!stack_leader_collective(st, q8, true, &c));
    CHECK(!stack_leader_collective(st, "fp16", false, &c));
    free(ss);
    free(st);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_stack_bagua SOURCE_DIR\n");
        return 2;
    }
    refusals();
    setup_choice(argv[1]);
    byteps_choice(argv[1]);
    CHECK_DONE();
}
