#!/usr/bin/python3
"""Regenerate docs/validation.md: every comparison of gcsim with itself and with published
measurements that the project has, in one command.

    make_validation_doc.py GCSIM REPO [--ci] [--agreement-json FILE] [--note TEXT]
                           [--output FILE]

1. Engine agreement: engine_agreement.py --full (8-12 minutes with --jobs 2 on two
   cores; run it under `nice -n 19`), or --ci (seconds) with --ci, or an earlier run's --json dump
   with --agreement-json (nothing is re-run).
2. All-reduce bus bandwidth against nccl-tests (tests/validation/published_busbw.tsv):
   `gcsim collective --platform P --gpus N --op allreduce --sizes ... --format json`. A
   gcsim without that subcommand, or one that fails, gives "not available" in the table.
3. Single-GPU throughput against the published measurements the profiles come from
   (tests/validation/published_single_gpu.tsv): `gcsim predict --gpus 1 --batch B
   --collective ring` on a platform with that GPU (a GPU-direct collective moves nothing on
   one GPU, so this is the profile itself as gcsim reads it).
4. Compression against published measurements (compression_cases.py,
   tests/validation/published_compression.tsv): the compressed/uncompressed throughput
   ratio per case, with the cases' training stacks and with the fused stack (before).
5. The engines under the training stacks' own programs, with overlap (stack_agreement.py).
6. All-reduce busbw per size against ten real nccl-tests logs as published (nccl_logs.py,
   tests/validation/nccl_logs/): measured against predicted, with the tuner's algorithm and
   protocol, and the median errors over all logs and over those the source reports as normal.
   Test it alone: python3 -c "import sys; sys.path.insert(0, 'tests/validation');
   import make_validation_doc as m; print(m.nccl_logs_section(GCSIM, '.'))"

The notes under the tables ("where they disagree") are written by doc_notes.py from the rows
of the same run (no gcsim figure typed in prose); a note the rows contradict stops the page
(exit 3, doc_notes.StaleNote) until its sentence is rewritten.

Writes REPO/docs/validation.md (or --output) atomically. Exit status: 0 written, 2 bad
usage or input, 3 internal failure (engine_agreement.py failing to run).
"""
import argparse
import csv
import functools
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import catalog  # noqa: E402
import doc_notes  # noqa: E402
import engine_agreement  # noqa: E402
import gcsim_cli  # noqa: E402
import nccl_logs  # noqa: E402
import tcp_training  # noqa: E402

SIZE_UNITS_BYTES = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
# The page lists the worst cases beyond the threshold, not all (the grid has thousands).
MAX_LISTED = 60
# Sources say "large" for a size; nccl-tests sweeps usually end at 8 GiB or below.
LARGE_SIZE = "8GiB"


def size_bytes(text):
    for unit in sorted(SIZE_UNITS_BYTES, key=len, reverse=True):
        if text.endswith(unit) and text[:-len(unit)].isdigit():
            return int(text[:-len(unit)]) * SIZE_UNITS_BYTES[unit]
    raise ValueError(text)


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def git_describe(repo):
    try:
        head = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + (" with uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


# --- 1. engine agreement ---------------------------------------------------------------------

def agreement_section(gcsim, repo, mode, dump_path):
    if dump_path is None:
        with tempfile.TemporaryDirectory() as tmp:
            dump_path_tmp = os.path.join(tmp, "agreement.json")
            cmd = [sys.executable, os.path.join(HERE, "engine_agreement.py"), gcsim, repo,
                   "--" + mode, "--json", dump_path_tmp]
            print("make_validation_doc.py: %s" % gcsim_cli.command_line(cmd), file=sys.stderr)
            p = subprocess.run(cmd, stdout=sys.stderr)
            if p.returncode not in (0, 1):
                raise RuntimeError("engine_agreement.py exited %d" % p.returncode)
            with open(dump_path_tmp, encoding="utf-8") as f:
                dump = json.load(f)
        how = ("`python3 tests/validation/engine_agreement.py GCSIM . --%s --json FILE`"
               % mode)
    else:
        with open(dump_path, encoding="utf-8") as f:
            dump = json.load(f)
        how = "an earlier `engine_agreement.py --%s --json` run" % dump.get("mode", "?")
    allow = engine_agreement.read_allow_list(
        os.path.join(repo, engine_agreement.DEFAULT_ALLOW_LIST))
    body = engine_agreement.markdown(dump["rows"], dump["errors"], dump["skipped"], allow,
                                     dump["mode"], dump["collectives"], dump["wall_s"],
                                     max_listed=MAX_LISTED)
    head, _, rest = body.partition("\n\n")
    return "%s\n\nSource: %s.\n\n%s" % (head, how, rest)


# --- 2. bus bandwidth --------------------------------------------------------------------------

def collective_busbw(gcsim, repo, platform, gpus, sizes):
    """({(engine, size_bytes): bus bandwidth in GB/s}, None) or (None, why not)."""
    # A name is a catalog platform; a path (with a slash) a validation variant of one.
    path = platform if "/" in platform else os.path.join("platforms", platform + ".json")
    argv = [gcsim, "collective", "--platform", path,
            "--gpus", str(gpus), "--op", "allreduce", "--sizes", ",".join(sizes)]
    try:
        doc = gcsim_cli.run_json(argv, repo, timeout_s=600)
    except gcsim_cli.GcsimError as e:
        first = (e.stderr or "").strip().splitlines()
        return None, "%s%s" % (e.why, ": " + first[0][:200] if first else "")
    rows = doc.get("rows") if isinstance(doc, dict) else doc
    if not isinstance(rows, list):
        return None, "output has no rows"
    out = {}
    for r in rows:
        if isinstance(r, dict) and "size_bytes" in r and "busbw_Bps" in r:
            out[(r.get("engine", "analytic"), int(r["size_bytes"]))] = float(r["busbw_Bps"]) / 1e9
    if not out:
        return None, "no rows with size_bytes and busbw_Bps"
    return out, None


def busbw_section(gcsim, repo):
    path = os.path.join(HERE, "published_busbw.tsv")
    rows = read_tsv(path)
    wanted = {}
    for r in rows:
        r["compared_size"] = LARGE_SIZE if r["size"] == "large" else r["size"]
        if r["platform"] != "-":
            wanted.setdefault((r["platform"], int(r["gpus"])), set()).add(r["compared_size"])
    got = {}
    for (plat, gpus), sizes in sorted(wanted.items()):
        got[(plat, gpus)] = collective_busbw(gcsim, repo, plat, gpus,
                                             sorted(sizes, key=size_bytes))
    out = ["## All-reduce bus bandwidth against nccl-tests", "",
           "Published busbw (nccl-tests, float sum, in-place; measured) against `gcsim collective "
           "--op allreduce` on the platform that stands for the system, with the algorithm and "
           "protocol gcsim's tuner picks per size (docs/collectives.md). Gap = gcsim / published - 1 (against the nearer end of a published "
           "range). Data and sources: `tests/validation/published_busbw.tsv`.", "",
           "| system | GPUs | size | published GB/s | platform | analytic GB/s | gap | DES GB/s | gap | source | note |",
           "|---|---:|---|---:|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        lo, hi = float(r["busbw_low_GBps"]), float(r["busbw_high_GBps"])
        pub = ("%g" % lo) if lo == hi else ("%g-%g" % (lo, hi))
        cells = []
        if r["platform"] == "-":
            cells = ["no matching platform", "-", "-", "-", "-"]
        else:
            res, why = got[(r["platform"], int(r["gpus"]))]
            cells = [r["platform"]]
            for engine in ("analytic", "des"):
                v = None if res is None else res.get((engine, size_bytes(r["compared_size"])))
                if v is None:
                    cells += ["not available", "-"]
                    continue
                ref = lo if v < lo else hi if v > hi else v
                cells += ["%.2f" % v, "%+.1f%%" % (100.0 * (v / ref - 1.0))]
            if res is None:
                r["note"] = ("%s; gcsim collective: %s" % (r["note"], why)).strip("; ")
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["system"], r["gpus"], r["size"], pub, " | ".join(cells), r["source"],
            r["note"].replace("|", "\\|")))
    out.append("")
    return "\n".join(out)


