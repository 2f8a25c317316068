/* The baseline file of `gcsim check` (baseline_file.h). */
#include "baseline_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "compressor_file.h"
#include "data_dir.h"
#include "json_strict.h"

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The absolute form of a folder path, with "." and ".." resolved textually (realpath is
 * not in POSIX's base that this project compiles against). */
static int absolute_folder(const char *dir, char *out, size_t size)
{
    char joined[8192];
    if (dir[0] == '/') {
        snprintf(joined, sizeof joined, "%s", dir);
    } else {
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd))
            return -1;
        snprintf(joined, sizeof joined, "%s/%s", cwd, dir);
    }
    size_t len = 0;
    out[0] = '\0';
    char *save = NULL;
    for (char *part = strtok_r(joined, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (strcmp(part, ".") == 0)
            continue;
        if (strcmp(part, "..") == 0) {
            char *last = strrchr(out, '/');
            if (last) {
                *last = '\0';
                len = (size_t)(last - out);
            }
            continue;
        }
        if (len + 1 + strlen(part) + 1 > size)
            return -1;
        out[len++] = '/';
        strcpy(out + len, part);
        len += strlen(part);
    }
    if (len == 0)
        strcpy(out, "/");
    return 0;
}

/* Finds `rel` beside the baseline or in a folder above it. */
static int resolve(const char *baseline_path, const char *rel, char *out, size_t size)
{
    if (rel[0] == '/') {
        if (!is_file(rel) || strlen(rel) >= size)
            return -1;
        strcpy(out, rel);
        return 0;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", baseline_path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    /* Beside the baseline, with the path as the user wrote it (for messages). */
    if ((size_t)snprintf(out, size, "%s/%s", dir, rel) < size && is_file(out))
        return 0;
    /* Then each folder above, up to the root. */
    char abs[4096];
    if (absolute_folder(dir, abs, sizeof abs))
        return -1;
    for (;;) {
        char *last = strrchr(abs, '/');
        if (!last)
            return -1;
        if (last == abs) {
            if (abs[1] == '\0')
                return -1;
            abs[1] = '\0'; /* "/x" -> "/" */
        } else {
            *last = '\0';
        }
        const char *sep = strcmp(abs, "/") == 0 ? "" : "/";
        if ((size_t)snprintf(out, size, "%s%s%s", abs, sep, rel) < size && is_file(out))
            return 0;
    }
}

static const char *const top_keys[] = {"format", "description", "tolerance_pct", "cases", NULL};
static const char *const case_keys[] = {
    "name", "platform", "model", "compressor", "stack", "collective", "gpus", "scaling",
    "batch", "engine", "expected_throughput_samples_per_s", "tolerance_pct", "precision",
    "optimizer", "sharding", "grad_accum", "act_ckpt", NULL};

/* The optional training settings of a case (issue 25): precision, optimizer, sharding,
 * grad_accum, act_ckpt (true, false or a policy), as on gcsim predict's command line. */
static int read_training(const cJSON *item, const char *path, baseline_case *c, json_ctx *ctx)
{
    char text[64];
    c->precision = c->optimizer = -1;
    memset(&c->sharding, 0, sizeof c->sharding);
    if (json_member(item, "precision")) {
        gcsim_precision p;
        if (json_string(item, path, "precision", true, text, sizeof text, ctx))
            return -1;
        if (gcsim_precision_parse(text, &p))
            return gcsim_fail(ctx->err, "%s: %s.precision: expected fp32, tf32, bf16 or fp16, got "
                                        "\"%s\"", ctx->origin, path, text);
        c->precision = (int)p;
    }
    if (json_member(item, "optimizer")) {
        gcsim_optimizer o;
        if (json_string(item, path, "optimizer", true, text, sizeof text, ctx))
            return -1;
        if (gcsim_optimizer_parse(text, &o))
            return gcsim_fail(ctx->err, "%s: %s.optimizer: expected sgd, momentum or adam, got "
                                        "\"%s\"", ctx->origin, path, text);
        c->optimizer = (int)o;
    }
    if (json_member(item, "sharding")) {
        char why[160];
        if (json_string(item, path, "sharding", true, text, sizeof text, ctx))
            return -1;
        if (gcsim_sharding_parse(text, &c->sharding, why, sizeof why))
            return gcsim_fail(ctx->err, "%s: %s.sharding: %s", ctx->origin, path, why);
    }
    long long v = 1;
    if (json_integer(item, path, "grad_accum", false, 1, GCSIM_MAX_GRAD_ACCUM, &v, ctx))
        return -1;
    c->grad_accum = (int)v;
    c->act_ckpt = false;
    memset(&c->act_ckpt_policy, 0, sizeof c->act_ckpt_policy);
    const cJSON *ck = json_member(item, "act_ckpt");
    if (ck && cJSON_IsString(ck)) { /* a policy, as --act-ckpt=POLICY */
        char why[160];
        if (gcsim_act_ckpt_parse(ck->valuestring, &c->act_ckpt_policy, why, sizeof why))
            return gcsim_fail(ctx->err, "%s: %s.act_ckpt: %s", ctx->origin, path, why);
        c->act_ckpt = true;
        return 0;
    }
    if (ck && !cJSON_IsBool(ck))
        return gcsim_fail(ctx->err, "%s: %s.act_ckpt: expected true, false or a policy (full, "
                                    "op, every:N, fraction:P)", ctx->origin, path);
    c->act_ckpt = ck && cJSON_IsTrue(ck);
    return 0;
}

/* A described compressor ("file:PATH.json", docs/compressors.md) as on the command line:
 * PATH is found as a platform file is (beside the baseline, then in each folder above it),
 * and the case keeps the spec the description lowers to, as sweep's list items do; the
 * file's "file:..." member stays as written when --update rewrites the baseline. */
static int read_described_compressor(const baseline *b, const char *path, baseline_case *c,
                                     json_ctx *ctx)
{
    if (!gcsim_compressor_is_file(c->compressor))
        return 0;
    const char *rel = c->compressor + strlen(GCSIM_COMPRESSOR_FILE_PREFIX);
    if (!*rel)
        return gcsim_fail(ctx->err, "%s: %s.compressor: \"file:\" names no file "
                                    "(file:PATH.json)", ctx->origin, path);
    char found[4096];
    if (resolve(b->path, rel, found, sizeof found))
        return gcsim_fail(ctx->err, "%s: %s.compressor: \"%s\" not found beside the baseline "
                                    "nor in any folder above it", ctx->origin, path, rel);
    char arg[4096 + 8];
    snprintf(arg, sizeof arg, "%s%s", GCSIM_COMPRESSOR_FILE_PREFIX, found);
    gcsim_error e = {0};
    if (gcsim_compressor_resolve(arg, c->compressor, sizeof c->compressor, &e))
        return gcsim_fail(ctx->err, "%s: %s.compressor: %s", ctx->origin, path, e.message);
    return 0;
}

static int read_case(const cJSON *item, const char *path, baseline *b, baseline_case *c,
                     json_ctx *ctx)
{
    char text[4096];
    long long v;
    if (json_expect_object(item, path, case_keys, ctx) ||
        json_string(item, path, "name", true, c->name, sizeof c->name, ctx))
        return -1;
    if (!c->name[0])
        return gcsim_fail(ctx->err, "%s: %s.name: empty", ctx->origin, path);
    for (int k = 0; k < b->n_cases; k++)
        if (strcmp(b->cases[k].name, c->name) == 0)
            return gcsim_fail(ctx->err, "%s: %s.name: \"%s\" is also the name of $.cases[%d]",
                              ctx->origin, path, c->name, k);
    const char *files[3] = {"platform", "model", "stack"};
    const char *folders[3] = {"platforms", "models", "platforms/stacks"};
    char *dest[3] = {c->platform, c->model, c->stack};
    c->stack[0] = '\0';
    for (int f = 0; f < 3; f++) {
        bool required = f < 2; /* no "stack": the platform's choice */
        if (json_string(item, path, files[f], required, text, sizeof text, ctx))
            return -1;
        if (!required && !json_member(item, files[f]))
            continue;
        if (!text[0])
            return gcsim_fail(ctx->err, "%s: %s.%s: empty", ctx->origin, path, files[f]);
        /* A file beside the baseline or above it first, so that a baseline resolves as it
         * did before catalog names were accepted; then a catalog name, as on the command
         * line (data_dir.h), which is what lets a baseline outside the repository name
         * "a100-hdr" and be checked by an installed gcsim. */
        if (resolve(b->path, text, dest[f], sizeof c->platform) == 0)
            continue;
        char tried[4096];
        if (gcsim_data_catalog_lookup(folders[f], text, tried, sizeof tried) == 0) {
            snprintf(dest[f], sizeof c->platform, "%s", tried);
            continue;
        }
        if (tried[0])
            return gcsim_fail(ctx->err, "%s: %s.%s: \"%s\" not found beside the baseline nor in "
                                        "any folder above it, nor in the catalog (no %s)",
                              ctx->origin, path, files[f], text, tried);
        return gcsim_fail(ctx->err, "%s: %s.%s: \"%s\" not found beside the baseline nor in "
                                    "any folder above it", ctx->origin, path, files[f], text);
    }
    strcpy(c->compressor, "none");
    if (json_string(item, path, "compressor", false, c->compressor, sizeof c->compressor, ctx) ||
        read_described_compressor(b, path, c, ctx) ||
        json_string(item, path, "collective", true, text, sizeof text, ctx))
        return -1;
    if (gcsim_collective_parse(text, &c->collective))
        return gcsim_fail(ctx->err, "%s: %s.collective: unknown collective \"%s\"", ctx->origin,
                          path, text);
    if (json_integer(item, path, "gpus", true, 1, 1 << 24, &v, ctx))
        return -1;
    c->gpus = (int)v;
    static const char *const scalings[] = {"strong", "weak", NULL};
    int choice;
    if (json_choice(item, path, "scaling", true, scalings, &choice, ctx))
        return -1;
    c->scaling = choice == 0 ? SCALING_STRONG : SCALING_WEAK;
    v = 0;
    if (json_integer(item, path, "batch", false, 1, 1 << 24, &v, ctx))
        return -1;
    c->batch = (int)v;
    static const char *const engines[] = {"analytic", "des", NULL};
    if (json_choice(item, path, "engine", true, engines, &choice, ctx))
        return -1;
    c->engine = choice == 0 ? ENGINE_ANALYTIC : ENGINE_DES;
    /* Absent: a new case, whose value `gcsim check --update` records (docs/planning.md). */
    c->expected_samples_per_s = 0.0;
    if (json_number(item, path, "expected_throughput_samples_per_s", false, 1e-300, 1e300,
                    &c->expected_samples_per_s, ctx))
        return -1;
    c->has_expected = json_member(item, "expected_throughput_samples_per_s") != NULL;
    c->tolerance_pct = -1.0;
    if (json_number(item, path, "tolerance_pct", false, 0.0, 1e6, &c->tolerance_pct, ctx))
        return -1;
    return read_training(item, path, c, ctx);
}

int baseline_load(const char *path, baseline *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    out->tolerance_pct = -1.0;
    if (strlen(path) >= sizeof out->path)
        return gcsim_fail(err, "%s: path too long", path);
    strcpy(out->path, path);
    json_ctx ctx = {path, err};
    if (json_load_file(path, 64L << 20, &ctx, &out->root))
        return -1;
    char format[64];
    if (json_expect_object(out->root, "$", top_keys, &ctx) ||
        json_string(out->root, "$", "format", true, format, sizeof format, &ctx))
        goto fail;
    if (strcmp(format, BASELINE_FORMAT) != 0) {
        gcsim_fail(err, "%s: $.format: expected \"%s\", got \"%s\"", path, BASELINE_FORMAT, format);
        goto fail;
    }
    char description[1024];
    if (json_string(out->root, "$", "description", false, description, sizeof description, &ctx) ||
        json_number(out->root, "$", "tolerance_pct", false, 0.0, 1e6, &out->tolerance_pct, &ctx))
        goto fail;
    const cJSON *cases = json_member(out->root, "cases");
    if (!cJSON_IsArray(cases)) {
        char got[96];
        gcsim_fail(err, "%s: $.cases: expected an array of cases, got %s", path,
                   json_describe(cases, got, sizeof got));
        goto fail;
    }
    int n = cJSON_GetArraySize(cases);
    out->cases = calloc((size_t)(n ? n : 1), sizeof *out->cases);
    if (!out->cases) {
        gcsim_fail(err, "%s: out of memory", path);
        goto fail;
    }
    int k = 0;
    for (const cJSON *item = cases->child; item; item = item->next, k++) {
        char where[64];
        snprintf(where, sizeof where, "$.cases[%d]", k);
        if (read_case(item, where, out, &out->cases[k], &ctx))
            goto fail;
        out->n_cases++;
    }
    return 0;
fail:
    baseline_free(out);
    return -1;
}

void baseline_free(baseline *b)
{
    cJSON_Delete(b->root);
    free(b->cases);
    b->root = NULL;
    b->cases = NULL;
    b->n_cases = 0;
}

/* Shortest of %.15g, %.16g, %.17g that reads back as the same double. */
static void print_number(FILE *out, double v)
{
    char buf[64];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, out);
}

