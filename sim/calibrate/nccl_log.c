/* Reading nccl-tests all_reduce_perf output; see nccl_log.h for what is accepted. */
#include "nccl_log.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 16

/* Column names of the 13-column layout, for messages; the 12-column layout lacks "root". */
static const char *const column_names[13] = {
    "size",           "count",           "type",          "redop",
    "root",           "out-of-place time", "out-of-place algbw", "out-of-place busbw",
    "out-of-place #wrong", "in-place time",  "in-place algbw",   "in-place busbw",
    "in-place #wrong"};

typedef struct {
    const char *origin;
    gcsim_error *err;
    int line;
    nccl_log *log;
    unsigned char *rank_seen; /* NCCL_LOG_MAX_RANKS flags */
    int max_rank, first_rank_line;
    char **hosts;
    int n_hosts, hosts_cap;
    int rows_cap;
    int first_row_line;
} parser;

static int fail_line(parser *p, const char *fmt, const char *detail)
{
    return gcsim_fail(p->err, "%s: line %d: %s%s", p->origin, p->line, fmt, detail ? detail : "");
}

/* Splits a line in place on blanks; returns the number of tokens (up to MAX_TOKENS + 1, so
 * "too many" can be told apart). */
static int tokenize(char *s, char **tok)
{
    int n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t')
            *s++ = '\0';
        if (!*s)
            break;
        if (n <= MAX_TOKENS)
            tok[n] = s;
        n++;
        while (*s && *s != ' ' && *s != '\t')
            s++;
    }
    return n > MAX_TOKENS ? MAX_TOKENS + 1 : n;
}

static const char *column_name(const nccl_log *log, int index)
{
    if (log->columns == 12 && index >= 4)
        index++;
    return index < 13 ? column_names[index] : "?";
}

/* A printed decimal number: optional sign, digits with at most one point, optional
 * exponent. strtod alone would also take "nan", "inf" and hexadecimal. */
static int parse_real(parser *p, const char *tok, const char *what, double *out, int *decimals)
{
    char detail[256];
    const char *s = tok;
    int digits = 0, dec = 0;
    bool point = false;
    if (*s == '+' || *s == '-')
        s++;
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (isdigit((unsigned char)*s)) {
            digits++;
            if (point)
                dec++;
        } else if (*s == '.' && !point) {
            point = true;
        } else {
            digits = -1;
            break;
        }
    }
    if (digits > 0 && (*s == 'e' || *s == 'E')) {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            digits = -1;
        while (isdigit((unsigned char)*s))
            s++;
        if (*s)
            digits = -1;
    }
    errno = 0;
    double v = digits > 0 ? strtod(tok, NULL) : NAN;
    if (digits <= 0 || errno == ERANGE || !isfinite(v)) {
        snprintf(detail, sizeof detail, "%s: \"%.40s\" is not a finite decimal number", what, tok);
        return fail_line(p, "", detail);
    }
    if (v < 0 || tok[0] == '-') {
        snprintf(detail, sizeof detail, "%s: %.40s is negative", what, tok);
        return fail_line(p, "", detail);
    }
    *out = v;
    if (decimals)
        *decimals = dec;
    return 0;
}

/* A non-negative integer of at most 18 digits (or "-1" where allow_minus_one). */
static int parse_count(parser *p, const char *tok, const char *what, bool allow_minus_one,
                       long long *out)
{
    char detail[256];
    if (allow_minus_one && strcmp(tok, "-1") == 0) {
        *out = -1;
        return 0;
    }
    size_t n = strlen(tok);
    bool ok = n > 0 && n <= 18;
    for (size_t i = 0; ok && i < n; i++)
        ok = isdigit((unsigned char)tok[i]) != 0;
    if (!ok) {
        snprintf(detail, sizeof detail, "%s: \"%.40s\" is not %s", what, tok,
                 tok[0] == '-' ? "allowed (negative)" : "a non-negative integer");
        return fail_line(p, "", detail);
    }
    *out = strtoll(tok, NULL, 10);
    return 0;
}

static double half_unit(int decimals)
{
    return 0.5 * pow(10.0, -decimals);
}

/* printed agrees with expected within 2%, the printed rounding and the expected value's own
 * uncertainty (all in the printed units). */
static bool agrees(double printed, int printed_decimals, double expected, double expected_unc)
{
    double tol = 0.02 * fabs(expected) + half_unit(printed_decimals) + expected_unc;
    return fabs(printed - expected) <= tol;
}