# --- 2b. real nccl-tests logs ----------------------------------------------------------------

NOT_MEASURED = re.compile(r"not (fitted|calibrated)", re.I)
MEASURED = re.compile(r"measure|fitted|calibrat|\bfit\b", re.I)


def measured_platform_figures(rows):
    """[(field, source text, [platform files])]: the platform figures whose $.sources entry
    says they come from a measurement or a fit (on whatever system), not a datasheet."""
    seen = {}
    for plat in sorted({r["platform"] for r in rows}):
        path = next(r["platform_path"] for r in rows if r["platform"] == plat)
        with open(path, encoding="utf-8") as f:
            sources = json.load(f).get("sources", {})
        for key, text in sources.items():
            if isinstance(text, str) and MEASURED.search(NOT_MEASURED.sub("", text)):
                seen.setdefault((key, text), []).append(os.path.basename(plat))
    return [(k, t, p) for (k, t), p in seen.items()]


def nccl_log_sentence(row):
    def get(key):
        v = row.get(key, "-").strip()
        return "" if v in ("", "-") else v
    per_node = get("gpus_per_node")
    system = "%s x %s on %s node%s" % (row["gpus"], get("gpu_model") or "GPU", row["nodes"],
                                      "" if row["nodes"] == "1" else "s")
    per_node = ("%s per node" % per_node if per_node.isdigit() else
                "GPUs per node: %s" % per_node if per_node else "")
    details = [d for d in (per_node, get("nics_per_node"),
                           get("transport"),
                           "NCCL %s" % get("nccl_version") if get("nccl_version") else "") if d]
    if details:
        system += " (%s)" % "; ".join(details)
    source = get("source") or "no source recorded"
    if get("date"):
        source += ", %s" % get("date")
    status = ("reported by the source as a problem: %s" % row["status_why"]
              if row["status"] == "problem" else
              "counted as normal: the source does not report it as a problem")
    return ("`%s`: %s, kind %s; source: %s; %s." % (row["file"], system, row["system_kind"],
                                                     source, status)).replace("|", "\\|")


