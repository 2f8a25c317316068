"""The properties, one function per family; each runs gcsim on one case (or one sweep) and
reports what it finds through ctx.check / ctx.violation (props.py).

Tolerances: throughputs are compared exactly except for REL, a relative 1e-12 that covers
floating-point rounding only: the analytic timeline advances shared GPU work by
remainders (left - elapsed / sharing), and when a faster network moves an event the same
sums are rounded in another order (seen: 2 ulp on a100-hdr, where communication is hidden
and the iteration time must be the same). No modelled effect is that small."""
import os
import re

from gcsim_io import csv_rows, json_rows, table_rows
from platform_edit import FASTER_WHEN_RAISED, KNOBS, write_copy

REL = 1e-12


def _f(x):
    return float(x)


def _le(a, b):
    """a <= b up to rounding."""
    return a <= b + REL * max(abs(a), abs(b))


def _predict_csv(ctx, case, args, prop):
    r = ctx.run(args + ["--format", "csv"])
    if r.rc != 0:
        return r, None
    rows = csv_rows(r.out)
    if not rows:
        ctx.violation(prop, case, "no rows", [r])
        return r, None
    return r, rows


# --- determinism -------------------------------------------------------------------------

def determinism(ctx, case):
    """Two runs of the same predict give the same bytes (stdout, stderr, exit status)."""
    a = ctx.run(case.predict_args() + ["--format", "json"])
    b = ctx.run(case.predict_args() + ["--format", "json"])
    ctx.check("determinism", case, (a.rc, a.out, a.err) == (b.rc, b.out, b.err),
              "two runs differ (exit %d/%d, %d/%d stdout bytes)" % (
                  a.rc, b.rc, len(a.out), len(b.out)), [a])
    ctx.check("determinism", case, a.rc == 0, "predict exits %d: %s" % (a.rc, a.err.strip()),
              [a])


# --- table = JSON = CSV ------------------------------------------------------------------

# table label -> (JSON member, factor from the JSON value to the printed one)
TABLE_COLUMNS = {
    "GPUs": ("gpus", 1), "j": ("machines", 1), "i": ("gpus_per_machine", 1),
    "samples/iter": ("samples_per_iteration", 1), "iter ms": ("iteration_s", 1e3),
    "compute ms": ("compute_s", 1e3), "comm ms": ("comm_s", 1e3),
    "exposed ms": ("exposed_comm_s", 1e3), "codec ms": ("compress_s", 1e3),
    "samples/s": ("throughput_samples_per_s", 1), "speedup": ("speedup", 1),
    "eff %": ("efficiency_pct", 1), "tokens/s": ("tokens_per_s", 1), "MFU %": ("mfu_pct", 1),
    "encode ms": ("encode_s", 1e3), "decode ms": ("decode_s", 1e3),
    "exchange": ("exchange", None), "engine": ("engine", None),
    "DES vs analytic %": ("des_vs_analytic_pct", 1),
    "mem GB": ("memory_bytes_per_gpu", 1e-9), "compute": ("compute_source", None),
}


def _cell_matches(cell, value, factor):
    """A table cell printed from value x factor with the cell's own decimals."""
    if factor is None:
        return cell == str(value)
    if value is None:
        return False
    decimals = len(cell.split(".")[1]) if "." in cell else 0
    printed = float(cell)
    exact = value * factor
    half_unit = 0.5 * 10.0 ** -decimals
    # printf rounds the binary value; allow the half unit plus the product's rounding
    return abs(printed - exact) <= half_unit * (1 + 1e-9) + 1e-12 * abs(exact)