static int parse_timing(parser *p, char **tok, int first, double size_bytes, const char *half,
                        nccl_timing *t)
{
    const nccl_log *log = p->log;
    double time_us, algbw, busbw;
    char detail[320];
    if (parse_real(p, tok[first], column_name(log, first), &time_us, &t->time_decimals) ||
        parse_real(p, tok[first + 1], column_name(log, first + 1), &algbw, &t->algbw_decimals) ||
        parse_real(p, tok[first + 2], column_name(log, first + 2), &busbw, &t->busbw_decimals))
        return -1;
    /* Current versions count wrong elements ("0", or "N/A" without validation); older ones
     * printed the largest error as a real ("0e+00", "2e-07"), which rounding makes nonzero
     * in a correct run, so it is only checked to be a number. */
    const char *wrong = tok[first + 3];
    double max_error;
    t->wrong = -1;
    if (strpbrk(wrong, ".eE")) {
        if (parse_real(p, wrong, "error", &max_error, NULL))
            return -1;
    } else if (strcmp(wrong, "N/A") != 0 &&
               parse_count(p, wrong, column_name(log, first + 3), false, &t->wrong)) {
        return -1;
    }
    if (time_us <= 0.0) {
        snprintf(detail, sizeof detail, "%s time: %.40s us; a time must be positive", half,
                 tok[first]);
        return fail_line(p, "", detail);
    }
    if (t->wrong > 0) {
        snprintf(detail, sizeof detail,
                 "%s: the test reported %lld wrong results; a failed run cannot calibrate",
                 half, t->wrong);
        return fail_line(p, "", detail);
    }
    /* algbw (GB/s) = size / time: bytes / (us * 1e-6) / 1e9. */
    double expected = size_bytes / time_us / 1e3;
    double unc = expected * half_unit(t->time_decimals) / time_us;
    if (!agrees(algbw, t->algbw_decimals, expected, unc)) {
        snprintf(detail, sizeof detail,
                 "%s algbw %.40s GB/s is not size / time = %.6g GB/s (2%% plus rounding); "
                 "a corrupt row",
                 half, tok[first + 1], expected);
        return fail_line(p, "", detail);
    }
    t->time_s = time_us * 1e-6;
    t->algbw_Bps = algbw * 1e9;
    t->busbw_Bps = busbw * 1e9;
    return 0;
}