def nccl_logs_section(gcsim, repo, engine="analytic"):
    directory = os.path.join(repo, "tests", "validation", "nccl_logs")
    head = ["## nccl-tests logs: busbw per size", "",
            "`python3 tests/validation/nccl_logs.py --gcsim $G --markdown` (and "
            "`--cross-calibrate`, below; CTest: "
            "`validation_nccl_logs`; `validation_nccl_logs_calibrate` checks that `gcsim "
            "calibrate` reads every log as published): real nccl-tests `all_reduce_perf` logs, "
            "kept as published (`tests/validation/nccl_logs/`, sources in `SOURCES.tsv`), "
            "against `gcsim collective --engine %s` on a platform per system at the log's GPU "
            "count and sizes. In-place busbw; error = predicted / measured - 1 (none where the "
            "measured busbw prints as 0.00); algorithm/protocol is what gcsim's tuner picked for "
            "the size. Medians are pooled over the rows of the logs in each group." % engine, ""]
    try:
        results = nccl_logs.collect(gcsim, directory, engine)
    except nccl_logs.InputError as e:
        raise ValueError("nccl-tests logs: %s" % e)
    except gcsim_cli.GcsimError as e:
        first = (e.stderr or "").strip().splitlines()
        return "\n".join(head + ["Not available: gcsim failed on %s: %s%s" % (
            getattr(e, "log", "?"), e.why, ": " + first[0][:200] if first else ""), ""])
    rows = [res["row"] for res in results]
    problems = [r for r in rows if r["status"] == "problem"]
    try:
        calib, _rejected, _missed = nccl_logs.calibrate_check(gcsim, directory, False)
        # its last two lines: the counts (fitted, refused, ...) and the self-check's verdict
        calib_line = " ".join(calib.strip().splitlines()[-2:])
    except nccl_logs.InputError as e:
        raise ValueError("nccl-tests logs: %s" % e)
    out = head
    out += ["No parameter was fitted to these logs, neither gcsim's nor the platforms': the "
            "platforms (`tests/validation/nccl_logs/platforms/`) are datasheet figures, "
            "stated assumptions and, where a source measured its host in another run than its "
            "log, that run's figure (listed below with the others measured), each with its "
            "source in the file's `sources`. The sources of "
            "the logs report %d of the %d as problems: %s. They are kept; the summary gives the "
            "medians over all logs and over the normal ones separately. `gcsim calibrate` on the "
            "logs as published: %s" % (
                len(problems), len(rows),
                "; ".join("`%s` (%s)" % (r["file"], r["status_why"]) for r in problems)
                or "none", calib_line),
            ""]
    measured = measured_platform_figures(rows)
    if measured:
        out += ["Platform figures whose sources say they come from a measurement or a fit "
                "rather than a datasheet (each source names the system measured); where one is "
                "the very quantity a log measures (busbw of the same operation on the same kind "
                "of node), agreement on that log is not independent evidence:", ""]
        out += ["- `%s` of %s: %s" % (k, ", ".join(p), t.replace("|", "\\|"))
                for k, t, p in measured]
        out.append("")
    summary_header, summary_rows = nccl_logs.summary_table(results, None)
    out += ["### Median |error| of predicted in-place busbw (%s engine)" % engine, ""]
    out += nccl_logs.md_table(summary_header, summary_rows)
    out += ["", nccl_logs.beyond_2x(results), ""]
    for res in results:
        out += ["### %s" % nccl_logs.log_title(res["row"], engine), "",
                nccl_log_sentence(res["row"]), ""]
        out += nccl_logs.md_table(*nccl_logs.log_table(res, None))
        out.append("")
    # Issue 27: each log without calibration and calibrated on another log of its kind.
    out += ["### Calibrated on another log of the same system kind", "",
            "`python3 tests/validation/nccl_logs.py --gcsim $G --cross-calibrate --markdown`: "
            "for each log, `gcsim calibrate` on a different log of the same `system_kind` "
            "(its own `--gpus`/`--nodes`, this log's platform as the base, no `--force`), then "
            "`gcsim collective --engine %s` for this log on the calibrated platform (a "
            "temporary file). Here parameters are fitted, but to another log than the one "
            "compared, so each calibrated error is a transfer between two systems." % engine, ""]
    try:
        cross = nccl_logs.cross_calibrate(gcsim, directory, engine)
    except nccl_logs.InputError as e:
        raise ValueError("nccl-tests logs: %s" % e)
    out += [nccl_logs.CROSS_NOTE, ""]
    out += ["#### %s" % nccl_logs.cross_summary_title(engine), ""]
    out += nccl_logs.md_table(*nccl_logs.cross_summary_table(cross))
    out.append("")
    for res in cross:
        out += ["#### %s" % nccl_logs.cross_title(res, engine), ""]
        out += [l.replace("|", "\\|") + "\n" for l in nccl_logs.cross_detail(res)]
        out += nccl_logs.md_table(*nccl_logs.cross_log_table(res))
        out.append("")
    return "\n".join(out)


# --- 3. single GPU ----------------------------------------------------------------------------

def single_gpu_section(gcsim, repo):
    rows = read_tsv(os.path.join(HERE, "published_single_gpu.tsv"))
    plat_by_gpu = {}
    for p in catalog.platforms(repo):
        plat_by_gpu.setdefault(p.gpu_type, p)
    out = ["## Single-GPU throughput against the published measurements", "",
           "`gcsim predict --engine analytic --gpus 1 --batch B --collective ring` on a platform "
           "with that GPU, against the measurement the catalog profile was built from "
           "(`tests/validation/published_single_gpu.tsv`). This checks the catalog and how gcsim "
           "reads it; it is not an independent validation.", "",
           "| GPU | model | batch | published samples/s | platform | gcsim samples/s | gap | framework | source |",
           "|---|---|---:|---:|---|---:|---:|---|---|"]
    for r in rows:
        batch = int(r["batch"])
        if r["samples_per_s"] != "-":
            pub = float(r["samples_per_s"])
        else:
            pub = batch / (float(r["time_ms"]) * 1e-3)
        p = plat_by_gpu.get(r["gpu"])
        if p is None:
            cells = ["no platform", "-", "-"]
        else:
            argv = [gcsim, "predict", "--engine", "analytic", "--gpus", "1", "--batch", str(batch),
                    "--collective", "ring", "--platform", os.path.relpath(p.path, repo),
                    "--model", os.path.join("models", r["model"] + ".json")]
            try:
                got = gcsim_cli.predict_rows(gcsim_cli.run_json(argv, repo), argv)
                v = float(got[1]["analytic"]["throughput_samples_per_s"])
                cells = [p.name, "%.1f" % v, "%+.2f%%" % (100.0 * (v / pub - 1.0))]
            except (gcsim_cli.GcsimError, KeyError) as e:
                cells = [p.name, "failed: %s" % str(e)[:200].replace("|", "\\|"), "-"]
        out.append("| %s | %s | %d | %.1f | %s | %s | %s |" % (
            r["gpu"], r["model"], batch, pub, " | ".join(cells), r["framework"], r["source"]))
    out.append("")
    return "\n".join(out)


def run_script(script, gcsim, repo, extra):
    r = subprocess.run([sys.executable, os.path.join(HERE, script), gcsim, repo] + extra,
                       capture_output=True, text=True, timeout=3600)
    if r.returncode not in (0, 1):
        raise RuntimeError("%s failed (exit %d): %s" % (script, r.returncode, r.stderr.strip()))
    return r


@functools.lru_cache(maxsize=None)
def compression_run(gcsim, repo):
    """(table, totals line, rows) of compression_cases.py, run once for the sections and
    notes that quote it."""
    with tempfile.TemporaryDirectory() as tmp:
        md, js = os.path.join(tmp, "cases.md"), os.path.join(tmp, "cases.json")
        r = run_script("compression_cases.py", gcsim, repo,
                       ["--markdown", md, "--json", js, "--check"])
        if r.returncode != 0:
            raise RuntimeError("compression_cases.py: a gcsim run failed: %s" % r.stderr.strip())
        with open(md) as f, open(js) as g:
            return f.read(), r.stderr.strip().splitlines()[-1], json.load(g)


