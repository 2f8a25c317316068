#include "plot_gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *plot_gnuplot_program(void)
{
    const char *p = getenv("GCSIM_GNUPLOT");
    return p && *p ? p : "gnuplot";
}

/* What the child printed, at most the last max bytes (a runaway script can print a lot). */
static char *read_back(int fd, size_t max)
{
    struct stat st;
    if (fstat(fd, &st) || st.st_size <= 0)
        return NULL;
    size_t size = (size_t)st.st_size, skip = size > max ? size - max : 0;
    char *text = malloc(size - skip + 1);
    if (!text)
        return NULL;
    ssize_t n = pread(fd, text, size - skip, (off_t)skip);
    if (n <= 0) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    /* without the trailing line breaks, for messages */
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
        text[--n] = '\0';
    if (!n) {
        free(text);
        return NULL;
    }
    return text;
}

int plot_gnuplot_run(const char *script, const char *picture, char **printed, gcsim_error *err)
{
    *printed = NULL;
    const char *program = plot_gnuplot_program();
    /* out='PICTURE', the quote doubled inside a single-quoted gnuplot string */
    size_t len = strlen(picture);
    char *assign = malloc(2 * len + 16);
    if (!assign)
        return gcsim_fail_internal(err, "out of memory");
    char *w = assign + sprintf(assign, "out='");
    for (const char *c = picture; *c; c++) {
        if (*c == '\'')
            *w++ = '\'';
        *w++ = *c;
    }
    strcpy(w, "'");
    /* stdout and stderr of the child go to one unnamed temporary file */
    FILE *capture = tmpfile();
    if (!capture) {
        free(assign);
        return gcsim_fail_internal(err, "cannot create a temporary file for %s's messages: %s",
                                   program, strerror(errno));
    }
    int cfd = fileno(capture);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, cfd, 1);
    posix_spawn_file_actions_adddup2(&fa, cfd, 2);
    char *argv[] = {(char *)program, "-e", assign, (char *)script, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, program, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(assign);
    if (rc) {
        fclose(capture);
        if (rc == ENOENT)
            return gcsim_fail_internal(err, "%s not found: gcsim plot draws with gnuplot "
                                            "(install it, e.g. apt-get install gnuplot, or set "
                                            "GCSIM_GNUPLOT to its path)", program);
        return gcsim_fail_internal(err, "cannot run %s: %s", program, strerror(rc));
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            fclose(capture);
            return gcsim_fail_internal(err, "waiting for %s: %s", program, strerror(errno));
        }
    char *said = read_back(cfd, 2000);
    fclose(capture);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        *printed = said;
        return 0;
    }
    char how[64];
    if (WIFEXITED(status))
        snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(how, sizeof how, "was killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    gcsim_fail_internal(err, "%s %s drawing %s%s%.700s", program, how, script,
                        said ? ": " : " (it printed nothing)", said ? said : "");
    free(said);
    return -1;
}