def formats(ctx, case):
    """The table, the JSON and the CSV of one predict hold the same numbers: CSV and JSON
    exactly (both print %.17g), the table to its printed precision."""
    # the table whole, one line per row (--wide): the default one fits 100 columns in stacked
    # tables with short headers (issue 46), which table_rows does not read
    runs = {f: ctx.run(case.predict_args() + ["--format", f] + (["--wide"] if f == "table" else []))
            for f in ("table", "json", "csv")}
    rcs = {f: r.rc for f, r in runs.items()}
    if not ctx.check("formats", case, len(set(rcs.values())) == 1,
                     "exit statuses differ by format: %s" % rcs, list(runs.values())):
        return
    if rcs["json"] != 0:
        return
    j = json_rows(runs["json"].out)
    c = csv_rows(runs["csv"].out)
    t = table_rows(runs["table"].out)
    ok = ctx.check("formats", case, len(j) == len(c) == len(t),
                   "rows: json %d, csv %d, table %d" % (len(j), len(c), len(t)),
                   list(runs.values()))
    if not ok:
        return
    for jr, cr, tr in zip(j, c, t):
        ctx.check("formats", case, list(jr) == list(cr),
                  "JSON members %s, CSV columns %s" % (list(jr), list(cr)), [runs["csv"]])
        for k, v in jr.items():
            cell = cr.get(k)
            if v is None:
                same = cell == ""
            elif isinstance(v, str):
                same = cell == v
            else:
                same = cell not in (None, "") and float(cell) == float(v)
            ctx.check("formats", case, same, "%s: JSON %r, CSV %r" % (k, v, cell),
                      [runs["json"], runs["csv"]])
        for label, cell in tr.items():
            if not ctx.check("formats", case, label in TABLE_COLUMNS,
                             "table column %r has no JSON member known to the suite" % label,
                             [runs["table"]]):
                continue
            member, factor = TABLE_COLUMNS[label]
            ctx.check("formats", case, _cell_matches(cell, jr.get(member), factor),
                      "%s: table %s, JSON %s = %r" % (label, cell, member, jr.get(member)),
                      [runs["table"], runs["json"]])
        row_invariants(ctx, case, jr, runs["json"])
        missing = [lab for lab, (m, _) in TABLE_COLUMNS.items()
                   if jr.get(m) is not None and lab not in tr]
        ctx.check("formats", case, not missing,
                  "JSON members with a value the table leaves out: %s" % missing,
                  [runs["table"]])


def row_invariants(ctx, case, row, result):
    """One predict row's own arithmetic: samples/s x iteration = samples per iteration,
    efficiency = 100 x speedup / GPUs (to rounding), a step no shorter than its compute
    nor its exposed communication negative, and (under the sample's options) efficiency
    at most 100%: a step of N GPUs is one GPU's step plus exchange time."""
    t, i = row["throughput_samples_per_s"], row["iteration_s"]
    n = row["samples_per_iteration"]
    ctx.check("rows", case, abs(t * i - n) <= 1e-12 * n,
              "%s: samples/s %.17g x iteration %.17g s != %s samples" % (
                  row["engine"], t, i, n), [result])
    eff = 100.0 * row["speedup"] / row["gpus"]
    ctx.check("rows", case, abs(row["efficiency_pct"] - eff) <= 1e-12 * eff,
              "%s: efficiency %.17g%%, 100 x speedup / GPUs %.17g%%" % (
                  row["engine"], row["efficiency_pct"], eff), [result])
    ctx.check("rows", case, _le(row["compute_s"], i) and row["exposed_comm_s"] >= 0,
              "%s: iteration %.17g s, compute %.17g s, exposed %.17g s" % (
                  row["engine"], i, row["compute_s"], row["exposed_comm_s"]), [result])
    ctx.check("rows", case, row["efficiency_pct"] <= 100 * (1 + REL),
              "%s: efficiency %.17g%% > 100%%" % (row["engine"], row["efficiency_pct"]),
              [result], detail={"efficiency_pct": row["efficiency_pct"]})


# --- predict = sweep = plan --------------------------------------------------------------

SWEEP_SHARED = ["machines", "gpus_per_machine", "samples_per_iteration", "iteration_s",
                "compute_s", "comm_s", "exposed_comm_s", "compress_s",
                "throughput_samples_per_s", "encode_s", "decode_s", "exchange"]
PLAN_SHARED = ["machines", "throughput_samples_per_s", "compute_s", "exposed_comm_s",
               "compress_s", "exchange"]


