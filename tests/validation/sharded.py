#!/usr/bin/env python3
"""gcsim's sharded data parallelism (FSDP, ZeRO) against published training throughput.

    sharded.py [--gcsim PATH] [--engine analytic|des] [--markdown [FILE]]
    sharded.py --fit [--gcsim PATH] [--write HEADER]   # the efficiencies (and C header)
    sharded.py --agreement [--gcsim PATH] [--check] [--markdown [FILE]]

For every configuration of tests/validation/sharded/measurements.tsv with a throughput in
tokens/s per GPU (its sources: SOURCES.md there): the model is built from the row's
architecture by models/gen_models.py's decoder_layers (Llama rows: SwiGLU, grouped-query
attention when kv_heads < heads; MPT, GPT and Granite rows: a two-matrix GELU MLP, no
learned positions), the platform from the catalog platform of its GPU (a100-hdr, h100-ndr,
h200-ndr) with the row's GPU memory and, when the source gives it, its network bandwidth per
node (8 NICs of a share each; otherwise the catalog's, an assumption said per row). gcsim
predict runs the row's strategy (FSDP / FSDP2 / ZeRO-3 full shard: fsdp; hybrid: hsdp;
SHARD_GRAD_OP: zero2), micro-batch, gradient accumulation and activation checkpointing
(selective checkpointing with the policy its stack runs: SELECTIVE_POLICY), bf16 and Adam,
and the error is predicted / measured - 1 on tokens/s per GPU.

Calibration: the rows named in CALIBRATION (at most a third of the predicted ones) are those
the transformer efficiency model (sim/config/llm_efficiency_fit.h) is fitted to: --fit
finds, per row, the fraction of peak (--mfu) at which gcsim reproduces the measurement
(bisection), and per GPU type the median. The report marks them and gives the median error
on the others only as the validation figure.

--agreement: the DES against the analytic engine on sharded cases (every strategy, ZeRO++,
checkpointing and accumulation, on three catalog platforms of 400 to 3,200 Gb/s per node, at
16 and 64 GPUs; compute fixed by --mfu 0.4 so that only the schedules differ); --check exits
1 when a case is more than 3% apart or gcsim fails on one.

Not predicted (said per row): fp8 training (no fp8 compute model), torch.compile rows are
predicted but flagged (the fit is on eager rows), rows without sequence length or
architecture. A report, not a gate: exit 0 unless gcsim fails (1) or a file is bad (2).
Standard library only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "models"))
import gen_models  # noqa: E402

TSV = os.path.join(HERE, "sharded", "measurements.tsv")

# Fitted to these (one per source and GPU generation that has an eager, single-node or
# small row): never counted in the validation error.
# Per GPU type a 7-8B row and a 70B row (two sources each), so that the fit sees the GEMM
# width the efficiency grows with: 6 of the 31 predicted configurations.
CALIBRATION = ["c06a", "c16", "c02a", "c11a", "c24a", "c25a"]
# The efficiency model: e_gpu x (hidden / REFERENCE_HIDDEN)^beta, beta shared by the types.
REFERENCE_HIDDEN = 4096

# What "selective" activation checkpointing means in each source's stack (gcsim predict
# --act-ckpt=POLICY, sim/config/act_ckpt.h):
#   - torchtitan: its default selective_ac_option "op" at the cited commits (SOURCES.md:
#     the llama3_8b.toml presets; torchtitan's performance.md names the rows "selective op");
#   - IBM's fms-fsdp: selective_checkpointing = p, a fraction p of the blocks; p is not
#     printed. 1/2 is derived from the source's own HFU and MFU (HFU counts the recomputed
#     FLOPs: HFU / MFU = 1 + p / 3 with backward twice forward): 0.59 / 0.51 gives p = 0.47,
#     0.40 / 0.35 gives 0.43, and the two printed digits allow 0.41 to 0.53; fms-fsdp's own
#     example of an evenly spaced fraction is 1/2. A configuration read from the source,
#     not a fit to its throughput.
SELECTIVE_POLICY = {"torchtitan-h100-202412": "op", "torchtitan-a100-2024": "op",
                    "trainy-h200-202506": "op", "ibm-pytorch-fsdp-2024": "fraction:0.5"}

BASE_PLATFORM = {"a100": "a100-hdr", "h100": "h100-ndr", "h200": "h200-ndr"}
STRATEGY = {"fsdp-full": "fsdp", "fsdp2-full": "fsdp", "zero3": "fsdp",
            "fsdp-hybrid": "hsdp", "fsdp-shard-grad-op": "zero2"}


def read_rows(path=TSV):
    """The rows of a tab-separated file with a header line (this folder's measurement
    files), as dicts; exits naming the file and line of a row of the wrong width."""
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]
    head = lines[0].split("\t")
    rows = []
    for n, l in enumerate(lines[1:], 2):
        cells = l.split("\t")
        if len(cells) != len(head):
            sys.exit("%s:%d: %d cells, header has %d" % (path, n, len(cells), len(head)))
        rows.append(dict(zip(head, cells)))
    return rows


def num(x):
    return None if x in ("?", "") else float(x)


def gpu_family(gpu):
    for k in ("h200", "h100", "a100"):
        if gpu.startswith(k):
            return k
    return None


def why_not(r):
    """The reason a row is not predicted, or None."""
    if r["metric"] != "tokens_per_s_per_gpu":
        return "metric"
    if r["precision"] != "bf16":
        return "precision %s (no compute model for it)" % r["precision"]
    if gpu_family(r["gpu"]) is None:
        return "GPU %s not in the catalog" % r["gpu"]
    for k in ("layers", "hidden", "ffn", "heads", "kv_heads", "vocab", "seq_len",
              "micro_batch"):
        if num(r[k]) is None:
            return "%s not published" % k
    if r["strategy"] not in STRATEGY:
        return "strategy %s" % r["strategy"]
    return None


def model_file(r, folder):
    llama = r["model"].startswith("llama") or r["model"].startswith("tinyllama")
    L, h, ffn = int(num(r["layers"])), int(num(r["hidden"])), int(num(r["ffn"]))
    heads, kv = int(num(r["heads"])), int(num(r["kv_heads"]))
    vocab, seq = int(num(r["vocab"])), int(num(r["seq_len"]))
    layers = gen_models.decoder_layers(vocab, 0, h, L, ffn, seq, not llama,
                                       heads if llama else None, kv if llama else None)
    doc = gen_models.model_doc(
        "v-" + r["id"], r["model"] + " %(params)s parameters", "tests/validation/sharded.py: "
        "the row's architecture", int(num(r["micro_batch"])), layers, [],
        {"precision": "bf16", "optimizer": "adam", "tokens_per_sample": seq,
         "activation_bytes_per_sample":
             gen_models.transformer_activation_bytes(seq, h, L, vocab, False)})
    path = os.path.join(folder, "model-%s.json" % r["id"])
    with open(path, "w") as f:
        json.dump(doc, f)
    params = sum(l["weights"] + l["bias"] + l.get("other_params", 0) for l in layers)
    return path, params


def platform_file(r, folder):
    fam = gpu_family(r["gpu"])
    with open(os.path.join(REPO, "platforms", BASE_PLATFORM[fam] + ".json")) as f:
        p = json.load(f)
    notes = []
    mem = num(r["gpu_memory_gb"])
    if mem:
        p["gpu"]["memory"] = "%gGB" % mem
        p["sources"]["gpu.memory"] = "the validation row's GPU (%s)" % r["gpu"]
    bw = num(r["internode_gbps_per_node"])
    if bw:
        per = p["nic"]["per_node"]
        p["nic"]["bandwidth"] = "%gGbps" % (bw / per)
        p["sources"]["nic.bandwidth"] = "the source's %g Gb/s per node over %d NICs" % (bw, per)
    else:
        notes.append("network: %s's (not published)" % BASE_PLATFORM[fam])
    gpus = int(num(r["gpus"]))
    gpn = p["gpus_per_node"]
    p["nodes"] = max(p["nodes"], (gpus + gpn - 1) // gpn)
    if "codec_profile" in p["gpu"]:  # read when the platform loads: named from the copy
        p["gpu"]["codec_profile"] = os.path.join(REPO, "platforms", p["gpu"]["codec_profile"])
    path = os.path.join(folder, "platform-%s.json" % r["id"])
    with open(path, "w") as f:
        json.dump(p, f)
    return path, notes


def predict_argv(gcsim, r, model, platform, mfu=None, engine="analytic"):
    argv = [gcsim, "predict", "--model", model, "--platform", platform,
            "--gpus", str(int(num(r["gpus"]))), "--sharding", STRATEGY[r["strategy"]],
            "--batch", str(int(num(r["micro_batch"]))), "--engine", engine,
            "--format", "json", "--no-memory-check"]
    ga = num(r["grad_accum"])
    if ga and ga > 1:
        argv += ["--grad-accum", str(int(ga))]
    if r["act_ckpt"] == "yes":
        argv.append("--act-ckpt")
    elif r["act_ckpt"] == "selective" and r["source_id"] in SELECTIVE_POLICY:
        argv.append("--act-ckpt=" + SELECTIVE_POLICY[r["source_id"]])
    if mfu:
        argv += ["--mfu", "%.6f" % mfu]
    return argv


def tokens_per_gpu(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip() or "exit %d" % p.returncode)
    doc = json.loads(p.stdout)
    row = doc["rows"][-1]
    return row["tokens_per_s"] / row["gpus"], row


def fit_row(gcsim, r, model, platform):
    """The --mfu at which gcsim's tokens/s per GPU equals the measurement (bisection)."""
    want = float(r["value"])
    lo, hi = 0.05, 1.0
    for _ in range(40):
        mid = (lo + hi) / 2
        got, _ = tokens_per_gpu(predict_argv(gcsim, r, model, platform, mid))
        if got < want:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


