/* `gcsim check` reads baselines strictly: each broken copy of a valid baseline exits 2 with
 * a message naming the file and the JSON path, prints nothing on stdout, and --update
 * leaves the file as it was. */
#include <cjson/cJSON.h>

#include "check.h"
#include "planning_test.h"

static const char *gcsim, *src, *work;

/* A small valid baseline with absolute paths, so that it works from any build folder. */
static cJSON *valid(void)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"format\": \"gcsim-baseline/1\", \"tolerance_pct\": 0.5, \"cases\": ["
             "{\"name\": \"a\", \"platform\": \"%s/platforms/a100-hdr.json\", "
             "\"model\": \"%s/models/resnet-50.json\", \"collective\": \"ring\", \"gpus\": 8, "
             "\"scaling\": \"weak\", \"engine\": \"analytic\", "
             "\"expected_throughput_samples_per_s\": 1000},"
             "{\"name\": \"b\", \"platform\": \"%s/platforms/a100-hdr.json\", "
             "\"model\": \"%s/models/resnet-50.json\", \"compressor\": \"fp16\", "
             "\"collective\": \"hierarchical\", \"gpus\": 64, \"scaling\": \"strong\", "
             "\"batch\": 4096, \"engine\": \"analytic\", "
             "\"expected_throughput_samples_per_s\": 2000, \"tolerance_pct\": 1}]}",
             src, src, src, src);
    return cJSON_Parse(text);
}

typedef void (*breaker)(cJSON *root);

static cJSON *case_at(cJSON *root, int k)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cases"), k);
}

static void unknown_key(cJSON *r) { cJSON_AddNumberToObject(case_at(r, 1), "gpu", 8); }
static void gpus_string(cJSON *r) { cJSON_ReplaceItemInObject(case_at(r, 0), "gpus", cJSON_CreateString("8")); }
static void gpus_fraction(cJSON *r) { cJSON_ReplaceItemInObject(case_at(r, 0), "gpus", cJSON_CreateNumber(8.5)); }
static void same_name(cJSON *r) { cJSON_ReplaceItemInObject(case_at(r, 1), "name", cJSON_CreateString("a")); }
static void no_platform_file(cJSON *r) { cJSON_ReplaceItemInObject(case_at(r, 0), "platform", cJSON_CreateString("platforms/no-such-platform.json")); }
static void bad_collective(cJSON *r) { cJSON_ReplaceItemInObject(case_at(r, 1), "collective", cJSON_CreateString("butterfly")); }
static void bad_engine(cJSON *r) { cJSON_ReplaceItemInObject(case_at(r, 0), "engine", cJSON_CreateString("both")); }
static void bad_format(cJSON *r) { cJSON_ReplaceItemInObject(r, "format", cJSON_CreateString("gcsim-baseline/9")); }
static void cases_object(cJSON *r) { cJSON_ReplaceItemInObject(r, "cases", cJSON_CreateObject()); }
static void negative_expected(cJSON *r) { cJSON_ReplaceItemInObject(case_at(r, 0), "expected_throughput_samples_per_s", cJSON_CreateNumber(-5)); }
static void too_many_gpus(cJSON *r) { cJSON_ReplaceItemInObject(case_at(r, 1), "gpus", cJSON_CreateNumber(100000)); }
static void bad_compressor(cJSON *r) { cJSON_ReplaceItemInObject(case_at(r, 1), "compressor", cJSON_CreateString("zip:level=9")); }
static void top_unknown(cJSON *r) { cJSON_AddStringToObject(r, "tolerance", "1%"); }
/* issue 25's optional training settings */
static void bad_sharding(cJSON *r) { cJSON_AddStringToObject(case_at(r, 0), "sharding", "zero4"); }
static void bad_precision(cJSON *r) { cJSON_AddStringToObject(case_at(r, 0), "precision", "fp8"); }
static void bad_optimizer(cJSON *r) { cJSON_AddStringToObject(case_at(r, 1), "optimizer", "lamb"); }
static void accum_zero(cJSON *r) { cJSON_AddNumberToObject(case_at(r, 0), "grad_accum", 0); }
static void ckpt_string(cJSON *r) { cJSON_AddStringToObject(case_at(r, 0), "act_ckpt", "yes"); }
static void ckpt_number(cJSON *r) { cJSON_AddNumberToObject(case_at(r, 0), "act_ckpt", 1); }

