/* The files of one run, checked against each other before any work (cli_files.h). */
#include "cli_files.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_args.h"
#include "data_dir.h"
#include "platform.h"
#include "report_emit.h"

void cli_files_init(cli_files *f, const char *command)
{
    *f = (cli_files){.command = command};
}

static void add(cli_files *f, const char *option, const char *given, const char *path,
                bool output, bool probe)
{
    /* An empty input is the loader's to refuse; an empty output, the writability check's. */
    if (!path || (!*path && !output))
        return;
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 16;
        cli_file *grown = realloc(f->files, (size_t)cap * sizeof *grown);
        if (!grown) {
            f->out_of_memory = true;
            return;
        }
        f->files = grown;
        f->cap = cap;
    }
    cli_file *e = &f->files[f->n];
    e->option = strdup(option);
    e->given = strdup(given);
    e->path = strdup(path);
    e->output = output;
    e->probe = probe;
    if (!e->option || !e->given || !e->path) {
        free(e->option);
        free(e->given);
        free(e->path);
        f->out_of_memory = true;
        return;
    }
    f->n++;
}

void cli_files_input(cli_files *f, const char *option, const char *path)
{
    add(f, option, path, path, false, false);
}

void cli_files_output(cli_files *f, const char *option, const char *path)
{
    add(f, option, path, path, true, true);
}

void cli_files_later_output(cli_files *f, const char *option, const char *path)
{
    add(f, option, path, path, true, false);
}

/* A name of the catalog folder resolved as the command line resolves it (data_dir.h). */
static void add_catalog(cli_files *f, const char *option, const char *folder,
                        const char *name, char *resolved, size_t size)
{
    if (!name || !*name)
        return;
    if (gcsim_data_catalog_path(folder, name, resolved, size) != 0)
        snprintf(resolved, size, "%s", name);
    add(f, option, name, resolved, false, false);
}

void cli_files_model(cli_files *f, const char *option, const char *name)
{
    char path[PATH_MAX];
    add_catalog(f, option, "models", name, path, sizeof path);
}

void cli_files_stack(cli_files *f, const char *option, const char *name)
{
    char path[PATH_MAX];
    add_catalog(f, option, "platforms/stacks", name, path, sizeof path);
}

void cli_files_platform(cli_files *f, const char *option, const char *name)
{
    char path[PATH_MAX];
    add_catalog(f, option, "platforms", name, path, sizeof path);
    if (!name || !*name)
        return;
    /* The files the platform names are inputs too. A platform that cannot be read is
     * reported by the command's own loader, with its context. */
    gcsim_platform *pf = malloc(sizeof *pf);
    gcsim_error err;
    if (!pf || gcsim_platform_load(path, pf, &err) != 0) {
        free(pf);
        return;
    }
    char what[256];
    snprintf(what, sizeof what, "the gpu.codec_profile of %s", option);
    add(f, what, pf->gpu.codec_profile, pf->gpu.codec_profile, false, false);
    snprintf(what, sizeof what, "the stack of %s", option);
    cli_files_stack(f, what, pf->stack);
    free(pf);
}

static bool is_regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int refuse(const cli_files *f, const cli_file *out, const cli_file *other)
{
    fprintf(stderr, "gcsim %s: %s and %s name the same file, %s", f->command, out->option,
            other->option, out->given);
    if (strcmp(out->given, other->given) != 0)
        fprintf(stderr, " (%s gives it as %s)", other->option, other->given);
    if (other->output)
        fprintf(stderr, ": one output would replace the other\n");
    else
        fprintf(stderr, ": the output would replace the input it reads (write it elsewhere)\n");
    return -1;
}

static int check(const cli_files *f)
{
    if (f->out_of_memory) {
        fprintf(stderr, "gcsim %s: out of memory\n", f->command);
        return -1;
    }
    /* Outputs against each other, in the order the command listed them. */
    for (int o = 0; o < f->n; o++) {
        if (!f->files[o].output)
            continue;
        for (int k = 0; k < o; k++)
            if (f->files[k].output && *f->files[o].path &&
                cli_same_output(f->files[k].path, f->files[o].path))
                return refuse(f, &f->files[k], &f->files[o]);
    }
    /* Every output against every input that exists. */
    for (int o = 0; o < f->n; o++) {
        if (!f->files[o].output)
            continue;
        for (int k = 0; k < f->n; k++)
            if (!f->files[k].output && is_regular_file(f->files[k].path) &&
                cli_same_output(f->files[o].path, f->files[k].path))
                return refuse(f, &f->files[o], &f->files[k]);
    }
    /* Whether each can be written, before the work whose result it holds. */
    for (int o = 0; o < f->n; o++)
        if (f->files[o].probe &&
            report_file_usable(f->files[o].path, f->command,
                               strcmp(f->files[o].option, "--output") == 0 ? NULL
                                                                          : f->files[o].option))
            return -1;
    return 0;
}

int cli_files_check(cli_files *f)
{
    int rc = check(f);
    for (int k = 0; k < f->n; k++) {
        free(f->files[k].option);
        free(f->files[k].given);
        free(f->files[k].path);
    }
    free(f->files);
    *f = (cli_files){.command = f->command};
    return rc;
}
