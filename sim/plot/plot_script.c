#include "plot_script.h"

#include <stdio.h>
#include <stdlib.h>

#include "plot_gp.h"

int plot_script_build(const plot_table *t, const plot_options *o, char **script,
                      gcsim_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) {
        gcsim_fail_internal(err, "out of memory");
        err->limit = 1;
        return -1;
    }
    int rc = t->kind == PLOT_SWEEP  ? plot_sweep_write(t, o, out, err)
             : t->kind == PLOT_PLAN ? plot_plan_write(t, o, out, err)
                                    : plot_predict_write(t, o, out, err);
    if (fclose(out) && !rc) {
        gcsim_fail_internal(err, "out of memory");
        err->limit = 1;
        rc = -1;
    }
    if (rc) {
        free(text);
        return -1;
    }
    *script = text;
    return 0;
}
