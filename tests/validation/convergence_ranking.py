#!/usr/bin/env python3
"""How well gcsim's convergence ranking orders compressors in published accuracy tables that
set none of its factors (issue 43).

Usage: convergence_ranking.py GCSIM SOURCE_DIR [--tables FILE] [--check MIN_SPEARMAN]

For every row of tests/validation/convergence_rank_tables.tsv (a compressor's published final
accuracy in one table), gcsim is asked for its convergence factor the way a user gets it:
`gcsim predict --convergence best --format json` on a model of the table's name (a copy of
models/resnet-50.json renamed, since the factor depends on the model only through its name
and class) at the table's worker count. gcsim runs from an installed layout (PREFIX/bin/gcsim
beside PREFIX/share/gcsim, sim/config/data_dir.h) whose catalog lacks every row the tables
list in `catalog_id`, so no validation row sets a factor.

gcsim's predicted order: a compressor that missed the target in gcsim's own runs last, then
an unknown factor, then the known factors from small to large (the order `gcsim plan` uses,
plan_rank.h). The published order: accuracy from high to low. The score of a table is the
Spearman correlation of the two orders (ties get their average rank); with --check the
script exits 1 when the mean over tables is below MIN_SPEARMAN. It prints each table, each
row's factor and source, and the pooled count of pairs in the right order.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile


def read_tables(path):
    rows, header = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if header is None:
                header = fields
                continue
            rows.append(dict(zip(header, fields)))
    return rows


def installed_layout(gcsim, src, drop_ids, tmp):
    """PREFIX/bin/gcsim and PREFIX/share/gcsim with the catalog minus drop_ids."""
    prefix = os.path.join(tmp, "prefix")
    data = os.path.join(prefix, "share", "gcsim")
    os.makedirs(os.path.join(prefix, "bin"))
    os.makedirs(os.path.join(data, "traces"))
    shutil.copy(gcsim, os.path.join(prefix, "bin", "gcsim"))
    shutil.copytree(os.path.join(src, "platforms"), os.path.join(data, "platforms"))
    shutil.copytree(os.path.join(src, "models"), os.path.join(data, "models"))
    os.symlink(os.path.join(src, "traces", "data"), os.path.join(data, "traces", "data"))
    cat = os.path.join(data, "models", "convergence", "outcomes.tsv")
    with open(cat) as f:
        lines = f.readlines()
    kept = [lines[0]] + [l for l in lines[1:] if l.split("\t")[0] not in drop_ids]
    with open(cat, "w") as f:
        f.writelines(kept)
    return os.path.join(prefix, "bin", "gcsim"), len(lines) - len(kept)


def factor_of(gcsim, src, tmp, row):
    model = os.path.join(tmp, "model-%s.json" % row["model"])
    if not os.path.exists(model):
        with open(os.path.join(src, "models", "resnet-50.json")) as f:
            m = json.load(f)
        m["name"] = row["model"]
        with open(model, "w") as f:
            json.dump(m, f)
    argv = [gcsim, "predict", "--model", model, "--platform", "a100-hdr", "--gpus",
            row["workers"], "--stack", "fused", "--compressor", row["spec"],
            "--convergence", "best",
            "--format", "json"]
    p = subprocess.run(argv, capture_output=True, text=True, cwd=tmp)
    if p.returncode != 0:
        raise SystemExit("convergence_ranking: %s: exit %d: %s" % (" ".join(argv),
                                                                     p.returncode, p.stderr))
    doc = json.loads(p.stdout)
    meta = doc["meta"]
    if row["spec"] == "none":
        return 1.0, "reference", True
    if "convergence_source" not in meta:
        return old_note_factor(doc, int(row["workers"]))
    f = meta.get("convergence_factor")
    return (f if f is not None else float("nan"), meta["convergence_source"],
            meta["convergence_reached_target"])


def old_note_factor(doc, workers):
    """A gcsim from before issue 43 (no convergence_factor in the meta): the factor from the
    note convergence.<spec>, as that version ranked it (not covered: as 1)."""
    notes = doc["notes"]
    notes = notes.items() if isinstance(notes, dict) else notes
    for k, v in notes:
        if not k.startswith("convergence."):
            continue
        if v.startswith("not covered"):
            return 1.0, "not covered (ranked as 1)", True
        if v.startswith("1 + "):  # 1 + s x omega/N at N GPUs
            s, rest = v[4:].split(" x ", 1)
            return 1.0 + float(s) * float(rest.split("/N")[0]) / workers, "bound", True
        return float(v.split()[0]), v.split("(", 1)[1].split(":")[0], True
    raise SystemExit("convergence_ranking: no convergence note in the output")


def rank_key(factor, source, reached):
    """gcsim's order (plan_rank.h): tier, then the factor (NAN only in the unknown tier)."""
    tier = 2 if not reached else (1 if factor != factor else 0)
    return (tier, factor if factor == factor else 0.0)


