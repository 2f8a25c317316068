/* --convergence for plan, predict and breakeven (cli_convergence.h). */
#include "cli_convergence.h"
#include "convergence_notes.h"

#include <stdio.h>

#include "convergence_factors.h"

int cli_convergence_option(const char *cmd, const char *arg, conv_source *out)
{
    if (conv_source_parse(arg, out)) {
        fprintf(stderr, "gcsim %s: --convergence: expected none, catalog, train, bound or best, "
                        "got \"%s\"\n", cmd, arg);
        return -1;
    }
    return 0;
}

void cli_convergence_files(cli_files *f, conv_source want)
{
    static const char *const what[CONVERGENCE_DATA_FILES] = {
        "the --convergence catalog", "the --convergence train factors",
        "the --convergence bound's trace"};
    char paths[CONVERGENCE_DATA_FILES][4096];
    for (int k = 0; want != CONV_SOURCE_NONE && k < CONVERGENCE_DATA_FILES; k++)
        cli_files_input(f, what[k], convergence_data_file(k, paths[k], sizeof paths[k]));
}
