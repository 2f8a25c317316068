/*
 * The planning library (sim/planning) called directly, without the gcsim binary: the
 * size of a sweep's cross product and how shards partition it, the default GPU counts,
 * the input cache (stacks included), a sweep's cases run whole and in shards (sweep_run),
 * the same case under two stacks (two ids, each stack's own number), what the plan search
 * keeps, the merge of shard rows (order restored; duplicates, gaps and mismatched headers
 * refused) and a baseline load / rewrite / load round trip, with its "stack" pinned.
 * Usage: test_planning_lib SOURCE_DIR WORK_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "planning.h"

static const char *work_dir;

static char *work_path(const char *name)
{
    static char paths[32][4096];
    static int next;
    char *p = paths[next++ % 32];
    snprintf(p, 4096, "%s/%s", work_dir, name);
    return p;
}

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 16);
    if (buf)
        buf[fread(buf, 1, (1 << 16) - 1, f)] = '\0';
    fclose(f);
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(3);
    }
    fputs(text, f);
    fclose(f);
}

/* 2 platforms (3 and 2 GPU counts) x 1 model x 2 compressors x 1 stack x 1 collective x
 * 1 scaling x 2 batches x 1 engine: (3 + 2) x 2 x 2 = 20 cases; 3 stacks triple them. */
static void test_space_and_shards(void)
{
    sweep_space s = {0};
    CHECK(sweep_space_alloc(&s, 2, 1, 2, 1, 1, 1, 2, 2, 8) == 0);
    s.engines[s.n_engines++] = ENGINE_ANALYTIC;
    s.n_gpus[0] = 3;
    s.n_gpus[1] = 2;
    CHECK(sweep_space_count(&s) == 20);
    s.engines[s.n_engines++] = ENGINE_DES; /* "both": twice the cases */
    CHECK(sweep_space_count(&s) == 40);
    sweep_space_free(&s);
    sweep_space three = {0};
    CHECK(sweep_space_alloc(&three, 2, 1, 2, 3, 1, 1, 2, 1, 8) == 0);
    three.engines[three.n_engines++] = ENGINE_ANALYTIC;
    three.n_gpus[0] = 3;
    three.n_gpus[1] = 2;
    CHECK(sweep_space_count(&three) == 60);
    sweep_space_free(&three);

    /* Every case in exactly one shard, shard sizes as announced and summing to the total,
     * and shard sizes differing by at most one. */
    const long long totals[] = {0, 1, 4, 20, 23};
    for (int t = 0; t < 5; t++)
        for (int n = 1; n <= 5; n++) {
            long long sum = 0, smallest = totals[t], largest = 0;
            for (int k = 1; k <= n; k++) {
                long long size = sweep_shard_size(totals[t], k, n), held = 0;
                for (long long i = 0; i < totals[t]; i++)
                    held += sweep_shard_has(i, k, n);
                CHECK(held == size);
                sum += size;
                smallest = size < smallest ? size : smallest;
                largest = size > largest ? size : largest;
            }
            CHECK(sum == totals[t]);
            CHECK(largest - smallest <= 1);
            for (long long i = 0; i < totals[t]; i++) {
                int owners = 0;
                for (int k = 1; k <= n; k++)
                    owners += sweep_shard_has(i, k, n);
                CHECK(owners == 1);
            }
        }
    /* Unsharded: every case. Shard 2/3 of 7 cases: 1 and 4 (0-based). */
    CHECK(sweep_shard_size(7, 0, 0) == 7 && sweep_shard_has(5, 0, 0));
    CHECK(sweep_shard_size(7, 2, 3) == 2);
    CHECK(sweep_shard_has(1, 2, 3) && sweep_shard_has(4, 2, 3) && !sweep_shard_has(2, 2, 3));

    int counts[16];
    CHECK(sweep_default_gpus(12, counts, 16) == 5);
    CHECK(counts[0] == 1 && counts[3] == 8 && counts[4] == 12);
    CHECK(sweep_default_gpus(16, counts, 16) == 5 && counts[4] == 16); /* no repeat */
    CHECK(sweep_default_gpus(1, counts, 16) == 1 && counts[0] == 1);
    CHECK(sweep_default_gpus(1 << 20, counts, 4) == 4 && counts[3] == 8); /* capped */
}

