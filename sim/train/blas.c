/* sim/train/blas.c: which BLAS serves the GEMMs, loaded when training starts, and pinning
 * it to one thread. */
#include "blas.h"

#ifdef GCSIM_TRAIN_OPENBLAS
#include <dlfcn.h>
#include <stdlib.h>
#endif

/* GSL's reference CBLAS until train_blas_init finds OpenBLAS. */
train_sgemm_fn train_cblas_sgemm = cblas_sgemm;
static const char *blas_name = "gslcblas";

#ifdef GCSIM_TRAIN_OPENBLAS
/* Loaded at run time, by `gcsim train` only: linked into the whole command, OpenBLAS
 * started its thread pool in every gcsim run, and under an address-space limit of 100 to
 * 200 MB that pool spun at 100% CPU at exit on a buffer it could not map (issue 29: any
 * command computed its answer, then never exited). With OPENBLAS_NUM_THREADS=1 set before
 * the library loads, no pool is started at all; the harness uses one thread anyway. */
static void *openblas;

static void load_openblas(void)
{
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    /* the run-time name first, so that a build without libopenblas-dev's link still works */
    openblas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!openblas)
        openblas = dlopen(GCSIM_OPENBLAS_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!openblas)
        return;
    train_sgemm_fn sgemm;
    void (*set_threads)(int);
    /* POSIX's way to turn dlsym's object pointer into a function pointer */
    *(void **)&sgemm = dlsym(openblas, "cblas_sgemm");
    *(void **)&set_threads = dlsym(openblas, "openblas_set_num_threads");
    if (!sgemm)
        return;
    if (set_threads)
        set_threads(1);
    train_cblas_sgemm = sgemm;
    blas_name = "openblas";
}
#endif

void train_blas_init(void)
{
    static int done;
    if (done)
        return;
    done = 1;
#ifdef GCSIM_TRAIN_OPENBLAS
    load_openblas();
#endif
}

const char *train_blas_name(void)
{
    train_blas_init();
    return blas_name;
}
