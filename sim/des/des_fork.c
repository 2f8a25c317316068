/*
 * sim/des/des_fork.c: one plan simulated (des_run_plan). Each simulation runs in a forked child:
 * SimGrid allows one engine per process and keeps global state, and its output must not
 * reach the caller's stdout. The child writes a fixed-size header and the bucket array to
 * a pipe; its stderr goes to an unlinked temporary file that the parent reads only to
 * explain a failure.
 *
 * Nothing outlives gcsim: the child dies with its parent (PR_SET_PDEATHSIG, and a getppid
 * check for a parent that died before the child set it), and while a simulation is under
 * way SIGINT, SIGTERM and SIGHUP kill the child before the signal's previous action runs
 * (issue 15: a killed gcsim left the child behind). No file is written for the platform:
 * the child builds it in memory (des_platform_sg.cpp).
 */
/* wait4(2), a BSD call, is declared only with _DEFAULT_SOURCE on top of POSIX; O_TMPFILE,
 * Linux's, only with _GNU_SOURCE */
#define _DEFAULT_SOURCE
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "des_internal.h"
#include "variability.h"

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static size_t read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, p + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

/* What a signal handler must clean up. Process-wide because a handler has no other way
 * in; set only while a simulation runs, restored afterwards. */
static struct {
    volatile sig_atomic_t armed;     /* the handlers are installed */
    volatile sig_atomic_t child_pid; /* in the parent: the running child; 0 in the child */
    volatile sig_atomic_t in_child;
    struct sigaction saved[3];
} cleanup;
static const int cleanup_signals[3] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    if (cleanup.in_child)
        _exit(128 + sig);
    if (cleanup.child_pid > 0)
        kill((pid_t)cleanup.child_pid, SIGKILL);
    /* The previous action (the command's own cleanup, or the default: terminate) runs
     * once this handler returns: the signal is blocked until then. */
    for (int k = 0; k < 3; k++)
        if (cleanup_signals[k] == sig)
            sigaction(sig, &cleanup.saved[k], NULL);
    raise(sig);
}

static void cleanup_arm(void)
{
    cleanup.child_pid = 0;
    cleanup.in_child = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < 3; k++)
        sigaddset(&sa.sa_mask, cleanup_signals[k]);
    for (int k = 0; k < 3; k++) {
        sigaction(cleanup_signals[k], NULL, &cleanup.saved[k]);
        /* An ignored signal (nohup, a background job) stays ignored. */
        if (cleanup.saved[k].sa_handler != SIG_IGN)
            sigaction(cleanup_signals[k], &sa, NULL);
    }
    cleanup.armed = 1;
}

static void cleanup_disarm(void)
{
    cleanup.armed = 0;
    for (int k = 0; k < 3; k++)
        sigaction(cleanup_signals[k], &cleanup.saved[k], NULL);
}

/* The folder for generated files: $TMPDIR (as mkdtemp(3) users expect), else /tmp. */
static const char *temp_root(void)
{
    const char *t = getenv("TMPDIR");
    return t && t[0] == '/' && strlen(t) < 400 ? t : "/tmp";
}

/* Where temp_root() came from, for messages: a user who set TMPDIR must see that it was
 * read (a bad value names the variable, not only the folder). */
