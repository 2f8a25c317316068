/* MFU's peak (mfu.h). */
#include "mfu.h"

double gcsim_mfu_peak_flops(const gcsim_model *m, const gcsim_platform *pf)
{
    return gcsim_precision_grad_elem_bytes(m->precision) == 2 && pf->gpu.speed_16bit_flops > 0
               ? pf->gpu.speed_16bit_flops
               : pf->gpu.speed_flops;
}

const char *gcsim_mfu_peak_name(const gcsim_model *m, const gcsim_platform *pf)
{
    return gcsim_mfu_peak_flops(m, pf) == pf->gpu.speed_flops ? "gpu.speed" : "gpu.speed_16bit";
}
