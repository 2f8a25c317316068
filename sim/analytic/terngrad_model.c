#include "terngrad_model.h"

#include <math.h>

double terngrad_T_comm_s(int i, int j, double g, const terngrad_links *c)
{
    return g / c->C_gwd_Bps * log2((double)i) + g / c->C_cwd_Bps +
           (c->C_ncost_s + g / c->C_nwd_Bps) * log2((double)j);
}

double terngrad_T_comp_strong_s(int i, int j, double T1_s, double g, const terngrad_links *c)
{
    return (T1_s - g / c->C_cwd_Bps) / ((double)i * (double)j);
}

double terngrad_T_strong_s(int i, int j, double T1_s, double g, const terngrad_links *c)
{
    return terngrad_T_comp_strong_s(i, j, T1_s, g, c) + terngrad_T_comm_s(i, j, g, c);
}

double terngrad_tput_strong(int K, double T_strong_s) { return (double)K / T_strong_s; }

double terngrad_T_weak_s(int i, int j, double T1_s, double g, const terngrad_links *c)
{
    return T1_s + g / c->C_gwd_Bps * log2((double)i) +
           (c->C_ncost_s + g / c->C_nwd_Bps) * log2((double)j);
}

double terngrad_tput_weak(int i, int j, int K, double T_weak_s)
{
    return (double)i * (double)j * (double)K / T_weak_s;
}