def agreement(ctx, case):
    """sweep's row and plan's row for the case hold predict's numbers, byte for byte
    (all three print %.17g); plan only when the case names a collective (plan searches
    named collectives, predict's default is the stack library's per-call choice)."""
    pr, prow = _predict_csv(ctx, case, case.predict_args(), "agreement")
    if prow is None:
        return
    p = prow[0]
    sr = ctx.run(case.sweep_args() + ["--format", "csv"])
    if ctx.check("agreement", case, sr.rc == 0, "sweep exits %d: %s" % (sr.rc, sr.err.strip()),
                 [sr]):
        rows = csv_rows(sr.out)
        if ctx.check("agreement", case, len(rows) == 1 and rows[0]["status"] == "ok",
                     "sweep rows: %s" % [r.get("status") for r in rows], [sr]):
            s = rows[0]
            diff = ["%s: predict %s, sweep %s" % (k, p[k], s[k]) for k in SWEEP_SHARED
                    if p[k] != s[k]]
            ctx.check("agreement", case, not diff, "sweep != predict: " + "; ".join(diff),
                      [pr, sr], detail={"sweep": diff})
    if not case.collective or case.no_overlap:
        return
    lr = ctx.run(case.plan_args() + ["--format", "csv"])
    if not ctx.check("agreement", case, lr.rc in (0, 1),
                     "plan exits %d: %s" % (lr.rc, lr.err.strip()), [lr]):
        return
    rows = [r for r in csv_rows(lr.out) if r.get("gpus") == str(case.gpus)]
    if not ctx.check("agreement", case, len(rows) == 1,
                     "plan rows for %d GPUs: %d" % (case.gpus, len(rows)), [lr]):
        return
    q = rows[0]
    diff = ["%s: predict %s, plan %s" % (k, p[k], q[k]) for k in PLAN_SHARED if p[k] != q[k]]
    ctx.check("agreement", case, not diff, "plan != predict: " + "; ".join(diff), [pr, lr],
              detail={"plan": diff})


# --- monotonicity in bandwidth and latency -----------------------------------------------

FACTORS = [1.01, 1.1, 1.5, 2.0, 4.0]


def monotonic(ctx, case, knobs=None, factors=None):
    """Raising a bandwidth (NIC, intra-node, GPU-host) never lowers the throughput; raising
    a latency (NIC, intra-node, switch) never raises it. ctx.knobs_per_case knobs drawn
    per case (all six in long runs), each scaled by one factor drawn from FACTORS."""
    knobs = knobs or sorted(ctx.rng.sample(sorted(KNOBS), ctx.knobs_per_case))
    base_path = write_copy(ctx.src, case.platform, "nic_bandwidth", 1.0, ctx.tmp)
    br, brow = _predict_csv(ctx, case, case.predict_args(platform=base_path), "monotonic")
    if not ctx.check("monotonic", case, brow is not None,
                     "the platform's copy is refused: %s" % br.err.strip(), [br]):
        return
    for knob in knobs:
        for factor in (factors or [ctx.rng.choice(FACTORS)]):
            path = write_copy(ctx.src, case.platform, knob, factor, ctx.tmp)
            if path is None:
                continue
            r, rows = _predict_csv(ctx, case, case.predict_args(platform=path), "monotonic")
            if not ctx.check("monotonic", case, rows is not None,
                             "%s x %g refused: %s" % (knob, factor, r.err.strip()), [r]):
                continue
            for b, m in zip(brow, rows):
                t0, t1 = _f(b["throughput_samples_per_s"]), _f(m["throughput_samples_per_s"])
                ok = _le(t0, t1) if FASTER_WHEN_RAISED[knob] else _le(t1, t0)
                detail = {"knob": knob, "engine": m["engine"], "exchange": b["exchange"],
                          "iteration_s": (_f(b["iteration_s"]), _f(m["iteration_s"]))}
                if not ok:
                    detail["blocking_s"] = _blocking_s(ctx, case, path)
                    detail["tuner_flip"] = _algorithms(ctx, case, base_path) != \
                        _algorithms(ctx, case, path)
                ctx.check("monotonic", case, ok,
                          "%s x %g: %s engine %.17g -> %.17g samples/s (%+.4f%%)" % (
                              knob, factor, m["engine"], t0, t1, 100 * (t1 - t0) / t0),
                          [br, r], detail=detail)


def _algorithms(ctx, case, platform):
    """The collective algorithm of every call of the case's programs (predict --steps'
    last column), or None when --steps does not apply."""
    args = case.replace(engine="analytic").predict_args(platform=platform) + ["--steps"]
    r = ctx.run(args)
    if r.rc != 0 or "\nbucket " not in r.out:
        return None
    rows = r.out.split("\nbucket ", 1)[1].splitlines()[1:]
    return [line.split()[-1] for line in rows if " call" in line]


