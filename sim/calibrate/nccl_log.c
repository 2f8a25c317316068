/* Reading nccl-tests all_reduce_perf output; see nccl_log.h for what is accepted. */
#include "nccl_log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_file.h"

#define MAX_TOKENS 16

/* Column names of the 13-column layout, for messages; the 12-column layout lacks "root". */
static const char *const column_names[13] = {
    "size",           "count",           "type",          "redop",
    "root",           "out-of-place time", "out-of-place algbw", "out-of-place busbw",
    "out-of-place #wrong", "in-place time",  "in-place algbw",   "in-place busbw",
    "in-place #wrong"};

/* The array with twice its capacity (64 to start), *cap updated; NULL when out of memory,
 * the array and *cap untouched. */
static void *grow(void *items, int *cap, size_t item_bytes)
{
    int more = *cap ? *cap * 2 : 64;
    void *bigger = realloc(items, (size_t)more * item_bytes);
    if (bigger)
        *cap = more;
    return bigger;
}

/* The table being read and the run it belongs to. */
typedef struct {
    char op[64];
    int ranks, max_rank, first_rank_line;
    int *rank_list;           /* the ranks seen, to clear their flags */
    int rank_list_cap;
    char device[128];
    char **hosts;
    int n_hosts, hosts_cap;
    int header_line, header_columns;
    int columns;              /* of its rows; 0 before the first */
    bool has_avg_busbw;
    double avg_busbw_Bps;
    nccl_row *rows;
    int n_rows, rows_cap;
    int first_row_line;
    int short_line;           /* a short row that ends the table unless a row follows */
    char short_why[200];
} table_state;

typedef struct {
    const char *origin;
    gcsim_error *err;
    int line;
    nccl_log *log;
    int want;                 /* the table to keep, 1-based */
    int total_rows;
    unsigned char *rank_seen; /* NCCL_LOG_MAX_RANKS flags, of the current run */
    table_state t;
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

static const char *column_name(int columns, int index)
{
    if (columns == 12 && index >= 4)
        index++;
    return index < 13 ? column_names[index] : "?";
}

/* A printed decimal number: optional sign, digits with at most one point, optional
 * exponent. strtod alone would also take "nan", "inf" and hexadecimal. */
static bool is_decimal(const char *tok)
{
    const char *s = tok;
    int digits = 0;
    bool point = false;
    if (*s == '+' || *s == '-')
        s++;
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (isdigit((unsigned char)*s))
            digits++;
        else if (*s == '.' && !point)
            point = true;
        else
            return false;
    }
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return *s == '\0';
}

