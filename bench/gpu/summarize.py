"""Tables for docs/gpu-measurements.md and the run-to-run summary, from the profiling JSON.

Needs only the Python standard library (no GPU, no torch):
    python3 bench/gpu/summarize.py --codec bench/gpu/results/h100-codec.json \
        --models bench/gpu/results/h100-models.json \
        --repeat-codec RUN1.json,RUN2.json --repeat-models RUN1.json,RUN2.json \
        --repeats-out bench/gpu/results/h100-repeats.json > tables.md
"""

import argparse
import json
import sys

BUCKET = 6553600


def load(path):
    with open(path) as f:
        return json.load(f)


def fmt_us(x):
    if x is None:
        return "-"
    return f"{x:.1f}" if x < 1000 else f"{x:,.0f}"


def fmt_kernels(x):
    if x is None:
        return "-"
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def size_label(n):
    if n == BUCKET:
        return "25 MiB"
    e = n.bit_length() - 1
    return f"2^{e}" if 1 << e == n else str(n)


def op_table(codec, field, fmt):
    ops = [o for o in codec["ops"] if "error" not in o]
    sizes = sorted({o["elements"] for o in ops})
    names = []
    for o in ops:
        if o["op"] not in names:
            names.append(o["op"])
    by = {(o["op"], o["elements"]): o for o in ops}
    lines = ["| op | " + " | ".join(size_label(n) for n in sizes) + " |",
             "|---|" + "---:|" * len(sizes)]
    for name in names:
        cells = [fmt(by[(name, n)].get(field)) if (name, n) in by else "-" for n in sizes]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bucket_table(codec, spreads, runs):
    by = {(o["op"], o["elements"]): o for o in codec["ops"] if "error" not in o}
    codecs = []
    for o in codec["ops"]:
        if o["elements"] == BUCKET and o["codec"] not in codecs:
            codecs.append(o["codec"])
    lines = ["| codec | payload bytes | encode us | enc GPU-busy us | enc GB/s | enc x copy "
             "| enc kernels | decode us | dec GPU-busy us | dec GB/s | dec x copy | dec kernels "
             f"| max/min median over {runs} runs (enc, dec) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for c in codecs:
        if c == "reference":
            o = by[("copy_d2d", BUCKET)]
            lines.append(f"| copy_d2d (reference) | {o['payload_bytes']:,} | {fmt_us(o['median_us'])} "
                         f"| {fmt_us(o.get('gpu_busy_us'))} | {o['gbps_fp32']:.0f} | 1.00 "
                         f"| {fmt_kernels(o.get('kernels'))} (+{fmt_kernels(o.get('memcpy_memset'))} memcpy) "
                         f"| | | | | | {spreads.get(('copy_d2d', BUCKET), '-')} |")
            continue
        e, d = by.get((f"{c}.encode", BUCKET)), by.get((f"{c}.decode", BUCKET))
        if not e or not d:
            continue
        sp = f"{spreads.get((e['op'], BUCKET), '-')}, {spreads.get((d['op'], BUCKET), '-')}"
        lines.append(f"| {c} | {e['payload_bytes']:,} | {fmt_us(e['median_us'])} "
                     f"| {fmt_us(e.get('gpu_busy_us'))} | {e['gbps_fp32']:.0f} "
                     f"| {e['ratio_to_copy']:.2f} | {fmt_kernels(e.get('kernels'))} "
                     f"| {fmt_us(d['median_us'])} | {fmt_us(d.get('gpu_busy_us'))} "
                     f"| {d['gbps_fp32']:.0f} | {d['ratio_to_copy']:.2f} "
                     f"| {fmt_kernels(d.get('kernels'))} | {sp} |")
    return "\n".join(lines)


def accum_table(codec):
    lines = ["| codec | variant | N | payloads | payload bytes each | total us (median) "
             "| per payload us | per payload x copy |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for a in codec["decode_accumulate"]:
        if "error" in a:
            lines.append(f"| {a['codec']} | error | {a['workers']} | | | | | |")
            continue
        lines.append(f"| {a['codec']} | {a['variant']} | {a['workers']} | {a['payloads']} "
                     f"| {a['payload_bytes_each']:,} | {fmt_us(a['median_us'])} "
                     f"| {a['per_payload_us']:.1f} | {a.get('per_payload_ratio_to_copy', '-')} |")
    return "\n".join(lines)


def powersgd_table(codec):
    rows = codec.get("powersgd_breakdown", [])
    lines = ["| elements | m x c | rank | M Q us | Gram-Schmidt us | linalg.qr us | M^T P us |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    keys = []
    for r in rows:
        if (r["elements"], r["rank"]) not in keys:
            keys.append((r["elements"], r["rank"]))
    for n, rank in keys:
        part = {r["part"]: r for r in rows if r["elements"] == n and r["rank"] == rank}
        shape = part["M_times_Q"]["shape"]
        lines.append(f"| {n:,} | {shape[0]} x {shape[1]} | {rank} | "
                     f"{fmt_us(part['M_times_Q']['median_us'])} | "
                     f"{fmt_us(part['gram_schmidt']['median_us'])} | "
                     f"{fmt_us(part.get('linalg_qr', {}).get('median_us'))} | "
                     f"{fmt_us(part['Mt_times_P']['median_us'])} |")
    return "\n".join(lines)


def model_table(models, spreads, runs):
    lines = ["| model | precision | batch | seq | ms/step (median) | fwd ms | bwd ms | opt ms "
             f"| samples/s | tokens/s | peak GiB | kernels/step | min-max ms/step over {runs} runs |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for c in models["configs"]:
        if "error" in c:
            lines.append(f"| {c['model']} | {c['precision']} | {c['batch']} | error: {c['error'][:60]} |")
            continue
        key = (c["model"], c["precision"], c["batch"])
        tok = f"{c['tokens_per_s']:,.0f}" if c.get("tokens_per_s") else "-"
        lines.append(f"| {c['model']} | {c['precision']} | {c['batch']} | {c['seq_len'] or '-'} "
                     f"| {c['step_ms_median']:.2f} | {c['forward_ms_median']:.2f} "
                     f"| {c['backward_ms_median']:.2f} | {c['optimizer_ms_median']:.2f} "
                     f"| {c['samples_per_s']:,.1f} | {tok} | {c['peak_memory_bytes'] / 2**30:.1f} "
                     f"| {c.get('kernels_per_step', '-')} | {spreads.get(key, '-')} |")
    return "\n".join(lines)


def grad_ready_table(models):
    """Derived: when given fractions of the gradient bytes are ready, as % of backward time."""
    lines = ["| model | precision | batch | backward ms | params | 25% of grad bytes ready "
             "| 50% | 75% | 100% (ms after backward start) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for c in models["configs"]:
        gr = c.get("grad_ready")
        if not gr:
            continue
        pairs = sorted((t, n) for t, n in zip(gr["ready_ms_after_backward_start"],
                                              gr["param_numel"]) if t is not None)
        total = sum(n for _, n in pairs)
        marks, acc, i = [], 0, 0
        for frac in (0.25, 0.5, 0.75, 1.0):
            while i < len(pairs) and acc < frac * total:
                acc += pairs[i][1]
                i += 1
            marks.append(pairs[i - 1][0])
        bwd = gr["backward_ms_median"]
        cells = " | ".join(f"{m:.1f} ({100 * m / bwd:.0f}%)" for m in marks)
        lines.append(f"| {c['model']} | {c['precision']} | {c['batch']} | {bwd:.1f} "
                     f"| {len(pairs)} | {cells} |")
    return "\n".join(lines)


def spread(values):
    values = [v for v in values if v]
    if len(values) < 2:
        return None
    return round(max(values) / min(values), 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--codec", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--repeat-codec", default="", help="comma-separated earlier codec runs")
    ap.add_argument("--repeat-models", default="", help="comma-separated earlier model runs")
    ap.add_argument("--repeats", default="",
                    help="an existing repeats JSON (written by --repeats-out) instead of raw runs")
    ap.add_argument("--repeats-out", default="", help="write the run-to-run summary here")
    args = ap.parse_args()
    codec, models = load(args.codec), load(args.models)

    if args.repeats:
        rep = load(args.repeats)
    else:
        rep = {"schema": "gcsim-gpu-repeats/1",
               "what": "medians of the same measurements in each run, the primary run "
                       "(the --codec / --models file) last; derived from the runs' JSON",
               "codec_runs": [], "model_runs": []}
        for path in [p for p in args.repeat_codec.split(",") if p] + [args.codec]:
            d = load(path)
            rep["codec_runs"].append({
                "date_utc": d["provenance"]["date_utc"],
                "script_sha256": d["provenance"].get("script_sha256"),
                "ops": [[o["op"], o["elements"], o["median_us"]]
                        for o in d["ops"] if "error" not in o],
                "decode_accumulate": [[a["codec"], a.get("variant"), a["workers"], a["median_us"]]
                                      for a in d["decode_accumulate"] if "error" not in a]})
        for path in [p for p in args.repeat_models.split(",") if p] + [args.models]:
            d = load(path)
            rep["model_runs"].append({
                "date_utc": d["provenance"]["date_utc"],
                "script_sha256": d["provenance"].get("script_sha256"),
                "configs": [[c["model"], c["precision"], c["batch"], c["step_ms_median"]]
                            for c in d["configs"] if "error" not in c]})
    if args.repeats_out:
        with open(args.repeats_out, "w") as f:
            json.dump(rep, f, indent=None, separators=(",", ":"))
            f.write("\n")

    op_vals, model_vals = {}, {}
    for run in rep["codec_runs"]:
        for op, n, us in run["ops"]:
            op_vals.setdefault((op, n), []).append(us)
    for run in rep["model_runs"]:
        for m, p, b, ms in run["configs"]:
            model_vals.setdefault((m, p, b), []).append(ms)
    op_spread = {k: f"{spread(v):.2f}" for k, v in op_vals.items() if spread(v)}
    model_spread = {k: f"{min(v):.1f}-{max(v):.1f}" for k, v in model_vals.items() if len(v) > 1}

    out = sys.stdout
    out.write("### At the 25 MiB bucket (6,553,600 fp32 elements)\n\n")
    out.write(bucket_table(codec, op_spread, len(rep["codec_runs"])) + "\n\n")
    out.write("### Median GPU time, us (cold L2)\n\n" + op_table(codec, "median_us", fmt_us) + "\n\n")
    out.write("### GPU busy time, us (profiler: summed kernel and memcpy/memset durations)\n\n"
              + op_table(codec, "gpu_busy_us", fmt_us) + "\n\n")
    out.write("### Event time over GPU busy time (well over 1: bound by host launches or a sync)\n\n"
              + op_table(codec, "event_over_busy", lambda x: "-" if x is None else f"{x:.2f}")
              + "\n\n")
    out.write("### Effective rate, GB/s of fp32 tensor\n\n"
              + op_table(codec, "gbps_fp32", lambda x: "-" if x is None else f"{x:,.0f}") + "\n\n")
    out.write("### Time as a multiple of a device-to-device copy of the same tensor\n\n"
              + op_table(codec, "ratio_to_copy", lambda x: "-" if x is None else f"{x:.2f}") + "\n\n")
    out.write("### Kernels launched per call\n\n"
              + op_table(codec, "kernels", fmt_kernels) + "\n\n")
    out.write("### Decode and accumulate N-1 all-gathered payloads (2^22 elements)\n\n"
              + accum_table(codec) + "\n\n")
    out.write("### PowerSGD encode, by part\n\n" + powersgd_table(codec) + "\n\n")
    out.write("### Training step\n\n"
              + model_table(models, model_spread, len(rep["model_runs"])) + "\n\n")
    out.write("### Gradient readiness during backward (largest batch)\n\n"
              + grad_ready_table(models) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
