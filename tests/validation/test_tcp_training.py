#!/usr/bin/env python3
"""tcp_training.py's metrics by hand (no gcsim): speedup, scaling factor and throughput from
stubbed throughputs, the signed error, which runs each metric needs (a throughput case makes
no 1-GPU run), and the data file's refusal of an unknown metric. Exit 1 on the first
failure."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from unit_checks import check, close  # noqa: E402
import tcp_training as tcp  # noqa: E402


def case(name, metric, gpus, measured, platform="p.json"):
    return {"case": name, "kind": "tcp", "model": "m", "platform": platform, "gpus": str(gpus),
            "batch": "32", "stack": "s", "metric": metric, "measured": str(measured), "how": "-"}


def main():
    # stubbed gcsim: 100 samples/s on one GPU, 70 per GPU on N > 1
    calls = []

    def run(gcsim, repo, c, gpus):
        calls.append((c["case"], gpus))
        return 100.0 if gpus == 1 else 70.0 * gpus

    rows = tcp.predict("gcsim", ".", [case("S", "speedup", 16, 8.0),
                                      case("C", "scaling", 16, 0.5),
                                      case("T", "throughput", 32, 2800.0, "q.json")], run)
    by = {r["case"]: r for r in rows}
    close(by["S"]["predicted"], 11.2, "speedup 16 x 70 / 100")
    close(by["S"]["error"], 11.2 / 8.0 - 1, "speedup error")
    close(by["C"]["predicted"], 0.7, "scaling 11.2 / 16")
    close(by["C"]["error"], 0.4, "scaling error 0.7 / 0.5 - 1")
    close(by["T"]["predicted"], 2240.0, "throughput 32 x 70")
    close(by["T"]["error"], -0.2, "throughput error 2240 / 2800 - 1")
    # one 1-GPU run for S and C (same configuration), none for the throughput case
    check(calls.count(("S", 1)) == 1 and ("C", 1) not in calls, "1-GPU run shared: %r" % calls)
    check(("T", 1) not in calls and ("T", 32) in calls, "throughput runs N only: %r" % calls)

    # the markdown prints a throughput with one decimal, the ratios with two
    md = tcp.markdown(rows)
    check("| 2240.0 | -20% |" in md and "| 11.20 | +40% |" in md, "markdown:\n" + md)

    # an unknown metric is refused with the file and line
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cases.tsv")
        with open(path, "w") as f:
            f.write("# comment\n" + "\t".join(case("X", "img/s", 8, 1.0).keys()) + "\n")
            f.write("\t".join(case("X", "img/s", 8, 1.0).values()) + "\n")
        try:
            tcp.read_cases(path)
            check(False, "metric img/s accepted")
        except ValueError as e:
            check("cases.tsv:3" in str(e) and "img/s" in str(e), "message: %s" % e)

    # the shipped file parses, and its Bagua-Net row is a throughput
    shipped = {c["case"]: c for c in
               tcp.read_cases(os.path.join(HERE, "published_tcp_training.tsv"))}
    check(shipped["BNET-VGG16-32"]["metric"] == "throughput", "BNET row metric")
    print("tcp_training metrics: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