static int parse_real(parser *p, const char *tok, const char *what, double *out, int *decimals)
{
    char detail[256];
    errno = 0;
    double v = is_decimal(tok) ? strtod(tok, NULL) : NAN;
    if (errno == ERANGE || !isfinite(v)) {
        snprintf(detail, sizeof detail, "%s: \"%.40s\" is not a finite decimal number", what, tok);
        return fail_line(p, "", detail);
    }
    if (v < 0 || tok[0] == '-') {
        snprintf(detail, sizeof detail, "%s: %.40s is negative", what, tok);
        return fail_line(p, "", detail);
    }
    *out = v;
    if (decimals) {
        const char *point = strchr(tok, '.');
        int dec = 0;
        if (point)
            for (const char *s = point + 1; isdigit((unsigned char)*s); s++)
                dec++;
        *decimals = dec;
    }
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
    bool digits = n > 0;
    for (size_t i = 0; digits && i < n; i++)
        digits = isdigit((unsigned char)tok[i]) != 0;
    if (!digits || n > 18) {
        snprintf(detail, sizeof detail, "%s: \"%.40s\" is not %s", what, tok,
                 tok[0] == '-'  ? "allowed (negative)"
                 : digits       ? "a plausible count (more than 18 digits)"
                                : "a non-negative integer");
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
    int columns = p->t.columns;
    double time_us, algbw, busbw;
    char detail[320];
    if (parse_real(p, tok[first], column_name(columns, first), &time_us, &t->time_decimals) ||
        parse_real(p, tok[first + 1], column_name(columns, first + 1), &algbw,
                   &t->algbw_decimals) ||
        parse_real(p, tok[first + 2], column_name(columns, first + 2), &busbw,
                   &t->busbw_decimals))
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
               parse_count(p, wrong, column_name(columns, first + 3), false, &t->wrong)) {
        return -1;
    }
    if (time_us <= 0.0) {
        snprintf(detail, sizeof detail, "%s time: %.40s us; a time must be positive", half,
                 tok[first]);
        return fail_line(p, "", detail);
    }
    if (time_us > NCCL_LOG_MAX_TIME_US) {
        snprintf(detail, sizeof detail,
                 "%s time: %.40s us is absurd (more than %.0e us for one operation)", half,
                 tok[first], NCCL_LOG_MAX_TIME_US);
        return fail_line(p, "", detail);
    }
    if (algbw > NCCL_LOG_MAX_GBPS || busbw > NCCL_LOG_MAX_GBPS) {
        snprintf(detail, sizeof detail, "%s %s: %.40s GB/s is absurd (more than %.0e GB/s)",
                 half, algbw > NCCL_LOG_MAX_GBPS ? "algbw" : "busbw",
                 algbw > NCCL_LOG_MAX_GBPS ? tok[first + 1] : tok[first + 2], NCCL_LOG_MAX_GBPS);
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

/* The columns a row of the current table must have: its first row's, else its header's;
 * 0 when neither is known yet (then 12 or 13). */
static int expected_columns(const parser *p)
{
    return p->t.columns ? p->t.columns : p->t.header_columns;
}

static int parse_row(parser *p, char **tok, int n_tok)
{
    table_state *t = &p->t;
    char detail[320];
    int expect = expected_columns(p);
    if (expect == 0 && n_tok != 12 && n_tok != 13) {
        snprintf(detail, sizeof detail,
                 "%d columns; an all_reduce_perf row has 13 (size count type redop root, "
                 "then time algbw busbw #wrong out of place and in place) or 12 (older "
                 "nccl-tests, no root)",
                 n_tok);
        return fail_line(p, "", detail);
    }
    if (expect != 0 && n_tok != expect) {
        if (t->columns)
            snprintf(detail, sizeof detail,
                     "%d columns where the first row (line %d) has %d: a truncated or "
                     "malformed row",
                     n_tok, t->first_row_line, t->columns);
        else
            snprintf(detail, sizeof detail,
                     "%d columns where the column header (line %d) has %d: a truncated or "
                     "malformed row",
                     n_tok, t->header_line, t->header_columns);
        return fail_line(p, "", detail);
    }
    if (p->total_rows >= NCCL_LOG_MAX_ROWS) {
        snprintf(detail, sizeof detail, "more than %d data rows; not an nccl-tests log",
                 NCCL_LOG_MAX_ROWS);
        return fail_line(p, "", detail);
    }
    if (t->n_rows == t->rows_cap) {
        nccl_row *bigger = grow(t->rows, &t->rows_cap, sizeof *bigger);
        if (!bigger)
            return fail_line(p, "out of memory", NULL);
        t->rows = bigger;
    }
    if (t->n_rows == 0) {
        t->columns = n_tok;
        t->first_row_line = p->line;
    }
    nccl_row *r = &t->rows[t->n_rows];
    memset(r, 0, sizeof *r);
    r->line = p->line;
    long long size = 0;
    if (parse_count(p, tok[0], "size", false, &size) ||
        parse_count(p, tok[1], "count", false, &r->count))
        return -1;
    if (size == 0 && r->count == 0) {
        /* nccl-tests prints sizes below one element per rank as 0 B rows (-b 0, or a
         * sweep from 8 B over 4 ranks): nothing was reduced, so nothing to fit. */
        p->log->zero_size_rows++;
        return 0;
    }
    if (size <= 0)
        return fail_line(p, "size 0 bytes with a nonzero count; sizes must be positive", NULL);
    if (size > NCCL_LOG_MAX_SIZE_BYTES) {
        snprintf(detail, sizeof detail, "size %lld bytes is absurd (more than %lld, 1 TiB)",
                 size, (long long)NCCL_LOG_MAX_SIZE_BYTES);
        return fail_line(p, "", detail);
    }
    r->size_bytes = (double)size;
    snprintf(r->type, sizeof r->type, "%s", tok[2]);
    snprintf(r->redop, sizeof r->redop, "%s", tok[3]);
    bool op_ar = strncmp(t->op, "all_reduce", 10) == 0;
    bool op_rs = strncmp(t->op, "reduce_scatter", 14) == 0;
    bool op_ag = strncmp(t->op, "all_gather", 10) == 0;
    bool none = strcmp(r->redop, "none") == 0;
    if (none && (op_ar || op_rs))
        return fail_line(p, "redop \"none\": an all-reduce or reduce-scatter always reduces; "
                            "this row is from another operation",
                         NULL);
    /* An unknown type (complex128) was accepted, its size left unchecked: the row may be
     * from another program or a corrupted log. */
    int tb = type_bytes(r->type);
    if (tb == 0) {
        snprintf(detail, sizeof detail,
                 "type \"%.32s\" is not one of nccl-tests' types (int8, uint8, int32, uint32, "
                 "int64, uint64, half, float, double, bfloat16, f8e4m3, f8e5m2)",
                 r->type);
        return fail_line(p, "", detail);
    }
    /* all-reduce: size = count x element size; all-gather and reduce-scatter: nccl-tests
     * prints the count per rank, size = count x element size x ranks (checked against the
     * GPU count by nccl_log_check_busbw). An unnamed test: either. */
    double per_rank = (double)r->count * tb;
    double k = per_rank > 0 ? r->size_bytes / per_rank : 0;
    bool whole = per_rank > 0 && k == floor(k);
    r->ranks_in_size = whole ? (int)fmin(k, (double)INT_MAX) : 0;
    if (none && !op_ag && !(whole && k >= 2)) {
        snprintf(detail, sizeof detail,
                 "redop \"none\" (an all-gather) with %lld elements of %s, %.0f bytes per rank, "
                 "and size %lld: an all-gather's size is count x element size x ranks (2 or "
                 "more)",
                 r->count, r->type, per_rank, size);
        return fail_line(p, "", detail);
    }
    if (op_ar ? k != 1 : !(whole && (k >= 2 || (k == 1 && !op_ag && !op_rs)))) {
        if (op_ag || op_rs)
            snprintf(detail, sizeof detail,
                     "%lld elements of %s are %.0f bytes, and the row's size %lld is not 2 or "
                     "more times that: %s prints the count per rank, size = count x element "
                     "size x ranks",
                     r->count, r->type, per_rank, size, t->op);
        else
            snprintf(detail, sizeof detail,
                     "%lld elements of %s are %.0f bytes, not the row's size %lld: an all-reduce "
                     "sends count x element size%s",
                     r->count, r->type, per_rank, size,
                     op_ar ? "" : " (an all-gather or reduce-scatter count x element size x "
                                  "ranks)");
        return fail_line(p, "", detail);
    }
    int next = 4;
    if (t->columns == 13) {
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
    if (t->n_rows > 0) {
        const nccl_row *prev = &t->rows[t->n_rows - 1];
        if (r->size_bytes <= prev->size_bytes) {
            snprintf(detail, sizeof detail,
                     "size %lld bytes does not increase on the previous row's %.0f (line %d); "
                     "sizes increase within a table, and a second run needs its own column "
                     "header (# size count type ...) to start a new one",
                     size, prev->size_bytes, prev->line);
            return fail_line(p, "", detail);
        }
    }
    if (parse_timing(p, tok, next, r->size_bytes, "out-of-place", &r->out_of_place) ||
        parse_timing(p, tok, next + 4, r->size_bytes, "in-place", &r->in_place))
        return -1;
    t->n_rows++;
    p->total_rows++;
    return 0;
}

static int add_host(parser *p, const char *host)
{
    table_state *t = &p->t;
    for (int i = 0; i < t->n_hosts; i++)
        if (strcmp(t->hosts[i], host) == 0)
            return 0;
    if (t->n_hosts == t->hosts_cap) {
        int cap = t->hosts_cap ? t->hosts_cap * 2 : 16;
        char **bigger = realloc(t->hosts, (size_t)cap * sizeof *bigger);
        if (!bigger)
            return fail_line(p, "out of memory", NULL);
        t->hosts = bigger;
        t->hosts_cap = cap;
    }
    size_t len = strlen(host) + 1;
    t->hosts[t->n_hosts] = malloc(len);
    if (!t->hosts[t->n_hosts])
        return fail_line(p, "out of memory", NULL);
    memcpy(t->hosts[t->n_hosts++], host, len);
    return 0;
}

/* "Rank r [Group g] Pid pid on host device d [busid] name...": the tokens after '#'. */
static int parse_rank_line(parser *p, char **tok, int n_tok, const char *raw)
{
    table_state *t = &p->t;
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
    if (t->ranks == t->rank_list_cap) {
        int *bigger = grow(t->rank_list, &t->rank_list_cap, sizeof *bigger);
        if (!bigger)
            return fail_line(p, "out of memory", NULL);
        t->rank_list = bigger;
    }
    t->rank_list[t->ranks] = (int)rank;
    p->rank_seen[rank] = 1;
    if (t->ranks == 0)
        t->first_rank_line = p->line;
    t->ranks++;
    if (rank > t->max_rank)
        t->max_rank = (int)rank;
    if (rank == 0) {
        /* The device name follows the bus id "[0x07]". */
        const char *name = strchr(raw, ']');
        if (name) {
            name++;
            while (*name == ' ' || *name == '\t')
                name++;
            snprintf(t->device, sizeof t->device, "%s", name);
        }
    }
    return add_host(p, tok[on + 1]);
}

/* Forgets the run: its Rank lines, operation, header and rows (rows already handed over or
 * freed by end_table). keep_op: the run's "Collective test starting" line stays. */
static void reset_run(parser *p, bool keep_op)
{
    table_state *t = &p->t;
    for (int i = 0; i < t->ranks; i++)
        p->rank_seen[t->rank_list[i]] = 0;
    for (int i = 0; i < t->n_hosts; i++)
        free(t->hosts[i]);
    free(t->hosts);
    free(t->rank_list);
    free(t->rows);
    char op[sizeof t->op];
    snprintf(op, sizeof op, "%s", keep_op ? t->op : "");
    memset(t, 0, sizeof *t);
    t->max_rank = -1;
    snprintf(t->op, sizeof t->op, "%s", op);
}

static bool table_open(const parser *p)
{
    return p->t.n_rows > 0 || p->t.short_line > 0;
}

/* Ends the current table (at `why_line`, for messages): checks its ranks, records it, keeps
 * its rows if it is the one wanted, and forgets the run. A table whose only row was short
 * is no table. */
static int end_table(parser *p)
{
    table_state *t = &p->t;
    nccl_log *log = p->log;
    if (t->n_rows == 0) {
        if (t->short_line && log->n_tables == 0 && !log->tables[0].dropped_line) {
            /* remembered for the "no data rows" message */
            log->tables[0].dropped_line = t->short_line;
            snprintf(log->tables[0].dropped_why, sizeof log->tables[0].dropped_why, "%s",
                     t->short_why);
        }
        reset_run(p, false);
        return 0;
    }
    if (log->n_tables == NCCL_LOG_MAX_TABLES)
        return gcsim_fail(p->err, "%s: line %d: more than %d tables; not an nccl-tests log",
                          p->origin, t->first_row_line, NCCL_LOG_MAX_TABLES);
    nccl_table_info *info = &log->tables[log->n_tables++];
    memset(info, 0, sizeof *info);
    info->header_line = t->header_line;
    info->first_line = t->first_row_line;
    info->last_line = t->rows[t->n_rows - 1].line;
    info->rows = t->n_rows;
    info->ranks = t->ranks;
    info->hosts = t->n_hosts;
    info->dropped_line = t->short_line;
    snprintf(info->dropped_why, sizeof info->dropped_why, "%s", t->short_why);
    if (log->n_tables == p->want) {
        log->table = p->want;
        snprintf(log->op, sizeof log->op, "%s", t->op);
        log->columns = t->columns;
        log->ranks = t->ranks;
        log->max_rank = t->ranks ? t->max_rank : -1;
        log->first_rank_line = t->first_rank_line;
        log->hosts = t->n_hosts;
        snprintf(log->device, sizeof log->device, "%s", t->device);
        log->has_avg_busbw = t->has_avg_busbw;
        log->avg_busbw_Bps = t->avg_busbw_Bps;
        log->rows = t->rows;
        log->n_rows = t->n_rows;
        t->rows = NULL;
    }
    reset_run(p, false);
    return 0;
}

/* The column header "# size count type redop [root] time algbw busbw #wrong ...": the
 * tokens after '#'. */
static bool is_column_header(char **tok, int n_tok)
{
    return n_tok >= 2 && strcmp(tok[0], "size") == 0 && strcmp(tok[1], "count") == 0;
}

static int parse_comment(parser *p, char *line)
{
    table_state *t = &p->t;
    char raw[NCCL_LOG_MAX_LINE + 1];
    char detail[320];
    snprintf(raw, sizeof raw, "%s", line);
    const char *body = line + 1;
    while (*body == ' ' || *body == '\t')
        body++;
    static const char starting[] = "Collective test starting:";
    static const char avg[] = "Avg bus bandwidth";
    static const char nthread[] = "nThread";
    if (strncmp(body, starting, sizeof starting - 1) == 0) {
        char *tok[MAX_TOKENS + 1];
        char *rest = line + (body - line) + sizeof starting - 1;
        int n = tokenize(rest, tok);
        if (n < 1)
            return fail_line(p, "\"Collective test starting:\" without the test's name", NULL);
        /* A new run: the table before it ends, and its Rank lines are forgotten. */
        if (table_open(p) ? end_table(p) : (reset_run(p, false), 0))
            return -1;
        snprintf(t->op, sizeof t->op, "%s", tok[0]);
        if (strncmp(t->op, "all_reduce", 10) != 0 && strncmp(t->op, "all_gather", 10) != 0 &&
            strncmp(t->op, "reduce_scatter", 14) != 0) {
            snprintf(detail, sizeof detail,
                     "a log of %.60s; gcsim calibrate reads all_reduce_perf, all_gather_perf "
                     "and reduce_scatter_perf logs",
                     t->op);
            return fail_line(p, "", detail);
        }
        return 0;
    }
    if (strncmp(body, nthread, sizeof nthread - 1) == 0) {
        /* The first line of older runs, the second of current ones (after "starting"). */
        if (table_open(p))
            return end_table(p);
        reset_run(p, true);
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
        t->has_avg_busbw = true;
        t->avg_busbw_Bps = v * 1e9;
        /* The footer: the table ends here. */
        return table_open(p) ? end_table(p) : 0;
    }
    char *tok[MAX_TOKENS + 1];
    char copy[NCCL_LOG_MAX_LINE + 1];
    snprintf(copy, sizeof copy, "%s", body);
    int n = tokenize(copy, tok);
    /* Column headings also start with words; only "Rank <number>" is a rank line. */
    if (n >= 2 && strcmp(tok[0], "Rank") == 0 && isdigit((unsigned char)tok[1][0])) {
        /* Rank lines after rows: the next run's, printed without its first line. */
        if (table_open(p) && end_table(p))
            return -1;
        return parse_rank_line(p, tok, n, raw);
    }
    if (is_column_header(tok, n)) {
        if (table_open(p)) {
            /* Another table of the same run's Rank lines (none printed in between). */
            char op[sizeof t->op];
            snprintf(op, sizeof op, "%s", t->op);
            if (end_table(p))
                return -1;
            snprintf(t->op, sizeof t->op, "%s", op);
        }
        t->header_line = p->line;
        n = n > MAX_TOKENS ? MAX_TOKENS + 1 : n;
        t->header_columns = n == 12 || n == 13 ? n : 0;
    }
    return 0;
}

static bool is_blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

/* Length of a launcher's prefix at the start of s: Open MPI's --tag-output
 * "[1,0]<stdout>:" (or <stderr>, <stddiag>) and Slurm's srun --label "0: " (blanks before
 * the number allowed); 0 when there is none. */
static size_t prefix_length(const char *s)
{
    const char *q = s;
    if (*q == '[') {
        q++;
        if (!isdigit((unsigned char)*q))
            return 0;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q++ != ',' || !isdigit((unsigned char)*q))
            return 0;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q++ != ']' || *q++ != '<' || !isalpha((unsigned char)*q))
            return 0;
        while (isalpha((unsigned char)*q))
            q++;
        if (*q++ != '>' || *q++ != ':')
            return 0;
        return (size_t)(q - s);
    }
    while (*q == ' ')
        q++;
    const char *digits = q;
    while (isdigit((unsigned char)*q) && q - digits < 7)
        q++;
    if (q == digits || *q != ':' || (q[1] != ' ' && q[1] != '\0'))
        return 0;
    return (size_t)(q + (q[1] ? 2 : 1) - s);
}

/* A word that reads as a number (so a line starting with two is a data row). */
static bool numeric_word(const char *w)
{
    if (*w == '+' || *w == '-')
        w++;
    if (!isdigit((unsigned char)*w) && !(*w == '.' && isdigit((unsigned char)w[1])))
        return false;
    for (; *w; w++)
        if (!isdigit((unsigned char)*w) && !strchr(".eE+-", *w))
            return false;
    return true;
}

static bool is_data_row(char **tok, int n_tok)
{
    if (n_tok >= 1 && numeric_word(tok[0]) && (n_tok == 1 || numeric_word(tok[1])))
        return true;
    return n_tok >= 4 && type_bytes(tok[2]) > 0;
}

/* Text, not binary: no control character but tab (and the CR of a CRLF, removed before),
 * and valid UTF-8. Returns the offset of the first bad byte, or -1. */
static long bad_byte(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t') || c == 0x7f)
                return (long)i;
            i++;
            continue;
        }
        int more = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
        if (more < 0 || c == 0xc0 || c == 0xc1 || c > 0xf4 || i + (size_t)more >= n)
            return (long)i;
        for (int k = 1; k <= more; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return (long)i;
        i += (size_t)more + 1;
    }
    return -1;
}