@functools.lru_cache(maxsize=None)
def tcp_rows(gcsim, repo):
    """tcp_training.py's rows (the fp32 baselines the compression notes quote too)."""
    try:
        return tcp_training.predict(gcsim, repo, tcp_training.read_cases(
            os.path.join(HERE, "published_tcp_training.tsv")))
    except gcsim_cli.GcsimError as e:
        raise RuntimeError("tcp_training: a gcsim run failed: %s" % e)


def compression_section(gcsim, repo):
    """Issue 24's compression cases and the notes on them, then issue 43's subsection."""
    table, totals, rows = compression_run(gcsim, repo)
    tcp = tcp_rows(gcsim, repo)
    out = ["## Compression against published measurements", "",
           "Issue 24. `python3 tests/validation/compression_cases.py $G .` (CTest: "
           "`validation_compression_cases`): for each published "
           "case (`tests/validation/published_compression.tsv`, with sources), the predicted "
           "ratio of compressed to uncompressed throughput (analytic engine) against the measured "
           "one, with the training stack of the case (`stack`; its background cycle where the "
           "source's launch script sets one) and with the fused stack for both runs (`fused`: what "
           "gcsim charged before training stacks). Error = predicted / measured - 1. The sign "
           "agrees when both ratios say the same of compression: faster (above 1.03), slower "
           "(below 0.97) or even. No figure here was used to choose or fit a gcsim input: the op "
           "laws are fitted to GPU micro-benchmarks only (docs/stacks.md); the platforms are "
           "built from hardware figures (`tests/validation/platforms/`, sources inside); CGX's "
           "and EgoVerse's single-GPU figures are used as compute profiles (single-GPU "
           "measurements). Seven independent sources: MergeComp/Cupcake (MC), MIT HAN Lab's DGC "
           "code (DGC), CGX (IST Austria) and an EgoVerse pull request (EGO), and since issue "
           "43 DeepSpeed's 1-bit Adam blog (DS1BA), BytePS's compression write-ups (BPS) and "
           "Bagua's benchmarks (BAG); the ZeRO++ pairs (ZPP) repeat two of `zeropp.py`'s.",
           "", "Held out and left out on purpose: the GRACE benchmark data release and "
           "pytorch/pytorch issue #74148, which issue 24 names as the project's held-out "
           "validation set.", "", "Totals: " + totals, "", table,
           "Where they disagree, and why (mechanisms, not fits; every gcsim figure is "
           "this run's):", ""]
    out += doc_notes.compression_notes(rows, tcp) + [""]
    out.append(compression_issue43_notes(rows))
    return "\n".join(out)


def socket_busbw_section(gcsim, repo):
    with tempfile.TemporaryDirectory() as tmp:
        md = os.path.join(tmp, "socket.md")
        r = run_script("socket_busbw.py", gcsim, repo, ["--markdown", md])
        if r.returncode != 0:
            raise RuntimeError("socket_busbw.py: a gcsim run failed: %s" % r.stderr.strip())
        table = open(md).read()
        totals = r.stderr.strip().splitlines()
    out = ["## NCCL's socket transport: nccl-tests busbw", "",
           "Issue 42. `python3 tests/validation/socket_busbw.py $G .` (CTest: "
           "`validation_socket_busbw`): published nccl-tests all_reduce_perf busbw over "
           "NCCL's socket transport (TCP, no RDMA), with sources "
           "(`tests/validation/published_socket_busbw.tsv`), against `gcsim collective "
           "--engine analytic` on platforms derived from specifications and the logs' NCCL "
           "settings (`tests/validation/platforms/socket-*.json`), with the algorithm and "
           "protocol a log forced (the table's algo / proto columns: AZ-25G-2x4 ring/Simple, "
           "P3DN-100G-2x1 rings by NCCL_TREE_THRESHOLD=0) and otherwise the tuner's pick. "
           "Signed error = gcsim / measured - 1. Nothing here was fitted to these numbers.", ""]
    out += ["Totals: " + t for t in totals] + ["", table]
    return "\n".join(out)


def tcp_training_section(gcsim, repo):
    rows = tcp_rows(gcsim, repo)
    table = tcp_training.markdown(rows)
    totals = [tcp_training.summary(rows, kind) for kind in ("tcp", "local")]
    out = ["## Uncompressed training on TCP clusters", "",
           "Issue 42. `python3 tests/validation/tcp_training.py $G .` (CTest: "
           "`validation_tcp_training`): published fp32 (uncompressed, dense all-reduce) "
           "data-parallel throughput on Ethernet clusters without RDMA, with their "
           "configurations and sources (`tests/validation/published_tcp_training.tsv`), "
           "against `gcsim predict --engine analytic --compressor none` with the case's stack at "
           "N GPUs and at one GPU. speedup = throughput(N) / throughput(1); scaling = speedup "
           "/ N; throughput = samples/s of all N GPUs (no 1-GPU run). Signed error = predicted / measured - 1: positive means gcsim is optimistic "
           "(too fast). Nothing here was fitted to these numbers. Rows of kind `local` are one "
           "machine (no network), listed for contrast.", ""]
    out += ["Totals: " + t for t in totals] + ["", table]
    out += ["Where they disagree (mechanisms, not fits; every gcsim figure is this run's):", ""]
    out += doc_notes.tcp_notes(rows) + [""]
    return "\n".join(out)


