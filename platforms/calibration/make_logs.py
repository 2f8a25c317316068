#!/usr/bin/python3
"""Writes the nccl-tests all_reduce_perf logs in this folder from published busbw figures.

They are reconstructions, not raw logs: a log holds only the rows whose busbw was published
(README.md here lists each figure and its source). For each row, with n ranks and S bytes:
    time (us) = S * 2(n-1)/n / busbw,   algbw = S / time,   busbw as published,
printed with the two decimals nccl-tests prints. Only in-place figures were published; the
out-of-place columns repeat them, and #wrong is N/A (nccl-tests prints it when validation is
off) because no validation result was published. Rank lines, where present, encode only the
published GPU and node counts and the GPU model: host names, Pids and bus ids are
placeholders. Run it from anywhere: python3 platforms/calibration/make_logs.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MIB, GIB = 1 << 20, 1 << 30

LOGS = [
    {
        "file": "a100-nvswitch-1x8-azure-ndv4.log",
        "source": "Azure/AI-benchmarking-guide (GitHub), NCCL all-reduce results, ND A100 v4",
        "system": "8x A100 80GB SXM on NVSwitch, one node (Azure ND A100 v4)",
        "ranks": 8, "hosts": 1, "device": "NVIDIA A100-SXM4-80GB",
        "layout": 13, "rank_style": "current", "op_line": True,
        "rows": [(16 * MIB, 109.22), (32 * MIB, 132.77), (8 * GIB, 231.58)],
    },
    {
        "file": "h200-nvswitch-1x8-azure-ndv5.log",
        "source": "Azure/AI-benchmarking-guide (GitHub), NCCL all-reduce results, ND H200 v5",
        "system": "8x H200 SXM on NVSwitch, one node (Azure ND H200 v5)",
        "ranks": 8, "hosts": 1, "device": "NVIDIA H200",
        "layout": 12, "rank_style": "older", "op_line": False,
        "rows": [(16 * MIB, 240.41), (8 * GIB, 479.98)],
    },
    {
        "file": "a100-ib-2x8-4x200g.log",
        "source": "NVIDIA/nccl-tests GitHub issue reports: ~86 GB/s at large sizes",
        "system": "2 nodes x 8 A100, 4 x 200 Gb/s InfiniBand per node",
        "ranks": 16, "hosts": 2, "device": None,
        "layout": 13, "rank_style": None, "op_line": True,
        # The source says "large" without a size: 8 GiB is an assumption (the largest size
        # of the Azure runs above); at that size the latency term is far below 1% of the time.
        "rows": [(8 * GIB, 86.0)],
        "size_note": "the source gives no message size ('large'): 8 GiB is assumed",
    },
]


def row_text(size, busbw, n, layout):
    factor = 2.0 * (n - 1) / n
    time_us = size * factor / (busbw * 1e9) * 1e6
    algbw = size / (time_us * 1e3)
    half = "%10.2f %7.2f %7.2f %6s" % (time_us, algbw, busbw, "N/A")
    head = "%12d %12d %8s %6s" % (size, size // 4, "float", "sum")
    if layout == 13:
        head += " %7d" % -1
    return head + " " + half + " " + half


def write(log):
    n = log["ranks"]
    lines = [
        "# RECONSTRUCTED, NOT A RAW LOG: written by make_logs.py from the busbw figures",
        "# published for %s" % log["system"],
        "# Source: %s" % log["source"],
        "# Only the published rows; time = S * 2(n-1)/n / busbw, algbw = S / time;",
        "# out-of-place columns repeat the (published) in-place figures; #wrong N/A: not published.",
    ]
    if log.get("size_note"):
        lines.append("# Note: %s." % log["size_note"])
    if log["rank_style"]:
        lines.append("# Rank lines: GPU and node counts and GPU model as published;"
                     " hosts, Pids and bus ids are placeholders.")
    else:
        lines.append("# No Rank lines: run gcsim calibrate with --gpus %d --nodes %d."
                     % (n, log["hosts"]))
    lines.append("#")
    if log["op_line"]:
        lines.append("# Collective test starting: all_reduce_perf")
    # No "# nThread ..." parameter line and no "Out of bounds values" line: the run's
    # parameters and validation result were not published.
    if log["rank_style"]:
        lines.append("# Using devices")
        per_host = n // log["hosts"]
        for r in range(n):
            host = "node%d-placeholder" % (r // per_host)
            group = "Group  0 " if log["rank_style"] == "current" else ""
            lines.append("#  Rank %2d %sPid      0 on %s device %2d [0x00] %s"
                         % (r, group, host, r % per_host, log["device"]))
        lines.append("#")
    root = "    root" if log["layout"] == 13 else ""
    lines.append("#                                                    out-of-place"
                 "                       in-place")
    lines.append("#       size        count     type  redop%s       time   algbw   busbw"
                 " #wrong       time   algbw   busbw #wrong" % root)
    lines.append("#        (B)   (elements)%s                     (us)  (GB/s)  (GB/s)"
                 "              (us)  (GB/s)  (GB/s)" % ("        " if root else ""))
    for size, busbw in log["rows"]:
        lines.append(row_text(size, busbw, n, log["layout"]))
    with open(os.path.join(HERE, log["file"]), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    for log in LOGS:
        write(log)