static void note_skipped(parser *p, const char *line, bool debug)
{
    nccl_log *log = p->log;
    log->skipped_lines++;
    if (debug)
        log->skipped_debug_lines++;
    if (log->first_skipped_line == 0) {
        log->first_skipped_line = p->line;
        while (*line == ' ' || *line == '\t')
            line++;
        snprintf(log->first_skipped, sizeof log->first_skipped, "%.60s", line);
    }
}

/* A row that does not parse: an error, unless it is short (fewer columns than the table's)
 * or the file's unterminated last line, which end the table unless a row follows. */
static int row_or_short(parser *p, char **tok, int n_tok, bool last_unterminated)
{
    table_state *t = &p->t;
    char detail[320];
    if (t->short_line) {
        p->line = t->short_line;
        snprintf(detail, sizeof detail,
                 "%.150s, and another row follows (only a table's last row may be cut short)",
                 t->short_why);
        return fail_line(p, "", detail);
    }
    int expect = expected_columns(p);
    int full = expect ? expect : 12;
    if (n_tok < full) {
        t->short_line = p->line;
        snprintf(t->short_why, sizeof t->short_why,
                 "%d columns where %s has %d: a truncated row", n_tok,
                 t->columns ? "the table" : expect ? "the column header" : "a row", full);
        return 0;
    }
    int saved_line = p->line;
    gcsim_error saved = *p->err;
    if (parse_row(p, tok, n_tok) == 0)
        return 0;
    if (!last_unterminated || t->n_rows == 0)
        return -1;
    /* The paste was cut inside this line: drop it as a truncated last row. */
    t->short_line = saved_line;
    const char *reason = strstr(p->err->message, ": line ");
    reason = reason ? strchr(reason + 7, ':') : NULL;
    snprintf(t->short_why, sizeof t->short_why,
             "the file's last line, without a newline, is not a valid row (%.120s): cut short",
             reason ? reason + 2 : p->err->message);
    *p->err = saved;
    return 0;
}