def time_to_accuracy_section(gcsim, repo):
    """Issue 43: time to a target accuracy, compressed against uncompressed, published
    end-to-end results against gcsim (time_to_accuracy.py)."""
    with tempfile.TemporaryDirectory() as tmp:
        md, js = os.path.join(tmp, "tta.md"), os.path.join(tmp, "tta.json")
        r = run_script("time_to_accuracy.py", gcsim, repo,
                       ["--markdown", md, "--json", js, "--check"])
        if r.returncode != 0:
            raise RuntimeError("time_to_accuracy.py: a gcsim run failed: %s" % r.stderr.strip())
        with open(md) as f, open(js) as g:
            table, rows = f.read(), json.load(g)
        totals = r.stderr.strip().splitlines()[-1]
    out = ["## Time to accuracy against published end-to-end results", "",
           "Issue 43. `python3 tests/validation/time_to_accuracy.py $G .` (CTest: "
           "`validation_time_to_accuracy`): published time to a target accuracy of compressed "
           "against uncompressed training (`tests/validation/time_to_accuracy.tsv`, with "
           "sources), against gcsim's prediction 1 / (w + (1 - w) x factor / r): r the "
           "predicted per-step throughput ratio of the matching compression case, factor "
           "gcsim's convergence factor (`--convergence best`), w the share of steps the "
           "source runs uncompressed before compressing (1-bit Adam's warm-up). Error = "
           "predicted / published - 1. A published 'missed' is a compressed run that ended below "
           "the uncompressed run's accuracy in the same epochs: gcsim agrees when it predicts no "
           "gain there. Few published results give a time to accuracy with a setup gcsim can run; "
           "the sources are DeepSpeed's 1-bit Adam blog (DS1BA), BytePS's gradient-compression "
           "write-ups (BPS), Bagua's benchmark page (BAG) and the PowerSGD paper (PSGD, listed, "
           "not runnable).", "", "Totals: " + totals, "",
           table,
           "Notes (mechanisms; every gcsim figure is this run's):", ""]
    out += doc_notes.tta_notes(rows, compression_run(gcsim, repo)[2]) + [""]
    return "\n".join(out)


def compression_issue43_notes(rows):
    """Issue 43: where gcsim and the compression cases of the sources issue 43 added (DS1BA,
    BPS, BAG in published_compression.tsv) disagree; the cases are in the compression
    section's table (rows: its compression_cases.py rows), summarised apart there ("issue 43
    sources")."""
    count, zpp = doc_notes.issue43_intro_figures(rows)
    return "\n".join([
        "### Compression cases added by issue 43", "",
        "Issue 43 added three new sources to `tests/validation/published_compression.tsv` (%d "
        "cases; with sources, how each figure was read and what was assumed), and two ZeRO++ "
        "pairs (ZPP: an 18B GPT, ZeRO-3 against ZeRO++ on 384 V100s, the sharded case; the "
        "same pairs as `zeropp.py`, not independent of it, %s): DeepSpeed's 1-bit "
        "Adam blog (DS1BA: BERT-Large on V100s over 40 GbE TCP at 4.1 Gbps effective and over "
        "40 Gb/s InfiniBand; 'up to' figures whose GPU counts are assumed), BytePS's gradient-"
        "compression write-ups (BPS: ImageNet on p3.16xlarge over 25 GbE TCP) and Bagua's "
        "benchmark page (BAG: 128 V100s on a 100 Gbps TCP network throttled to 1-10 Gbps, "
        "pixel-read). The table above scores them with the older cases; its last two summary "
        "rows give each set apart. Where they disagree (mechanisms, not fits; every gcsim "
        "figure is this run's):" % (count, zpp), ""]
        + doc_notes.issue43_notes(rows) + [""])


def stack_agreement_section(gcsim, repo):
    r = run_script("stack_agreement.py", gcsim, repo, ["--check"])
    lines = r.stdout.strip().splitlines()
    total = next((l for l in lines if "cases, largest" in l), "")
    out = ["## Engine agreement under the training stacks", "",
           "`python3 tests/validation/stack_agreement.py $G . --check` (CTest: "
           "`validation_stack_agreement`): DES against analytic engine for each stack's own "
           "programs with overlap (`gcsim predict --engine both`): pytorch-ddp and horovod x "
           "fp32, fp16, top-k, DGC, PowerSGD, QSGD x ResNet-50 and BERT-base x cloud-v100-25gbe "
           "and a100-hdr x 8 and 32 GPUs. Codec work shares the GPU with backward in both "
           "engines (docs/stacks.md), deferred decodes and blocking calls included. %s. The "
           "largest gaps come from the pipelined double tree the tuner picks for some calls "
           "(the mechanism listed for the full grid above)." % total.rstrip("."), ""]
    return "\n".join(out)


def sharded_section(gcsim, repo):
    """Issue 25: sharded data parallelism against published FSDP / ZeRO throughput, and the
    engines on sharded cases (tests/validation/sharded.py)."""
    script = os.path.join(HERE, "sharded.py")
    with tempfile.TemporaryDirectory() as tmp:
        md, agree = os.path.join(tmp, "sharded.md"), os.path.join(tmp, "agreement.md")
        for extra, path in (([], md), (["--agreement"], agree)):
            r = subprocess.run([sys.executable, script, "--gcsim", gcsim, "--markdown", path]
                               + extra, capture_output=True, text=True, timeout=3600)
            if r.returncode != 0:
                raise RuntimeError("sharded.py %s failed (exit %d): %s"
                                   % (" ".join(extra), r.returncode, r.stderr.strip()))
        table, agreement = open(md).read(), open(agree).read()
    out = ["## Sharded data parallelism against published throughput", "",
           "Issue 25. `python3 tests/validation/sharded.py --gcsim $G` (CTest: "
           "`validation_sharded`): every configuration of "
           "`tests/validation/sharded/measurements.tsv` (published FSDP, FSDP2, ZeRO-3 and HSDP "
           "training throughput in tokens/s per GPU; sources, definitions and exact locations in "
           "`SOURCES.md` there) predicted with the row's architecture, GPU, GPU count, network "
           "(when published), strategy, micro-batch, accumulation and checkpointing, bf16 and "
           "Adam (docs/sharding.md). Error = predicted / measured - 1. The six `calibration` "
           "rows are the ones the transformer efficiency model is fitted to "
           "(`sharded.py --fit`, `sim/config/llm_efficiency_fit.h`: a fraction of peak per GPU "
           "type times (hidden / 4096)^beta, least squares on the calibration rows); no other "
           "row was used to fit any input. The width term's form was chosen after a first fit "
           "with one efficiency per type left errors growing with model size (docs/sharding.md, "
           "\"Compute\"). Rows not predicted say why (fp8, missing architecture or "
           "sequence length).", "", table,
           "Where it is off, and why (mechanisms, not fits; every gcsim figure is this "
           "run's):", ""]
    with open(os.path.join(repo, "sim", "config", "llm_efficiency_fit.h")) as f:
        out += doc_notes.sharded_notes(table, f.read())
    out += ["",
           "### Engine agreement on sharded cases", "",
           "`python3 tests/validation/sharded.py --gcsim $G --agreement --check` (CTest: "
           "`validation_sharded_agreement`): DES against analytic engine with `--mfu 0.4` "
           "(compute fixed, so only the schedules differ), every strategy, ZeRO++, "
           "checkpointing and accumulation, on platforms of 3,200 (h100-ndr) and 400 Gb/s per "
           "node (h100-400g, a100-40g-400g). The gaps of the ZeRO++ cases are the quantization "
           "kernels sharing the GPU with compute in the DES (docs/collectives.md).", "",
           agreement]
    return "\n".join(out)