static void print_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* JSON with two-space indentation, the members of an object of scalars on one line each,
 * so a baseline diffs case by case and value by value. */
static void print_value(FILE *out, const cJSON *v, int depth)
{
    if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
        bool object = cJSON_IsObject(v);
        if (!v->child) {
            fputs(object ? "{}" : "[]", out);
            return;
        }
        fputc(object ? '{' : '[', out);
        for (const cJSON *m = v->child; m; m = m->next) {
            fprintf(out, "\n%*s", 2 * (depth + 1), "");
            if (object) {
                print_string(out, m->string);
                fputs(": ", out);
            }
            print_value(out, m, depth + 1);
            if (m->next)
                fputc(',', out);
        }
        fprintf(out, "\n%*s%c", 2 * depth, "", object ? '}' : ']');
    } else if (cJSON_IsString(v)) {
        print_string(out, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        print_number(out, v->valuedouble);
    } else if (cJSON_IsBool(v)) {
        fputs(cJSON_IsTrue(v) ? "true" : "false", out);
    } else {
        fputs("null", out);
    }
}

int baseline_pin_stack(baseline *b, int k, const char *name, gcsim_error *err)
{
    cJSON *cases = cJSON_GetObjectItemCaseSensitive(b->root, "cases");
    cJSON *item = cJSON_GetArrayItem(cases, k);
    if (!item || k < 0 || k >= b->n_cases)
        return gcsim_fail_internal(err, "%s: baseline_pin_stack: no case %d", b->path, k);
    if (cJSON_GetObjectItemCaseSensitive(item, "stack"))
        return 0;
    /* Beside the compressor the stack runs (else after the model), where a reader looks
     * for it: the members after that place are detached, the new one added, and they are
     * appended again in their order (cJSON has no insert-after for object members). */
    cJSON *tail[32];
    int n_tail = 0, at = 0, place = -1;
    for (const cJSON *m = item->child; m; m = m->next, at++)
        if (strcmp(m->string, "compressor") == 0 || (place < 0 && strcmp(m->string, "model") == 0))
            place = at + 1;
    at = 0;
    for (cJSON *m = item->child, *next; m && place >= 0; m = next, at++) {
        next = m->next;
        if (at >= place && n_tail < (int)(sizeof tail / sizeof tail[0]))
            tail[n_tail++] = cJSON_DetachItemViaPointer(item, m);
    }
    cJSON *v = cJSON_CreateString(name);
    bool added = v && cJSON_AddItemToObject(item, "stack", v);
    for (int t = 0; t < n_tail; t++)
        cJSON_AddItemToArray(item, tail[t]); /* keeps the member's key */
    if (!added) {
        cJSON_Delete(v);
        return gcsim_fail(err, "%s: out of memory", b->path);
    }
    snprintf(b->cases[k].stack, sizeof b->cases[k].stack, "%s", name);
    return 1;
}

int baseline_rewrite(baseline *b, const double *predicted, const unsigned char *update,
                     gcsim_error *err)
{
    cJSON *cases = cJSON_GetObjectItemCaseSensitive(b->root, "cases");
    int k = 0;
    for (cJSON *item = cases->child; item; item = item->next, k++) {
        if (!update[k])
            continue;
        cJSON *v = cJSON_GetObjectItemCaseSensitive(item, "expected_throughput_samples_per_s");
        if (v)
            cJSON_SetNumberValue(v, predicted[k]);
        else if (!cJSON_AddNumberToObject(item, "expected_throughput_samples_per_s", predicted[k]))
            return gcsim_fail(err, "%s: out of memory", b->path);
        b->cases[k].expected_samples_per_s = predicted[k];
        b->cases[k].has_expected = true;
    }
    atomic_file f;
    char msg[512];
    if (atomic_file_open(&f, b->path, msg, sizeof msg))
        return gcsim_fail(err, "%s", msg);
    print_value(f.stream, b->root, 0);
    fputc('\n', f.stream);
    if (atomic_file_commit(&f, msg, sizeof msg))
        return gcsim_fail(err, "%s", msg);
    return 0;
}