static const char *temp_root_origin(void)
{
    const char *t = getenv("TMPDIR");
    return t && temp_root() == t ? "$TMPDIR"
                                 : "the default: $TMPDIR unset, or not an absolute path under "
                                   "400 bytes";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The child's end: its results to the parent through the pipe, then exit (des_done_fn). */
static void child_done(void *ctx, const des_result_header *hdr, const gcsim_des_bucket *buckets,
                       int n_buckets)
{
    int fd = *(const int *)ctx;
    int bad = write_all(fd, hdr, sizeof *hdr) != 0 ||
              write_all(fd, buckets, sizeof *buckets * (size_t)n_buckets) != 0;
    _exit(bad ? 3 : 0);
}

/* The child's stderr, read only to explain a failure: a file without a name (O_TMPFILE),
 * so that a gcsim killed at any instant leaves nothing in $TMPDIR. Created with mkstemp
 * and unlinked at once, a SIGKILL between the two left gcsim-des-stderr-XXXXXX behind
 * (issue 29: des.killed_parent failed once on a loaded machine); that remains the way only
 * where the file system has no O_TMPFILE. -1 with errno set on failure. */
static int child_stderr_file(void)
{
#ifdef O_TMPFILE
    int fd = open(temp_root(), O_TMPFILE | O_RDWR, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
#endif
    char path[512];
    snprintf(path, sizeof path, "%s/gcsim-des-stderr-XXXXXX", temp_root());
    int named = mkstemp(path);
    if (named >= 0)
        unlink(path);
    return named;
}

int des_run_forked(const des_plan *plan, des_result_header *hdr, gcsim_des_bucket *buckets,
                   des_run_cost *cost, gcsim_error *err)
{
    int efd = child_stderr_file();
    if (efd < 0)
        return gcsim_fail(err, "des: cannot create a temporary file in %s (%s): %s", temp_root(),
                          temp_root_origin(), strerror(errno));
    int fds[2];
    if (pipe(fds) != 0) {
        close(efd);
        return gcsim_fail(err, "des: pipe: %s", strerror(errno));
    }
    fflush(stdout);
    fflush(stderr);
    double t0 = now_s();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(efd);
        close(fds[0]);
        close(fds[1]);
        return gcsim_fail(err, "des: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        cleanup.in_child = 1;
        /* SIGTERM: the child's handler exits at once (no platform file to remove since the
         * child builds the platform in memory, des_platform_sg.cpp). */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
            _exit(4);
        close(fds[0]);
        /* Progress goes to the caller's stderr: on a terminal, or when asked
         * (GCSIM_DES_PROGRESS=1; =0 silences it on a terminal too). */
        const char *want = getenv("GCSIM_DES_PROGRESS");
        bool tty = isatty(STDERR_FILENO);
        if (want && *want ? strcmp(want, "1") == 0 : tty)
            des_progress_init(dup(STDERR_FILENO), tty);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDOUT_FILENO);
        dup2(efd, STDERR_FILENO);
        des_simulate(plan, hdr, buckets, child_done, &fds[1]);
        child_done(&fds[1], hdr, buckets, plan->n_buckets); /* the run ended otherwise */
    }
    cleanup.child_pid = pid;
    close(fds[1]);
    size_t want = sizeof *hdr, got = read_all(fds[0], hdr, sizeof *hdr);
    if (got == want) {
        want = sizeof *buckets * (size_t)plan->n_buckets;
        got = read_all(fds[0], buckets, want);
    }
    close(fds[0]);
    /* The child's whole cost, fork to exit (its teardown included), as the kernel
     * accounted it. */
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    cleanup.child_pid = 0;
    cost->wall_s = now_s() - t0;
    cost->peak_rss_kib = ru.ru_maxrss;
    cost->cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                  (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    if (got != want || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char text[600] = "";
        ssize_t r = pread(efd, text, sizeof text - 1, 0);
        text[r > 0 ? r : 0] = '\0';
        for (char *c = text; *c; c++)
            if (*c == '\n')
                *c = ' ';
        close(efd);
        /* Not the input's fault: the input was checked before the fork, so an abort in
         * SimGrid (an assertion, a precision limit of its solver) is gcsim's own failure. */
        if (WIFSIGNALED(status))
            return gcsim_fail_internal(err, "des: internal error: the SimGrid simulation died "
                                            "(signal %d): %s", WTERMSIG(status), text);
        return gcsim_fail_internal(err, "des: internal error: the SimGrid simulation failed "
                                        "(exit %d): %s",
                                   WIFEXITED(status) ? WEXITSTATUS(status) : -1, text);
    }
    close(efd);
    if (hdr->status != 0)
        return gcsim_fail(err, "des: %s", hdr->message); /* e.g. an unwritable timeline */
    return 0;
}

int des_run_plan(des_plan *plan, des_result_header *hdr, gcsim_des_details *details,
                 gcsim_error *err)
{
    const char *full = getenv("GCSIM_DES_FULL");
    plan->full_simulation = full && strcmp(full, "1") == 0;
    const char *replay = getenv("GCSIM_DES_REPLAY");
    plan->replay = replay && strcmp(replay, "1") == 0;
    /* before the fork, so that the child inherits them */
    if (des_plan_keep_blocks(plan) != 0)
        return gcsim_fail(err, "des: out of memory");
    if (des_plan_check_size(plan, plan->max_messages, err) != 0)
        return -1;
    gcsim_des_bucket *buckets = calloc((size_t)plan->n_buckets, sizeof *buckets);
    if (!buckets)
        return gcsim_fail(err, "des: out of memory");
    des_run_cost cost = {0, 0, 0};
    cleanup_arm(); /* a signal to gcsim now kills the child too */
    int rc = des_run_forked(plan, hdr, buckets, &cost, err);
    cleanup_disarm();
    if (rc != 0) {
        free(buckets);
        return -1;
    }
    if (details) {
        memset(details, 0, sizeof *details);
        details->n_buckets = plan->n_buckets;
        details->buckets = buckets;
        details->compute_end_s = hdr->compute_end_s;
        for (int b = 0; b < plan->n_buckets; b++) {
            details->encode_s += buckets[b].encode_s;
            details->decode_s += buckets[b].decode_s;
        }
        details->transfers = hdr->transfers;
        details->solved_transfers = hdr->solved_transfers;
        snprintf(details->network_model, sizeof details->network_model, "%s", plan->network_model);
        details->wall_s = cost.wall_s;
        details->cpu_s = cost.cpu_s;
        details->peak_rss_kib = cost.peak_rss_kib;
        des_estimate est;
        des_plan_estimate(plan, &est);
        details->estimated_cpu_s = est.cpu_s;
        details->estimated_peak_mib = est.peak_bytes / (1024.0 * 1024);
    } else {
        free(buckets);
    }
    return 0;
}

void gcsim_des_details_free(gcsim_des_details *d)
{
    if (!d)
        return;
    free(d->buckets);
    d->buckets = NULL;
    d->n_buckets = 0;
}