def peak_memory_section(gcsim, repo):
    """Issue 46: the memory estimate per GPU, activations per checkpointing policy, against
    published peak-memory figures (tests/validation/peak_memory.py)."""
    script = os.path.join(HERE, "peak_memory.py")
    with tempfile.TemporaryDirectory() as tmp:
        md = os.path.join(tmp, "peak_memory.md")
        r = subprocess.run([sys.executable, script, "--gcsim", gcsim, "--markdown", md],
                           capture_output=True, text=True, timeout=1800)
        if r.returncode != 0:
            raise RuntimeError("peak_memory.py failed (exit %d): %s"
                               % (r.returncode, r.stderr.strip()))
        table = open(md).read()
    out = ["## Peak memory per GPU against published figures", "",
           "Issue 46. `python3 tests/validation/peak_memory.py --gcsim $G --check` (CTest: "
           "`validation_peak_memory`): every row of `tests/validation/peak_memory/"
           "measurements.tsv` (published peak memory of FSDP runs with their model, sequence, "
           "micro-batch, GPUs, sharding, precision and checkpointing policy; sources and "
           "definitions in `SOURCES.md` there) predicted by `gcsim predict --sharding fsdp "
           "--act-ckpt=POLICY` with the memory check on, the model built from the row's "
           "architecture as `sharded.py` builds it. Error = gcsim's bytes per GPU / the "
           "published peak - 1. The check: every counted figure within 15%, the configuration "
           "published as out of memory refused, the one published as running not refused, "
           "and none of the throughput rows of `tests/validation/sharded/measurements.tsv` "
           "(configurations that ran) refused.", "",
           "The activations per policy are what the policy saves (`sim/config/act_memory.h`): "
           "torchtitan's `op` policy keeps each block's input, the outputs of the odd matmuls "
           "and attention's output (4h + kv + ffn elements per token for Llama), full "
           "checkpointing each block's input (Korthikanti et al. 2022: 2 s h bytes at 16 "
           "bits), plus the larger of the eager fp32 cross-entropy (12 bytes per logit) and "
           "the one block being recomputed. No input is fitted to these figures; no allocator "
           "overhead term is added.", "", table,
           "Reading the errors (mechanisms, not fits; every gcsim figure is this run's):",
           ""]
    out += doc_notes.peak_memory_notes(table) + [""]
    return "\n".join(out)


def scaling_loss_section(gcsim, repo):
    """Issue 41: per-GPU throughput lost between two GPU counts of one configuration,
    published against gcsim, default and with a sourced --compute-cv
    (tests/validation/scaling_loss.py)."""
    script = os.path.join(HERE, "scaling_loss.py")
    r = subprocess.run([sys.executable, script, "--gcsim", gcsim], capture_output=True,
                       text=True, timeout=3600)
    if r.returncode != 0:
        raise RuntimeError("scaling_loss.py failed (exit %d): %s"
                           % (r.returncode, r.stderr.strip()))
    out = ["## Scaling loss: throughput per GPU across GPU counts", "",
           "Issue 41. `python3 tests/validation/scaling_loss.py --gcsim $G` (CTest: "
           "`validation_scaling_loss`): pairs of one configuration at two GPU counts "
           "(`tests/validation/scaling_loss.tsv`, with URL, table and date; each side a row of "
           "`tests/validation/sharded/measurements.tsv`), each side predicted as the sharded "
           "section predicts it (analytic engine). Loss = 1 - per-GPU throughput at the larger "
           "count / at the smaller; error = predicted loss - published loss, in percentage "
           "points (negative: gcsim loses less than measured). The variable-compute column "
           "adds `--compute-cv 0.01 --compute-dist normal`, a per-GPU spread derived from a "
           "source (docs/des.md, \"Sources of typical values\"), not fitted to these pairs; "
           "no parameter was fitted to them.", "", r.stdout,
           "What is left out, and is not fitted: the fabric beyond the catalog platform's "
           "(MosaicML's H100 network is not published), ECMP collisions and background traffic "
           "(`--ecmp-spines`: both engines, `--background-load`: DES only; neither run here), "
           "stragglers beyond a "
           "normal spread of CV 0.01, and the data loader and logging overheads that grow with "
           "the job.", ""]
    return "\n".join(out)


def des_effects_section(gcsim, repo):
    """Issue 41: failures, stragglers and collision losses as published, gcsim before issue
    41 and now (tests/validation/des_effects.py)."""
    script = os.path.join(HERE, "des_effects.py")
    r = subprocess.run([sys.executable, script, "--gcsim", gcsim], capture_output=True,
                       text=True, timeout=3600)
    if r.returncode != 0:
        raise RuntimeError("des_effects.py failed (exit %d): %s"
                           % (r.returncode, r.stderr.strip()))
    out = ["## What only a discrete-event simulation sees: failures, stragglers, collisions", "",
           "Issue 41. `python3 tests/validation/des_effects.py --gcsim $G` (CTest: "
           "`validation_des_effects`): published measurements of failures of large jobs, "
           "fail-slow stragglers, collision losses and collective bandwidth spread "
           "(`tests/validation/des_effects.tsv`, "
           "with URL, section and date, the inputs taken from each, and whether it is "
           "independent of gcsim's defaults), gcsim before issue 41 and now. The split: the "
           "defaults (failure rate, storage, restart; the compute CV) were set from other "
           "sources (docs/planning.md \"Goodput\", docs/des.md \"Sources of typical "
           "values\"), and the one row from the same source (Llama 3) is marked as not a "
           "validation.", "", r.stdout]
    return "\n".join(out)


