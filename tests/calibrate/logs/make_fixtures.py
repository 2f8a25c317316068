#!/usr/bin/env python3
"""Writes the pasted-log fixtures of tests/calibrate/logs/ (run from that folder).

Each is an all_reduce_perf log in nccl-tests' exact layout, generated from a ring model
t = 2(n-1) alpha + 2(n-1)/n S / B at S >= 1 MiB (and a flatter LL-like line below), with a
fixed +-1.5% pattern of noise, printed as nccl-tests prints (time %7.2f/%7.1f/%7.0f us,
algbw and busbw %6.2f GB/s), then wrapped the way people paste logs.
"""

NOISE = [0.0, 0.012, -0.008, 0.015, -0.013, 0.004, -0.002, 0.009, -0.011, 0.006]


def time_text(us):
    return "%7.0f" % us if us >= 10000 else "%7.1f" % us if us >= 100 else "%7.2f" % us


def run(gpus, hosts, alpha_us, B_GBps, device, lo=8, hi=1 << 30, step=4, op_line=True):
    per_host = gpus // hosts
    lines = []
    if op_line:
        lines.append("# Collective test starting: all_reduce_perf")
    lines += ["# nThread 1 nGpus 1 minBytes %d maxBytes %d step: %d(factor) warmup iters: 5 "
              "iters: 20 agg iters: 1 validation: 1 graph: 0" % (lo, hi, step),
              "#", "# Using devices"]
    for r in range(gpus):
        lines.append("#  Rank %2d Group  0 Pid %6d on %11s device %2d [0x%02x] %s"
                     % (r, 210000 + r, "gpu-node%02d" % (r // per_host + 1), r % per_host,
                        0x18 + 0x10 * (r % per_host), device))
    lines += ["#",
              "#                                                              out-of-place"
              "                       in-place          ",
              "#       size         count      type   redop    root     time   algbw   busbw"
              " #wrong     time   algbw   busbw #wrong",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
              "            (us)  (GB/s)  (GB/s)       "]
    factor = 2.0 * (gpus - 1) / gpus
    size, i, busbws = lo, 0, []
    while size <= hi:
        if size >= 1 << 20:
            t = 2 * (gpus - 1) * alpha_us + factor * size / (B_GBps * 1e3)
        else:
            t = 2 * (gpus - 1) * alpha_us * 0.8 + size / 8e3
        row = "%12d  %12d  %8s  %6s  %6d" % (size, size // 4, "float", "sum", -1)
        for half in range(2):
            tu = t * (1 + NOISE[(i + 3 * half) % len(NOISE)])
            ts = time_text(tu)
            algbw = size / float(ts) / 1e3
            row += "  %s  %6.2f  %6.2f  %6s" % (ts, algbw, algbw * factor, "0")
            if half:
                busbws.append(algbw * factor)
        lines.append(row)
        size *= step
        i += 1
    lines += ["# Out of bounds values : 0 OK",
              "# Avg bus bandwidth    : %.4f " % (sum(busbws) / len(busbws)), "#", ""]
    return lines


def write(name, lines, end="\n"):
    with open(name, "w") as f:
        f.write("\n".join(lines) + end)


H100 = "NVIDIA H100 80GB HBM3"

# 1. 8 H100 in one node under mpirun --tag-output, with the shell prompt, the environment
#    and NCCL's debug output around the table.
one = run(8, 1, 1.5, 360.0, H100)
pasted = ["user@login01:~/nccl-tests$ export NCCL_DEBUG=INFO NCCL_CROSS_NIC=0",
          "user@login01:~/nccl-tests$ mpirun -np 8 --tag-output ./build/all_reduce_perf "
          "-b 8 -e 1G -f 4 -g 1",
          "NCCL_CROSS_NIC=0", "NCCL_IB_HCA=mlx5_0,mlx5_3,mlx5_4,mlx5_5", ""]
for k, line in enumerate(one):
    pasted.append("[1,0]<stdout>:" + line)
    if k == 3:
        pasted.append("[1,3]<stdout>:gpu-node01:210003:210003 [3] NCCL INFO Bootstrap : "
                      "Using ibp26s0:10.0.0.1<0>")
        pasted.append("[1,0]<stderr>:gpu-node01:210000:210000 [0] NCCL INFO NET/IB : Using "
                      "[0]mlx5_0:1/IB [1]mlx5_3:1/IB ; OOB ibp26s0:10.0.0.1<0>")
pasted += ["user@login01:~/nccl-tests$ "]
write("h100_1x8_mpirun_pasted.log", pasted)

# 2. 2 nodes x 8 A100 under srun --label, 4 x 200 Gb/s per node: B = 80 GB/s (20 per NIC).
two = run(16, 2, 4.0, 80.0, "NVIDIA A100-SXM4-80GB", lo=1 << 20, hi=1 << 30, step=2)
write("a100_2x8_slurm.log", ["%d: %s" % (0, l) if l else "" for l in two]
      + ["srun: Job step 4211.0 completed"])

# 3. Two runs concatenated: 8 GPUs on one node, then 16 on two nodes.
write("two_runs.log", run(8, 1, 1.5, 360.0, H100, lo=1 << 20, hi=1 << 28)
      + run(16, 2, 4.0, 80.0, H100, lo=1 << 20, hi=1 << 28))

# 4. A paste cut short: the last row lacks its in-place half, no newline at the end.
cut = run(8, 1, 1.5, 360.0, H100, lo=1 << 20, hi=1 << 30)[:-4]
cut[-1] = cut[-1][:cut[-1].index("0  ") + 1]
write("cut_last_row.log", cut, end="")

# 5. Cut mid-number: the last row's final "N/A" became "N/", no newline.
mid = run(8, 1, 1.5, 360.0, H100, lo=1 << 20, hi=1 << 30)[:-4]
mid = [l.replace("       0", "     N/A") if l and l[0] == " " else l for l in mid]
mid[-1] = mid[-1][:-1]
write("cut_mid_number.log", mid, end="")

# 6. A fit above the NIC line rate of tests/calibrate/platform_a100_4nic.json (4 x 25 GB/s):
#    2 x 8 A100 with B = 120 GB/s, 30 GB/s per NIC.
write("a100_2x8_above_line_rate.log",
      run(16, 2, 4.0, 120.0, "NVIDIA A100-SXM4-80GB", lo=1 << 20, hi=1 << 30, step=2))

# 7. One node of 8 A100 at B = 320 GB/s, above the fixture's nominal gpu_to_gpu (300).
write("a100_1x8_above_line_rate.log",
      run(8, 1, 5.0, 320.0, "NVIDIA A100-SXM4-80GB", lo=1 << 20, hi=1 << 30, step=2))
