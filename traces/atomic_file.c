/* Output files that appear whole or not at all (atomic_file.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The longest file name most Linux file systems take (NAME_MAX). */
#define FILE_NAME_MAX 255

const char *atomic_file_reason(int saved_errno)
{
    return saved_errno ? strerror(saved_errno) : "an input/output error";
}

/* Splits path into its folder ("." when none) and base name. */
static void split_path(const char *path, char *dir, size_t dir_len, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dir_len, ".");
        *base = path;
    } else if (slash == path) {
        snprintf(dir, dir_len, "/");
        *base = slash + 1;
    } else {
        snprintf(dir, dir_len, "%.*s", (int)(slash - path), path);
        *base = slash + 1;
    }
}

/* Removes PREFIX<pid>.XXXXXX files in dir whose pid is not a running process here: the
 * temporaries of a run that was SIGKILLed (or lost its machine) while it wrote the same
 * output. A live run's temporary is never touched; nor is anything not named exactly so. */
static void remove_stale_temporaries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (strncmp(name, prefix, plen) != 0)
            continue;
        const char *p = name + plen;
        char *end = NULL;
        if (*p < '1' || *p > '9')
            continue;
        long pid = strtol(p, &end, 10);
        if (*end != '.' || strlen(end + 1) != 6 || pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* running (or not ours to ask about): leave it */
        char path[PATH_MAX + FILE_NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
            unlink(path);
    }
    closedir(d);
}

/* Opening a FIFO for writing waits until a process opens it for reading: a FIFO nobody
 * reads held gcsim forever (issue 45). The writer is opened without waiting (O_NONBLOCK:
 * ENXIO while no reader has it open), tried again for a few seconds so that a reader
 * started beside gcsim (`gcsim ... --output p & reader < p`) has time to open it, then
 * refused; once open, writes block again as on any pipe. */
#define FIFO_READER_WAIT_MS 5000
#define FIFO_RETRY_MS 20

static int open_fifo_writer(const char *path, char *err, size_t err_len)
{
    for (int waited_ms = 0;; waited_ms += FIFO_RETRY_MS) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY);
        if (fd >= 0) {
            int flags = fcntl(fd, F_GETFL);
            if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
                snprintf(err, err_len, "%s: %s", path, strerror(errno));
                close(fd);
                return -1;
            }
            return fd;
        }
        if (errno != ENXIO) {
            snprintf(err, err_len, "%s: cannot open for writing: %s", path, strerror(errno));
            return -1;
        }
        if (waited_ms >= FIFO_READER_WAIT_MS) {
            snprintf(err, err_len, "%s: a FIFO that no process reads (none opened it in %d s): "
                     "start its reader first", path, FIFO_READER_WAIT_MS / 1000);
            return -1;
        }
        struct timespec pause = {0, FIFO_RETRY_MS * 1000000L};
        nanosleep(&pause, NULL);
    }
}

/* The FIFO writers atomic_file_probe opened, kept open for atomic_file_open: closing one
 * would give a reader that had opened the FIFO its end of file before any output. */
#define MAX_HELD_FIFOS 16
typedef struct {
    dev_t dev;
    ino_t ino;
    int fd;
} held_fifo;
static held_fifo held_fifos[MAX_HELD_FIFOS];
static int n_held_fifos;

static int take_held_fifo(const struct stat *st)
{
    for (int k = 0; k < n_held_fifos; k++)
        if (held_fifos[k].dev == st->st_dev && held_fifos[k].ino == st->st_ino) {
            int fd = held_fifos[k].fd;
            held_fifos[k] = held_fifos[--n_held_fifos];
            return fd;
        }
    return -1;
}

static int open_direct(atomic_file *f, const char *path, char *err, size_t err_len)
{
    struct stat st;
    bool fifo = stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
    int fd = fifo ? take_held_fifo(&st) : -1;
    if (fd < 0 && fifo && (fd = open_fifo_writer(path, err, err_len)) < 0)
        return -1;
    if (fd < 0 && (fd = open(path, O_WRONLY | O_NOCTTY)) < 0) {
        snprintf(err, err_len, "%s: cannot open for writing: %s", path, strerror(errno));
        return -1;
    }
    f->stream = fdopen(fd, "w");
    if (!f->stream) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    f->direct = true;
    snprintf(f->final_path, sizeof f->final_path, "%s", path);
    return 0;
}