def zeropp_section(gcsim, repo):
    """Issue 43: ZeRO++ against ZeRO-3, the predicted speedup against DeepSpeed's published
    pairs (tests/validation/zeropp.py). Test it alone: python3 -c "import sys;
    sys.path.insert(0, 'tests/validation'); import make_validation_doc as m;
    print(m.zeropp_section(GCSIM, '.'))" """
    script = os.path.join(HERE, "zeropp.py")
    with tempfile.TemporaryDirectory() as tmp:
        md = os.path.join(tmp, "zeropp.md")
        r = subprocess.run([sys.executable, script, "--gcsim", gcsim, "--markdown", md],
                           capture_output=True, text=True, timeout=3600)
        if r.returncode != 0:
            raise RuntimeError("zeropp.py failed (exit %d): %s" % (r.returncode,
                                                                  r.stderr.strip()))
        table = open(md).read()
    out = ["## ZeRO++ against ZeRO-3", "",
           "Issue 43. `python3 tests/validation/zeropp.py --gcsim $G` (CTest: "
           "`validation_zeropp`): the speedup of ZeRO++ (qwZ + hpZ + qgZ) over ZeRO-3, "
           "ZeRO-3's predicted iteration time over ZeRO++'s, against the published pairs of "
           "`tests/validation/zeropp/speedups.tsv` (DeepSpeed's ZeRO++ blog, Figs. 6-8, bar "
           "labels; sources per row). Validation data only: nothing is fitted to them. The "
           "architectures other than the tutorial's 18B, the DGX-2-class platform (16 V100 "
           "per node, N x 100 Gb/s) and Fig. 8's GPU count are assumptions, the compute rate "
           "(--mfu 0.48, Megatron-LM's single-V100 baseline) is derived from another source; "
           "the script's docstring lists each. Error = predicted / published speedup - 1, "
           "signed. The last column is gcsim's memory estimate for the ZeRO++ run (published, "
           "so \"no fit\" is gcsim's error). docs/sharding.md says what the model of "
           "DeepSpeed's fetch covers and what it does not.", "", table]
    return "\n".join(out)


def onebit_adam_section(gcsim, repo):
    """Issue 43: 1-bit Adam against Adam, end to end and in the compression stage, against
    DeepSpeed's published pairs (tests/validation/onebit_adam.py)."""
    with tempfile.TemporaryDirectory() as tmp:
        md = os.path.join(tmp, "onebit_adam.md")
        r = subprocess.run([sys.executable, os.path.join(HERE, "onebit_adam.py"), "--gcsim",
                            gcsim, "--markdown", md], capture_output=True, text=True,
                           timeout=3600)
        if r.returncode != 0:
            raise RuntimeError("onebit_adam.py failed (exit %d): %s" % (r.returncode,
                                                                       r.stderr.strip()))
        table = open(md).read()
    return "\n".join([
        "## 1-bit Adam against Adam, end to end", "",
        "Issue 43. `python3 tests/validation/onebit_adam.py --gcsim $G` (CTest: "
        "`validation_onebit_adam`): `gcsim predict --optimizer onebit-adam:freeze=F "
        "--steps-total T` (docs/onebit-adam.md) against the published pairs of "
        "`tests/validation/onebit_adam.tsv` (DeepSpeed's 1-bit Adam blog, 2020-09-09; sources "
        "per row). end to end: the run's speedup, warm-up included; compression stage: one "
        "Adam step over one 1-bit step. Validation data only: nothing is fitted to them. The "
        "networks' effective bandwidths (iperf, perftest) and the pre-training compute (Tang et "
        "al. 2021 Table 1) are measured; 4 V100 per node and the GPU counts are assumptions; "
        "the script's docstring lists each. Error = predicted / published - 1, signed. The "
        "blog's InfiniBand pair is not self-consistent: 15% warm-up and a 2x compression stage "
        "give at most 1.74x end to end, not 2.7x.", "", table])