def _blocking_s(ctx, case, platform):
    """Seconds per iteration of the calls that hold backward (predict --steps' first
    line), or None when --steps does not apply to the case."""
    args = case.replace(engine="analytic").predict_args(platform=platform) + ["--steps"]
    r = ctx.run(args)
    m = re.search(r"\(([0-9.]+) ms of them blocking backward\)", r.out)
    return float(m.group(1)) / 1e3 if r.rc == 0 and m else None


# --- gradient accumulation and activation checkpointing ----------------------------------

def _rows_by_engine(rows):
    return {r["engine"]: r for r in rows}


def accumulation(ctx, case):
    """What K micro-batches per optimizer step do to a step (docs/sharding.md):

    - ddp and zero1 exchange once, after the last micro-batch: the first K - 1 are compute
      alone, so exactly compute_s(K) = K compute_s(1) and iteration_s(K) - compute_s(K) =
      iteration_s(1) - compute_s(1); hence samples/s per GPU never lower than at K = 1.
    - zero2, zero3 and hsdp exchange after every micro-batch on the one communication
      stream, where micro-batch k's last reduce-scatter (and its codec work) runs beside
      micro-batch k + 1's first forward all-gathers (they are ready at the same block and
      all-gathers go first), so k + 1's later all-gathers can wait: a step of K can take
      longer than K steps of one (seen: +0.0013%, zero3 with signsgd), by at most that
      exchange per micro-batch boundary. Checked: iteration_s(K) <= K iteration_s(1) +
      (K - 1) (comm_s(1) + compress_s(1)), a micro-batch's whole exchange as the bound."""
    k = case.grad_accum if case.grad_accum > 1 else ctx.rng.choice([2, 3, 4])
    one = case.replace(grad_accum=1)
    many = case.replace(grad_accum=k)
    r1, rows1 = _predict_csv(ctx, one, one.predict_args(), "accumulation")
    rk, rowsk = _predict_csv(ctx, many, many.predict_args(), "accumulation")
    if rows1 is None or rowsk is None:
        return  # refused (the papers' patterns refuse accumulation, docs/sharding.md)
    a, b = _rows_by_engine(rows1), _rows_by_engine(rowsk)
    for eng in a:
        t1, tk = _f(a[eng]["throughput_samples_per_s"]), _f(b[eng]["throughput_samples_per_s"])
        i1, ik = _f(a[eng]["iteration_s"]), _f(b[eng]["iteration_s"])
        if case.sharding in (None, "zero1"):
            ctx.check("accumulation", many, _le(t1, tk),
                      "%s: grad-accum 1 gives %.17g samples/s, %d gives %.17g (%+.4f%%)" % (
                          eng, t1, k, tk, 100 * (tk - t1) / t1), [r1, rk])
        else:
            slack = (k - 1) * (_f(a[eng]["comm_s"]) + _f(a[eng]["compress_s"]))
            ctx.check("accumulation", many, _le(ik, k * i1 + slack),
                      "%s: grad-accum %d takes %.17g s, more than %d x %.17g s + %.17g s" % (
                          eng, k, ik, k, i1, slack), [r1, rk])
        if case.sharding in (None, "zero1") and eng == "analytic":
            c1, ck = _f(a[eng]["compute_s"]), _f(b[eng]["compute_s"])
            e1, ek = i1 - c1, ik - ck
            tol = 1e-9 * ik
            ctx.check("accumulation", many, abs(ck - k * c1) <= tol and abs(ek - e1) <= tol,
                      "%s: compute %.17g s x %d != %.17g s, or the rest of the step "
                      "%.17g s != %.17g s" % (eng, c1, k, ck, e1, ek), [r1, rk])