static void test_cache(const char *src)
{
    char platform[4096];
    snprintf(platform, sizeof platform, "%s/platforms/a100-hdr.json", src);
    sweep_cache *c = sweep_cache_new(NULL);
    CHECK(c != NULL);
    gcsim_error err;
    const gcsim_platform *a = sweep_cache_platform(c, platform, &err);
    const gcsim_platform *b = sweep_cache_platform(c, platform, &err);
    CHECK(a != NULL && a == b); /* read once */
    /* A stack is read once per name; a name that is neither in the catalog nor a file is
     * refused, naming it and the catalog's stacks. */
    const gcsim_stack *ddp = sweep_cache_stack(c, "pytorch-ddp", &err);
    CHECK(ddp != NULL && ddp == sweep_cache_stack(c, "pytorch-ddp", &err));
    CHECK(ddp && strcmp(ddp->name, "pytorch-ddp") == 0);
    const gcsim_stack *fused = sweep_cache_stack(c, "fused", &err);
    CHECK(fused != NULL && fused != ddp && fused->codec_model);
    CHECK(sweep_cache_stack(c, "no-such-stack", &err) == NULL);
    CHECK_STR_CONTAINS(err.message, "stack \"no-such-stack\": no such stack in the catalog");
    CHECK_STR_CONTAINS(err.message, "pytorch-ddp");
    /* Plain-file loaders have no embedded default. */
    CHECK(sweep_cache_platform(c, NULL, &err) == NULL);
    CHECK_STR_CONTAINS(err.message, "no platform file named");
    CHECK(sweep_cache_model(c, work_path("missing-model.json"), &err) == NULL);
    CHECK_STR_CONTAINS(err.message, "missing-model.json");
    sweep_cache_free(c);
}

/* What the sweep_run callback saw, by case index. */
enum { RUN_MAX = 64 };
typedef struct {
    int seen[RUN_MAX];
    long long order[RUN_MAX], n, total, stop_after;
    int gpus[RUN_MAX], rc[RUN_MAX], has_one[RUN_MAX];
    double tput[RUN_MAX], one_tput[RUN_MAX];
    const gcsim_stack *stack[RUN_MAX], *ran_under[RUN_MAX];
    char id[RUN_MAX][17];
} run_log;

static int log_case(void *ctx, const sweep_outcome *oc)
{
    run_log *l = ctx;
    CHECK(oc->index >= 0 && oc->index < RUN_MAX);
    if (oc->index < 0 || oc->index >= RUN_MAX)
        return -1;
    long long i = oc->index;
    l->seen[i]++;
    l->order[l->n++] = i;
    l->total = oc->total;
    l->gpus[i] = oc->c->gpus;
    l->stack[i] = oc->c->stack;
    l->ran_under[i] = oc->rc ? NULL : oc->r->stack;
    sweep_case_id(oc->c, l->id[i]);
    l->rc[i] = oc->rc;
    if (oc->rc)
        CHECK(oc->err->message[0] != '\0');
    l->tput[i] = oc->rc ? 0.0 : oc->r->p.throughput_samples_per_s;
    l->has_one[i] = oc->has_one_gpu;
    l->one_tput[i] = oc->one_gpu_samples_per_s;
    return l->stop_after && l->n == l->stop_after;
}

/* 2 platforms x 1 model x 2 compressors x 2 collectives, GPU counts 1, 2, 4 and 1024 (more
 * than either platform's 512: cannot run): 32 cases. Run whole, then in every split into
 * N = 1..5 shards: each case once, in order, with the same result as in the whole run. */
