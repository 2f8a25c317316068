#!/usr/bin/env python3
"""Print, as Markdown, gcsim's predictions for every speed claim of the papers listed in
docs/reproduction.md, with the paper's value and the difference in percent.

    python3 plots/reproduce_claims.py build/sim/cli/gcsim > /tmp/claims.md

docs/reproduction.md quotes this output (and says which build produced it); rerun it after
a change to an engine, a compressor or the catalog, and update the document. Every number
comes from a `gcsim predict` run whose command line is printed next to it.
"""
import csv
import io
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
G = None


def rel(path):
    return os.path.relpath(path, REPO)


def run(args):
    """gcsim predict with args (paths relative to the repo); returns (rows, meta text)."""
    cmd = [G, "predict"] + args
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=REPO).stdout
    return out


def rows(args):
    return list(csv.DictReader(io.StringIO(run(args + ["--format", "csv"]))))


def meta(args):
    return run(args + ["--format", "table"])


def shown(args):
    return "$G predict " + " ".join(args)


def pct(got, want):
    return "%+.1f%%" % (100.0 * (got - want) / want)


def tput(args):
    return float(rows(args)[-1]["throughput_samples_per_s"])


def terngrad_claims():
    print("### A1. TernGrad: AlexNet, 8 GPUs, Fig. 5(a) cluster, stated 3.04x\n")
    print("| model file | engine | fp32 img/s | TernGrad img/s | speedup | vs 3.04x |")
    print("|---|---|---:|---:|---:|---:|")
    for model in ("alexnet", "alexnet-terngrad-fitted"):
        for engine in ("analytic", "des"):
            a = ["--platform", "platforms/terngrad-fig5a.json", "--model", "models/%s.json" % model,
                 "--gpus", "8", "--scaling", "weak", "--collective", "terngrad", "--engine", engine]
            d, t = tput(a), tput(a + ["--compressor", "terngrad"])
            print("| %s | %s | %.1f | %.1f | %.2fx | %s |" % (model, engine, d, t, t / d,
                                                             pct(t / d, 3.04)))
    print("\n    " + shown(a + ["[--compressor terngrad]"]) + "\n")

    print("### A2. TernGrad: VGG-A, 128 nodes (512 GPUs), Fig. 5(b) cluster, stated 2x (\"double\")\n")
    print("| engine | fp32 img/s | TernGrad img/s | speedup | vs 2x |")
    print("|---|---:|---:|---:|---:|")
    for engine in ("analytic", "des"):
        a = ["--platform", "platforms/terngrad-fig5b.json", "--model", "models/vgg-a.json",
             "--gpus", "512", "--scaling", "weak", "--collective", "terngrad", "--engine", engine]
        d, t = tput(a), tput(a + ["--compressor", "terngrad"])
        print("| %s | %.0f | %.0f | %.2fx | %s |" % (engine, d, t, t / d, pct(t / d, 2.0)))
    print("\n    " + shown(a + ["[--compressor terngrad]"]) + "\n")


def payload(model, spec):
    text = meta(["--platform", "platforms/dgc-fig6-1gbe.json", "--model", "models/%s.json" % model,
                 "--gpus", "4", "--compressor", spec])
    g = float(re.search(r"\|g\| = ([0-9.]+) MiB", text).group(1))
    m = re.search(r": ([0-9.]+) MiB per worker, ([0-9.]+)x smaller", text)
    return g, float(m.group(1)), float(m.group(2))


def size_claims():
    print("### A3. Gradient and payload sizes (TernGrad Sec. 3; DGC Tables 3 and 4)\n")
    print("| claim | paper | gcsim | difference |")
    print("|---|---:|---:|---:|")
    _, _, r = payload("alexnet", "terngrad:last=tern")
    print("| TernGrad, 2-bit codes | 16x | %.2fx | %s |" % (r, pct(r, 16.0)))
    print("| TernGrad, log2(3) bits | 20.18x | %.2fx | %s |" % (r, pct(r, 20.18)))
    for model, gsize, tern, dgc, dgc_ratio in (("alexnet", 232.56, 29.18, 0.39, 597),
                                               ("resnet-50", 97.49, None, 0.35, 277),
                                               ("lstm-ptb", 194.68, None, 0.42, 462)):
        g, p, r = payload(model, "dgc:ratio=0.001")
        print("| %s gradient (MiB) | %.2f | %.2f | %s |" % (model, gsize, g, pct(g, gsize)))
        if tern:
            _, tp, tr = payload(model, "terngrad")
            print("| %s TernGrad payload (MiB) | %.2f | %.2f (%.2fx) | %s |" % (model, tern, tp, tr,
                                                                           pct(tp, tern)))
        print("| %s DGC payload (MiB) | %.2f (%dx) | %.2f (%.1fx) | %s (ratio %s) |"
              % (model, dgc, dgc_ratio, p, r, pct(p, dgc), pct(r, dgc_ratio)))
    print("\n    $G predict --platform platforms/dgc-fig6-1gbe.json --model models/M.json --gpus 4 "
          "--compressor SPEC   # the \"compressor:\" line\n")

    print("### A4. ORQ Table 1: one fp32 gradient over 10 Gb/s\n")
    print("| model | paper | gcsim |g| x 8 / 10^10 b/s | difference |")
    print("|---|---:|---:|---:|")
    for model, want in (("alexnet", 195.0), ("resnet-50", 82.0), ("googlenet", 44.0)):
        g, _, _ = payload(model, "none")
        ms = g * 2**20 * 8 / 1e10 * 1e3
        print("| %s | %.0f ms | %.1f ms | %s |" % (model, want, ms, pct(ms, want)))
    print()


