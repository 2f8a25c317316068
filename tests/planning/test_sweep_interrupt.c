/* A sweep killed while it writes leaves its --output file as it was (or absent), never
 * partial: SIGTERM and SIGINT also remove the temporary file; SIGKILL cannot be caught and
 * leaves the temporary file (named OUTPUT.tmp.XXXXXX), but the output itself untouched.
 * The kill is sent once rows are seen in the temporary file, so the test waits for a
 * state, not for a time. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "planning_test.h"

static const char *gcsim, *src, *work;

/* Size of the temporary file of `base` in the work folder, -1 if there is none. */
static long long temp_size(const char *base)
{
    DIR *d = opendir(work);
    if (!d)
        return -1;
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%s.tmp.", base);
    long long size = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            char path[1024];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", work, e->d_name);
            if (stat(path, &st) == 0)
                size = st.st_size;
        }
    }
    closedir(d);
    return size;
}

/* Starts a long DES sweep into work/base; returns its pid. */
static pid_t start_sweep(const char *base)
{
    char out[1024], platform[1024], model[1024];
    snprintf(out, sizeof out, "%s/%s", work, base);
    snprintf(platform, sizeof platform, "%s/platforms/a100-hdr.json", src);
    snprintf(model, sizeof model, "%s/models/resnet-50.json", src);
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDERR_FILENO);
        execl(gcsim, gcsim, "sweep", "--platform", platform, "--model", model, "--engine", "des",
              "--collective", "ring,hierarchical,tree", "--gpus", "1,2,3,...,256", "--output",
              out, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Waits until the sweep has written rows (the temporary file holds data), at most
 * max_s seconds; returns 1 when it has, 0 when the sweep ended or time ran out. */
static int wait_for_rows(pid_t pid, const char *base, double max_s)
{
    struct timespec step = {0, 20 * 1000 * 1000};
    for (double waited = 0; waited < max_s; waited += 0.02) {
        if (temp_size(base) > 0)
            return 1;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return 0;
        nanosleep(&step, NULL);
    }
    return 0;
}

static void interrupt(const char *base, int sig, const char *old)
{
    char out[1024];
    snprintf(out, sizeof out, "%s/%s", work, base);
    if (old)
        CHECK(spit(out, old) == 0);
    pid_t pid = start_sweep(base);
    CHECK(pid > 0);
    int seen = wait_for_rows(pid, base, 120.0);
    CHECK(seen);
    kill(pid, sig);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig);
    char *now = slurp(out);
    if (old) {
        CHECK(now && strcmp(now, old) == 0);
    } else {
        CHECK(now == NULL);
    }
    free(now);
    if (sig != SIGKILL)
        CHECK(temp_size(base) == -1);
    else
        CHECK(temp_size(base) >= 0); /* left behind, beside an untouched output */
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_sweep_interrupt GCSIM SOURCE_DIR WORK_DIR\n");
        return 2;
    }
    gcsim = argv[1];
    src = argv[2];
    work = argv[3];
    CHECK(fresh_dir(work) == 0);
    interrupt("term.csv", SIGTERM, "old output\n");
    interrupt("kill.csv", SIGKILL, "old output\n");
    interrupt("absent.csv", SIGINT, NULL);
    /* A sweep that finishes replaces the old file whole. */
    char out[1024];
    snprintf(out, sizeof out, "%s/done.csv", work);
    CHECK(spit(out, "old output\n") == 0);
    CHECK(sh("%s sweep --platform %s/platforms/a100-hdr.json --model %s/models/resnet-50.json "
             "--gpus 1,2 --output %s", gcsim, src, src, out) == 0);
    char *now = slurp(out);
    CHECK(now && strncmp(now, "case,cases,id,", 14) == 0);
    /* header + 2 rows */
    int lines = 0;
    for (const char *p = now; p && *p; p++)
        lines += *p == '\n';
    CHECK(lines == 3);
    free(now);
    CHECK(temp_size("done.csv") == -1);
    CHECK_DONE();
}