def checkpointing(ctx, case):
    """Recomputing forward work never makes a step faster or uses more memory:
    compute_s and iteration_s with a policy >= without (iteration_s not under zero3, whose
    DeepSpeed prefetch gains the recomputed submodules' prefetch points), memory per GPU <=. Nested
    policies order the same way (full recomputes a superset of every:1, every:1 of
    every:2), and every:1 and fraction:1 name the same blocks (identical rows)."""
    policy = case.act_ckpt or ctx.rng.choice(["full", "op", "every:2", "fraction:0.5"])
    none = case.replace(act_ckpt=None)
    ck = case.replace(act_ckpt=policy)
    free = ["--no-memory-check"]
    r0, rows0 = _predict_csv(ctx, none, none.predict_args() + free, "checkpointing")
    rp, rowsp = _predict_csv(ctx, ck, ck.predict_args() + free, "checkpointing")
    if rows0 is None or rowsp is None:
        return  # refused: a policy a model without blocks cannot take, the papers' patterns
    a, b = _rows_by_engine(rows0), _rows_by_engine(rowsp)
    # DeepSpeed's zero3 prefetches at every submodule it runs (docs/sharding.md): the
    # recomputed ones add prefetch points, so a comm-bound step can end sooner with them
    # (seen: -2.7%, llama-2-7b on a100-40g-400g, every:2); its compute is still checked
    deepspeed = (case.sharding or "").startswith("zero3")
    for eng in a:
        for key, more in (("compute_s", True), ("iteration_s", not deepspeed),
                          ("memory_bytes_per_gpu", False)):
            if key == "iteration_s" and deepspeed:
                continue
            x, y = _f(a[eng][key]), _f(b[eng][key])
            ok = _le(x, y) if more else _le(y, x)
            ctx.check("checkpointing", ck, ok, "%s: %s without %.17g, with %s %.17g" % (
                eng, key, x, policy, y), [r0, rp])
    chain = [case.replace(act_ckpt=p) for p in ("full", "every:1", "every:2")]
    runs = [_predict_csv(ctx, c, c.predict_args() + free, "checkpointing") for c in chain]
    if any(rows is None for _, rows in runs):
        return  # a model without transformer blocks: only full applies
    for (ra, rowsa), (rb, rowsb), c in zip(runs, runs[1:], chain[1:]):
        x = _f(rowsa[0]["compute_s"])
        y = _f(rowsb[0]["compute_s"])
        ctx.check("checkpointing", c, _le(y, x),
                  "compute_s: %s %.17g < %s %.17g" % (c.act_ckpt, y, "the wider policy", x),
                  [ra, rb])
    fr = case.replace(act_ckpt="fraction:1")
    rf, rowsf = _predict_csv(ctx, fr, fr.predict_args() + free, "checkpointing")
    ctx.check("checkpointing", fr, rowsf == runs[1][1],
              "every:1 and fraction:1 recompute the same blocks but print other rows",
              [runs[1][0], rf])


# --- best >= every candidate -------------------------------------------------------------

def best(ctx, case):
    """predict --exchange best's throughput is >= that of every exchange it searches
    (auto, allreduce, allgather, ps where the stack implements them, issue 43; the papers'
    patterns only when named, so not here:
    issue 45 item 2, docs/stacks.md), and equal to one of them. Analytic
    only: best is chosen with the analytic engine, so under the DES it may lose to a
    candidate by the engines' difference (docs/stacks.md)."""
    if case.engine != "analytic":
        return
    br, brows = _predict_csv(ctx, case, case.predict_args(collective=False) +
                             ["--exchange", "best"], "best")
    if brows is None:
        ctx.check("best", case, br.rc == 2, "--exchange best exits %d: %s" % (
            br.rc, br.err.strip()), [br])
        return
    tb = _f(brows[0]["throughput_samples_per_s"])
    cands = [["--exchange", x] for x in ("auto", "allreduce", "allgather", "ps")]
    seen = []
    for extra in cands:
        r, rows = _predict_csv(ctx, case, case.predict_args(collective=False) + extra, "best")
        if rows is None:
            continue  # a candidate this case refuses (best skips it with its reason)
        if "does not implement" in r.err:
            continue  # named, a what-if the stack cannot run: best never tries it (issue 43)
        t = _f(rows[0]["throughput_samples_per_s"])
        seen.append(t)
        ctx.check("best", case, _le(t, tb),
                  "%s gives %.17g samples/s, --exchange best %.17g (%s)" % (
                      " ".join(extra), t, tb, brows[0]["exchange"]), [br, r],
                  detail={"candidate": " ".join(extra)})
    if seen:
        ctx.check("best", case, any(t == tb for t in seen),
                  "--exchange best's %.17g samples/s is none of the candidates' %s" % (
                      tb, seen), [br])


# --- sharded sweeps merged = unsharded ---------------------------------------------------

