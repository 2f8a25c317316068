#define _XOPEN_SOURCE 700 /* realpath */
/* Patching a platform JSON tree; see platform_patch.h. */
#include "platform_patch.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "platform.h"

/* Sets object[key] to a string, replacing the member where it is (its position kept) or
 * appending it. */
static int set_string(cJSON *object, const char *key, const char *value)
{
    cJSON *item = cJSON_CreateString(value);
    if (!item)
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(object, key))
        return cJSON_ReplaceItemInObjectCaseSensitive(object, key, item) ? 0 : -1;
    if (!cJSON_AddItemToObject(object, key, item)) {
        cJSON_Delete(item);
        return -1;
    }
    return 0;
}

/* The object holding the last component of a dotted path, and that component. */
static cJSON *parent_of(cJSON *root, const char *path, char *leaf, size_t leaf_size)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    cJSON *node = root;
    char *part = buf;
    for (char *dot = strchr(part, '.'); dot; dot = strchr(part, '.')) {
        *dot = '\0';
        node = cJSON_GetObjectItemCaseSensitive(node, part);
        if (!cJSON_IsObject(node))
            return NULL;
        part = dot + 1;
    }
    snprintf(leaf, leaf_size, "%s", part);
    return node;
}

/* The folder of a path, resolved ("." for a bare name); false when it cannot be. */
static bool real_folder(const char *path, char *out)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + (slash == path) : 1;
    if (n >= sizeof dir)
        return false;
    memcpy(dir, slash ? path : ".", n);
    dir[n] = '\0';
    return realpath(dir, out) != NULL;
}

/* A file the platform names relative to its own folder (gpu.codec_profile, a stack file)
 * would not resolve from another folder: a platform written elsewhere names it by its
 * absolute path. (A profile is read when the platform loads, so a written platform whose
 * profile did not resolve would not load.) */
static int keep_relative_file(cJSON *object, const char *key, const char *base_origin,
                              const char *out_origin)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    if (!cJSON_IsString(v) || v->valuestring[0] == '/' || !out_origin ||
        (strcmp(key, "stack") == 0 && !strchr(v->valuestring, '/') &&
         !strstr(v->valuestring, ".json")))
        return 0;
    char base_dir[PATH_MAX], out_dir[PATH_MAX], file[2 * PATH_MAX], real[PATH_MAX];
    if (!real_folder(base_origin, base_dir) || !real_folder(out_origin, out_dir) ||
        strcmp(base_dir, out_dir) == 0)
        return 0;
    snprintf(file, sizeof file, "%s/%s", base_dir, v->valuestring);
    if (!realpath(file, real))
        return 0; /* missing: the written platform is refused as the base would be */
    return set_string(object, key, real);
}

/* cJSON indents with tabs and puts one after each colon; platform files use two spaces
 * and one. A raw tab cannot occur inside a JSON string (it is escaped), so every raw tab
 * is layout. A tab becomes at most two spaces. */
char *platform_patch_print(const cJSON *root)
{
    char *printed = cJSON_Print(root);
    if (!printed)
        return NULL;
    size_t len = strlen(printed), tabs = 0;
    for (size_t i = 0; i < len; i++)
        tabs += printed[i] == '\t';
    char *text = malloc(len + tabs + 2);
    if (!text) {
        cJSON_free(printed);
        return NULL;
    }
    size_t o = 0;
    bool indent = true;
    for (size_t i = 0; i < len; i++) {
        char c = printed[i];
        if (c == '\t') {
            memcpy(text + o, indent ? "  " : " ", indent ? 2 : 1);
            o += indent ? 2 : 1;
            continue;
        }
        indent = c == '\n';
        text[o++] = c;
    }
    text[o++] = '\n';
    text[o] = '\0';
    cJSON_free(printed);
    return text;
}

int platform_patch_apply(const char *base_text, const char *base_origin,
                         const platform_patch *patches, int n_patches, const char *out_origin,
                         char **out, gcsim_error *err)
{
    *out = NULL;
    json_ctx ctx = {base_origin, err};
    cJSON *root = NULL;
    if (json_parse_document(base_text, &ctx, &root))
        return -1;
    int rc = -1;
    cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
    if (!sources) {
        sources = cJSON_AddObjectToObject(root, "sources");
        if (!sources) {
            gcsim_fail(err, "%s: out of memory", out_origin);
            goto done;
        }
    } else if (!cJSON_IsObject(sources)) {
        gcsim_fail(err, "%s: $.sources: expected an object", base_origin);
        goto done;
    }
    if (keep_relative_file(cJSON_GetObjectItemCaseSensitive(root, "gpu"), "codec_profile",
                           base_origin, out_origin) ||
        keep_relative_file(root, "stack", base_origin, out_origin)) {
        gcsim_fail(err, "%s: out of memory", out_origin);
        goto done;
    }
    for (int i = 0; i < n_patches; i++) {
        const platform_patch *pt = &patches[i];
        if (pt->value) {
            char leaf[128];
            cJSON *parent = parent_of(root, pt->path, leaf, sizeof leaf);
            if (!parent) {
                gcsim_fail(err, "%s: $.%s: no object to hold it", base_origin, pt->path);
                goto done;
            }
            if (set_string(parent, leaf, pt->value)) {
                gcsim_fail(err, "%s: out of memory", out_origin);
                goto done;
            }
        }
        if (set_string(sources, pt->path, pt->source)) {
            gcsim_fail(err, "%s: out of memory", out_origin);
            goto done;
        }
    }
    char *text = platform_patch_print(root);
    if (!text) {
        gcsim_fail(err, "%s: out of memory", out_origin);
        goto done;
    }
    gcsim_platform check;
    if (gcsim_platform_parse(text, out_origin, &check, err)) {
        /* The patches are gcsim's own values: a file that does not load is gcsim's fault. */
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        gcsim_fail_internal(err, "internal error: the patched platform does not load: %.900s",
                            why);
        free(text);
        goto done;
    }
    *out = text;
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}
