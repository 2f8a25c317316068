/*
 * sim/analytic/terngrad_model.h: the TernGrad paper's performance model (Wen et al. 2017,
 * Appendix B, equations 27-30), exactly as published.
 *
 * j machines with i GPUs each, N = i*j workers, mini-batch K, gradient size |g| in bytes.
 * T1_s is T(1,1,K,|g|), the profiled time to train a batch of K on one GPU; it includes one
 * GPU-to-CPU copy of |g|. Bandwidths in bytes per second, latency in seconds.
 */
#ifndef GCSIM_ANALYTIC_TERNGRAD_MODEL_H
#define GCSIM_ANALYTIC_TERNGRAD_MODEL_H

typedef struct {
    double C_gwd_Bps;   /* GPU-to-GPU bandwidth inside a machine */
    double C_cwd_Bps;   /* CPU-GPU bandwidth */
    double C_nwd_Bps;   /* network bandwidth of a machine */
    double C_ncost_s;   /* network latency */
} terngrad_links;

/* T_comm = |g|/C_gwd*log2(i) + |g|/C_cwd + (C_ncost + |g|/C_nwd)*log2(j)   (in eq. 27) */
double terngrad_T_comm_s(int i, int j, double g_bytes, const terngrad_links *c);

/* T_comp (strong) = (T(1,1,K,|g|) - |g|/C_cwd) / N                       (in eq. 27) */
double terngrad_T_comp_strong_s(int i, int j, double T1_s, double g_bytes,
                                const terngrad_links *c);

/* Eq. 27: T_strong = T_comp + T_comm */
double terngrad_T_strong_s(int i, int j, double T1_s, double g_bytes, const terngrad_links *c);

/* Eq. 28: Tput_strong = K / T_strong */
double terngrad_tput_strong(int K, double T_strong_s);

/* Eq. 29: T_weak = T(1,1,K,|g|) + |g|/C_gwd*log2(i) + (C_ncost + |g|/C_nwd)*log2(j) */
double terngrad_T_weak_s(int i, int j, double T1_s, double g_bytes, const terngrad_links *c);

/* Eq. 30: Tput_weak = N*K / T_weak */
double terngrad_tput_weak(int i, int j, int K, double T_weak_s);

#endif