static void test_sweep_run(const char *src)
{
    char pa[4096], pb[4096], model[4096];
    snprintf(pa, sizeof pa, "%s/platforms/a100-hdr.json", src);
    snprintf(pb, sizeof pb, "%s/platforms/cloud-v100-25gbe.json", src);
    snprintf(model, sizeof model, "%s/models/resnet-50.json", src);
    const char *platforms[] = {pa, pb}, *models[] = {model}, *compressors[] = {"none", "fp16"};
    sweep_inputs in = {.n_platforms = 2, .platforms = platforms, .n_models = 1,
                       .models = models, .n_compressors = 2, .compressors = compressors,
                       .n_collectives = 2, .max_engines = 1, .max_gpu_counts = 8};
    sweep_cache *cache = sweep_cache_new(NULL);
    sweep_space s = {0};
    gcsim_error err;
    CHECK(cache && sweep_space_load(&s, &in, cache, &err) == 0);
    if (!cache || !s.plans || !s.plans[1]) {
        sweep_space_free(&s);
        sweep_cache_free(cache);
        return;
    }
    CHECK(s.collectives[0] == COLLECTIVE_RING && s.scalings[0] == SCALING_WEAK);
    CHECK(s.n_batches == 1 && s.batches[0] == 0); /* the model's */
    /* No stacks named: each platform's choice, the default one for both of these. */
    CHECK(s.n_stacks == 1 && s.stacks[0] && s.stacks[1]);
    if (s.stacks[0] && s.stacks[1])
        CHECK(strcmp(s.stacks[0]->name, GCSIM_DEFAULT_STACK) == 0 &&
              strcmp(s.stacks[1]->name, GCSIM_DEFAULT_STACK) == 0);
    s.collectives[1] = COLLECTIVE_TREE;
    s.engines[s.n_engines++] = ENGINE_ANALYTIC;
    const int counts[] = {1, 2, 4, 1024};
    for (int p = 0; p < 2; p++) {
        memcpy(s.gpus[p], counts, sizeof counts);
        s.n_gpus[p] = 4;
    }
    const long long total = 32;
    CHECK(sweep_space_count(&s) == total);

    case_options run;
    case_options_init(&run);
    run.collective_given = true;
    run.bucket_bytes = 25.0 * 1024 * 1024;
    sweep_run_options o = {.run = &run};
    static run_log whole;
    memset(&whole, 0, sizeof whole);
    bool stopped = true;
    CHECK(sweep_run(&s, &o, log_case, &whole, &stopped) == total && !stopped);
    CHECK(whole.n == total && whole.total == total);
    for (long long i = 0; i < total; i++) {
        CHECK(whole.order[i] == i && whole.seen[i] == 1);
        CHECK(whole.gpus[i] == counts[i % 4]); /* the GPU count is innermost */
        CHECK((whole.rc[i] != 0) == (counts[i % 4] == 1024));
        /* speedups are over the group's own one-GPU case, the first of its four */
        CHECK(whole.has_one[i] && whole.one_tput[i] == whole.tput[i - i % 4]);
        if (!whole.rc[i])
            CHECK(whole.tput[i] > 0);
    }
    for (int n = 1; n <= 5; n++) {
        static run_log part;
        int seen[RUN_MAX] = {0};
        for (int k = 1; k <= n; k++) {
            memset(&part, 0, sizeof part);
            o.shard_k = k;
            o.shard_n = n;
            long long ran = sweep_run(&s, &o, log_case, &part, &stopped);
            CHECK(ran == sweep_shard_size(total, k, n) && ran == part.n && !stopped);
            for (long long j = 0; j < part.n; j++) {
                long long i = part.order[j];
                seen[i]++;
                CHECK(i % n == k - 1);
                CHECK(j == 0 || part.order[j - 1] < i);
                CHECK(part.tput[i] == whole.tput[i] && part.rc[i] == whole.rc[i]);
                CHECK(part.has_one[i] && part.one_tput[i] == whole.one_tput[i]);
            }
        }
        for (long long i = 0; i < total; i++)
            CHECK(seen[i] == 1);
    }
    /* The callback stops the sweep: no case after it. */
    static run_log cut;
    memset(&cut, 0, sizeof cut);
    cut.stop_after = 5;
    o.shard_k = o.shard_n = 0;
    CHECK(sweep_run(&s, &o, log_case, &cut, &stopped) == 5 && stopped && cut.n == 5);
    sweep_space_free(&s);

    /* A missing input stops the load, naming the file. */
    const char *missing[] = {pa, work_path("no-such-platform.json")};
    in.platforms = missing;
    sweep_space t = {0};
    CHECK(sweep_space_load(&t, &in, cache, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "no-such-platform.json");
    sweep_space_free(&t);
    sweep_cache_free(cache);
}

/* One platform, ResNet-50, QSGD, --stack pytorch-ddp,fused, GPU counts 1 and 64: 4 cases,
 * the stack nested between compressor and collective (so the GPU count still innermost).
 * The two stacks' cases have different ids and different throughputs (pytorch-ddp's op
 * laws against the codec model), each the number sweep_case_run gives under that stack
 * (what `gcsim predict --stack` computes); a case without a stack is refused. */
static void test_sweep_stacks(const char *src)
{
    char pf[4096], model[4096];
    snprintf(pf, sizeof pf, "%s/platforms/cloud-v100-25gbe.json", src);
    snprintf(model, sizeof model, "%s/models/resnet-50.json", src);
    const char *platforms[] = {pf}, *models[] = {model}, *compressors[] = {"qsgd"},
               *stacks[] = {"pytorch-ddp", "fused"};
    sweep_inputs in = {.n_platforms = 1, .platforms = platforms, .n_models = 1, .models = models,
                       .n_compressors = 1, .compressors = compressors, .n_stacks = 2,
                       .stacks = stacks, .max_engines = 1, .max_gpu_counts = 4};
    sweep_cache *cache = sweep_cache_new(NULL);
    sweep_space s = {0};
    gcsim_error err;
    CHECK(cache && sweep_space_load(&s, &in, cache, &err) == 0);
    if (check_failures) {
        fprintf(stderr, "%s\n", err.message);
        sweep_space_free(&s);
        sweep_cache_free(cache);
        return;
    }
    CHECK(s.n_stacks == 2 && strcmp(s.stacks[0]->name, "pytorch-ddp") == 0 &&
          strcmp(s.stacks[1]->name, "fused") == 0);
    s.engines[s.n_engines++] = ENGINE_ANALYTIC;
    s.gpus[0][0] = 1;
    s.gpus[0][1] = 64;
    s.n_gpus[0] = 2;
    CHECK(sweep_space_count(&s) == 4);
    case_options run;
    case_options_init(&run); /* overlap; bucket 0: each stack's */
    sweep_run_options o = {.run = &run};
    static run_log log;
    memset(&log, 0, sizeof log);
    bool stopped = true;
    CHECK(sweep_run(&s, &o, log_case, &log, &stopped) == 4 && !stopped);
    for (int i = 0; i < 4; i++) {
        CHECK(log.rc[i] == 0 && log.tput[i] > 0);
        CHECK(log.stack[i] == s.stacks[i / 2] && log.ran_under[i] == s.stacks[i / 2]);
        CHECK(log.gpus[i] == (i % 2 ? 64 : 1));
        /* the number predict gives under that stack */
        sweep_case one = {.platform = s.platforms[0], .model = s.models[0], .payload = s.plans[0],
                          .stack = s.stacks[i / 2], .collective = COLLECTIVE_RING,
                          .scaling = SCALING_WEAK, .engine = ENGINE_ANALYTIC,
                          .gpus = log.gpus[i], .overlap = true};
        sweep_result r;
        CHECK(sweep_case_run(&one, &r, &err) == 0 && r.p.throughput_samples_per_s == log.tput[i]);
        CHECK(r.stack == s.stacks[i / 2]);
    }
    /* Same case, other stack: another id and, at 64 GPUs, another throughput. */
    CHECK(strcmp(log.id[1], log.id[3]) != 0 && strcmp(log.id[0], log.id[2]) != 0);
    CHECK(log.tput[1] != log.tput[3]);
    /* The id is the case's: the same values give the same id in another run. */
    sweep_case again = {.platform = s.platforms[0], .model = s.models[0], .payload = s.plans[0],
                        .stack = s.stacks[1], .collective = COLLECTIVE_RING,
                        .scaling = SCALING_WEAK, .engine = ENGINE_ANALYTIC, .gpus = 64};
    char id[17];
    sweep_case_id(&again, id);
    CHECK(strcmp(id, log.id[3]) == 0);
    /* In two parts (the sweep writer keeps the prefix per group), the same id: plain,
     * sharded with a selective policy, and with the prefix of another GPU count's case
     * (the prefix does not depend on it), and a spec of the full 255 bytes. */
    char id2[17];
    sweep_case_id_from(&again, sweep_case_id_prefix(&again), id2);
    CHECK(strcmp(id2, id) == 0);
    sweep_case other = again;
    other.gpus = 3;
    sweep_case_id_from(&again, sweep_case_id_prefix(&other), id2);
    CHECK(strcmp(id2, id) == 0);
    sweep_case sharded = again;
    sharded.sharding.strategy = GCSIM_SHARD_ZERO2;
    sharded.grad_accum = 4;
    sharded.act_ckpt = true;
    sharded.act_ckpt_policy.mode = GCSIM_CKPT_EVERY;
    sharded.act_ckpt_policy.every = 2;
    sweep_case_id(&sharded, id);
    sweep_case_id_from(&sharded, sweep_case_id_prefix(&sharded), id2);
    CHECK(strcmp(id2, id) == 0 && strcmp(id, log.id[3]) != 0);
    gcsim_payload_plan *long_spec = malloc(sizeof *long_spec);
    CHECK(long_spec != NULL);
    if (long_spec) {
        *long_spec = *again.payload;
        memset(long_spec->spec, 'x', sizeof long_spec->spec - 1);
        long_spec->spec[sizeof long_spec->spec - 1] = '\0';
        sweep_case cut = sharded;
        cut.payload = long_spec;
        sweep_case_id(&cut, id);
        sweep_case_id_from(&cut, sweep_case_id_prefix(&cut), id2);
        CHECK(strcmp(id2, id) == 0);
        free(long_spec);
    }
    /* No stack: refused as gcsim's own mistake, never run under a default. */
    again.stack = NULL;
    sweep_result r;
    CHECK(sweep_case_run(&again, &r, &err) == -1 && err.internal);
    CHECK_STR_CONTAINS(err.message, "names no training stack");
    sweep_space_free(&s);
    sweep_cache_free(cache);
}

/* Merges the files; returns 0 and the output in out, or -1 and the message in msg. */
static int merge_files(const char *const *files, int n, char *out, size_t out_len, char *msg,
                       size_t msg_len)
{
    merge_rows *m = merge_new();
    int rc = 0;
    for (int k = 0; k < n && rc == 0; k++)
        rc = merge_add_file(m, files[k], k, msg, msg_len);
    if (rc == 0)
        rc = merge_finish(m, msg, msg_len);
    if (rc == 0) {
        FILE *f = fopen(work_path("merged.out"), "w+");
        CHECK(merge_write(m, f) == 0);
        rewind(f);
        size_t got = fread(out, 1, out_len - 1, f);
        out[got] = '\0';
        fclose(f);
    }
    merge_free(m);
    return rc;
}

static void test_merge(void)
{
    char out[4096], msg[1024];
    const char *s1 = work_path("s1.csv"), *s2 = work_path("s2.csv");
    /* Shard 1/2 and 2/2 of three cases, given in the reverse order. */
    write_text(s1, "case,cases,v\n0,3,\"a,b\"\n2,3,c\n");
    write_text(s2, "case,cases,v\n1,3,x\n");
    const char *both[] = {s2, s1};
    CHECK(merge_files(both, 2, out, sizeof out, msg, sizeof msg) == 0);
    CHECK(strcmp(out, "case,cases,v\n0,3,\"a,b\"\n1,3,x\n2,3,c\n") == 0);

    /* The same case twice. */
    const char *dup = work_path("dup.csv");
    write_text(dup, "case,cases,v\n1,3,y\n");
    const char *with_dup[] = {s1, s2, dup};
    CHECK(merge_files(with_dup, 3, out, sizeof out, msg, sizeof msg) == -1);
    CHECK_STR_CONTAINS(msg, "case 1 is already in");
    CHECK_STR_CONTAINS(msg, "dup.csv:2");

    /* A case missing. */
    const char *only_s1[] = {s1};
    CHECK(merge_files(only_s1, 1, out, sizeof out, msg, sizeof msg) == -1);
    CHECK_STR_CONTAINS(msg, "1 of 3 cases are in none of the files: 1");

    /* Another sweep's header. */
    const char *other = work_path("other.csv");
    write_text(other, "case,cases,w\n1,3,x\n");
    const char *mismatch[] = {s1, other};
    CHECK(merge_files(mismatch, 2, out, sizeof out, msg, sizeof msg) == -1);
    CHECK_STR_CONTAINS(msg, "other.csv:1: header differs from");

    /* Another total. */
    const char *four = work_path("four.csv");
    write_text(four, "case,cases,v\n1,4,x\n");
    const char *totals[] = {s1, four};
    CHECK(merge_files(totals, 2, out, sizeof out, msg, sizeof msg) == -1);
    CHECK_STR_CONTAINS(msg, "cases = 4, but");

    /* JSON lines, one shard empty (a shard without cases). */
    const char *j1 = work_path("j1.jsonl"), *j2 = work_path("j2.jsonl"),
               *j3 = work_path("j3.jsonl");
    write_text(j1, "{\"case\":1,\"cases\":2,\"v\":\"b\"}\n");
    write_text(j2, "{\"case\":0,\"cases\":2,\"v\":\"a\"}\n");
    write_text(j3, "");
    const char *jsonl[] = {j1, j3, j2};
    CHECK(merge_files(jsonl, 3, out, sizeof out, msg, sizeof msg) == 0);
    CHECK(strcmp(out, "{\"case\":0,\"cases\":2,\"v\":\"a\"}\n{\"case\":1,\"cases\":2,\"v\":\"b\"}\n") == 0);

    /* CSV and JSON lines mixed. */
    const char *mixed[] = {s1, j1};
    CHECK(merge_files(mixed, 2, out, sizeof out, msg, sizeof msg) == -1);
    CHECK_STR_CONTAINS(msg, "j1.jsonl:1: JSON lines, but");
}

/* Loads a baseline the test expects to be valid; a failure is counted and reported. */
static bool load_or_fail(const char *path, baseline *b, gcsim_error *err)
{
    if (baseline_load(path, b, err) == 0)
        return true;
    fprintf(stderr, "baseline_load: %s\n", err->message);
    check_failures++;
    return false;
}

static void test_baseline_round_trip(const char *src)
{
    const char *path = work_path("baseline.json");
    char text[8192];
    snprintf(text, sizeof text,
             "{\"format\": \"gcsim-baseline/1\", \"description\": \"round trip\",\n"
             " \"cases\": [{\"name\": \"a\", \"platform\": \"%s/platforms/a100-hdr.json\",\n"
             "              \"model\": \"%s/models/resnet-50.json\", \"gpus\": 8,\n"
             "              \"collective\": \"ring\", \"scaling\": \"weak\", \"engine\": \"analytic\",\n"
             "              \"expected_throughput_samples_per_s\": 100.25},\n"
             "             {\"name\": \"b\", \"platform\": \"%s/platforms/a100-hdr.json\",\n"
             "              \"model\": \"%s/models/resnet-50.json\", \"gpus\": 16,\n"
             "              \"collective\": \"tree\", \"scaling\": \"strong\", \"engine\": \"des\",\n"
             "              \"compressor\": \"fp16\", \"stack\": \"fused\", \"tolerance_pct\": 2}]}\n",
             src, src, src, src);
    write_text(path, text);
    baseline b;
    gcsim_error err;
    if (!load_or_fail(path, &b, &err))
        return;
    CHECK(b.n_cases == 2);
    CHECK(strcmp(b.cases[0].name, "a") == 0 && b.cases[0].gpus == 8);
    CHECK(b.cases[0].has_expected && b.cases[0].expected_samples_per_s == 100.25);
    CHECK(strcmp(b.cases[0].compressor, "none") == 0); /* absent: none */
    CHECK(b.cases[0].stack[0] == '\0'); /* absent: the platform's choice */
    char want_stack[8192];
    snprintf(want_stack, sizeof want_stack, "%s/platforms/stacks/fused.json", src);
    CHECK(strcmp(b.cases[1].stack, want_stack) == 0); /* a catalog name, resolved */
    CHECK(!b.cases[1].has_expected && b.cases[1].tolerance_pct == 2.0);
    CHECK(b.tolerance_pct < 0); /* absent from the file */

    /* Record the new case only; the other keeps its value. */
    const double predicted[] = {999.0, 12345.5};
    const unsigned char update[] = {0, 1};
    CHECK(baseline_rewrite(&b, predicted, update, &err) == 0);
    baseline_free(&b);

    baseline again;
    CHECK(baseline_load(path, &again, &err) == 0);
    if (check_failures)
        return;
    CHECK(again.n_cases == 2);
    CHECK(again.cases[0].expected_samples_per_s == 100.25);
    CHECK(again.cases[1].has_expected && again.cases[1].expected_samples_per_s == 12345.5);
    CHECK(strcmp(again.cases[1].compressor, "fp16") == 0 && again.cases[1].gpus == 16);
    CHECK(again.cases[1].collective == COLLECTIVE_TREE && again.cases[1].scaling == SCALING_STRONG);
    CHECK(again.cases[1].engine == ENGINE_DES && again.cases[0].engine == ENGINE_ANALYTIC);
    CHECK(strcmp(again.cases[1].stack, want_stack) == 0);

    /* Drift and tolerance: 101 against 100 is +1 %; a case's own tolerance first, then
     * the command line's, then the file's (absent here), then the fallback. */
    CHECK(baseline_drift_pct(101.0, 100.0) == 1.0);
    CHECK(baseline_drift_pct(75.0, 100.0) == -25.0);
    CHECK(baseline_within_tolerance(-0.5, 0.5) && !baseline_within_tolerance(0.51, 0.5));
    CHECK(!baseline_within_tolerance(NAN, 1e9));
    CHECK(baseline_tolerance_pct(&again, &again.cases[1], 7.0, 0.5) == 2.0);
    CHECK(baseline_tolerance_pct(&again, &again.cases[0], 7.0, 0.5) == 7.0);
    CHECK(baseline_tolerance_pct(&again, &again.cases[0], -1.0, 0.5) == 0.5);
    /* A prediction is a positive, finite throughput; a missing model file is named. */
    sweep_cache *cache = sweep_cache_new(NULL);
    double now = 0.0;
    const gcsim_stack *ran = NULL;
    CHECK(baseline_case_predict(&again.cases[0], cache, &now, &ran, &err) == 0);
    CHECK(now > 0.0 && isfinite(now));
    CHECK(ran && strcmp(ran->name, GCSIM_DEFAULT_STACK) == 0); /* no "stack": the default */
    baseline_case gone = again.cases[0];
    snprintf(gone.model, sizeof gone.model, "%s", work_path("no-such-model.json"));
    CHECK(baseline_case_predict(&gone, cache, &now, NULL, &err) == -1);
    CHECK_STR_CONTAINS(err.message, "no-such-model.json");

    /* --update pins the stack of the case that has none (the platform's choice), after its
     * model since it names no compressor, and only once; the other keeps its own. */
    const gcsim_platform *pf = sweep_cache_platform(cache, again.cases[0].platform, &err);
    CHECK(pf != NULL);
    const char *pin = pf ? baseline_stack_to_pin(&again.cases[0], pf) : NULL;
    CHECK(pin && strcmp(pin, GCSIM_DEFAULT_STACK) == 0);
    CHECK(pf && baseline_stack_to_pin(&again.cases[1], pf) == NULL);
    CHECK(pin && baseline_pin_stack(&again, 0, pin, &err) == 1);
    CHECK(pin && baseline_pin_stack(&again, 0, pin, &err) == 0);
    CHECK(pin && baseline_pin_stack(&again, 1, pin, &err) == 0);
    const unsigned char none[] = {0, 0};
    CHECK(baseline_rewrite(&again, predicted, none, &err) == 0);
    baseline_free(&again);
    char *written = slurp_file(path);
    CHECK(written && strstr(written, "\"stack\": \"" GCSIM_DEFAULT_STACK "\",\n      \"gpus\": 8"));
    CHECK(written && strstr(written, "\"stack\": \"fused\""));
    free(written);
    CHECK(baseline_load(path, &again, &err) == 0);
    if (check_failures) {
        sweep_cache_free(cache);
        return;
    }
    snprintf(want_stack, sizeof want_stack, "%s/platforms/stacks/%s.json", src, GCSIM_DEFAULT_STACK);
    CHECK(strcmp(again.cases[0].stack, want_stack) == 0);
    /* pinned, the case predicts what it did under the platform's choice */
    double pinned = 0.0;
    CHECK(baseline_case_predict(&again.cases[0], cache, &pinned, &ran, &err) == 0);
    CHECK(pinned == now && ran && strcmp(ran->name, GCSIM_DEFAULT_STACK) == 0);
    sweep_cache_free(cache);
    baseline_free(&again);

    /* A stack that is neither a file nor in the catalog is refused, naming the JSON path. */
    snprintf(text, sizeof text,
             "{\"format\": \"gcsim-baseline/1\",\n"
             " \"cases\": [{\"name\": \"a\", \"platform\": \"%s/platforms/a100-hdr.json\",\n"
             "              \"model\": \"%s/models/resnet-50.json\", \"gpus\": 8,\n"
             "              \"stack\": \"no-such-stack\",\n"
             "              \"collective\": \"ring\", \"scaling\": \"weak\", \"engine\": \"analytic\"}]}\n",
             src, src);
    write_text(path, text);
    CHECK(baseline_load(path, &again, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "baseline.json: $.cases[0].stack: \"no-such-stack\" not found");
    CHECK_STR_CONTAINS(err.message, "platforms/stacks/no-such-stack.json");

    /* A duplicate case name is refused, naming the file. */
    write_text(path, "{\"format\": \"gcsim-baseline/1\", \"cases\": ["
                     "{\"name\": \"a\", \"platform\": \"x.json\", \"model\": \"y.json\", \"gpus\": 1},"
                     "{\"name\": \"a\", \"platform\": \"x.json\", \"model\": \"y.json\", \"gpus\": 1}]}\n");
    CHECK(baseline_load(path, &again, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "baseline.json");
}

static void check_path(const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "resolved to %s, expected %s\n", got, want);
        check_failures++;
    }
}

/* Catalog names in a baseline (issue 16): a value found neither beside the baseline nor
 * above it that has no '/' is read from the catalog (data_dir.h; this test program's data
 * folder is the source tree, like the build-tree gcsim's); a file of that name beside the
 * baseline still comes first; a name in neither place names file, JSON path and the
 * catalog file tried. */
static void test_baseline_catalog_names(const char *src)
{
    const char *path = work_path("catalog.json");
    const char *shadow = work_path("a100-hdr");
    remove(shadow);
    const char *text =
        "{\"format\": \"gcsim-baseline/1\", \"cases\": [{\"name\": \"a\",\n"
        " \"platform\": \"a100-hdr\", \"model\": \"resnet-50.json\", \"gpus\": 8,\n"
        " \"collective\": \"ring\", \"scaling\": \"weak\", \"engine\": \"analytic\"}]}\n";
    write_text(path, text);
    char want_platform[8192], want_model[8192];
    snprintf(want_platform, sizeof want_platform, "%s/platforms/a100-hdr.json", src);
    snprintf(want_model, sizeof want_model, "%s/models/resnet-50.json", src);
    baseline b;
    gcsim_error err;
    if (!load_or_fail(path, &b, &err))
        return;
    check_path(b.cases[0].platform, want_platform);
    check_path(b.cases[0].model, want_model);
    baseline_free(&b);

    /* A file named like the catalog entry, beside the baseline, wins (paths first). */
    write_text(shadow, "{}\n");
    CHECK(baseline_load(path, &b, &err) == 0);
    if (!check_failures)
        check_path(b.cases[0].platform, shadow);
    baseline_free(&b);
    remove(shadow);

    /* Neither a file nor in the catalog. */
    write_text(path, "{\"format\": \"gcsim-baseline/1\", \"cases\": [{\"name\": \"a\",\n"
                     " \"platform\": \"a100-hdr\", \"model\": \"no-such-model\", \"gpus\": 8,\n"
                     " \"collective\": \"ring\", \"scaling\": \"weak\", \"engine\": \"analytic\"}]}\n");
    CHECK(baseline_load(path, &b, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "catalog.json: $.cases[0].model: \"no-such-model\" not found "
                                    "beside the baseline nor in any folder above it");
    char tried[8192];
    snprintf(tried, sizeof tried, "nor in the catalog (no %s/models/no-such-model.json)", src);
    CHECK_STR_CONTAINS(err.message, tried);

    /* A path (with '/') is never a catalog name: the message says so by not naming it. */
    write_text(path, "{\"format\": \"gcsim-baseline/1\", \"cases\": [{\"name\": \"a\",\n"
                     " \"platform\": \"nowhere/a100-hdr\", \"model\": \"resnet-50\", \"gpus\": 8,\n"
                     " \"collective\": \"ring\", \"scaling\": \"weak\", \"engine\": \"analytic\"}]}\n");
    CHECK(baseline_load(path, &b, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "catalog.json: $.cases[0].platform: \"nowhere/a100-hdr\" not "
                                    "found beside the baseline nor in any folder above it");
    CHECK(strstr(err.message, "catalog (") == NULL);
}

static plan_candidate candidate(const plan_target *t, int index, int gpus, double tput)
{
    plan_candidate c;
    memset(&c, 0, sizeof c);
    c.platform = index; /* distinct input positions: the order is total */
    c.gpus = gpus;
    c.r.p.throughput_samples_per_s = tput;
    c.price_per_gpu_hour_usd = 1.0;
    plan_evaluate(t, &c);
    return c;
}

/* Need 1000 samples/s at $1 per GPU-hour, no work given (cost = $ per hour):
 *   A 4 GPUs 1200/s $4/h   B 2 GPUs 1100/s $2/h   C 1 GPU 600/s (too slow)   D 8 GPUs 1500/s $8/h
 * By cost B is best, by time D; the closest to feasible is the smallest need/reached
 * (D: 1000/1500); the fastest is D, the cheapest fast enough B. */
static void test_plan_keep(void)
{
    plan_target t = {.need_samples_per_s = 1000.0};
    plan_candidate all[4] = {candidate(&t, 0, 4, 1200.0), candidate(&t, 1, 2, 1100.0),
                             candidate(&t, 2, 1, 600.0), candidate(&t, 3, 8, 1500.0)};
    CHECK(all[0].feasible && all[1].feasible && !all[2].feasible && all[3].feasible);
    for (int by_time = 0; by_time <= 1; by_time++) {
        plan_group g = {0};
        plan_extremes x = {0};
        for (int k = 0; k < 4; k++)
            plan_keep(&t, by_time, &all[k], &g, &x);
        CHECK(g.has_best && g.best.gpus == (by_time ? 8 : 2));
        CHECK(g.has_closest && g.closest.gpus == 8);
        CHECK(x.has_fastest && x.fastest.gpus == 8);
        CHECK(x.has_cheapest_fast && x.cheapest_fast.gpus == 2);
    }
    /* Only the slow one: no best, it is the closest, and nothing is fast enough. */
    plan_group g = {0};
    plan_extremes x = {0};
    plan_keep(&t, false, &all[2], &g, &x);
    CHECK(!g.has_best && g.has_closest && g.closest.gpus == 1);
    CHECK(x.has_fastest && !x.has_cheapest_fast);
    /* plan_sort ranks whatever it is given (the command gives it the feasible ones): by
     * cost C, B, A, D ($1, 2, 4, 8 per hour); by time D, A, B, C. */
    plan_sort(all, 4, false, false);
    CHECK(all[0].gpus == 1 && all[1].gpus == 2 && all[2].gpus == 4 && all[3].gpus == 8);
    plan_sort(all, 4, true, false);
    CHECK(all[0].gpus == 8 && all[1].gpus == 4 && all[2].gpus == 2 && all[3].gpus == 1);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_planning_lib SOURCE_DIR WORK_DIR\n");
        return 2;
    }
    work_dir = argv[2];
    mkdir(work_dir, 0777);
    test_space_and_shards();
    test_cache(argv[1]);
    test_sweep_run(argv[1]);
    test_sweep_stacks(argv[1]);
    test_merge();
    test_plan_keep();
    test_baseline_round_trip(argv[1]);
    test_baseline_catalog_names(argv[1]);
    CHECK_DONE();
}
