#!/usr/bin/env python3
"""gcsim's memory estimate per GPU against published peak-memory figures (issue 46).

    peak_memory.py [--gcsim PATH] [--check] [--markdown [FILE]]

For every row of tests/validation/peak_memory/measurements.tsv (sources: SOURCES.md there)
the model is built from the row's architecture as tests/validation/sharded.py builds it
(models/gen_models.py decoder_layers), the platform from the catalog platform of its GPU
with the row's GPU memory, and `gcsim predict --sharding fsdp --act-ckpt=POLICY` runs with
the memory check on. Error: gcsim's estimate / the published peak - 1 (GiB = 2^30 B).

Published peaks are the allocator's reserved bytes (torch.cuda's reserved_bytes.all.peak);
gcsim estimates the tensors held (activations per policy: sim/config/act_memory.h), so a
negative error of the allocator's slack is expected. Nothing is fitted to these rows.

--check exits 1 when a counted figure is more than 15% off or refused, when a row marked
"must be refused" is not, or when one of the throughput rows of
tests/validation/sharded/measurements.tsv that gcsim predicts (configurations that ran) is
refused by the memory check. Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sharded  # noqa: E402

TSV = os.path.join(HERE, "peak_memory", "measurements.tsv")
TOLERANCE = 0.15
GIB = float(1 << 30)


def read_rows(path):
    rows = sharded.read_rows(path)
    for r in rows:
        r.setdefault("internode_gbps_per_node", "?")
        r.setdefault("grad_accum", "1")
    return rows


def run(argv):
    """(memory bytes per GPU, None) or (None, refusal) from gcsim predict."""
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode == 2 and "does not fit in GPU memory" in p.stderr:
        return None, p.stderr.strip()
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv), p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)["rows"][-1]["memory_bytes_per_gpu"], None


def argv_for(gcsim, r, model, platform):
    argv = [gcsim, "predict", "--model", model, "--platform", platform, "--gpus", r["gpus"],
            "--sharding", "fsdp", "--batch", r["micro_batch"], "--format", "json"]
    if r["act_ckpt"] != "none":
        argv.append("--act-ckpt=" + r["act_ckpt"])
    return argv


def figures(gcsim, tmp):
    out = []
    for r in read_rows(TSV):
        model, _ = sharded.model_file(r, tmp)
        platform, _ = sharded.platform_file(r, tmp)
        mem, refusal = run(argv_for(gcsim, r, model, platform))
        item = {"row": r, "mem": mem, "refused": refusal}
        if mem is not None and r["unit"] == "GiB":
            item["err"] = mem / (float(r["measured"]) * GIB) - 1
        out.append(item)
    return out


def ran_rows(gcsim, tmp):
    """The throughput rows sharded.py predicts: each ran; (id, refusal or None)."""
    out = []
    for r in sharded.read_rows():
        if sharded.why_not(r):
            continue
        model, _ = sharded.model_file(r, tmp)
        platform, _ = sharded.platform_file(r, tmp)
        argv = [a for a in sharded.predict_argv(gcsim, r, model, platform)
                if a != "--no-memory-check"]
        _, refusal = run(argv)
        out.append((r["id"], r, refusal))
    return out


def failures(items, ran):
    bad = []
    for it in items:
        r, c = it["row"], it["row"]["counted"]
        if c == "yes":
            if it["refused"]:
                bad.append("%s: refused, but it ran" % r["id"])
            elif abs(it["err"]) > TOLERANCE:
                bad.append("%s: %+.1f%% (over %.0f%%)" % (r["id"], 100 * it["err"],
                                                          100 * TOLERANCE))
        elif c.startswith("yes (must be refused)") and not it["refused"]:
            bad.append("%s: not refused, but it ran out of memory" % r["id"])
        elif c.startswith("yes (must fit)") and it["refused"]:
            bad.append("%s: refused, but it ran" % r["id"])
    for rid, _, refusal in ran:
        if refusal:
            bad.append("sharded %s: refused, but it ran: %s" % (rid, refusal[-200:]))
    return bad


def report(items, ran):
    lines = ["| id | configuration | policy | published peak | gcsim | error | counted |",
             "|---|---|---|---:|---:|---:|---|"]
    for it in items:
        r = it["row"]
        conf = "%s, %s GPUs (%s %s GB), seq %s, micro-batch %s%s%s" % (
            r["model"], r["gpus"], r["gpu"].split("-")[0].upper(), r["gpu_memory_gb"],
            r["seq_len"], r["micro_batch"], ", compile" if r["compile"] == "yes" else "",
            ", float8" if r["float8"] == "yes" else "")
        pub = "%s GiB" % r["measured"] if r["unit"] == "GiB" else r["measured"]
        got = "refused" if it["refused"] else "%.1f GiB" % (it["mem"] / GIB)
        err = "%+.1f%%" % (100 * it["err"]) if "err" in it else ""
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["id"], conf, r["act_ckpt"], pub, got, err, r["counted"]))
    counted = [abs(it["err"]) for it in items if it["row"]["counted"] == "yes" and "err" in it]
    lines.append("")
    if counted:
        lines.append("Counted figures: %d, mean |error| %.1f%%, worst %.1f%% (tolerance %.0f%%)."
                     % (len(counted), 100 * sum(counted) / len(counted), 100 * max(counted),
                        100 * TOLERANCE))
    refused = [rid for rid, _, refusal in ran if refusal]
    lines.append("Throughput rows of tests/validation/sharded/measurements.tsv predicted with the "
                 "memory check on (each ran): %d, refused: %d%s." % (
                     len(ran), len(refused), (" (" + ", ".join(refused) + ")") if refused else ""))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gcsim", default=os.path.join(sharded.REPO, "build", "sim", "cli", "gcsim"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--markdown", nargs="?", const="-")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            items = figures(a.gcsim, tmp)
            ran = ran_rows(a.gcsim, tmp)
        except RuntimeError as e:
            print("FAIL: gcsim: %s" % e)
            return 1
    lines = report(items, ran)
    if a.markdown and a.markdown != "-":
        with open(a.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    else:
        print("\n".join(lines))
    bad = failures(items, ran)
    for b in bad:
        print("FAIL: " + b)
    return 1 if a.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