AGREEMENT_PLATFORMS = ["h100-ndr", "h100-400g", "a100-40g-400g"]
AGREEMENT_CASES = [("llama-2-7b", "zero1", []), ("llama-2-7b", "zero2", ["--grad-accum", "2"]),
                   ("llama-2-7b", "fsdp", []), ("llama-2-7b", "fsdp", ["--act-ckpt"]),
                   ("llama-2-7b", "fsdp", ["--act-ckpt=op"]),
                   ("llama-2-7b", "zero2", ["--act-ckpt=every:2"]),
                   ("llama-2-7b", "hsdp", []), ("llama-2-7b", "zero3+qwz+hpz+qgz", []),
                   # DeepSpeed's per-tensor fetch and bounded prefetch (zero3 as spelled)
                   ("llama-2-7b", "zero3", []), ("llama-2-7b", "zero3", ["--act-ckpt"]),
                   ("llama-2-7b", "zero3+qwz+hpz+qgz", ["--act-ckpt"]),
                   ("gpt2-xl", "fsdp", ["--precision", "bf16", "--grad-accum", "2"]),
                   ("gpt2-xl", "zero2", ["--precision", "bf16"])]
AGREEMENT_GPUS = "16,64"
AGREEMENT_PCT = 3.0


def agreement(gcsim, check, markdown):
    lines = ["| platform | model | strategy | options | GPUs | analytic ms | DES ms | gap |",
             "|---|---|---|---|---:|---:|---:|---:|"]
    bad, gaps = 0, []
    for plat in AGREEMENT_PLATFORMS:
        for model, sh, extra in AGREEMENT_CASES:
            argv = [gcsim, "predict", "--platform", plat, "--model", model, "--sharding", sh,
                    "--gpus", AGREEMENT_GPUS, "--engine", "both", "--mfu", "0.4",
                    "--no-memory-check", "--format", "json"] + extra
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                bad += 1
                lines.append("| %s | %s | %s | %s | - | - | - | gcsim failed: %s |" % (
                    plat, model, sh, " ".join(extra), p.stderr.strip().splitlines()[-1][:120]))
                continue
            rows = json.loads(p.stdout)["rows"]
            for a_row, d_row in zip(rows[0::2], rows[1::2]):
                gap = d_row["iteration_s"] / a_row["iteration_s"] - 1
                gaps.append(abs(gap))
                over = abs(gap) * 100 > AGREEMENT_PCT
                bad += over
                lines.append("| %s | %s | %s | %s | %d | %.3f | %.3f | %+.3f%%%s |" % (
                    plat, model, sh, " ".join(extra), a_row["gpus"], 1e3 * a_row["iteration_s"],
                    1e3 * d_row["iteration_s"], 100 * gap, " (over 3%)" if over else ""))
    lines.append("")
    if gaps:
        lines.append("%d cases: median |gap| %.4f%%, max %.4f%%; %d over %.0f%% or failed." % (
            len(gaps), 100 * statistics.median(gaps), 100 * max(gaps), bad, AGREEMENT_PCT))
    emit(lines, markdown)
    return 1 if check and bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gcsim", default=os.path.join(REPO, "build", "sim", "cli", "gcsim"))
    ap.add_argument("--engine", default="analytic")
    ap.add_argument("--markdown", nargs="?", const="-")
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--write", help="with --fit: write the C header there")
    ap.add_argument("--check-header", help="with --fit: exit 1 unless this header is what "
                    "the fit writes (the committed fit is current)")
    ap.add_argument("--agreement", action="store_true")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.agreement:
        return agreement(a.gcsim, a.check, a.markdown)
    rows = read_rows()
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        if a.fit:
            points = []
            for r in rows:
                if r["id"] not in CALIBRATION:
                    continue
                if why_not(r):
                    sys.exit("calibration row %s cannot be predicted: %s" % (r["id"], why_not(r)))
                model, _ = model_file(r, tmp)
                platform, _ = platform_file(r, tmp)
                # the row's own efficiency: gcsim with --mfu x reproduces the measurement
                x = fit_row(a.gcsim, r, model, platform)
                fam = gpu_family(r["gpu"])
                fam = "h100" if fam == "h200" else fam
                points.append((fam, r["id"], int(num(r["hidden"])), x))
                print("%s %s %s hidden %s: efficiency %.4f" % (r["id"], r["model"], r["gpu"],
                                                                r["hidden"], x))
            fits, beta = fit_efficiency(points)
            for fam, (e, xs) in fits.items():
                print("FIT %s %.4f beta %.4f %s" % (fam, e, beta, " ".join(i for i, _, _ in xs)))
            if a.write:
                write_header(a.write, fits, beta)
            if a.check_header:
                fresh = os.path.join(tmp, "fit.h")
                write_header(fresh, fits, beta)
                with open(fresh) as f, open(a.check_header) as g:
                    if f.read() != g.read():
                        print("FAIL: %s is not what the fit writes today; rerun "
                              "sharded.py --fit --write %s" % (a.check_header, a.check_header))
                        return 1
                print("the committed fit is current")
            return 0
        failed = 0
        for r in rows:
            reason = why_not(r)
            if reason == "metric":
                continue
            item = {"row": r, "reason": reason, "notes": []}
            out.append(item)
            if reason:
                continue
            model, params = model_file(r, tmp)
            platform, notes = platform_file(r, tmp)
            item["notes"] += notes
            if r["act_ckpt"] == "selective" and r["source_id"] in SELECTIVE_POLICY:
                item["notes"].append("selective checkpointing as --act-ckpt=%s"
                                     % SELECTIVE_POLICY[r["source_id"]])
            elif r["act_ckpt"] == "selective":
                item["notes"].append("selective checkpointing run as none (policy not known)")
            if r["compile"] == "yes":
                item["notes"].append("torch.compile (the fit is on eager rows)")
            item["params"] = params
            try:
                got, row = tokens_per_gpu(predict_argv(a.gcsim, r, model, platform,
                                                       engine=a.engine))
            except RuntimeError as e:
                item["reason"] = "gcsim: " + str(e).splitlines()[-1][:200]
                if "does not fit" not in str(e):
                    failed += 1
                continue
            item["pred"] = got
            item["err"] = got / float(r["value"]) - 1
            item["mem_gb"] = row.get("memory_bytes_per_gpu", 0) / 1e9
            cap = num(r["gpu_memory_gb"])
            if cap and item["mem_gb"] > cap:
                item["notes"].append("memory estimate %.0f GB > %.0f GB (it ran: the "
                                     "activation estimate is high for this row)"
                                     % (item["mem_gb"], cap))
    report(out, a.markdown)
    return 1 if failed else 0