/* Bytes per element of nccl-tests' type names; 0 for a name it does not know. */
static int type_bytes(const char *type)
{
    static const struct {
        const char *name;
        int bytes;
    } types[] = {{"int8", 1},    {"uint8", 1},  {"int32", 4},    {"uint32", 4},
                 {"int64", 8},   {"uint64", 8}, {"half", 2},     {"float", 4},
                 {"double", 8},  {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(type, types[i].name) == 0)
            return types[i].bytes;
    return 0;
}

static int parse_row(parser *p, char **tok, int n_tok)
{
    nccl_log *log = p->log;
    char detail[320];
    if (log->n_rows == 0) {
        if (n_tok != 12 && n_tok != 13) {
            snprintf(detail, sizeof detail,
                     "%d columns; an all_reduce_perf row has 13 (size count type redop root, "
                     "then time algbw busbw #wrong out of place and in place) or 12 (older "
                     "nccl-tests, no root)",
                     n_tok);
            return fail_line(p, "", detail);
        }
        log->columns = n_tok;
        p->first_row_line = p->line;
    } else if (n_tok != log->columns) {
        snprintf(detail, sizeof detail,
                 "%d columns where the first row (line %d) has %d: a truncated or malformed row",
                 n_tok, p->first_row_line, log->columns);
        return fail_line(p, "", detail);
    }
    if (log->n_rows >= NCCL_LOG_MAX_ROWS) {
        snprintf(detail, sizeof detail, "more than %d data rows; not an nccl-tests log",
                 NCCL_LOG_MAX_ROWS);
        return fail_line(p, "", detail);
    }
    if (log->n_rows == p->rows_cap) {
        int cap = p->rows_cap ? p->rows_cap * 2 : 64;
        nccl_row *bigger = realloc(log->rows, (size_t)cap * sizeof *bigger);
        if (!bigger)
            return fail_line(p, "out of memory", NULL);
        log->rows = bigger;
        p->rows_cap = cap;
    }
    nccl_row *r = &log->rows[log->n_rows];
    memset(r, 0, sizeof *r);
    r->line = p->line;
    long long size = 0;
    if (parse_count(p, tok[0], "size", false, &size) ||
        parse_count(p, tok[1], "count", false, &r->count))
        return -1;
    if (size <= 0)
        return fail_line(p, "size 0 bytes; sizes must be positive", NULL);
    r->size_bytes = (double)size;
    snprintf(r->type, sizeof r->type, "%s", tok[2]);
    snprintf(r->redop, sizeof r->redop, "%s", tok[3]);
    if (strcmp(r->redop, "none") == 0)
        return fail_line(p, "redop \"none\": an all-reduce always reduces; this row is from "
                            "another operation",
                         NULL);
    int tb = type_bytes(r->type);
    if (tb > 0 && (double)r->count * tb != r->size_bytes) {
        snprintf(detail, sizeof detail,
                 "%lld elements of %s are %.0f bytes, not the row's size %lld: an all-reduce "
                 "sends count x element size",
                 r->count, r->type, (double)r->count * tb, size);
        return fail_line(p, "", detail);
    }
    int next = 4;
    if (log->columns == 13) {
        r->has_root = true;
        if (parse_count(p, tok[4], "root", true, &r->root))
            return -1;
        if (r->root != -1) {
            snprintf(detail, sizeof detail,
                     "root %lld: all_reduce_perf prints -1; this row is from a rooted "
                     "operation (reduce, broadcast)",
                     r->root);
            return fail_line(p, "", detail);
        }
        next = 5;
    }
    if (log->n_rows > 0) {
        const nccl_row *prev = &log->rows[log->n_rows - 1];
        if (r->size_bytes <= prev->size_bytes) {
            snprintf(detail, sizeof detail,
                     "size %lld bytes does not increase on the previous row's %.0f (line %d); "
                     "a log holds one test, sizes increasing",
                     size, prev->size_bytes, prev->line);
            return fail_line(p, "", detail);
        }
    }
    if (parse_timing(p, tok, next, r->size_bytes, "out-of-place", &r->out_of_place) ||
        parse_timing(p, tok, next + 4, r->size_bytes, "in-place", &r->in_place))
        return -1;
    log->n_rows++;
    return 0;
}

static int add_host(parser *p, const char *host)
{
    for (int i = 0; i < p->n_hosts; i++)
        if (strcmp(p->hosts[i], host) == 0)
            return 0;
    if (p->n_hosts == p->hosts_cap) {
        int cap = p->hosts_cap ? p->hosts_cap * 2 : 16;
        char **bigger = realloc(p->hosts, (size_t)cap * sizeof *bigger);
        if (!bigger)
            return fail_line(p, "out of memory", NULL);
        p->hosts = bigger;
        p->hosts_cap = cap;
    }
    size_t len = strlen(host) + 1;
    p->hosts[p->n_hosts] = malloc(len);
    if (!p->hosts[p->n_hosts])
        return fail_line(p, "out of memory", NULL);
    memcpy(p->hosts[p->n_hosts++], host, len);
    return 0;
}

/* "Rank r [Group g] Pid pid on host device d [busid] name...": the tokens after '#'. */
static int parse_rank_line(parser *p, char **tok, int n_tok, const char *raw)
{
    char detail[320];
    long long rank = -1;
    int on = -1;
    for (int i = 2; i + 1 < n_tok && i < MAX_TOKENS; i++)
        if (strcmp(tok[i], "on") == 0) {
            on = i;
            break;
        }
    if (n_tok < 2 || parse_count(p, tok[1], "Rank line: rank", false, &rank))
        return -1;
    if (on < 0)
        return fail_line(p, "a Rank line without \"on HOST\"", NULL);
    if (rank >= NCCL_LOG_MAX_RANKS) {
        snprintf(detail, sizeof detail, "rank %lld: more than %d ranks", rank,
                 NCCL_LOG_MAX_RANKS);
        return fail_line(p, "", detail);
    }
    if (p->rank_seen[rank]) {
        snprintf(detail, sizeof detail, "rank %lld is listed twice", rank);
        return fail_line(p, "", detail);
    }
    p->rank_seen[rank] = 1;
    if (p->log->ranks == 0)
        p->first_rank_line = p->line;
    p->log->ranks++;
    if (rank > p->max_rank)
        p->max_rank = (int)rank;
    if (rank == 0) {
        /* The device name follows the bus id "[0x07]". */
        const char *name = strchr(raw, ']');
        if (name) {
            name++;
            while (*name == ' ' || *name == '\t')
                name++;
            snprintf(p->log->device, sizeof p->log->device, "%s", name);
        }
    }
    return add_host(p, tok[on + 1]);
}

static int parse_comment(parser *p, char *line)
{
    nccl_log *log = p->log;
    char raw[NCCL_LOG_MAX_LINE + 1];
    char detail[320];
    snprintf(raw, sizeof raw, "%s", line);
    const char *body = line + 1;
    while (*body == ' ' || *body == '\t')
        body++;
    static const char starting[] = "Collective test starting:";
    static const char avg[] = "Avg bus bandwidth";
    if (strncmp(body, starting, sizeof starting - 1) == 0) {
        char *tok[MAX_TOKENS + 1];
        char *rest = line + (body - line) + sizeof starting - 1;
        int n = tokenize(rest, tok);
        if (n < 1)
            return fail_line(p, "\"Collective test starting:\" without the test's name", NULL);
        if (log->op[0] || log->n_rows > 0)
            return fail_line(p, "a second test in one log; give each test its own file", NULL);
        snprintf(log->op, sizeof log->op, "%s", tok[0]);
        if (strncmp(log->op, "all_reduce", 10) != 0) {
            snprintf(detail, sizeof detail,
                     "a log of %.60s; gcsim calibrate reads all_reduce_perf logs only (for now)",
                     log->op);
            return fail_line(p, "", detail);
        }
        return 0;
    }
    if (strncmp(body, avg, sizeof avg - 1) == 0) {
        const char *colon = strchr(body, ':');
        char *tok[MAX_TOKENS + 1];
        char value[128];
        snprintf(value, sizeof value, "%s", colon ? colon + 1 : "");
        double v;
        if (!colon || tokenize(value, tok) != 1)
            return fail_line(p, "\"Avg bus bandwidth\" without \": value\"", NULL);
        if (parse_real(p, tok[0], "Avg bus bandwidth", &v, NULL))
            return -1;
        log->has_avg_busbw = true;
        log->avg_busbw_Bps = v * 1e9;
        return 0;
    }
    char *tok[MAX_TOKENS + 1];
    char copy[NCCL_LOG_MAX_LINE + 1];
    snprintf(copy, sizeof copy, "%s", body);
    int n = tokenize(copy, tok);
    /* Column headings also start with words; only "Rank <number>" is a rank line. */
    if (n >= 2 && strcmp(tok[0], "Rank") == 0 && isdigit((unsigned char)tok[1][0]))
        return parse_rank_line(p, tok, n, raw);
    return 0;
}

static bool is_blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

static void free_hosts(parser *p)
{
    for (int i = 0; i < p->n_hosts; i++)
        free(p->hosts[i]);
    free(p->hosts);
}

static int parse_lines(parser *p, const char *text, size_t len)
{
    char line[NCCL_LOG_MAX_LINE + 1];
    size_t pos = 0;
    p->line = 0;
    while (pos < len) {
        p->line++;
        const char *start = text + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - start) : len - pos;
        pos += n + (nl ? 1 : 0);
        if (n > NCCL_LOG_MAX_LINE) {
            char detail[64];
            snprintf(detail, sizeof detail, "longer than %d bytes", NCCL_LOG_MAX_LINE);
            return fail_line(p, "", detail);
        }
        memcpy(line, start, n);
        line[n] = '\0';
        if (n > 0 && line[n - 1] == '\r')
            line[n - 1] = '\0';
        if (line[0] == '#') {
            if (parse_comment(p, line))
                return -1;
            continue;
        }
        if (is_blank(line))
            continue;
        if (strstr(line, "NCCL INFO") || strstr(line, "NCCL WARN")) {
            p->log->skipped_debug_lines++;
            continue;
        }
        char *tok[MAX_TOKENS + 1];
        int n_tok = tokenize(line, tok);
        if (!isdigit((unsigned char)tok[0][0]) && tok[0][0] != '-') {
            char detail[160];
            snprintf(detail, sizeof detail,
                     "expected a data row (size in bytes first) or a '#' comment, got \"%.40s\"",
                     tok[0]);
            return fail_line(p, "", detail);
        }
        if (parse_row(p, tok, n_tok))
            return -1;
    }
    p->log->lines = p->line;
    if (p->log->n_rows == 0)
        return gcsim_fail(p->err, "%s: line %d (end of file): no data rows%s", p->origin,
                          p->line ? p->line : 1, len ? "" : " (an empty file)");
    if (p->log->ranks > 0 && p->max_rank + 1 != p->log->ranks)
        return gcsim_fail(p->err, "%s: line %d: %d Rank lines but the highest rank is %d; "
                                  "ranks must be 0 to N-1",
                          p->origin, p->first_rank_line, p->log->ranks, p->max_rank);
    p->log->hosts = p->n_hosts;
    return 0;
}