static void expect_refused(const char *label, breaker b, const char *message)
{
    cJSON *root = valid();
    CHECK(root != NULL);
    if (!root)
        return;
    b(root);
    char path[1024], out[1024], err[1024];
    snprintf(path, sizeof path, "%s/%s.json", work, label);
    snprintf(out, sizeof out, "%s/%s.out", work, label);
    snprintf(err, sizeof err, "%s/%s.err", work, label);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    CHECK(text && spit(path, text) == 0);
    int rc = sh("%s check --baseline %s --update > %s 2> %s", gcsim, path, out, err);
    if (rc != 2)
        fprintf(stderr, "%s: exit %d, expected 2\n", label, rc);
    CHECK(rc == 2);
    char *e = slurp(err), *o = slurp(out), *after = slurp(path);
    CHECK_STR_CONTAINS(e, path);
    CHECK_STR_CONTAINS(e, message);
    CHECK(o && o[0] == '\0');
    CHECK(after && text && strcmp(after, text) == 0);
    free(e);
    free(o);
    free(after);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_check_strict GCSIM SOURCE_DIR WORK_DIR\n");
        return 2;
    }
    gcsim = argv[1];
    src = argv[2];
    work = argv[3];
    CHECK(fresh_dir(work) == 0);

    /* The valid one passes the reader (its values are made up, so it drifts: exit 1). */
    cJSON *root = valid();
    char *text = cJSON_Print(root);
    char path[1024];
    snprintf(path, sizeof path, "%s/valid.json", work);
    CHECK(text && spit(path, text) == 0);
    CHECK(sh("%s check --baseline %s > /dev/null 2>&1", gcsim, path) == 1);
    free(text);
    cJSON_Delete(root);

    expect_refused("unknown_key", unknown_key, "$.cases[1].gpu: unknown key");
    /* A case without expected_throughput_samples_per_s is new, not malformed: --update
     * records it (check_from_scratch.sh). */
    expect_refused("gpus_string", gpus_string, "$.cases[0].gpus: expected an integer");
    expect_refused("gpus_fraction", gpus_fraction, "$.cases[0].gpus: expected an integer");
    expect_refused("same_name", same_name, "$.cases[1].name: \"a\" is also the name of $.cases[0]");
    expect_refused("no_platform_file", no_platform_file,
                   "$.cases[0].platform: \"platforms/no-such-platform.json\" not found");
    expect_refused("bad_collective", bad_collective, "$.cases[1].collective: unknown collective");
    expect_refused("bad_engine", bad_engine, "$.cases[0].engine");
    expect_refused("bad_format", bad_format, "$.format: expected \"gcsim-baseline/1\"");
    expect_refused("cases_object", cases_object, "$.cases: expected an array");
    expect_refused("negative_expected", negative_expected,
                   "$.cases[0].expected_throughput_samples_per_s");
    expect_refused("too_many_gpus", too_many_gpus, "$.cases[1] (b): ");
    expect_refused("bad_compressor", bad_compressor, "$.cases[1] (b): ");
    expect_refused("top_unknown", top_unknown, "$.tolerance: unknown key");
    expect_refused("bad_sharding", bad_sharding, "$.cases[0].sharding: unknown strategy \"zero4\"");
    expect_refused("bad_precision", bad_precision, "$.cases[0].precision: expected fp32, tf32");
    expect_refused("bad_optimizer", bad_optimizer, "$.cases[1].optimizer: expected sgd");
    expect_refused("accum_zero", accum_zero, "$.cases[0].grad_accum");
    expect_refused("ckpt_string", ckpt_string, "$.cases[0].act_ckpt: unknown policy \"yes\"");
    expect_refused("ckpt_number", ckpt_number,
                   "$.cases[0].act_ckpt: expected true, false or a policy");

    /* Not JSON at all: the line and column. */
    snprintf(path, sizeof path, "%s/malformed.json", work);
    CHECK(spit(path, "{\"format\": \"gcsim-baseline/1\",\n \"cases\": [,]}\n") == 0);
    char err[1024];
    snprintf(err, sizeof err, "%s/malformed.err", work);
    CHECK(sh("%s check --baseline %s > /dev/null 2> %s", gcsim, path, err) == 2);
    char *e = slurp(err);
    CHECK_STR_CONTAINS(e, "line 2, column");
    free(e);
    /* No such file. */
    CHECK(sh("%s check --baseline %s/absent.json > /dev/null 2> %s", gcsim, work, err) == 2);
    e = slurp(err);
    CHECK_STR_CONTAINS(e, "absent.json: cannot open");
    free(e);
    CHECK_DONE();
}
