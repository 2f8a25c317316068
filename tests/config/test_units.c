/* Quantities with units: bits and bytes never confused, bad text rejected. */
#include "check.h"
#include "units.h"

int main(void)
{
    double v = 0;
    /* Rates, always in bytes per second. 1 Gbps = 1e9 bits/s = 125e6 bytes/s. */
    CHECK(gcsim_parse_rate_Bps("1Gbps", &v) && v == 125e6);
    CHECK(gcsim_parse_rate_Bps("100Gb/s", &v) && v == 12.5e9);
    CHECK(gcsim_parse_rate_Bps("12.5GBps", &v) && v == 12.5e9);
    CHECK(gcsim_parse_rate_Bps("12.5GB/s", &v) && v == 12.5e9);
    CHECK(gcsim_parse_rate_Bps("25GiBps", &v) && v == 25.0 * 1073741824.0);
    CHECK(gcsim_parse_rate_Bps("941Mbps", &v) && v == 941e6 / 8);
    CHECK(gcsim_parse_rate_Bps("10kbps", &v) && v == 1250.0);
    CHECK(gcsim_parse_rate_Bps("8bps", &v) && v == 1.0);
    CHECK(!gcsim_parse_rate_Bps("1gbps", &v));   /* lower-case g: not an SI prefix */
    CHECK(!gcsim_parse_rate_Bps("1Gbit", &v));
    CHECK(!gcsim_parse_rate_Bps("fast", &v));
    CHECK(!gcsim_parse_rate_Bps("1e9", &v));      /* no unit */
    CHECK(!gcsim_parse_rate_Bps("0Gbps", &v));
    CHECK(!gcsim_parse_rate_Bps("-1Gbps", &v));
    CHECK(!gcsim_parse_rate_Bps("nanGbps", &v));
    CHECK(!gcsim_parse_rate_Bps("infGbps", &v));
    CHECK(!gcsim_parse_rate_Bps("1Gbps ", &v));   /* trailing text */
    CHECK(!gcsim_parse_rate_Bps("", &v));
    CHECK(!gcsim_parse_rate_Bps(NULL, &v));
    /* Times, in seconds. */
    CHECK(gcsim_parse_time_s("50us", &v) && v == 50e-6);
    CHECK_REL((gcsim_parse_time_s("1.2ms", &v), v), 1.2e-3, 1e-15);
    CHECK(gcsim_parse_time_s("2s", &v) && v == 2.0);
    CHECK(gcsim_parse_time_s("700ns", &v) && v == 700e-9);
    CHECK(!gcsim_parse_time_s("50", &v));
    CHECK(!gcsim_parse_time_s("5 us", &v));
    CHECK(!gcsim_parse_time_s("1h", &v));
    /* Compute speeds and sizes. */
    CHECK(gcsim_parse_flops("8.9Tflops", &v) && v == 8.9e12);
    CHECK(gcsim_parse_flops("19.5TFLOPS", &v) && v == 19.5e12);
    CHECK(!gcsim_parse_flops("8.9T", &v));
    CHECK(gcsim_parse_size_bytes("25MiB", &v) && v == 25.0 * 1048576.0);
    CHECK(gcsim_parse_size_bytes("1kB", &v) && v == 1000.0);
    CHECK(!gcsim_parse_size_bytes("25Mib", &v));
    CHECK_DONE();
}