int nccl_log_parse(const char *text, size_t len, const char *origin, nccl_log *out,
                   gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->origin, sizeof out->origin, "%s", origin);
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        int line = 1;
        for (const char *s = text; s < nul; s++)
            line += *s == '\n';
        return gcsim_fail(err, "%s: line %d: byte %zu: NUL byte; not a text log", origin, line,
                          (size_t)(nul - text));
    }
    parser p = {0};
    p.origin = origin;
    p.err = err;
    p.log = out;
    p.max_rank = -1;
    p.rank_seen = calloc(NCCL_LOG_MAX_RANKS, 1);
    if (!p.rank_seen)
        return gcsim_fail(err, "%s: out of memory", origin);
    int rc = parse_lines(&p, text, len);
    free(p.rank_seen);
    free_hosts(&p);
    if (rc) {
        nccl_log_free(out);
        return -1;
    }
    return 0;
}

int nccl_log_load(const char *path, nccl_log *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gcsim_fail(err, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || n > (size_t)NCCL_LOG_MAX_BYTES)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    int read_error = ferror(f);
    fclose(f);
    if (!buf)
        return gcsim_fail(err, "%s: out of memory", path);
    if (read_error) {
        free(buf);
        return gcsim_fail(err, "%s: read error", path);
    }
    if (n > (size_t)NCCL_LOG_MAX_BYTES) {
        free(buf);
        return gcsim_fail(err, "%s: larger than %ld bytes; not an nccl-tests log", path,
                          NCCL_LOG_MAX_BYTES);
    }
    int rc = nccl_log_parse(buf, n, path, out, err);
    free(buf);
    return rc;
}