def average_ranks(keys):
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    ranks = [0.0] * len(keys)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and keys[order[j + 1]] == keys[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    return ranks


def spearman(a, b):
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    va = sum((x - ma) ** 2 for x in a)
    vb = sum((y - mb) ** 2 for y in b)
    return cov / (va * vb) ** 0.5 if va > 0 and vb > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gcsim")
    ap.add_argument("src")
    ap.add_argument("--tables", default=None)
    ap.add_argument("--check", type=float, default=None)
    a = ap.parse_args()
    tables_path = a.tables or os.path.join(a.src, "tests", "validation",
                                           "convergence_rank_tables.tsv")
    rows = read_tables(tables_path)
    drop = {r["catalog_id"] for r in rows if r["catalog_id"] != "-"}
    scores, agree, pairs = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        gcsim, dropped = installed_layout(os.path.abspath(a.gcsim), os.path.abspath(a.src),
                                          drop, tmp)
        print("catalog rows removed for the check: %d (%s)" % (dropped, ", ".join(sorted(
            drop, key=int)) or "none"))
        tables = []
        for r in rows:
            if r["table"] not in tables:
                tables.append(r["table"])
        for t in tables:
            tr = [r for r in rows if r["table"] == t]
            print("\n%s (%s; use: %s)" % (t, tr[0]["source"], tr[0]["use"]))
            keys, accs = [], []
            for r in tr:
                f, src, reached = factor_of(gcsim, a.src, tmp, r)
                keys.append(rank_key(f, src, reached))
                accs.append(float(r["accuracy"]))
                print("  %-24s %-32s accuracy %6.2f  factor %-7s %s%s" % (
                    r["method"], r["spec"], float(r["accuracy"]),
                    "%.3f" % f if f == f else "unknown", src,
                    "" if reached else ", missed the target in gcsim's runs"))
            pred = average_ranks(keys)                      # 1 = best predicted
            pub = average_ranks([-x for x in accs])         # 1 = highest accuracy
            rho = spearman(pred, pub)
            for i in range(len(tr)):
                for j in range(i + 1, len(tr)):
                    if accs[i] == accs[j] or keys[i] == keys[j]:
                        continue
                    pairs += 1
                    agree += (accs[i] > accs[j]) == (keys[i] < keys[j])
            print("  Spearman %.3f over %d compressors" % (rho, len(tr)))
            scores.append((t, rho, len(tr)))
    valid = [s for s in scores if s[1] == s[1]]
    mean = sum(s[1] for s in valid) / len(valid) if valid else float("nan")
    print("\nmean Spearman over %d tables: %.3f; pairs in the published order: %d of %d "
          "(untied pairs)" % (len(valid), mean, agree, pairs))
    if a.check is not None and not (mean >= a.check):
        print("FAIL: mean Spearman %.3f < %.3f" % (mean, a.check))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