static int parse_lines(parser *p, const char *text, size_t len)
{
    char buf[NCCL_LOG_MAX_LINE + 65];
    size_t pos = 0;
    p->line = 0;
    while (pos < len) {
        p->line++;
        const char *start = text + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - start) : len - pos;
        pos += n + (nl ? 1 : 0);
        if (n > 0 && start[n - 1] == '\r')
            n--;
        long bad = bad_byte((const unsigned char *)start, n);
        if (bad >= 0) {
            char detail[160];
            unsigned char c = (unsigned char)start[bad];
            snprintf(detail, sizeof detail, "byte %ld: %s 0x%02x; not a text log (binary data?)",
                     bad, c < 0x80 ? "control character" : "invalid UTF-8 byte", c);
            return fail_line(p, "", detail);
        }
        /* The line's first NCCL_LOG_MAX_LINE + 64 bytes, NUL-terminated: enough for any
         * header or row after a prefix, and for the start of a longer line. */
        size_t keep = n < sizeof buf - 1 ? n : sizeof buf - 1;
        memcpy(buf, start, keep);
        buf[keep] = '\0';
        /* An mpirun tag and a Slurm label may both be there. */
        size_t cut = prefix_length(buf);
        cut += prefix_length(buf + cut);
        if (cut)
            p->log->prefixed_lines++;
        char *line = buf + cut;
        size_t rest = n - cut;
        while (*line == ' ' || *line == '\t') {
            line++;
            rest--;
        }
        if (rest > NCCL_LOG_MAX_LINE) {
            /* A long line is no header or row; it is skipped unless it starts like a row. */
            char head[80], *tok[MAX_TOKENS + 1];
            snprintf(head, sizeof head, "%.79s", line);
            int n_tok = tokenize(head, tok);
            if (line[0] != '#' && n_tok >= 2 && is_data_row(tok, n_tok)) {
                char detail[64];
                snprintf(detail, sizeof detail, "longer than %d bytes", NCCL_LOG_MAX_LINE);
                return fail_line(p, "", detail);
            }
            note_skipped(p, line, false);
            continue;
        }
        if (line[0] == '#') {
            if (parse_comment(p, line))
                return -1;
            continue;
        }
        if (is_blank(line))
            continue;
        if (strstr(line, "NCCL INFO") || strstr(line, "NCCL WARN")) {
            note_skipped(p, line, true);
            continue;
        }
        char copy[NCCL_LOG_MAX_LINE + 1];
        snprintf(copy, sizeof copy, "%s", line);
        char *tok[MAX_TOKENS + 1];
        int n_tok = tokenize(line, tok);
        if (!is_data_row(tok, n_tok)) {
            note_skipped(p, copy, false);
            continue;
        }
        if (row_or_short(p, tok, n_tok, !nl))
            return -1;
    }
    p->log->lines = p->line;
    if (table_open(p) && end_table(p))
        return -1;
    reset_run(p, false);
    nccl_log *log = p->log;
    if (log->n_tables == 0) {
        if (log->tables[0].dropped_line)
            return gcsim_fail(p->err, "%s: line %d: %s, and the log has no complete data row",
                              p->origin, log->tables[0].dropped_line,
                              log->tables[0].dropped_why);
        return gcsim_fail(p->err, "%s: line %d (end of file): no data rows%s", p->origin,
                          p->line ? p->line : 1,
                          len == 0 ? " (an empty file)"
                          : log->skipped_lines
                              ? "; no nccl-tests table at all (every non-blank line that is not "
                                "a '#' header was skipped as not part of a table)"
                              : "");
    }
    if (p->want > log->n_tables) {
        char list[512] = "";
        size_t used = 0;
        for (int i = 0; i < log->n_tables && used < sizeof list - 64; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%d: lines %d-%d",
                                     i ? ", " : "", i + 1, log->tables[i].first_line,
                                     log->tables[i].last_line);
        return gcsim_fail(p->err, "%s: table %d asked for (--table), but the log has %d "
                                  "table%s (%s)",
                          p->origin, p->want, log->n_tables, log->n_tables == 1 ? "" : "s",
                          list);
    }
    return 0;
}