void nccl_log_free(nccl_log *log)
{
    free(log->rows);
    log->rows = NULL;
    log->n_rows = 0;
}

double nccl_allreduce_bus_factor(int gpus)
{
    return 2.0 * (gpus - 1) / gpus;
}

static int check_half(const nccl_log *log, const nccl_row *r, const nccl_timing *t,
                      const char *half, int gpus, gcsim_error *err)
{
    double factor = nccl_allreduce_bus_factor(gpus);
    double algbw = t->algbw_Bps / 1e9, busbw = t->busbw_Bps / 1e9;
    double expected = algbw * factor;
    if (agrees(busbw, t->busbw_decimals, expected, factor * half_unit(t->algbw_decimals)))
        return 0;
    char hint[128] = "";
    double ratio = algbw > 0 ? busbw / algbw : 0;
    if (ratio > 0 && ratio < 2)
        snprintf(hint, sizeof hint, " (busbw/algbw = %.4g, as for n = %.3g)", ratio,
                 2.0 / (2.0 - ratio));
    return gcsim_fail(err,
                      "%s: line %d: %s busbw %.6g GB/s is not algbw %.6g x 2(n-1)/n = %.6g for "
                      "n = %d GPUs (2%% plus rounding)%s: the log was run on another GPU count, "
                      "or is not an all-reduce, or is corrupt",
                      log->origin, r->line, half, busbw, algbw, expected, gpus, hint);
}

int nccl_log_check_busbw(const nccl_log *log, int gpus, gcsim_error *err)
{
    if (gpus < 2)
        return gcsim_fail(err, "%s: %d GPU: an all-reduce needs at least 2", log->origin, gpus);
    for (int i = 0; i < log->n_rows; i++) {
        const nccl_row *r = &log->rows[i];
        if (check_half(log, r, &r->out_of_place, "out-of-place", gpus, err) ||
            check_half(log, r, &r->in_place, "in-place", gpus, err))
            return -1;
    }
    return 0;
}