def convergence_section(gcsim, repo):
    """Issue 26: convergence factors (catalog, gcsim train, variance bound) against the
    held-out published outcomes, written by conv_validate, built beside gcsim."""
    build = os.path.dirname(os.path.dirname(os.path.dirname(gcsim)))
    tool = os.path.join(build, "tests", "convergence", "conv_validate")
    if not os.access(tool, os.X_OK):
        raise RuntimeError("%s: not built (cmake --build build)" % tool)
    p = subprocess.run([tool, repo], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("conv_validate failed (exit %d): %s" % (p.returncode, p.stderr.strip()))
    return p.stdout.rstrip("\n") + "\n"


def main(argv):
    ap = argparse.ArgumentParser(prog="make_validation_doc.py",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("gcsim")
    ap.add_argument("repo")
    ap.add_argument("--ci", action="store_true", help="the engine-agreement CI subset, not --full")
    ap.add_argument("--agreement-json", metavar="FILE",
                    help="render this engine_agreement.py --json dump instead of running it")
    ap.add_argument("--note", default="", help="a paragraph to put under the title")
    ap.add_argument("--output", metavar="FILE", help="default: REPO/docs/validation.md")

    def usage_error(msg):
        print("make_validation_doc.py: %s" % msg, file=sys.stderr)
        sys.exit(2)

    ap.error = usage_error
    a = ap.parse_args(argv)
    if not (os.path.isfile(a.gcsim) and os.access(a.gcsim, os.X_OK)):
        usage_error("%s: not an executable gcsim" % a.gcsim)
    if a.agreement_json and not os.path.isfile(a.agreement_json):
        usage_error("%s: no such file" % a.agreement_json)
    gcsim = os.path.abspath(a.gcsim)
    repo = os.path.abspath(a.repo)
    output = a.output or os.path.join(repo, "docs", "validation.md")
    try:
        parts = [
            "# Validation",
            "",
            "Generated by `python3 tests/validation/make_validation_doc.py build/sim/cli/gcsim . "
            "[--ci]` from the repository root (engine agreement on the full grid takes about 25 minutes "
            "with --jobs 2 on two cores: run it under `nice -n 19`; `--ci` takes seconds); do not "
            "edit by hand. Tree: %s. What each part checks: `tests/validation/` (scripts, data "
            "files with their sources, the allow-list `contention_cases.txt`)." % git_describe(repo),
            "",
        ]
        if a.note:
            parts += [a.note, ""]
        parts += [
            "How to run each piece (from the repository root, `G=build/sim/cli/gcsim`):",
            "",
            "| command | what |",
            "|---|---|",
            "| `python3 tests/validation/engine_agreement.py $G . --ci --check` | DES against "
            "analytic engine on a subset covering every collective, platform kind and compressor "
            "class (prints what it covers); exit 1 on a case beyond 3% that "
            "`tests/validation/contention_cases.txt` does not list, or a gcsim failure. CTest: "
            "`validation_engine_agreement_ci` |",
            "| `nice -n 19 python3 tests/validation/engine_agreement.py $G . --full "
            "--markdown FILE --json FILE` | the whole grid |",
            "| `python3 tests/validation/compute_bound.py $G .` | no predicted throughput above N x "
            "the profiled single-GPU throughput, whole catalog, default collective. CTest: "
            "`validation_compute_bound` |",
            "| `python3 tests/validation/compression_cases.py $G .` | compressed/uncompressed "
            "throughput ratios against published measurements (issue 24), with the training "
            "stacks and with the fused stack |",
            "| `python3 tests/validation/tcp_training.py $G .` | uncompressed (fp32) training "
            "throughput on TCP clusters against published measurements, signed errors (issue "
            "42). CTest: `validation_tcp_training` |",
            "| `python3 tests/validation/socket_busbw.py $G .` | nccl-tests busbw over NCCL's "
            "socket transport against gcsim collective (issue 42). CTest: "
            "`validation_socket_busbw` |",
            "| `python3 tests/validation/time_to_accuracy.py $G .` | time to a target accuracy, "
            "compressed against uncompressed, against published end-to-end results (issue 43). "
            "CTest: `validation_time_to_accuracy` |",
            "| `python3 tests/validation/stack_agreement.py $G . --check` | DES against analytic "
            "engine under the training stacks' programs, with overlap. CTest: "
            "`validation_stack_agreement` |",
            "| `python3 tests/validation/nccl_logs.py --gcsim $G [--compare OLD_G]` | all-reduce "
            "busbw per size against real nccl-tests logs as published, with the tuner's "
            "algorithm/protocol (a report, not a threshold; `--compare` adds an older binary's "
            "predictions). CTest: `validation_nccl_logs` |",
            "| `python3 tests/validation/nccl_logs.py --gcsim $G --calibrate-check` | `gcsim "
            "calibrate` reads every one of those logs as published (a fit refused above a line "
            "rate counts as read); exit 1 on a rejected log. CTest: "
            "`validation_nccl_logs_calibrate` |",
            "| `python3 tests/validation/sharded.py --gcsim $G [--agreement --check]` | "
            "sharded data parallelism against published FSDP / ZeRO throughput (a report); "
            "`--agreement --check`: the engines on sharded cases within 3%; `--fit "
            "--check-header sim/config/llm_efficiency_fit.h`: the committed fit is current. "
            "CTest: `validation_sharded`, `validation_sharded_agreement`, "
            "`validation_sharded_fit_current` |",
            "| `python3 tests/validation/peak_memory.py --gcsim $G --check` | memory per GPU "
            "against published peak-memory figures (within 15%), and no configuration that "
            "ran refused. CTest: `validation_peak_memory` |",
            "| `python3 tests/validation/scaling_loss.py --gcsim $G` | per-GPU throughput "
            "lost between two GPU counts of one configuration against published tables, default "
            "and with a sourced --compute-cv (a report). CTest: `validation_scaling_loss` |",
            "| `python3 tests/validation/des_effects.py --gcsim $G` | failures of large jobs, "
            "fail-slow stragglers, collision losses and busbw spread as published, gcsim before issue 41 "
            "and now (a report). CTest: `validation_des_effects` |",
            "| `build/tests/convergence/conv_validate .` | convergence factors (catalog, `gcsim "
            "train`, variance bound) against the held-out third of the published outcomes "
            "(docs/convergence.md). CTest: `convergence_validate` |",
            "| `python3 tests/validation/zeropp.py --gcsim $G` | ZeRO++ against ZeRO-3: predicted "
            "speedup against DeepSpeed's published pairs. CTest: `validation_zeropp` |",
            "| `ctest --test-dir build -L validation` / `-LE validation` | run / skip all of them |",
            "| `cmake --build build --target validation_doc` | this page |",
            "",
        ]
        parts.append(agreement_section(gcsim, repo, "ci" if a.ci else "full", a.agreement_json))
        parts.append(stack_agreement_section(gcsim, repo))
        parts.append(compression_section(gcsim, repo))
        parts.append(tcp_training_section(gcsim, repo))
        parts.append(socket_busbw_section(gcsim, repo))
        parts.append(time_to_accuracy_section(gcsim, repo))
        parts.append(busbw_section(gcsim, repo))
        parts.append(nccl_logs_section(gcsim, repo))
        parts.append(single_gpu_section(gcsim, repo))
        parts.append(sharded_section(gcsim, repo))
        parts.append(peak_memory_section(gcsim, repo))
        parts.append(scaling_loss_section(gcsim, repo))
        parts.append(des_effects_section(gcsim, repo))
        parts.append(zeropp_section(gcsim, repo))
        parts.append(onebit_adam_section(gcsim, repo))
        parts.append(convergence_section(gcsim, repo))
    except (catalog.InputError, ValueError, KeyError) as e:
        usage_error("bad input: %s" % (e,))
    except RuntimeError as e:
        print("make_validation_doc.py: %s" % e, file=sys.stderr)
        return 3
    engine_agreement.write_atomic(output, "\n".join(parts))
    print("make_validation_doc.py: wrote %s" % output, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
