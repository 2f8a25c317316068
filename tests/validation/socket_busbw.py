#!/usr/bin/env python3
"""gcsim's socket transport against published nccl-tests busbw over NCCL's socket transport.

    socket_busbw.py GCSIM REPO [--markdown FILE]

For every row of tests/validation/published_socket_busbw.tsv (measured all_reduce_perf busbw
over NET/Socket, with sources), `gcsim collective --engine analytic` on the row's platform
(derived from specifications and the log's NCCL settings) at the row's GPU count and size,
with the algorithm and protocol the log forced (algo / proto columns) or as the tuner picks; signed error = gcsim / measured - 1 (positive: gcsim
too fast). Nothing is fitted to these numbers. Exit 1 when a gcsim run fails (not on
accuracy: the numbers are reported, not gated). Standard library only.
"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gcsim_cli  # noqa: E402  (read_tsv, first_row, table_script_main)


def busbw(gcsim, repo, row):
    argv = ["collective", "--engine", "analytic", "--platform", row["platform"],
            "--gpus", row["gpus"], "--sizes", row["size"]]
    # A log that forced its algorithm or protocol is predicted with the same one (the algo
    # and proto columns; "-": the tuner's pick), as nccl_logs.py does with SOURCES.tsv.
    for key, flag in (("algo", "--collective"), ("proto", "--protocol")):
        if row.get(key, "-").strip() not in ("", "-"):
            argv += [flag, row[key].strip()]
    got = gcsim_cli.first_row(gcsim, repo, argv)
    return got["busbw_Bps"] / 1e9, got.get("algorithm", "")


def predict(gcsim, repo, rows):
    out = []
    for row in rows:
        got, algo = busbw(gcsim, repo, row)
        meas = float(row["busbw_GBps"])
        out.append(dict(row, predicted=got, algorithm=algo, error=got / meas - 1.0))
    return out


def markdown(rows):
    out = ["| case | GPUs (nodes x per node) | size | NCCL settings | measured GB/s | gcsim GB/s "
           "| gcsim algorithm | signed error | source |",
           "|---|---|---|---|---:|---:|---|---:|---|"]
    for r in rows:
        out.append("| %s | %s (%s x %s) | %s | %s | %.2f | %.2f | %s | %+.0f%% | %s |" % (
            r["case"], r["gpus"], r["nodes"], r["gpus_per_node"], r["size"], r["settings"],
            float(r["busbw_GBps"]), r["predicted"], r["algorithm"], 100 * r["error"],
            r["source"]))
    return "\n".join(out) + "\n"


def tables(gcsim, repo):
    rows = predict(gcsim, repo, [r for _, r in gcsim_cli.read_tsv(
        os.path.join(HERE, "published_socket_busbw.tsv"))])
    errs = [r["error"] for r in rows]
    return markdown(rows), [
        "socket busbw: %d rows, signed error median %+.0f%%, from %+.0f%% to %+.0f%%"
        % (len(errs), 100 * statistics.median(errs), 100 * min(errs), 100 * max(errs))]


def main(argv):
    return gcsim_cli.table_script_main("socket_busbw.py", argv, tables)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