def comm_range():
    print("### A5. DGC Sec. 5: communication \"from hundreds of milliseconds to several seconds\"\n")
    print("| cluster | model | comm_ms, 2 to 64 nodes (fp32, hierarchical, analytic) |")
    print("|---|---|---|")
    for net in ("10gbe", "1gbe"):
        for model in ("resnet-50", "alexnet"):
            r = rows(["--platform", "platforms/dgc-fig6-%s.json" % net, "--model",
                      "models/%s.json" % model, "--gpus", "8,256", "--scaling", "weak",
                      "--collective", "hierarchical"])
            print("| %s | %s | %.0f - %.0f ms |" % (net, model, float(r[0]["comm_s"]) * 1e3,
                                                   float(r[-1]["comm_s"]) * 1e3))
    print()


def speedups(net, model, collective, engine, spec):
    """Speedups at 8 and 64 nodes; collective None: the platform's default (gcsim's exchange)."""
    a = ["--platform", "platforms/dgc-fig6-%s.json" % net, "--model", "models/%s.json" % model,
         "--gpus", "4,32,256", "--scaling", "weak", "--engine", engine]
    if collective:
        a += ["--collective", collective]
    if spec:
        a += ["--compressor", spec]
    r = rows(a)
    base = float(r[0]["throughput_samples_per_s"])
    return [float(x["throughput_samples_per_s"]) / base for x in r[1:]]


def dgc_fig6():
    print("### A6. DGC Fig. 6 (held out): speedup over one node\n")
    print("| cluster | model | collective, engine | fp32 8 nodes | DGC 8 nodes | fp32 64 nodes | DGC 64 nodes |")
    print("|---|---|---|---:|---:|---:|---:|")
    for net in ("1gbe", "10gbe"):
        for model in ("resnet-50", "alexnet"):
            # dgc-paper: the paper's model; terngrad: its best case (payloads never grow);
            # the platform's default: a current stack.
            for coll, engine in (("dgc-paper", "analytic"), ("dgc-paper", "des"),
                                 ("terngrad", "analytic"), ("terngrad", "des"),
                                 (None, "analytic"), (None, "des")):
                f = speedups(net, model, coll, engine, None)
                d = speedups(net, model, coll, engine, "dgc:ratio=0.001")
                print("| %s | %s | %s, %s | %.2f | %.2f | %.2f | %.2f |"
                      % (net, model, coll or "default", engine, f[0], d[0], f[1], d[1]))
    print("\n    $G predict --platform platforms/dgc-fig6-1gbe.json --model models/resnet-50.json "
          "--gpus 4,32,256 --scaling weak [--collective dgc-paper|terngrad] --engine analytic "
          "[--compressor dgc:ratio=0.001]\n")


def ecq_fig6():
    print("### A7. ECQ-SGD Fig. 6 (held out): ResNet-50 images/s, analytic / DES\n")
    specs = (("32-bit SGD", "none"), ("QSGD", "qsgd:s=4,bucket=4096,code=elias"),
             ("ECQ-SGD", "ecq:s=2,bucket=4096,code=elias"))
    # ps: the parameter-server model the paper cites; allgather: its Fig. 1 (every node
    # broadcasts); default: a current stack (the platform's collective, gcsim's exchange).
    exchanges = (("ps", ["--collective", "ps"]), ("allgather", ["--collective", "allgather"]),
                 ("default", []))
    gpus = (8, 64, 128, 512)
    print("| exchange | GPUs | " + " | ".join(n for n, _ in specs) + " |")
    print("|---|---:|---:|---:|---:|")
    for label, args in exchanges:
        res = {}
        # The DES of the parameter server holds N x shards flows per phase: 512 GPUs take
        # longer than this page is worth (docs/des.md, "Scale"); "-" there.
        des_gpus = [n for n in gpus if label != "ps" or n <= 128]
        for name, spec in specs:
            for engine, counts in (("analytic", gpus), ("des", des_gpus)):
                r = rows(["--platform", "platforms/ecq-fig6.json", "--model",
                          "models/resnet-50.json", "--gpus", ",".join(map(str, counts)),
                          "--scaling", "weak", "--engine", engine, "--compressor", spec] + args)
                res[(name, engine)] = dict((int(x["gpus"]), float(x["throughput_samples_per_s"]))
                                           for x in r)
        for n in gpus:
            print("| %s | %d | " % (label, n) + " | ".join(
                "%.0f / %s" % (res[(s, "analytic")][n], "%.0f" % res[(s, "des")][n]
                               if n in res[(s, "des")] else "-") for s, _ in specs) + " |")
    print("\n    $G predict --platform platforms/ecq-fig6.json --model models/resnet-50.json "
          "--gpus 8,64,128,512 --scaling weak [--collective ps|allgather] "
          "--compressor ecq:s=2,bucket=4096,code=elias [--engine des]\n")


def main():
    global G
    if len(sys.argv) != 2:
        sys.exit("usage: reproduce_claims.py GCSIM")
    G = os.path.abspath(sys.argv[1])
    terngrad_claims()
    size_claims()
    comm_range()
    dgc_fig6()
    ecq_fig6()


if __name__ == "__main__":
    main()
