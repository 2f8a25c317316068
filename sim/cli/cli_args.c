#define _XOPEN_SOURCE 700 /* realpath */
#include "cli_args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inputs.h"
#include "plain_number.h"
#include "stack.h"

/* One parser of plain decimal numbers for options and configuration (plain_number.h). */
bool cli_parse_int(const char *text, long long min, long long max, long long *out)
{
    return gcsim_plain_int(text, min, max, out);
}

bool cli_parse_double(const char *text, double min, double max, double *out)
{
    return gcsim_plain_double(text, min, max, out);
}

static int refuse(const char *cmd, const char *name, const char *what, const char *arg)
{
    fprintf(stderr, "gcsim %s: %s: expected %s, got \"%s\"\n", cmd, name, what, arg);
    return -1;
}

int cli_int_option(const char *cmd, const char *name, const char *arg, long long min,
                   long long max, const char *what, long long *out)
{
    return cli_parse_int(arg, min, max, out) ? 0 : refuse(cmd, name, what, arg);
}

int cli_num_option(const char *cmd, const char *name, const char *arg, double min, double max,
                   const char *what, double *out)
{
    return cli_parse_double(arg, min, max, out) ? 0 : refuse(cmd, name, what, arg);
}

int cli_format_option(const char *cmd, const char *arg, report_format *out)
{
    return report_format_parse(arg, out) ? refuse(cmd, "--format", "table, json or csv", arg) : 0;
}

/* The argv word of the option getopt_long has just returned: the one before optind, or
 * the one before that when its value was the separate next word. */
static int option_word(char **argv)
{
    return optarg && optind >= 2 && optarg == argv[optind - 1] ? optind - 2 : optind - 1;
}

int cli_getopt_long(int argc, char **argv, const char *shortopts,
                    const struct option *longopts, const char *command)
{
    int index = -1;
    int ch = getopt_long(argc, argv, shortopts, longopts, &index);
    if (ch == -1 || ch == '?' || ch == ':' || index < 0)
        return ch;
    int w = option_word(argv);
    const char *word = argv[w];
    const char *name = longopts[index].name;
    size_t len = strcspn(word + 2, "=");
    if (strncmp(word, "--", 2) == 0 && len == strlen(name) && strncmp(word + 2, name, len) == 0)
        return ch;
    fprintf(stderr, "gcsim %s: \"%.*s\" is not an option name (names are not "
                    "abbreviated: --%s?)\n", command, (int)(len + 2), word, name);
    optind = w + 1;
    return '?';
}

int cli_option_error(const char *command, int ch, char **argv)
{
    if (ch == ':')
        fprintf(stderr, "gcsim %s: %s needs a value\n", command, argv[optind - 1]);
    else
        fprintf(stderr, "gcsim %s: unknown option \"%s\" (see gcsim %s --help)\n", command,
                argv[optind - 1], command);
    return -1;
}

static bool takes_value(const struct option *own, int ch)
{
    for (const struct option *o = own; o->name; o++)
        if (o->val == ch && o->has_arg != no_argument)
            return true;
    return false;
}

int cli_values_once(const char *command, int ch, const struct option *own, const int *lists,
                    cli_seen *seen, char **argv)
{
    if (!takes_value(own, ch))
        return 0;
    for (int k = 0; lists && lists[k]; k++)
        if (lists[k] == ch)
            return 0;
    for (int k = 0; k < seen->n; k++) {
        if (seen->ch[k] != ch)
            continue;
        const char *word = argv[option_word(argv)];
        fprintf(stderr, "gcsim %s: %.*s given twice (it takes one value; a second one replaced "
                        "the first silently)\n",
                command, (int)strcspn(word, "="), word);
        return -1;
    }
    if (seen->n == CLI_SEEN_MAX)
        abort(); /* more value options than any command has */
    seen->ch[seen->n++] = ch;
    return 0;
}

/* The folder of path, resolved (links, "." and ".."), then "/" and its last component;
 * false when the folder cannot be resolved. */
static bool resolved_name(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    size_t dir_len = slash ? (size_t)(slash - path) : 1;
    if (dir_len >= sizeof dir)
        return false;
    if (slash)
        memcpy(dir, slash == path ? "/" : path, slash == path ? 1 : dir_len);
    else
        dir[0] = '.';
    dir[slash == path ? 1 : dir_len] = '\0';
    if (!realpath(dir, real))
        return false;
    int n = snprintf(out, size, "%s/%s", real, slash ? slash + 1 : path);
    return n > 0 && (size_t)n < size;
}

bool cli_same_output(const char *a, const char *b)
{
    if (!a || !b)
        return false;
    struct stat sa, sb;
    bool a_exists = stat(a, &sa) == 0, b_exists = stat(b, &sb) == 0;
    if ((a_exists && !S_ISREG(sa.st_mode)) || (b_exists && !S_ISREG(sb.st_mode)))
        return false;
    if (strcmp(a, b) == 0)
        return true;
    if (a_exists && b_exists)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ra[PATH_MAX + NAME_MAX + 2], rb[PATH_MAX + NAME_MAX + 2];
    return resolved_name(a, ra, sizeof ra) && resolved_name(b, rb, sizeof rb) &&
           strcmp(ra, rb) == 0;
}

int cli_stack_option(const char *command, const char *arg, const char **stack)
{
    if (!*arg) {
        fprintf(stderr, "gcsim %s: --stack: an empty name (leave --stack out for the platform's "
                        "stack)\n",
                command);
        return -1;
    }
    *stack = arg;
    return 0;
}

extern const char gcsim_help__fabric[], gcsim_help__goodput[], gcsim_help__variability[];

void cli_help(FILE *out, const char *text, const char *const *values)
{
    static const char *const shared[] = {
        "@FABRIC@", gcsim_help__fabric, "@GOODPUT@", gcsim_help__goodput,
        "@VARIABILITY@", gcsim_help__variability, "@DEFAULT_PLATFORM@", DEFAULT_PLATFORM_NAME,
        "@DEFAULT_MODEL@", DEFAULT_MODEL_NAME, "@DEFAULT_STACK@", GCSIM_DEFAULT_STACK, NULL};
    for (const char *at; (at = strchr(text, '@')); ) {
        const char *end = strchr(at + 1, '@'), *value = NULL;
        size_t len = end ? (size_t)(end - at + 1) : 0;
        for (const char *const *v = shared; len && !value && *v; v += 2)
            value = strlen(v[0]) == len && !strncmp(at, v[0], len) ? v[1] : NULL;
        for (const char *const *v = values; len && values && !value && *v; v += 2)
            value = strlen(v[0]) == len && !strncmp(at, v[0], len) ? v[1] : NULL;
        fwrite(text, 1, (size_t)(at - text) + (value ? 0 : 1), out);
        if (value)
            cli_help(out, value, NULL);
        text = value ? at + len : at + 1;
    }
    fputs(text, out);
}
