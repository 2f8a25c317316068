/* Equations 27-30 of the TernGrad paper (Appendix B) against values computed by hand. */
#include "check.h"
#include "terngrad_model.h"

#define REL 1e-9

int main(void)
{
    /* Configuration A: 2 machines x 4 GPUs, PCIe and 1 Gbps Ethernet.
     * |g| = 200e6 B, C_gwd = 10e9 B/s, C_cwd = 12.5e9 B/s, C_nwd = 125e6 B/s (1 Gbps),
     * C_ncost = 50 us, T(1,1,K) = 0.25 s, K = 128.
     *   T_comm = 200e6/10e9 * log2(4) + 200e6/12.5e9 + (50e-6 + 200e6/125e6) * log2(2)
     *          = 0.02 * 2 + 0.016 + (0.00005 + 1.6) * 1 = 1.65605 s
     *   T_comp = (0.25 - 0.016) / 8 = 0.02925 s
     *   T_strong = 1.6853 s, Tput_strong = 128 / 1.6853 = 75.950869281...
     *   T_weak = 0.25 + 0.04 + 1.60005 = 1.89005 s, Tput_weak = 8 * 128 / 1.89005 */
    terngrad_links a = {10e9, 12.5e9, 125e6, 50e-6};
    CHECK_REL(terngrad_T_comm_s(4, 2, 200e6, &a), 1.65605, REL);
    CHECK_REL(terngrad_T_comp_strong_s(4, 2, 0.25, 200e6, &a), 0.02925, REL);
    CHECK_REL(terngrad_T_strong_s(4, 2, 0.25, 200e6, &a), 1.6853, REL);
    CHECK_REL(terngrad_tput_strong(128, 1.6853), 128.0 / 1.6853, REL);
    CHECK_REL(terngrad_tput_strong(128, terngrad_T_strong_s(4, 2, 0.25, 200e6, &a)),
              75.95086928143, 1e-11); /* 128 / 1.6853, to 13 digits */
    CHECK_REL(terngrad_T_weak_s(4, 2, 0.25, 200e6, &a), 1.89005, REL);
    CHECK_REL(terngrad_tput_weak(4, 2, 128, 1.89005), 1024.0 / 1.89005, REL);

    /* Configuration B: one machine of 4 GPUs (j = 1, no network term).
     *   T_comm = 0.02 * 2 + 0.016 + (0.00005 + 1.6) * 0 = 0.056 s
     *   T_strong = (0.25 - 0.016) / 4 + 0.056 = 0.0585 + 0.056 = 0.1145 s
     *   T_weak = 0.25 + 0.04 + 0 = 0.29 s */
    CHECK_REL(terngrad_T_comm_s(4, 1, 200e6, &a), 0.056, REL);
    CHECK_REL(terngrad_T_strong_s(4, 1, 0.25, 200e6, &a), 0.1145, REL);
    CHECK_REL(terngrad_T_weak_s(4, 1, 0.25, 200e6, &a), 0.29, REL);
    CHECK_REL(terngrad_tput_weak(4, 1, 128, 0.29), 512.0 / 0.29, REL);

    /* Configuration C: 16 machines x 8 GPUs, NVLink and 100 Gbps InfiniBand.
     * |g| = 100e6 B, C_gwd = 80e9, C_cwd = 16e9, C_nwd = 12.5e9 B/s, C_ncost = 2 us,
     * T(1,1,K) = 0.5 s, K = 256, N = 128.
     *   T_comm = 100e6/80e9 * 3 + 100e6/16e9 + (2e-6 + 100e6/12.5e9) * 4
     *          = 0.00375 + 0.00625 + 0.008002 * 4 = 0.042008 s
     *   T_comp = (0.5 - 0.00625) / 128 = 0.003857421875 s
     *   T_strong = 0.045865421875 s
     *   T_weak = 0.5 + 0.00375 + 0.032008 = 0.535758 s */
    terngrad_links c = {80e9, 16e9, 12.5e9, 2e-6};
    CHECK_REL(terngrad_T_comm_s(8, 16, 100e6, &c), 0.042008, REL);
    CHECK_REL(terngrad_T_comp_strong_s(8, 16, 0.5, 100e6, &c), 0.003857421875, REL);
    CHECK_REL(terngrad_T_strong_s(8, 16, 0.5, 100e6, &c), 0.045865421875, REL);
    CHECK_REL(terngrad_tput_strong(256, 0.045865421875), 256.0 / 0.045865421875, REL);
    CHECK_REL(terngrad_T_weak_s(8, 16, 0.5, 100e6, &c), 0.535758, REL);
    CHECK_REL(terngrad_tput_weak(8, 16, 256, 0.535758), 128.0 * 256 / 0.535758, REL);

    /* One GPU: T_comm = |g|/C_cwd, so T_strong = T_weak = T(1,1,K) and Tput = K / T(1,1,K). */
    CHECK_REL(terngrad_T_strong_s(1, 1, 0.25, 200e6, &a), 0.25, REL);
    CHECK_REL(terngrad_T_weak_s(1, 1, 0.25, 200e6, &a), 0.25, REL);
    CHECK_REL(terngrad_tput_strong(128, terngrad_T_strong_s(1, 1, 0.25, 200e6, &a)), 512.0, REL);
    CHECK_DONE();
}
