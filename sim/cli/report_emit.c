#include "report_emit.h"

#include <errno.h>
#include <stdio.h>

#include "atomic_file.h"
#include "commands.h"

int report_emit(const report *r, report_format format, const char *output, const char *who)
{
    char msg[1024];
    if (!output) {
        errno = 0;
        if (report_write(r, format, stdout) || fflush(stdout)) {
            fprintf(stderr, "gcsim %s: cannot write to standard output: %s\n", who,
                    atomic_file_reason(errno));
            return EXIT_BAD_INPUT;
        }
        return EXIT_OK;
    }
    atomic_file f;
    if (atomic_file_open(&f, output, msg, sizeof msg)) {
        fprintf(stderr, "gcsim %s: %s\n", who, msg);
        return EXIT_BAD_INPUT;
    }
    errno = 0;
    if (report_write(r, format, f.stream)) {
        int saved = errno;
        atomic_file_abort(&f);
        fprintf(stderr, "gcsim %s: %s: write failed: %s\n", who, output, atomic_file_reason(saved));
        return EXIT_BAD_INPUT;
    }
    if (atomic_file_commit(&f, msg, sizeof msg)) {
        fprintf(stderr, "gcsim %s: %s\n", who, msg);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

int report_output_usable(const char *output, const char *who)
{
    char msg[1024];
    if (!output || atomic_file_probe(output, msg, sizeof msg) == 0)
        return 0;
    fprintf(stderr, "gcsim %s: %s\n", who, msg);
    return -1;
}
