/* `gcsim check` on a temporary copy of the committed baseline and its inputs: unchanged
 * inputs exit 0; with one platform's NIC bandwidth cut tenfold it exits 1 and names exactly
 * the cases that use that NIC (that platform, more GPUs than one node holds), and no other;
 * --tolerance 100 forgives any slowdown (throughput stays positive, so drift > -100%);
 * --update rewrites the copy so that it checks clean again: the drifted cases' expected
 * values drop, the others move by no more than the tolerance (to the current prediction). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>

#include "check.h"
#include "planning_test.h"

#define EDITED_PLATFORM "platforms/cloud-v100-25gbe.json"

static const char *gcsim, *src, *work, *engine_filter;

static cJSON *load_json(const char *path)
{
    char *text = slurp(path);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    return j;
}

/* Copies the baseline and every file it names into the work folder, same relative paths. */
static int copy_inputs(cJSON *baseline)
{
    if (sh("mkdir -p %s/platforms %s/models && cp %s/tests/planning/baseline.json %s/",
           work, work, src, work))
        return -1;
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(baseline, "cases"))
    {
        const char *keys[2] = {"platform", "model"};
        for (int k = 0; k < 2; k++) {
            const char *rel = cJSON_GetObjectItem(c, keys[k])->valuestring;
            if (sh("cp %s/%s %s/%s", src, rel, work, rel))
                return -1;
        }
    }
    return 0;
}

/* Divides the NIC bandwidth ("25Gbps") of the copied platform by ten; returns its
 * gpus_per_node. */
static int slow_down_nic(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, EDITED_PLATFORM);
    cJSON *p = load_json(path);
    CHECK(p != NULL);
    if (!p)
        return 0;
    cJSON *nic = cJSON_GetObjectItem(p, "nic");
    const char *bw = cJSON_GetStringValue(cJSON_GetObjectItem(nic, "bandwidth"));
    CHECK(bw != NULL);
    char *unit = NULL;
    double value = bw ? strtod(bw, &unit) : 0;
    char slower[64];
    snprintf(slower, sizeof slower, "%.17g%s", value / 10.0, unit ? unit : "");
    fprintf(stderr, "%s: nic.bandwidth %s -> %s\n", EDITED_PLATFORM, bw ? bw : "?", slower);
    cJSON_ReplaceItemInObject(nic, "bandwidth", cJSON_CreateString(slower));
    int per_node = cJSON_GetObjectItem(p, "gpus_per_node")->valueint;
    char *text = cJSON_Print(p);
    CHECK(text && spit(path, text) == 0);
    free(text);
    cJSON_Delete(p);
    return per_node;
}

/* The meta of a check's JSON output against what the test knows of the run. */
static void check_meta(const char *json_path, int n_cases, int n_evaluated, int n_drifted,
                       bool update, bool rewritten, double tolerance_pct)
{
    cJSON *doc = load_json(json_path);
    cJSON *meta = cJSON_GetObjectItem(doc, "meta");
    CHECK(meta != NULL);
    if (!meta) {
        cJSON_Delete(doc);
        return;
    }
    CHECK(cJSON_GetObjectItem(meta, "cases")->valueint == n_cases);
    CHECK(cJSON_GetObjectItem(meta, "cases_evaluated")->valueint == n_evaluated);
    CHECK(cJSON_GetObjectItem(meta, "cases_drifted")->valueint == n_drifted);
    CHECK(cJSON_GetObjectItem(meta, "cases_recorded")->valueint == 0);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(meta, "update")) == update);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(meta, "baseline_rewritten")) == rewritten);
    CHECK(cJSON_GetObjectItem(meta, "tolerance_pct")->valuedouble == tolerance_pct);
    cJSON *base = cJSON_GetObjectItem(meta, "baseline");
    CHECK_STR_CONTAINS(cJSON_GetStringValue(cJSON_GetObjectItem(base, "file")), "baseline.json");
    CHECK(cJSON_GetObjectItem(base, "tolerance_pct")->valuedouble == tolerance_pct);
    cJSON *filter = cJSON_GetObjectItem(meta, "engine_filter");
    if (engine_filter)
        CHECK(cJSON_IsString(filter) && strcmp(filter->valuestring, engine_filter) == 0);
    else
        CHECK(cJSON_IsNull(filter));
    cJSON_Delete(doc);
}