def shards(ctx, index, spec, fmt):
    """A sweep split with --shard K/N (N drawn from 2-5) and joined by gcsim merge is the
    unsharded sweep byte for byte, whatever order the shard files are given in; the
    unsharded sweep run twice is the same bytes."""
    ext = "csv" if fmt == "csv" else "jsonl"
    whole = ctx.run(["sweep"] + spec + ["--format", fmt])
    again = ctx.run(["sweep"] + spec + ["--format", fmt])
    label = "sweep %d (%s)" % (index, fmt)
    if not ctx.check("shards", label, whole.rc == 0, "sweep exits %d: %s" % (
            whole.rc, whole.err.strip()), [whole]):
        return
    ctx.check("determinism", label, (whole.out, whole.err) == (again.out, again.err),
              "two runs of the same sweep differ", [whole])
    other = ctx.run(["sweep"] + spec + ["--format", "jsonl" if fmt == "csv" else "csv"])
    _sweep_formats_agree(ctx, label, whole if fmt == "csv" else other,
                         other if fmt == "csv" else whole)
    n = ctx.rng.randint(2, 5)
    files = []
    for k in range(1, n + 1):
        path = os.path.join(ctx.tmp, "sweep%d-%d-of-%d.%s" % (index, k, n, ext))
        r = ctx.run(["sweep"] + spec + ["--format", fmt, "--shard", "%d/%d" % (k, n),
                                        "--output", path])
        if not ctx.check("shards", label, r.rc == 0 and r.out == "",
                         "shard %d/%d exits %d: %s" % (k, n, r.rc, r.err.strip()), [r]):
            return
        files.append(path)
    ctx.rng.shuffle(files)
    m = ctx.run(["merge"] + files)
    ctx.check("shards", label, m.rc == 0 and m.out == whole.out,
              "%d shards merged (exit %d) differ from the unsharded sweep (%d vs %d bytes)" % (
                  n, m.rc, len(m.out), len(whole.out)), [whole, m])


def _sweep_formats_agree(ctx, label, csv_run, jsonl_run):
    """A sweep's CSV and JSON lines hold the same rows and values (jsonl adds
    schema_version; an empty CSV cell is JSON null)."""
    import json
    if not ctx.check("formats", label, csv_run.rc == jsonl_run.rc == 0,
                     "sweep exits %d (csv), %d (jsonl)" % (csv_run.rc, jsonl_run.rc),
                     [csv_run, jsonl_run]):
        return
    c = csv_rows(csv_run.out)
    j = [json.loads(line) for line in jsonl_run.out.splitlines()]
    if not ctx.check("formats", label, len(c) == len(j),
                     "rows: csv %d, jsonl %d" % (len(c), len(j)), [csv_run, jsonl_run]):
        return
    for cr, jr in zip(c, j):
        jr = {k: v for k, v in jr.items() if k != "schema_version"}
        bad = [k for k in set(cr) | set(jr)
               if not (jr.get(k) is None and cr.get(k) == "" or
                       isinstance(jr.get(k), str) and cr.get(k) == jr[k] or
                       isinstance(jr.get(k), (int, float)) and cr.get(k) not in (None, "") and
                       float(cr[k]) == float(jr[k]))]
        ctx.check("formats", label, not bad, "case %s: csv and jsonl differ in %s" % (
            cr.get("case"), sorted(bad)), [csv_run, jsonl_run])


def sweep_spec(rng, des):
    """A sweep over several values of each dimension, from the catalog."""
    from cases import COMPRESSORS, MODELS
    small = ["cloud-v100-25gbe", "a100-hdr", "h100-400g", "dgc-fig6-10gbe", "terngrad-testbed"]
    plats = rng.sample(small, 1 if des else 2)
    models = rng.sample([m for m in MODELS if not m.startswith("llama")], 1 if des else 2)
    # threshold's payload is unknown for most models: the sweep refuses it as a whole
    comps = rng.sample(sorted(set(COMPRESSORS) - {"threshold"}), 2 if des else 3)
    gpus = "2,4" if des else "1,4,8,16,32"
    spec = ["--platform", ",".join(plats), "--model", ",".join(models),
            "--compressor", ",".join(comps), "--gpus", gpus,
            "--stack", rng.choice(["pytorch-ddp,horovod", "fused", "pytorch-ddp"]),
            "--engine", "des" if des else "analytic", "--no-progress"]
    if not des:
        spec += ["--collective", rng.choice(["ring,tree", "ps", "hierarchical,allgather"])]
    return spec
