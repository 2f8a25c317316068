/*
 * tests/des/test_des_timeline.c: what the DES adds to the analytic engine, on 2 nodes x 4
 * GPUs with the synthetic model (10 layers of 1e7 fp32 bytes, des_test_model.h):
 *  - buckets: with 30e6-byte buckets, backward fills [layers 7-9], [4-6], [1-3], [0];
 *  - overlap: the first bucket's exchange starts while backward still runs, and the
 *    iteration is shorter than with overlap disabled (where exchange starts after backward);
 *  - compression: TernGrad payloads charge encode time |g_bucket| / codec throughput;
 *  - the Chrome trace parses as JSON (cJSON) and its events cover the iteration:
 *    the first starts at 0 and the last ends at the iteration time.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "codec.h"
#include "des.h"
#include "des_test_model.h"
#include "des_test_platform.h"
#include "payload.h"
#include "../resolved_predict.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n)
        buf[n] = '\0';
    else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int main(void)
{
    gcsim_platform p = des_test_platform(2, 4);
    p.gpu.codec_Bps = 1e10;
    des_test_model tm;
    des_test_model_init(&tm);
    gcsim_payload_plan dense, tern;
    gcsim_error err;
    CHECK(gcsim_payload_plan_build("none", &tm.model, &dense, &err) == 0);
    CHECK(gcsim_payload_plan_build("terngrad", &tm.model, &tern, &err) == 0);

    char dir[] = "/tmp/gcsim-des-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/trace.json", dir);

    gcsim_scenario s;
    memset(&s, 0, sizeof s);
    s.platform = &p;
    s.model = &tm.model;
    s.payload = &dense;
    s.collective = COLLECTIVE_RING;
    s.scaling = SCALING_WEAK;
    s.batch = 128;
    s.bucket_bytes = 30e6;
    s.overlap = true;
    s.timeline_path = path;
    CHECK(gcsim_platform_place(&p, 8, &s.placement, &err) == 0);

    gcsim_prediction on, off;
    gcsim_des_details d = {0}, d_off = {0};
    int rc = des_predict_opts_s(&s, NULL, &on, &d, &err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "%s\n", err.message);
        CHECK_DONE();
    }
    /* buckets in backward order */
    CHECK(d.n_buckets == 4);
    const int first[] = {7, 4, 1, 0}, last[] = {9, 6, 3, 0};
    for (int b = 0; b < d.n_buckets && b < 4; b++) {
        CHECK(d.buckets[b].first_layer == first[b]);
        CHECK(d.buckets[b].last_layer == last[b]);
        CHECK_REL(d.buckets[b].dense_bytes, b < 3 ? 3e7 : 1e7, 1e-12);
        CHECK(d.buckets[b].ready_s <= d.buckets[b].exchange_start_s);
        CHECK(d.buckets[b].exchange_start_s < d.buckets[b].exchange_end_s);
        if (b > 0) /* buckets are exchanged one after the other */
            CHECK(d.buckets[b].exchange_start_s >= d.buckets[b - 1].exchange_end_s - 1e-12);
    }
    /* compute: weak scaling replays T(1,1,128) = 1 s per GPU */
    CHECK_REL(on.compute_s, 1.0, 1e-12);
    CHECK_REL(d.compute_end_s, 1.0, 1e-9);
    CHECK(d.buckets[0].exchange_start_s < d.compute_end_s); /* overlap with backward */
    CHECK_REL(on.iteration_s, d.buckets[3].exchange_end_s, 1e-12);
    CHECK_REL(on.exposed_comm_s, on.iteration_s - on.compute_s, 1e-9);
    CHECK(on.comm_s > on.exposed_comm_s);
    /* 4 buckets, ring: 2 (N-1) messages per GPU, or coalesced one per phase */
    const char *full = getenv("GCSIM_DES_FULL");
    CHECK(d.transfers == (full && !strcmp(full, "1") ? 4LL * 2 * 8 * 7 : 4LL * 2 * 8));
    CHECK(on.compress_s == 0); /* dense fp32: no codec */

    s.overlap = false;
    s.timeline_path = NULL;
    CHECK(des_predict_opts_s(&s, NULL, &off, &d_off, &err) == 0);
    CHECK(d_off.buckets[0].exchange_start_s >= d_off.compute_end_s - 1e-12);
    CHECK(off.iteration_s > on.iteration_s);
    CHECK(off.exposed_comm_s > on.exposed_comm_s);
    gcsim_des_details_free(&d_off);

    /* TernGrad payloads: encode 3e7 B / 1e10 B/s = 3 ms per full bucket; 1e8/1e10 in all. */
    s.payload = &tern;
    s.overlap = true;
    gcsim_codec tc; /* the deprecated single rate: encode |g_bucket| / rate */
    CHECK(gcsim_codec_init(&tc, &p, "terngrad", &err) == 0);
    CHECK(tc.source == CODEC_COST_THROUGHPUT);
    s.codec = &tc;
    gcsim_prediction t;
    gcsim_des_details dt = {0};
    CHECK(des_predict_opts_s(&s, NULL, &t, &dt, &err) == 0);
    CHECK_REL(dt.encode_s, 1e8 / 1e10, 1e-9);
    CHECK_REL(dt.buckets[0].encode_s, 3e-3, 1e-9);
    CHECK(dt.decode_s > 0);
    CHECK(t.compress_s >= dt.encode_s);
    /* bucket 1 (layers 4-6) is all ternary: 2 bits per weight plus scalers; bucket 0
     * holds the last layer, which TernGrad keeps in fp32 */
    CHECK(dt.buckets[1].payload_bytes < dt.buckets[1].dense_bytes / 8);
    gcsim_des_details_free(&dt);

    /* the timeline */
    char *text = slurp(path);
    CHECK(text != NULL);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL);
    cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(events));
    double min_ts = 1e300, max_end = -1;
    int n_x = 0, per_track[5] = {0};
    cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "X") != 0)
            continue;
        double ts = cJSON_GetObjectItemCaseSensitive(e, "ts")->valuedouble;
        double dur = cJSON_GetObjectItemCaseSensitive(e, "dur")->valuedouble;
        int pid = cJSON_GetObjectItemCaseSensitive(e, "pid")->valueint;
        int tid = cJSON_GetObjectItemCaseSensitive(e, "tid")->valueint;
        CHECK(dur >= 0);
        CHECK(pid >= 1 && pid <= 8); /* GPU k is pid k + 1: Perfetto treats pid 0 specially */
        CHECK(tid >= 1 && tid <= 4);
        if (tid >= 1 && tid <= 4)
            per_track[tid]++;
        if (ts < min_ts)
            min_ts = ts;
        if (ts + dur > max_end)
            max_end = ts + dur;
        n_x += tid <= 3;
    }
    CHECK(n_x == 8 * (1 + 4 + 4)); /* per GPU: forward, 4 backward segments, 4 exchanges */
    CHECK(per_track[4] > 0);       /* and the transfers of each exchange's steps */
    CHECK(per_track[1] == 8 * 5 && per_track[3] == 8 * 4);
    CHECK(min_ts >= 0 && min_ts < 1e-3); /* 0, plus the 0.1 ns marker (des_timeline.c) */
    CHECK_REL(max_end, on.iteration_s * 1e6, 1e-6); /* microseconds */
    cJSON_Delete(root);
    free(text);
    gcsim_des_details_free(&d);

    /* errors are values: an unknown network model names the variable */
    gcsim_des_options bad = {.network_model = "nonsense"};
    CHECK(des_predict_opts_s(&s, &bad, &on, NULL, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "GCSIM_DES_NETWORK_MODEL");

    unlink(path);
    rmdir(dir);
    gcsim_payload_plan_free(&dense);
    gcsim_payload_plan_free(&tern);
    CHECK_DONE();
}