static bool selected(const cJSON *c)
{
    return !engine_filter ||
           strcmp(cJSON_GetObjectItem(c, "engine")->valuestring, engine_filter) == 0;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: test_check_drift GCSIM SOURCE_DIR WORK_DIR [ENGINE]\n");
        return 2;
    }
    gcsim = argv[1];
    src = argv[2];
    work = argv[3];
    engine_filter = argc == 5 ? argv[4] : NULL;
    char filter[64] = "";
    if (engine_filter)
        snprintf(filter, sizeof filter, "--engine %s", engine_filter);
    char baseline_path[1024], err_path[1024], out_path[1024];
    snprintf(baseline_path, sizeof baseline_path, "%s/baseline.json", work);
    snprintf(err_path, sizeof err_path, "%s/check.err", work);
    snprintf(out_path, sizeof out_path, "%s/check.csv", work);

    CHECK(fresh_dir(work) == 0);
    char committed[1024];
    snprintf(committed, sizeof committed, "%s/tests/planning/baseline.json", src);
    cJSON *original = load_json(committed);
    CHECK(original != NULL);
    if (!original)
        CHECK_DONE();
    CHECK(copy_inputs(original) == 0);

    /* Unchanged inputs: exit 0. */
    CHECK(sh("%s check --baseline %s %s > %s 2> %s", gcsim, baseline_path, filter, out_path,
             err_path) == 0);

    int per_node = slow_down_nic();
    CHECK(per_node > 0);
    CHECK(sh("%s check --baseline %s %s --format csv > %s 2> %s", gcsim, baseline_path, filter,
             out_path, err_path) == 1);
    char *err = slurp(err_path), *csv = slurp(out_path);
    CHECK(err && csv);
    int n_expected = 0, n_selected = 0;
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(original, "cases"))
    {
        if (!selected(c))
            continue;
        n_selected++;
        const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
        bool uses_nic = strcmp(cJSON_GetObjectItem(c, "platform")->valuestring, EDITED_PLATFORM) == 0 &&
                        cJSON_GetObjectItem(c, "gpus")->valueint > per_node;
        n_expected += uses_nic;
        /* Named on stderr as " name (" and in the table with status DRIFT, or not at all. */
        char named[256], row_drift[256], row_ok[256];
        snprintf(named, sizeof named, " %s (", name);
        snprintf(row_drift, sizeof row_drift, "\n%s,", name);
        bool on_stderr = err && strstr(err, named);
        if (on_stderr != uses_nic)
            fprintf(stderr, "case %s: uses the NIC %d, named %d\n", name, uses_nic, on_stderr);
        CHECK(on_stderr == uses_nic);
        const char *row = csv ? strstr(csv, row_drift) : NULL;
        CHECK(row != NULL);
        if (row) {
            const char *end = strchr(row + 1, '\n');
            size_t len = end ? (size_t)(end - row) : strlen(row);
            snprintf(row_ok, sizeof row_ok, "%.*s", (int)len, row);
            CHECK_STR_CONTAINS(row_ok, uses_nic ? ",DRIFT" : ",ok");
        }
    }
    char summary[128];
    snprintf(summary, sizeof summary, "%d of %d cases drifted beyond tolerance", n_expected,
             n_selected);
    CHECK_STR_CONTAINS(err, summary);
    /* The committed baseline must keep some cases of each kind for this test to mean
     * anything. */
    CHECK(n_expected > 0 && n_expected < n_selected);
    free(err);
    free(csv);

    /* The JSON's meta counts the same cases (docs/schema.md). */
    int n_cases = cJSON_GetArraySize(cJSON_GetObjectItem(original, "cases"));
    double file_tolerance_pct = cJSON_GetObjectItem(original, "tolerance_pct")->valuedouble;
    CHECK(sh("%s check --baseline %s %s --format json > %s 2> %s", gcsim, baseline_path, filter,
             out_path, err_path) == 1);
    check_meta(out_path, n_cases, n_selected, n_expected, false, false, file_tolerance_pct);

    /* No slowdown reaches -100%. */
    CHECK(sh("%s check --baseline %s %s --tolerance 100 > %s 2> %s", gcsim, baseline_path,
             filter, out_path, err_path) == 0);

    /* --update: exit 0, then clean; only the drifted cases changed. */
    CHECK(sh("%s check --baseline %s %s --update --format json > %s 2> %s", gcsim,
             baseline_path, filter, out_path, err_path) == 0);
    check_meta(out_path, n_cases, n_selected, n_expected, true, true, file_tolerance_pct);
    CHECK(sh("%s check --baseline %s %s > %s 2> %s", gcsim, baseline_path, filter, out_path,
             err_path) == 0);
    double tolerance_pct = cJSON_GetObjectItem(original, "tolerance_pct")->valuedouble;
    cJSON *updated = load_json(baseline_path);
    CHECK(updated != NULL);
    if (updated) {
        cJSON *a = cJSON_GetObjectItem(original, "cases")->child;
        cJSON *b = cJSON_GetObjectItem(updated, "cases")->child;
        for (; a && b; a = a->next, b = b->next) {
            double ea = cJSON_GetObjectItem(a, "expected_throughput_samples_per_s")->valuedouble;
            double eb = cJSON_GetObjectItem(b, "expected_throughput_samples_per_s")->valuedouble;
            bool uses_nic = strcmp(cJSON_GetObjectItem(a, "platform")->valuestring, EDITED_PLATFORM) == 0 &&
                            cJSON_GetObjectItem(a, "gpus")->valueint > per_node;
            CHECK(strcmp(cJSON_GetObjectItem(a, "name")->valuestring,
                         cJSON_GetObjectItem(b, "name")->valuestring) == 0);
            if (uses_nic && selected(a))
                CHECK(eb < ea); /* slower network, lower throughput */
            else if (selected(a))
                CHECK(fabs(eb - ea) <= tolerance_pct / 100.0 * ea); /* within tolerance */
            else
                CHECK(ea == eb); /* not evaluated, not touched */
        }
        CHECK(!a && !b);
        /* Everything but the expected values is kept. */
        CHECK_STR_CONTAINS(cJSON_GetObjectItem(updated, "description")->valuestring, "baseline");
        CHECK(cJSON_GetObjectItem(updated, "tolerance_pct")->valuedouble ==
              cJSON_GetObjectItem(original, "tolerance_pct")->valuedouble);
        cJSON_Delete(updated);
    }
    cJSON_Delete(original);
    CHECK_DONE();
}
