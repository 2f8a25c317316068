#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int atomic_file_open(atomic_file *f, const char *path, char *err, size_t err_len)
{
    memset(f, 0, sizeof *f);
    if (strlen(path) + 16 > sizeof f->temp_path) {
        snprintf(err, err_len, "%s: path too long", path);
        return -1;
    }
    snprintf(f->final_path, sizeof f->final_path, "%s", path);
    snprintf(f->temp_path, sizeof f->temp_path, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(f->temp_path);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot create a temporary file beside it: %s", path,
                 strerror(errno));
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

int atomic_file_commit(atomic_file *f, char *err, size_t err_len)
{
    int failed = fflush(f->stream) != 0 || ferror(f->stream) || fsync(fileno(f->stream)) != 0;
    int saved = errno;
    if (fclose(f->stream) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    f->stream = NULL;
    if (failed) {
        snprintf(err, err_len, "%s: write failed: %s", f->final_path, strerror(saved));
        unlink(f->temp_path);
        return -1;
    }
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
    if (f->temp_path[0])
        unlink(f->temp_path);
}