int nccl_log_parse_table(const char *text, size_t len, const char *origin, int table,
                         nccl_log *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->origin, sizeof out->origin, "%s", origin);
    if (table < 0)
        return gcsim_fail(err, "%s: table %d: tables are numbered from 1", origin, table);
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
    p.want = table ? table : 1;
    p.t.max_rank = -1;
    p.rank_seen = calloc(NCCL_LOG_MAX_RANKS, 1);
    if (!p.rank_seen)
        return gcsim_fail(err, "%s: out of memory", origin);
    int rc = parse_lines(&p, text, len);
    reset_run(&p, false);
    free(p.rank_seen);
    if (rc) {
        nccl_log_free(out);
        return -1;
    }
    return 0;
}

int nccl_log_parse(const char *text, size_t len, const char *origin, nccl_log *out,
                   gcsim_error *err)
{
    return nccl_log_parse_table(text, len, origin, 0, out, err);
}

int nccl_log_load_table(const char *path, int table, nccl_log *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    char why[1024 + 64];
    FILE *f = gc_fopen_regular(path, why, sizeof why);
    if (!f)
        return gcsim_fail(err, "%s", why);
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
    int rc = nccl_log_parse_table(buf, n, path, table, out, err);
    free(buf);
    return rc;
}

int nccl_log_load(const char *path, nccl_log *out, gcsim_error *err)
{
    return nccl_log_load_table(path, 0, out, err);
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

double nccl_test_bus_factor(nccl_test test, int gpus)
{
    return test == NCCL_TEST_ALL_REDUCE ? nccl_allreduce_bus_factor(gpus)
                                        : (double)(gpus - 1) / gpus;
}

const char *nccl_test_name(nccl_test test)
{
    return test == NCCL_TEST_ALL_REDUCE   ? "all_reduce_perf"
           : test == NCCL_TEST_ALL_GATHER ? "all_gather_perf"
                                          : "reduce_scatter_perf";
}

nccl_test nccl_log_test(const nccl_log *log, bool *named)
{
    *named = true;
    if (strncmp(log->op, "all_gather", 10) == 0)
        return NCCL_TEST_ALL_GATHER;
    if (strncmp(log->op, "reduce_scatter", 14) == 0)
        return NCCL_TEST_REDUCE_SCATTER;
    if (strncmp(log->op, "all_reduce", 10) == 0)
        return NCCL_TEST_ALL_REDUCE;
    *named = false;
    if (log->n_rows > 0 && strcmp(log->rows[0].redop, "none") == 0)
        return NCCL_TEST_ALL_GATHER;
    if (log->n_rows > 0 && log->rows[0].ranks_in_size >= 2)
        return NCCL_TEST_REDUCE_SCATTER;
    return NCCL_TEST_ALL_REDUCE;
}

static int check_half(const nccl_log *log, const nccl_row *r, const nccl_timing *t,
                      const char *half, nccl_test test, int gpus, gcsim_error *err)
{
    double factor = nccl_test_bus_factor(test, gpus);
    double algbw = t->algbw_Bps / 1e9, busbw = t->busbw_Bps / 1e9;
    double expected = algbw * factor;
    if (agrees(busbw, t->busbw_decimals, expected, factor * half_unit(t->algbw_decimals)))
        return 0;
    char hint[128] = "";
    double ratio = algbw > 0 ? busbw / algbw : 0;
    if (test == NCCL_TEST_ALL_REDUCE && ratio > 0 && ratio < 2)
        snprintf(hint, sizeof hint, " (busbw/algbw = %.4g, as for n = %.3g)", ratio,
                 2.0 / (2.0 - ratio));
    else if (test != NCCL_TEST_ALL_REDUCE && ratio > 0 && ratio < 1)
        snprintf(hint, sizeof hint, " (busbw/algbw = %.4g, as for n = %.3g)", ratio,
                 1.0 / (1.0 - ratio));
    return gcsim_fail(err,
                      "%s: line %d: %s busbw %.6g GB/s is not algbw %.6g x %s = %.6g for "
                      "n = %d GPUs (2%% plus rounding)%s: the log was run on another GPU count, "
                      "or is not an %s, or is corrupt",
                      log->origin, r->line, half, busbw, algbw,
                      test == NCCL_TEST_ALL_REDUCE ? "2(n-1)/n" : "(n-1)/n", expected, gpus,
                      hint, test == NCCL_TEST_ALL_REDUCE ? "all-reduce"
                            : test == NCCL_TEST_ALL_GATHER ? "all-gather" : "reduce-scatter");
}

int nccl_log_check_test(const nccl_log *log, nccl_test test, int gpus, gcsim_error *err)
{
    if (gpus < 2)
        return gcsim_fail(err, "%s: %d GPU: a collective needs at least 2", log->origin, gpus);
    for (int i = 0; i < log->n_rows; i++) {
        const nccl_row *r = &log->rows[i];
        int want = test == NCCL_TEST_ALL_REDUCE ? 1 : gpus;
        if (r->ranks_in_size != want)
            return gcsim_fail(err,
                              "%s: line %d: size %.0f bytes is %d x count x element size, "
                              "where %s on %d GPUs prints %d x (nccl-tests' count is per rank "
                              "for all-gather and reduce-scatter): another GPU count or test",
                              log->origin, r->line, r->size_bytes, r->ranks_in_size,
                              nccl_test_name(test), gpus, want);
        if (check_half(log, r, &r->out_of_place, "out-of-place", test, gpus, err) ||
            check_half(log, r, &r->in_place, "in-place", test, gpus, err))
            return -1;
    }
    return 0;
}

int nccl_log_check_busbw(const nccl_log *log, int gpus, gcsim_error *err)
{
    return nccl_log_check_test(log, NCCL_TEST_ALL_REDUCE, gpus, err);
}