def fit_efficiency(points):
    """Least squares on log efficiency: log x = log e_gpu + beta log(hidden / 4096), one
    intercept per GPU type and one shared slope. points: (type, id, hidden, x)."""
    import math
    fams = sorted({p[0] for p in points})
    # normal equations of [one-hot(type), log h] -> log x
    n = len(fams) + 1
    ata = [[0.0] * n for _ in range(n)]
    atb = [0.0] * n
    for fam, _, h, x in points:
        row = [1.0 if f == fam else 0.0 for f in fams] + [math.log(h / REFERENCE_HIDDEN)]
        for i in range(n):
            atb[i] += row[i] * math.log(x)
            for j in range(n):
                ata[i][j] += row[i] * row[j]
    # Gauss-Jordan on the small system
    m = [ata[i] + [atb[i]] for i in range(n)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[piv] = m[piv], m[c]
        if abs(m[c][c]) < 1e-12:
            sys.exit("the calibration rows do not determine the fit (need two widths)")
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [a - f * b for a, b in zip(m[r], m[c])]
    sol = [m[i][n] / m[i][i] for i in range(n)]
    beta = sol[-1]
    fits = {fam: (math.exp(sol[k]), [(i, h, x) for f, i, h, x in points if f == fam])
            for k, fam in enumerate(fams)}
    return fits, beta


def write_header(path, fits, beta):
    rows = "\n".join(
        "    {\"%s\", %.4f, %d}, /* rows %s */" % (
            fam, e, len(xs), ", ".join("%s (hidden %d) %.4f" % (i, h, v) for i, h, v in xs))
        for fam, (e, xs) in fits.items())
    ids = " ".join(i for _, (_, xs) in fits.items() for i, _, _ in xs)
    text = """/* sim/config/llm_efficiency_fit.h: written by tests/validation/sharded.py --fit --write, do
 * not edit.
 * Fitted: the fraction of the 16-bit peak at which a GPU type runs transformer training
 * (forward, backward and any recomputation), e_gpu x (hidden / %d)^beta: GEMMs as wide as
 * the model's hidden size run closer to peak. Each calibration row of
 * tests/validation/sharded/measurements.tsv gives the --mfu at which gcsim predict
 * reproduces its published tokens/s per GPU (the sharded exchange costed by gcsim, so that
 * only compute is fitted); e_gpu and the shared beta are the least-squares fit of their
 * logarithms. The other rows validate it: docs/validation.md. */
#ifndef GCSIM_CONFIG_LLM_EFFICIENCY_FIT_H
#define GCSIM_CONFIG_LLM_EFFICIENCY_FIT_H
static const struct {
    const char *gpu;
    double efficiency; /* at the reference hidden size */
    int points;
} gcsim_transformer_fit[] = {
%s
};
#define GCSIM_TRANSFORMER_FIT_REFERENCE_HIDDEN %d
#define GCSIM_TRANSFORMER_FIT_BETA %.4f
#define GCSIM_TRANSFORMER_FIT_SOURCE "tests/validation/sharded.py --fit: rows %s"
#endif
""" % (REFERENCE_HIDDEN, rows, REFERENCE_HIDDEN, beta, ids)
    with open(path, "w") as f:
        f.write(text)


def report(out, markdown):
    lines = ["| id | source | model (params) | GPU | GPUs | strategy | micro x accum | ckpt | "
             "measured tok/s/GPU | gcsim | error | role | notes |",
             "|---|---|---|---|---:|---|---|---|---:|---:|---:|---|---|"]
    val, cal = [], []
    for it in out:
        r = it["row"]
        role = "calibration" if r["id"] in CALIBRATION else "validation"
        if "pred" in it:
            (cal if role == "calibration" else val).append(abs(it["err"]))
            cells = ["%.0f" % it["pred"], "%+.1f%%" % (100 * it["err"])]
        else:
            cells = ["-", "-"]
            role = "not predicted: " + it["reason"]
        lines.append("| %s | %s | %s (%s) | %s | %s | %s | %s x %s | %s | %s | %s | %s | %s | %s |" % (
            r["id"], r["source_id"], r["model"],
            "%.2fB" % (it["params"] / 1e9) if "params" in it else r["params_b"] + "B",
            r["gpu"], r["gpus"], r["strategy"], r["micro_batch"], r["grad_accum"],
            r["act_ckpt"], r["value"], cells[0], cells[1], role, "; ".join(it["notes"])))
    lines.append("")
    if val:
        lines.append("Validation rows (not fitted to): %d, median |error| %.1f%%, p90 %.1f%%, "
                     "max %.1f%%." % (len(val), 100 * statistics.median(val),
                                      100 * sorted(val)[int(0.9 * (len(val) - 1))],
                                      100 * max(val)))
    if cal:
        lines.append("Calibration rows: %d, median |error| %.1f%% (the fit's residual)."
                     % (len(cal), 100 * statistics.median(cal)))
    emit(lines, markdown)


def emit(lines, markdown):
    """The table to the --markdown file, or to stdout without one (or with "-")."""
    text = "\n".join(lines) + "\n"
    if markdown and markdown != "-":
        with open(markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    sys.exit(main())
