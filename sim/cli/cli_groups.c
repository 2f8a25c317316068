/* The option groups' table and dispatcher (cli_groups.h). A new group: its parser file,
 * one slot in cli_groups, one row in `groups` below. */
#include "cli_groups.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli_args.h"

typedef struct {
    const struct option *longopts; /* {0}-terminated; each value option takes one value */
    void *(*slot)(const cli_groups *g); /* where the command keeps its values (NULL: none) */
    void (*init)(void *values);
    int (*option)(const char *cmd, int ch, const char *arg, void *values);
    int (*finish)(const char *cmd, void *values);
} group;

/* variability: every option takes one value (a second one replaced the first silently) */
static const struct option variability_opts[] = {CLI_VARIABILITY_LONGOPTS, {0, 0, 0, 0}};
static void *variability_slot(const cli_groups *g) { return g->variability; }
static void variability_init(void *v) { cli_variability_init(v); }
static int variability_option(const char *cmd, int ch, const char *arg, void *v)
{
    return cli_variability_option(cmd, ch, arg, v);
}
static int variability_finish(const char *cmd, void *v) { return cli_variability_finish(cmd, v); }

/* goodput: the flag may repeat; each value option takes one value */
static const struct option goodput_opts[] = {CLI_GOODPUT_LONGOPTS, {0, 0, 0, 0}};
static void *goodput_slot(const cli_groups *g) { return g->goodput; }
static void goodput_init(void *v) { goodput_options_init(v); }
static int goodput_option(const char *cmd, int ch, const char *arg, void *v)
{
    return cli_goodput_option(cmd, ch, arg, v);
}
static int goodput_finish(const char *cmd, void *v) { return cli_goodput_check(cmd, v); }

static const struct option fabric_opts[] = {CLI_FABRIC_LONGOPTS, {0, 0, 0, 0}};
static void *fabric_slot(const cli_groups *g) { return g->fabric; }
static void fabric_init(void *v) { *(cli_fabric_options *)v = (cli_fabric_options)CLI_FABRIC_INIT; }
static int fabric_option(const char *cmd, int ch, const char *arg, void *v)
{
    return cli_fabric_option(cmd, ch, arg, v);
}
static int fabric_finish(const char *cmd, void *v) { return cli_fabric_check(cmd, v); }

static const group groups[CLI_GROUPS_COUNT] = {
    {variability_opts, variability_slot, variability_init,
     variability_option, variability_finish},
    {goodput_opts, goodput_slot, goodput_init, goodput_option,
     goodput_finish},
    {fabric_opts, fabric_slot, fabric_init, fabric_option,
     fabric_finish},
};

static void *values(const cli_groups *g, int k)
{
    return groups[k].slot(g);
}

static int owns(int k, int ch)
{
    for (const struct option *o = groups[k].longopts; o->name; o++)
        if (o->val == ch)
            return 1;
    return 0;
}

const struct option *cli_groups_begin(cli_groups *g, const struct option *own)
{
    size_t n = 0;
    for (; own[n].name; n++) {
        if (n + 1 >= CLI_GROUPS_MAX_LONGOPTS)
            abort();
        g->longopts[n] = own[n];
    }
    for (int k = 0; k < CLI_GROUPS_COUNT; k++) {
        g->seen[k] = (cli_seen){0};
        if (!values(g, k))
            continue;
        groups[k].init(values(g, k));
        for (const struct option *o = groups[k].longopts; o->name; o++) {
            if (n + 1 >= CLI_GROUPS_MAX_LONGOPTS)
                abort();
            g->longopts[n++] = *o;
        }
    }
    g->longopts[n] = (struct option){0, 0, 0, 0};
    return g->longopts;
}

int cli_groups_option(cli_groups *g, const char *cmd, int ch, const char *arg, char **argv)
{
    for (int k = 0; k < CLI_GROUPS_COUNT; k++) {
        if (!values(g, k) || !owns(k, ch))
            continue;
        if (cli_values_once(cmd, ch, groups[k].longopts, NULL, &g->seen[k], argv) ||
            groups[k].option(cmd, ch, arg, values(g, k)))
            return -1;
        return 0;
    }
    return 1;
}

int cli_groups_finish(cli_groups *g, const char *cmd)
{
    for (int k = 0; k < CLI_GROUPS_COUNT; k++)
        if (values(g, k) && groups[k].finish(cmd, values(g, k)))
            return -1;
    return 0;
}