int atomic_file_open(atomic_file *f, const char *path, char *err, size_t err_len)
{
    memset(f, 0, sizeof *f);
    /* Refused before any work: the rename at the end failed, naming the path "". */
    if (!path[0]) {
        snprintf(err, err_len, "\"\": an empty file name");
        return -1;
    }
    if (strlen(path) >= sizeof f->final_path - 32) {
        snprintf(err, err_len, "%.200s...: path too long", path);
        return -1;
    }
    struct stat st, lst;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, err_len, "%s: is a folder, not a file", path);
            return -1;
        }
        if (!S_ISREG(st.st_mode))
            return open_direct(f, path, err, err_len);
        /* A link to a regular file stays a link: its target is what gets replaced. */
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
            char resolved[PATH_MAX];
            if (!realpath(path, resolved)) {
                snprintf(err, err_len, "%s: cannot resolve the symbolic link: %s", path,
                         strerror(errno));
                return -1;
            }
            snprintf(f->final_path, sizeof f->final_path, "%s", resolved);
        } else {
            snprintf(f->final_path, sizeof f->final_path, "%s", path);
        }
    } else if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        snprintf(err, err_len, "%s: a symbolic link to a file that does not exist; gcsim "
                 "does not replace links (remove it, or create its target)", path);
        return -1;
    } else {
        snprintf(f->final_path, sizeof f->final_path, "%s", path);
    }

    char dir[sizeof f->final_path];
    const char *base;
    split_path(f->final_path, dir, sizeof dir, &base);
    /* Said before any work: the rename at the end failed, and its message was cut. */
    if (strlen(base) > FILE_NAME_MAX) {
        snprintf(err, err_len, "%.200s...: the file name is %zu bytes, longer than the %d a file "
                 "name may have", path, strlen(base), FILE_NAME_MAX);
        return -1;
    }
    /* TARGET.tmp.PID.XXXXXX must fit in a file name: shorten TARGET when needed. */
    char suffix[40];
    int slen = snprintf(suffix, sizeof suffix, ".tmp.%ld.", (long)getpid());
    int keep = (int)strlen(base);
    if (keep > FILE_NAME_MAX - slen - 6)
        keep = FILE_NAME_MAX - slen - 6;
    char prefix[FILE_NAME_MAX + 1];
    snprintf(prefix, sizeof prefix, "%.*s.tmp.", keep, base);
    remove_stale_temporaries(dir, prefix);
    int tlen = snprintf(f->temp_path, sizeof f->temp_path, "%s/%.*s%sXXXXXX", dir, keep, base,
                        suffix);
    if (tlen < 0 || (size_t)tlen >= sizeof f->temp_path) {
        snprintf(err, err_len, "%.200s...: path too long", path);
        f->temp_path[0] = '\0';
        return -1;
    }
    int fd = mkstemp(f->temp_path);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot create a temporary file beside it: %s", path,
                 strerror(errno));
        f->temp_path[0] = '\0';
        return -1;
    }
    /* mkstemp creates the file 0600; give it the mode a plain fopen would (0666 less the
     * umask), so outputs and rewritten baselines stay readable by others. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(f->temp_path);
        return -1;
    }
    f->stream = fdopen(fd, "w");
    if (!f->stream) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(f->temp_path);
        return -1;
    }
    return 0;
}

int atomic_file_probe(const char *path, char *err, size_t err_len)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
        int fd = open_fifo_writer(path, err, err_len);
        if (fd < 0)
            return -1;
        if (n_held_fifos < MAX_HELD_FIFOS)
            held_fifos[n_held_fifos++] = (held_fifo){st.st_dev, st.st_ino, fd};
        else
            close(fd); /* atomic_file_open opens it again */
        return 0;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        if (access(path, W_OK) == 0)
            return 0;
        snprintf(err, err_len, "%s: cannot open for writing: %s", path, strerror(errno));
        return -1;
    }
    atomic_file f;
    if (atomic_file_open(&f, path, err, err_len))
        return -1;
    atomic_file_abort(&f);
    return 0;
}

int atomic_file_commit(atomic_file *f, char *err, size_t err_len)
{
    errno = 0;
    int failed = fflush(f->stream) != 0 || ferror(f->stream);
    /* fsync makes the rename safe after a crash; a device or FIFO has nothing to sync */
    if (!failed && !f->direct)
        failed = fsync(fileno(f->stream)) != 0;
    int saved = errno;
    if (fclose(f->stream) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    f->stream = NULL;
    if (failed) {
        snprintf(err, err_len, "%s: write failed: %s", f->final_path, atomic_file_reason(saved));
        if (!f->direct)
            unlink(f->temp_path);
        return -1;
    }
    if (f->direct)
        return 0;
    if (rename(f->temp_path, f->final_path) != 0) {
        snprintf(err, err_len, "%s: cannot rename the finished file into place: %s",
                 f->final_path, strerror(errno));
        unlink(f->temp_path);
        return -1;
    }
    return 0;
}

void atomic_file_abort(atomic_file *f)
{
    if (f->stream)
        fclose(f->stream);
    f->stream = NULL;
    if (!f->direct && f->temp_path[0])
        unlink(f->temp_path);
}
