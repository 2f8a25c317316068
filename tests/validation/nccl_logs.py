#!/usr/bin/env python3
"""gcsim's all-reduce bus bandwidth against real nccl-tests logs from public sources.

    nccl_logs.py [--gcsim PATH] [--engine analytic|des] [--markdown [FILE]] [--dir DIR]
                 [--compare OLD_GCSIM]
    nccl_logs.py --calibrate-check [--gcsim PATH] [--markdown [FILE]] [--dir DIR]
    nccl_logs.py --cross-calibrate [--gcsim PATH] [--engine analytic|des] [--markdown [FILE]]
                 [--dir DIR]

Report (default). For every row of tests/validation/nccl_logs/SOURCES.tsv: parse the log's
all_reduce_perf table (in-place busbw per message size; mpirun `[1,0]<stdout>:` and Slurm
` 0: ` prefixes stripped, every other line that is not a table row skipped), run `gcsim
collective` on the row's platform and GPU count for the same sizes, and print per log: size,
measured busbw, predicted busbw, error % (predicted / measured - 1) and the algorithm/protocol
gcsim's tuner picked for that size. Rows whose measured busbw prints as 0.00 (sizes of a few
KiB) have no error. Then the median |error| per log, and pooled over the rows of all logs, of
the logs the source reports as normal, of those it reports as a problem and of the logs of 8
or more nodes, for sizes >= 64 MiB and for 1 MiB <= size < 64 MiB.

Channel settings: a log whose header sets NCCL_MIN_CTAS / NCCL_MIN_NCHANNELS (NCCL_MIN_NRINGS)
or NCCL_MAX_CTAS / NCCL_MAX_NCHANNELS (on the launch line, `-x NCCL_MIN_CTAS=24`, in an
environment listing or in NCCL's "set by environment to" INFO line) is predicted with `gcsim
collective --nccl-min-channels` / `--nccl-max-channels` (the larger minimum, the smaller
maximum); a --compare binary without those options is run without them.

Forced algorithms: a log run with NCCL_ALGO / NCCL_PROTO set is predicted with the same
(`gcsim collective --collective ALGO --protocol PROTO`) from SOURCES.tsv's optional `algo` and
`proto` columns ("-": the tuner picks, as NCCL did for the log).

Normal or problem: from the SOURCES.tsv `note` column. A log is a problem when the note says
the source thread reports a degradation, a bug, a problem or a regression, or that the
algorithm was forced (NCCL_ALGO) on a possibly slow system; every other log (a sample output
presented as a working run, a result posted without comment, the NVLS single-node log the
maintainer calls expected) is normal. The reason is printed with each log.

--compare OLD_GCSIM adds, per size, an older binary's prediction and its error (and its
algorithm/protocol where it prints them: binaries before the tuner's protocol pick do not),
and its medians to the summary: before/after tables. An old binary that fails on a log gives
"n/a" cells and a warning; it never changes the exit status.

--calibrate-check runs `gcsim calibrate --log LOG --gpus N --nodes J --platform PLATFORM
--output TMP` on every log as published (N, J and PLATFORM from SOURCES.tsv; --nodes because
some logs have no or elided "# Rank" lines) and reports for each: fitted (exit 0), refused
(exit 2 with "above the line rate" on stderr: calibrate read the log, but the fit puts a link
above the base platform's line rate, which it refuses to write without --force), or rejected
(any other failure: the log as published cannot be read). For every platform written (a
refused fit repeated with --force, and marked so) it then runs the log's own sizes on it as the
report does (`gcsim collective`, analytic engine, the log's forced algorithm/protocol) and
prints the median |busbw error| (from the times) over all rows and per size band (< 1 MiB,
1-64 MiB, >= 64 MiB): issue 42's "a platform written by calibrate reproduces its own log within
5% median at every size", read as every one of those medians at most 5%. Exit 1 if any log is
rejected or a written platform misses that bound.

--cross-calibrate asks whether a calibration transfers between systems of one kind. For each
log L it picks another log L' of the same system_kind (a log its source reports as normal
first, then one with as many nodes as L, i.e. one that fits the same link, then SOURCES.tsv
order; a kind with no other log gives "no other log of this kind"), runs `gcsim calibrate
--log L' --gpus N' --nodes J' --platform L's-PLATFORM --output TMP` (no --force; the fitted
figures of L' written into L's platform, in a temporary folder) and `gcsim collective` for L
on TMP. Per log: measured, uncalibrated and calibrated busbw with both errors and L' in the
heading; a refused fit (above the line rate) or a failed calibrate gives its reason and no
calibrated column. Summary: median |error| per log, uncalibrated against calibrated, for
sizes >= 64 MiB and 1-64 MiB, pooled over the calibrated logs (all, normal, problem; the same
rows on both sides) and, uncalibrated only, over all logs. A gcsim failure on one log is
reported there and on stderr, the other logs still run, and the exit status is then 1.

A report, not a gate: large errors never change the exit status. Exit 2 on a malformed log,
a missing file or a bad SOURCES.tsv row; exit 1 when a gcsim run fails. Standard library only.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcsim_cli  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_DIR = os.path.join(HERE, "nccl_logs")
MIB = 1 << 20
REQUIRED = ("file", "platform", "gpus", "nodes", "system_kind", "note")
CALIBRATE_TIMEOUT_S = 900  # one fit: minutes of CPU on a loaded 2-core machine

# Prefixes that launchers put before every line: Open MPI --tag-output ("[1,0]<stdout>:"),
# srun -l (" 0: "), pdsh/bracketed ranks ("[0] ").
PREFIX = re.compile(r"^\s*(?:\[\d+,\d+\]<std(?:out|err)>:|\d+:(?=\s|$)|\[\d+\](?=\s))")
TYPES = {"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
         "bfloat16", "fp8_e4m3", "fp8_e5m2", "f8e4m3", "f8e5m2"}
REDOPS = {"sum", "prod", "min", "max", "avg", "none", "mulsum", "premulsum"}

# What in a SOURCES.tsv note makes the log one that its source reports as a problem, and how
# the report words it. Everything else is "normal".
PROBLEM_MARKERS = (
    (re.compile(r"degradation", re.I),
     "the source thread asks about a performance degradation"),
    (re.compile(r"NCCL_ALGO", re.I), "the algorithm was forced with NCCL_ALGO"),
    (re.compile(r"slow system", re.I), "the poster asks whether the figure is right: possibly a slow system"),
    (re.compile(r"\bbug\b", re.I), "a bug report"),
    (re.compile(r"\bproblems?\b", re.I), "reported as a problem"),
    (re.compile(r"\bregression\b", re.I), "reported as a regression"),
)


class InputError(Exception):
    """A file is missing or malformed (exit 2)."""


def strip_prefix(line):
    prev = None
    while prev != line:
        prev = line
        line = PREFIX.sub("", line, count=1)
    return line


def number(tok):
    try:
        return float(tok)
    except ValueError:
        return None


# NCCL's channel-count settings as a log states them: `-x NCCL_MIN_CTAS=24` on the launch
# line, `NCCL_MIN_CTAS=24` in an environment listing, or NCCL's own INFO line "NCCL_MIN_CTAS
# set by environment to 24". NCCL_MIN_NRINGS / NCCL_MAX_NRINGS are the old names of the
# _NCHANNELS ones (src/init.cc, NCCL_PARAM MinNrings / MaxNrings).
CHANNEL_ENV = re.compile(r"\bNCCL_(MIN|MAX)_(CTAS|NCHANNELS|NRINGS)\s*(?:=|set by environment to)\s*(\d+)")


def channel_env(path):
    """(min_channels, max_channels) that the log's header sets, None each where it does not:
    NCCL takes the larger of NCCL_MIN_CTAS and NCCL_MIN_NCHANNELS and the smaller of the two
    maxima (src/graph/connect.cc, "Honor NCCL_MIN_NRINGS/NCCL_MAX_NRINGS")."""
    lo, hi = None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            for kind, _, value in CHANNEL_ENV.findall(strip_prefix(raw)):
                v = int(value)
                if kind == "MIN":
                    lo = v if lo is None else max(lo, v)
                else:
                    hi = v if hi is None else min(hi, v)
    return lo, hi


_CHANNEL_OPTIONS = {}


def takes_channel_options(gcsim, command):
    """Whether this gcsim binary's `command` (collective, calibrate) has --nccl-min-channels
    (older ones do not: with --compare they are run without the setting, as they would model
    the log)."""
    if (gcsim, command) not in _CHANNEL_OPTIONS:
        try:
            out = subprocess.run([gcsim, command, "--help"], cwd=REPO, capture_output=True,
                                 text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        _CHANNEL_OPTIONS[(gcsim, command)] = "--nccl-min-channels" in out
    return _CHANNEL_OPTIONS[(gcsim, command)]


def channel_options(gcsim, row, command):
    """`command`'s options for NCCL_MIN_CTAS / NCCL_MAX_CTAS (and _NCHANNELS) as the log's
    header sets them ([] when it sets none or the binary lacks them)."""
    lo, hi = row.get("channel_env", (None, None))
    if (lo is None and hi is None) or not takes_channel_options(gcsim, command):
        return []
    argv = []
    if lo is not None:
        argv += ["--nccl-min-channels", str(min(max(lo, 1), 64))]
    if hi is not None:
        argv += ["--nccl-max-channels", str(min(max(hi, 1), 64))]
    return argv


def parse_log(path):
    """[(size_bytes, inplace_busbw_GBps, outofplace_busbw_GBps)] of the log's all-reduce table.

    A table row is `size count type redop [root] time algbw busbw #wrong time algbw busbw
    #wrong` (13 fields with root, 12 without, as nccl-tests printed before 2.11). Size-0 rows
    are skipped; a size printed twice keeps its last row."""
    if not os.path.isfile(path):
        raise InputError("%s: no such file" % path)
    rows = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, raw in enumerate(f, 1):
            line = strip_prefix(raw.rstrip("\n"))
            toks = line.split()
            if len(toks) < 4 or toks[0].startswith("#"):
                continue
            if not (toks[0].isdigit() and toks[1].isdigit() and toks[2] in TYPES
                    and toks[3] in REDOPS):
                continue
            where = "%s:%d" % (path, lineno)
            if len(toks) not in (12, 13):
                raise InputError("%s: a table row with %d fields (expected 12 or 13): %r"
                                 % (where, len(toks), line.strip()))
            if toks[3] == "none" or toks[2] != "float":
                raise InputError("%s: not a float sum all-reduce row (type %s, redop %s)"
                                 % (where, toks[2], toks[3]))
            tail = toks[-8:]  # time algbw busbw wrong | time algbw busbw wrong
            vals = [number(tail[i]) for i in (0, 1, 2, 4, 5, 6)]
            if any(v is None or v < 0 for v in vals):
                raise InputError("%s: time/algbw/busbw not numbers: %r" % (where, line.strip()))
            size = int(toks[0])
            if size == 0:
                continue
            rows[size] = (vals[5], vals[2])
    if not rows:
        raise InputError("%s: no all_reduce_perf table rows found" % path)
    return sorted((s, ip, oop) for s, (ip, oop) in rows.items())


def read_sources(directory):
    path = os.path.join(directory, "SOURCES.tsv")
    if not os.path.isfile(path):
        raise InputError("%s: no such file" % path)
    out, header = [], None
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if header is None:
                header = fields
                missing = [k for k in REQUIRED if k not in header]
                if missing:
                    raise InputError("%s: header lacks %s" % (path, ", ".join(missing)))
                continue
            if len(fields) != len(header):
                raise InputError("%s:%d: %d fields, the header has %d"
                                 % (path, lineno, len(fields), len(header)))
            row = dict(zip(header, fields))
            if not row["gpus"].isdigit() or int(row["gpus"]) < 2:
                raise InputError("%s:%d: gpus %r is not an integer >= 2"
                                 % (path, lineno, row["gpus"]))
            if (not row["nodes"].isdigit() or int(row["nodes"]) < 1
                    or int(row["gpus"]) % int(row["nodes"])):
                raise InputError("%s:%d: nodes %r is not an integer >= 1 that divides gpus %s"
                                 % (path, lineno, row["nodes"], row["gpus"]))
            if not row["note"].strip():
                raise InputError("%s:%d: empty note (it says whether the source reports the "
                                 "log as normal or as a problem)" % (path, lineno))
            for key in ("file", "platform"):
                p = os.path.join(directory, row[key])
                if not os.path.isfile(p):
                    raise InputError("%s:%d: %s %s: no such file" % (path, lineno, key, p))
                row[key + "_path"] = p
            row["status"], row["status_why"] = classify(row["note"])
            row["channel_env"] = channel_env(row["file_path"])
            out.append(row)
    if not out:
        raise InputError("%s: no rows" % path)
    return out


def classify(note):
    """("problem", why) when the note says the source reports the log as a problem, else
    ("normal", "")."""
    why = [text for pattern, text in PROBLEM_MARKERS if pattern.search(note)]
    return ("problem", "; ".join(why)) if why else ("normal", "")


# --- predictions -----------------------------------------------------------------------------

def predict(gcsim, row, sizes, engine):
    """{size: (busbw GB/s, algorithm or None, protocol or None)} from `gcsim collective`.
    Rows without algorithm/protocol fields (binaries before the tuner's protocol pick) give
    None there."""
    argv = [gcsim, "collective", "--platform", row["platform_path"], "--gpus", row["gpus"],
            "--sizes", ",".join("%dB" % s for s in sizes), "--engine", engine]
    # A log run with NCCL_ALGO / NCCL_PROTO forced is predicted with the same algorithm and
    # protocol (SOURCES.tsv's optional algo / proto columns; "-" or absent: the tuner's).
    for key, flag in (("algo", "--collective"), ("proto", "--protocol")):
        if row.get(key, "-").strip() not in ("", "-"):
            argv += [flag, row[key].strip()]
    argv += channel_options(gcsim, row, "collective")
    doc = gcsim_cli.run_json(argv, cwd=REPO, timeout_s=600)
    rows = doc.get("rows") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise gcsim_cli.GcsimError(argv, 0, "", "JSON has no \"rows\" list")
    got = {}
    for r in rows:
        if not isinstance(r, dict) or "size_bytes" not in r or "busbw_Bps" not in r:
            raise gcsim_cli.GcsimError(argv, 0, "", "a row without size_bytes/busbw_Bps: %r"
                                       % (r,))
        if r.get("engine", engine) != engine:
            continue
        try:
            got[int(r["size_bytes"])] = (float(r["busbw_Bps"]) / 1e9, r.get("algorithm"),
                                         r.get("protocol"))
        except (TypeError, ValueError):
            raise gcsim_cli.GcsimError(argv, 0, "", "size_bytes/busbw_Bps not numbers: %r"
                                       % (r,))
    missing = [s for s in sizes if s not in got]
    if missing:
        raise gcsim_cli.GcsimError(argv, 0, "", "no row for sizes %s" % missing)
    return got


def error_pct(pred, meas):
    return (pred / meas - 1) * 100 if meas > 0 else None


def collect(gcsim, directory=DEFAULT_DIR, engine="analytic", compare=None, warn=None):
    """Run the report: a list of per-log dicts {row, points, old_failed}; each point is a dict
    size, measured, predicted, error, algorithm, protocol and, with compare, old_predicted,
    old_error, old_algorithm, old_protocol (None when the old binary failed on the log).
    Raises InputError (malformed input) or gcsim_cli.GcsimError (gcsim failed). warn(text) is
    called for an old binary's failure."""
    if not os.path.isfile(gcsim):
        raise InputError("%s: no such file (build gcsim or pass --gcsim)" % gcsim)
    if compare is not None and not os.path.isfile(compare):
        raise InputError("%s: no such file (--compare wants an older gcsim binary)" % compare)
    sources = read_sources(directory)
    parsed = [(row, parse_log(row["file_path"])) for row in sources]
    results = []
    for row, meas in parsed:
        sizes = [s for s, _, _ in meas]
        try:
            pred = predict(gcsim, row, sizes, engine)
        except gcsim_cli.GcsimError as e:
            e.log = row["file"]
            raise
        old, old_failed = None, None
        if compare is not None:
            try:
                old = predict(compare, row, sizes, engine)
            except gcsim_cli.GcsimError as e:
                first = (e.stderr or "").strip().splitlines()
                old_failed = "%s%s" % (e.why, ": " + first[0][:200] if first else "")
                if warn:
                    warn("%s: the old binary (--compare) failed: %s" % (row["file"], old_failed))
        points = []
        for s, ip, _ in meas:
            p, algo, proto = pred[s]
            pt = {"size": s, "measured": ip, "predicted": p, "error": error_pct(p, ip),
                  "algorithm": algo, "protocol": proto}
            if compare is not None:
                op, oalgo, oproto = old[s] if old else (None, None, None)
                pt.update(old_predicted=op, old_error=None if op is None else error_pct(op, ip),
                          old_algorithm=oalgo, old_protocol=oproto)
            points.append(pt)
        results.append({"row": row, "points": points, "old_failed": old_failed})
    return results


# --- tables ----------------------------------------------------------------------------------

def fmt_size(s):
    for unit, div in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1 << 10)):
        if s >= div and s % div == 0:
            return "%d %s" % (s // div, unit)
    return "%d B" % s


def median_abs(errors):
    errors = [abs(e) for e in errors if e is not None]
    return (statistics.median(errors), len(errors)) if errors else (None, 0)


def bins(points, key="error"):
    """(large, mid): errors for size >= 64 MiB and 1 MiB <= size < 64 MiB."""
    large = [p[key] for p in points if p["size"] >= 64 * MIB and p[key] is not None]
    mid = [p[key] for p in points if MIB <= p["size"] < 64 * MIB and p[key] is not None]
    return large, mid


def fmt_med(m):
    med, n = m
    return "-" if med is None else "%.1f%% (n=%d)" % (med, n)


def fmt_pick(algo, proto):
    if algo is None and proto is None:
        return "-"
    return "%s/%s" % (algo or "?", proto or "?")


def fmt_err(e):
    return "-" if e is None else "%+.1f" % e


def has_old_picks(result):
    return any(p.get("old_algorithm") or p.get("old_protocol") for p in result["points"])


def log_table(result, compare):
    """(header, rows) of one log's per-size table."""
    header = ["size", "measured busbw GB/s", "predicted busbw GB/s", "error %",
              "algorithm/protocol"]
    old_picks = compare and has_old_picks(result)
    if compare:
        header += ["old predicted GB/s", "old error %"]
        if old_picks:
            header.append("old algorithm/protocol")
    rows = []
    for p in result["points"]:
        r = [fmt_size(p["size"]), "%.2f" % p["measured"], "%.2f" % p["predicted"],
             fmt_err(p["error"]), fmt_pick(p["algorithm"], p["protocol"])]
        if compare:
            r += ["n/a" if p["old_predicted"] is None else "%.2f" % p["old_predicted"],
                  "n/a" if p["old_predicted"] is None else fmt_err(p["old_error"])]
            if old_picks:
                r.append(fmt_pick(p["old_algorithm"], p["old_protocol"]))
        rows.append(r)
    return header, rows


# The pooled groups of the summary: issue 42 asks for the medians over all logs and, apart,
# over the logs of 8 or more nodes (hosts as SOURCES.tsv counts them).
GROUPS = (("all logs", lambda r: True),
          ("normal logs", lambda r: r["row"]["status"] == "normal"),
          ("problem logs", lambda r: r["row"]["status"] == "problem"),
          ("logs of 8+ nodes", lambda r: int(r["row"]["nodes"]) >= 8))


def group_medians(results, key):
    """{name: (large median, mid median)} pooled over the rows of each of GROUPS' logs."""
    out = {}
    for name, keep in GROUPS:
        large, mid = [], []
        for res in results:
            if keep(res):
                l, m = bins(res["points"], key)
                large += l
                mid += m
        out[name] = (median_abs(large), median_abs(mid))
    return out


def summary_table(results, compare):
    """(header, rows): median |error| per log, then pooled over each of GROUPS' logs."""
    header = ["log", "kind", "GPUs", "source reports", ">= 64 MiB", "1-64 MiB"]
    if compare:
        header += ["old >= 64 MiB", "old 1-64 MiB"]
    rows = []
    for res in results:
        row = res["row"]
        r = [row["file"], row["system_kind"], row["gpus"], row["status"]]
        r += [fmt_med(median_abs(b)) for b in bins(res["points"])]
        if compare:
            r += (["n/a", "n/a"] if res["old_failed"] else
                  [fmt_med(median_abs(b)) for b in bins(res["points"], "old_error")])
        rows.append(r)
    groups = group_medians(results, "error")
    old_groups = group_medians(results, "old_error") if compare else None
    for name, keep in GROUPS:
        n_logs = sum(1 for res in results if keep(res))
        r = ["%s (%d)" % (name, n_logs), "", "", ""] + [fmt_med(m) for m in groups[name]]
        if compare:
            r += [fmt_med(m) for m in old_groups[name]]
        rows.append(r)
    return header, rows


NUMERIC = re.compile(r"^(|n/a|-|[-+]?\d[\d.]*%?( \(n=\d+\))?)$")


def numeric_columns(header, rows):
    """Columns right-aligned: every cell a number, "-", "n/a" or empty (never the first)."""
    return [i > 0 and any(r[i] for r in rows) and all(NUMERIC.match(r[i]) for r in rows)
            for i in range(len(header))]


def md_table(header, rows):
    num = numeric_columns(header, rows)
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---:" if n else "---" for n in num) + "|"]
    for r in rows:
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    return out


def table(out, md, title, header, rows):
    if md:
        out.append("### %s\n" % title)
        out += md_table(header, rows)
        out.append("")
    else:
        num = numeric_columns(header, rows)
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
                  for i, h in enumerate(header)]

        def line(cells):
            return "  ".join(c.rjust(w) if n else c.ljust(w)
                             for c, w, n in zip(cells, widths, num)).rstrip()
        out.append(title)
        out.append(line(header))
        out += [line(r) for r in rows]
        out.append("")


def log_title(row, engine):
    return "%s (%s, %s GPUs, %s, %s engine)" % (
        row["file"], row["system_kind"], row["gpus"], os.path.basename(row["platform"]), engine)


def beyond_2x(results):
    """One sentence: the logs whose median signed busbw error at >= 64 MiB puts the
    prediction more than 2x off the measurement (above +100% or below -50%), by status
    (issue 42's "no log off by more than 2x at >= 64 MiB")."""
    off = {}
    for res in results:
        large, _mid = bins(res["points"])
        if not large:
            continue
        med = statistics.median(large)
        if med > 100.0 or med < -50.0:
            off.setdefault(res["row"]["status"], []).append("%s %+.0f%%" % (res["row"]["file"],
                                                                           med))
    parts = []
    for status in sorted({res["row"]["status"] for res in results}):
        n = sum(1 for res in results if res["row"]["status"] == status and bins(res["points"])[0])
        names = off.get(status, [])
        parts.append("%d of the %d %s logs%s" % (len(names), n, status,
                                                 " (%s)" % "; ".join(names) if names else ""))
    return ("More than 2x off at >= 64 MiB (the log's median signed error above +100%% or "
            "below -50%%): %s." % ", ".join(parts))


def summary_title(engine, compare):
    return "Median |error| of predicted in-place busbw (%s engine%s)" % (
        engine, "; old: %s" % compare if compare else "")


def render(results, md, engine, compare):
    out = []
    for res in results:
        header, rows = log_table(res, compare)
        table(out, md, log_title(res["row"], engine), header, rows)
    table(out, md, summary_title(engine, compare), *summary_table(results, compare))
    problems = [res["row"] for res in results if res["row"]["status"] == "problem"]
    lines = ["Reported by their source as a problem (from SOURCES.tsv's note): %s."
             % ("; ".join("%s (%s)" % (r["file"], r["status_why"]) for r in problems)
                if problems else "none"),
             "Medians are pooled over the rows of the logs in each group.",
             beyond_2x(results)]
    failed = [res["row"]["file"] for res in results if res["old_failed"]]
    if compare and failed:
        lines.append("The old binary failed on %d log(s) (%s): its columns are n/a there and its "
                     "medians cover the other logs only." % (len(failed), ", ".join(failed)))
    out += [l + "\n" if md else l for l in lines]
    return "\n".join(out) + "\n"


# --- calibrate check -------------------------------------------------------------------------

def run_calibrate(gcsim, log_row, base_path, output, force=False):
    """`gcsim calibrate` on log_row's log (its --gpus and --nodes) with base_path as BASE,
    writing output. A dict: result ("fitted", "refused": above the line rate, or "rejected":
    any other failure), detail (one line), and for a fit: fits and held_out (the "fit K:" and
    "held-out K:" texts), changes (the "field: old -> new" lines), warnings (texts)."""
    # --wide: notes whole, one line each (by default a note longer than 100 columns is
    # wrapped, issue 46)
    argv = [gcsim, "calibrate", "--log", log_row["file_path"]]
    # a log run with NCCL_ALGO / NCCL_PROTO forced is fitted to that algorithm and protocol
    # (calibrate's --collective / --protocol after its --log), as it is predicted
    for key, flag in (("algo", "--collective"), ("proto", "--protocol")):
        if log_row.get(key, "-").strip() not in ("", "-"):
            argv += [flag, log_row[key].strip()]
    argv += ["--gpus", log_row["gpus"], "--nodes", log_row["nodes"], "--platform", base_path,
             "--output", output, "--wide"] + (["--force"] if force else [])
    # fitted with the channel settings its self-check predicts with (predict())
    argv += channel_options(gcsim, log_row, "calibrate")
    out = {"argv": argv, "fits": [], "held_out": [], "changes": [], "warnings": []}
    try:
        p = subprocess.run(argv, cwd=REPO, capture_output=True, text=True,
                           timeout=CALIBRATE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return dict(out, result="rejected", detail="timed out after %d s: %s" % (
            CALIBRATE_TIMEOUT_S, gcsim_cli.command_line(argv)))
    except OSError as e:
        return dict(out, result="rejected", detail="cannot run %s: %s" % (gcsim, e))
    errs = [l for l in p.stderr.splitlines() if l.strip()]
    if p.returncode == 0:
        # Paths as SOURCES.tsv writes them (relative to the logs' folder), not absolute.
        lines = [l.replace(os.path.dirname(log_row["file_path"]) + os.sep, "")
                 for l in p.stdout.splitlines()]
        out["fits"] = [re.sub(r"^fit \d+: ", "", l) for l in lines if re.match(r"fit \d+: ", l)]
        out["held_out"] = [re.sub(r"^held-out \d+: ", "", l) for l in lines
                           if re.match(r"held-out \d+: ", l)]
        out["changes"] = [l.strip() for l in lines if re.match(r"[\w.\[\]]+: \S+ -> \S+$", l)
                          and not l.startswith("platform:")]
        out["warnings"] = [re.sub(r"^warning \d+: (%s: )?" % re.escape(log_row["file"]), "", l)
                           for l in lines if re.match(r"warning \d+: ", l)]
        nwarn = sum(1 for l in errs if "warning:" in l)
        detail = "; ".join(out["fits"]) or "fitted"
        if not os.path.isfile(output):
            return dict(out, result="rejected",
                        detail="exit 0 but no platform written to %s" % output)
        return dict(out, result="fitted",
                    detail=detail + ("; %d warning(s)" % nwarn if nwarn else ""))
    why = next((l for l in errs if "warning:" not in l and "note:" not in l),
               errs[-1] if errs else "")
    why = re.sub(r"^gcsim calibrate: (\S*%s: )?" % re.escape(log_row["file"]), "", why)
    if p.returncode == 2 and "above the line rate" in p.stderr:
        m = re.search(r"([\w.]+ = [\d.]+ \S+ fitted, above the line rate [\d.]+ \S+)", why)
        return dict(out, result="refused", detail=(m.group(1) if m else why[:300]))
    status = ("killed by signal %d" % -p.returncode if p.returncode < 0
              else "exit %d" % p.returncode)
    return dict(out, result="rejected", detail="%s: %s" % (status, why[:300] or "(no message)"))


# Logs predicted but not calibrated here: more GPUs than this. Every log is calibrated
# since issue 47 (one tree template per network shape, its numbers set per platform: a fit
# of CoreWeave's 20 GB200 racks, 1,440 GPUs over 72 rails per NVLink domain, went from about
# 11 CPU-minutes to 18 CPU-s, Oracle's 2 racks from more than 10 minutes to about 50 s).
CALIBRATE_MAX_GPUS = 2048


def calibrate_skipped(row):
    return int(row["gpus"]) > CALIBRATE_MAX_GPUS


def calibrate_one(gcsim, row, tmpdir):
    """(result, detail, own): result is "fitted", "refused" (above the line rate) or
    "rejected"; own is the written platform's busbw errors on its own log (self_check),
    None when nothing was written. A refused fit is repeated with --force (the platform
    calibrate would write were the line rate not in the way) and self says forced."""
    output = os.path.join(tmpdir, re.sub(r"[^A-Za-z0-9._-]", "_", row["file"]) + ".json")
    r = run_calibrate(gcsim, row, row["platform_path"], output)
    forced = False
    if r["result"] == "refused":
        r2 = run_calibrate(gcsim, row, row["platform_path"], output, force=True)
        forced = r2["result"] == "fitted"
    if r["result"] == "rejected" or (r["result"] == "refused" and not forced):
        return r["result"], r["detail"], None
    own = self_check(gcsim, row, output)
    own["forced"] = forced
    return r["result"], r["detail"], own


# Size bands of the self-check (issue 42: "within 5% median at every size"): read as the
# median |busbw error| over the log's rows at most SELF_BOUND_PCT, and no band's median above it.
SELF_BANDS = (("< 1 MiB", 0, MIB), ("1-64 MiB", MIB, 64 * MIB), (">= 64 MiB", 64 * MIB, None))
SELF_BOUND_PCT = 5.0


def inplace_times_us(path):
    """{size_bytes: in-place time in us} of the rows parse_log reads (after it has checked
    them)."""
    times = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            toks = strip_prefix(raw.rstrip("\n")).split()
            if (len(toks) in (12, 13) and toks[0].isdigit() and toks[1].isdigit()
                    and toks[2] in TYPES and toks[3] in REDOPS and int(toks[0]) > 0):
                times[int(toks[0])] = float(toks[-4])
    return times


def self_check(gcsim, row, platform_path):
    """The platform calibrate wrote, run by `gcsim collective` as the log is predicted
    (predict: analytic engine, the log's GPU count and forced algorithm/protocol), on the
    log's own sizes: {"all": (median |error| %, n), band label: (median, n), "worst": the
    largest of them, "max": max |error| %}. Rows whose measured busbw prints as 0 have no
    error."""
    sizes = [s for s, _, _ in parse_log(row["file_path"])]
    times = inplace_times_us(row["file_path"])
    pred = predict(gcsim, dict(row, platform_path=platform_path), sizes, "analytic")
    # busbw error from the times (busbw = size x factor / time on both sides): a small row's
    # printed busbw (0.01 GB/s) carries its rounding, its time (4 digits) does not
    factor = 2.0 * (int(row["gpus"]) - 1) / int(row["gpus"])
    points = [{"size": s, "error": error_pct(pred[s][0], s * factor / times[s] / 1e3)
               if times[s] > 0 else None} for s in sizes]
    out = {"all": median_abs([p["error"] for p in points])}
    for label, lo, hi in SELF_BANDS:
        out[label] = median_abs([p["error"] for p in points
                                 if p["size"] >= lo and (hi is None or p["size"] < hi)])
    meds = [m for m, _ in [out["all"]] + [out[b[0]] for b in SELF_BANDS] if m is not None]
    out["worst"] = max(meds) if meds else None
    errs = [abs(p["error"]) for p in points if p["error"] is not None]
    out["max"] = max(errs) if errs else None
    return out


def calibrate_check(gcsim, directory, md, bound_pct=SELF_BOUND_PCT):
    """(text, number of rejected logs, number of logs whose written platform misses its own
    log: a median over the rows or over a size band above bound_pct)."""
    if not os.path.isfile(gcsim):
        raise InputError("%s: no such file (build gcsim or pass --gcsim)" % gcsim)
    sources = read_sources(directory)
    rows, counts = [], {"fitted": 0, "refused": 0, "rejected": 0, "skipped": 0}
    missed = []
    with tempfile.TemporaryDirectory(prefix="nccl_logs_calibrate.") as tmp:
        for row in sources:
            own = None
            if calibrate_skipped(row):
                result, detail = "skipped", ("not calibrated by the tests: more than %d GPUs"
                                             % CALIBRATE_MAX_GPUS)
            else:
                result, detail, own = calibrate_one(gcsim, row, tmp)
            counts[result] += 1
            label = {"fitted": "fitted",
                     "refused": "read, fit refused: above the line rate",
                     "rejected": "REJECTED", "skipped": "skipped"}[result]
            cells = ["-"] * (len(SELF_BANDS) + 2)
            if own is not None:
                cells = ([fmt_med(own["all"])] + [fmt_med(own[b[0]]) for b in SELF_BANDS]
                         + ["-" if own["max"] is None else "%.1f%%" % own["max"]])
                if own["forced"]:
                    cells[0] += " (--force)"
                if own["worst"] is not None and own["worst"] > bound_pct:
                    missed.append((row["file"], own["worst"]))
            rows.append([row["file"], row["gpus"], row["nodes"],
                         os.path.basename(row["platform"]), label] + cells + [detail])
    out = []
    table(out, md, "gcsim calibrate on every log as published, and the written platform on "
          "its own log (`gcsim collective`, median |busbw error| over the rows and per size "
          "band)",
          ["log", "GPUs", "nodes", "platform", "result", "own: all rows"]
          + ["own: %s" % b[0] for b in SELF_BANDS] + ["own: max", "detail"], rows)
    out.append("%d logs: %d fitted, %d read but refused (a fitted link above its line rate; "
               "--force would write it, and the self columns are that platform's), %d "
               "rejected, %d not calibrated (more than %d GPUs)." % (
                   len(sources), counts["fitted"], counts["refused"], counts["rejected"],
                   counts["skipped"], CALIBRATE_MAX_GPUS))
    out.append("Self-check bound %.1f%% (the median over all rows and over each size band): "
               "%s." % (bound_pct, "met by every log written" if not missed else
                        "missed by " + ", ".join("%s (%.2f%%)" % m for m in missed)))
    return "\n".join(out) + "\n", counts["rejected"], len(missed)


# --- cross-calibration -----------------------------------------------------------------------

CROSS_NOTE = (
    "A calibrated platform is the log's own platform with the link figures that `gcsim "
    "calibrate` fits to the other log written into it (intra-node figures from a one-node log; "
    "nic.bandwidth = the fitted B / the platform's nic.per_node and nic.latency from a "
    "multi-node log; every other field is the platform's). It carries the other log's system "
    "(different machines of the same kind: another GPU, NIC count, fabric or software stack) "
    "into this log's: the transfer in question is whether a calibration on one system of a "
    "kind predicts another system of that kind better than the uncalibrated platform. The "
    "other log is a different log of the same system kind, preferring one its source reports "
    "as normal, then one with the same number of nodes (it fits the same link), then the "
    "first in SOURCES.tsv. No --force: a fit above the platform's line rate is refused and "
    "the log has no calibrated column.")


def pick_calibration_log(row, sources):
    """The row of the log to calibrate on for row: another log of the same system kind,
    preferring normal logs, then logs with the same number of nodes (one node fits intra-node
    figures, several the NIC), then SOURCES.tsv order. None when the kind has no other log."""
    others = [(i, r) for i, r in enumerate(sources)
              if r["system_kind"] == row["system_kind"] and r["file"] != row["file"]
              and not calibrate_skipped(r)]
    if not others:
        return None
    return min(others, key=lambda ir: (ir[1]["status"] != "normal",
                                        (ir[1]["nodes"] == "1") != (row["nodes"] == "1"),
                                        ir[0]))[1]


def short_failure(e):
    first = (e.stderr or "").strip().splitlines()
    return "%s%s" % (e.why, ": " + first[0][:200] if first else "")


def cross_calibrate(gcsim, directory=DEFAULT_DIR, engine="analytic"):
    """Per log L, a dict: row, other (the row of L', or None), calibration (run_calibrate's
    dict, or None), failed (a gcsim collective failure, text, or None), points (size,
    measured, predicted, error, algorithm, protocol, cal_predicted, cal_error, cal_algorithm,
    cal_protocol; the cal_ fields None without a calibrated platform). Raises InputError on
    malformed input; gcsim failures are recorded per log, never raised."""
    if not os.path.isfile(gcsim):
        raise InputError("%s: no such file (build gcsim or pass --gcsim)" % gcsim)
    sources = read_sources(directory)
    parsed = [(row, parse_log(row["file_path"])) for row in sources]
    results = []
    with tempfile.TemporaryDirectory(prefix="nccl_logs_cross.") as tmp:
        for n, (row, meas) in enumerate(parsed):
            sizes = [s for s, _, _ in meas]
            res = {"row": row, "other": pick_calibration_log(row, sources),
                   "calibration": None, "failed": None, "cal_failed": None, "points": []}
            pred = cal = None
            try:
                pred = predict(gcsim, row, sizes, engine)
            except gcsim_cli.GcsimError as e:
                res["failed"] = "gcsim collective (uncalibrated): %s" % short_failure(e)
            if res["other"] is not None:
                output = os.path.join(tmp, "%02d-%s.json" % (
                    n, re.sub(r"[^A-Za-z0-9._-]", "_", row["file"])))
                res["calibration"] = run_calibrate(gcsim, res["other"], row["platform_path"],
                                                   output)
                if res["calibration"]["result"] == "fitted":
                    try:
                        cal = predict(gcsim, dict(row, platform_path=output), sizes, engine)
                    except gcsim_cli.GcsimError as e:
                        res["cal_failed"] = ("gcsim collective (calibrated): %s"
                                             % short_failure(e))
            for s, ip, _ in meas:
                p, algo, proto = pred[s] if pred else (None, None, None)
                cp, calgo, cproto = cal[s] if cal else (None, None, None)
                res["points"].append({
                    "size": s, "measured": ip, "predicted": p,
                    "error": None if p is None else error_pct(p, ip),
                    "algorithm": algo, "protocol": proto, "cal_predicted": cp,
                    "cal_error": None if cp is None else error_pct(cp, ip),
                    "cal_algorithm": calgo, "cal_protocol": cproto})
            results.append(res)
    return results


def cross_status(res):
    """One short word for the summary: calibrated, refused, no other log, failed."""
    cal = res["calibration"]
    if res["other"] is None:
        return "no other log of this kind"
    if cal["result"] == "refused":
        return "refused: above the line rate"
    if cal["result"] == "rejected":
        return "gcsim calibrate failed"
    if res["cal_failed"]:
        return "gcsim collective failed"
    return "calibrated" + (" (the uncalibrated run failed)" if res["failed"] else "")


def has_calibrated(res):
    return any(p["cal_predicted"] is not None for p in res["points"])


def has_both(res):
    return any(p["cal_predicted"] is not None and p["predicted"] is not None
               for p in res["points"])


def cross_title(res, engine):
    row, other = res["row"], res["other"]
    on = ("calibrated on %s (%s, %s GPUs on %s node%s, %s)" % (
        other["file"], other["status"], other["gpus"], other["nodes"],
        "" if other["nodes"] == "1" else "s", cross_status(res))
          if other is not None else "no other log of this kind")
    return "%s (%s, %s GPUs, %s, %s engine): %s" % (
        row["file"], row["system_kind"], row["gpus"], os.path.basename(row["platform"]),
        engine, on)


def cross_detail(res):
    """Lines under a log's title: the calibrate command and what it did, failures."""
    row, other, cal = res["row"], res["other"], res["calibration"]
    lines = []
    if other is None:
        lines.append("No other log of this kind (%s) in SOURCES.tsv: no calibrated prediction."
                     % row["system_kind"])
    else:
        cmd = "gcsim calibrate --log %s --gpus %s --nodes %s --platform %s" % (
            other["file"], other["gpus"], other["nodes"], row["platform"])
        if cal["result"] == "fitted":
            parts = ["fit: %s" % "; ".join(cal["fits"])]
            if cal["held_out"]:
                parts.append("held-out: %s" % "; ".join(cal["held_out"]))
            parts.append("written into %s: %s" % (
                os.path.basename(row["platform"]), ", ".join(cal["changes"]) or "no field"))
            if cal["warnings"]:
                parts.append("%d warning(s): %s" % (len(cal["warnings"]),
                                                    " | ".join(cal["warnings"])))
            lines.append("Calibration: `%s`: %s." % (cmd, "; ".join(parts)))
        elif cal["result"] == "refused":
            lines.append("Calibration refused: `%s`: %s (no --force), so no calibrated column."
                         % (cmd, cal["detail"]))
        else:
            lines.append("Calibration failed: `%s`: %s; no calibrated column."
                         % (cmd, cal["detail"]))
    for key in ("failed", "cal_failed"):
        if res[key]:
            lines.append("Failed: %s." % res[key])
    return lines


def cross_log_table(res):
    """(header, rows) of one log: measured, uncalibrated and, where there is one, calibrated
    prediction with their errors and the tuner's picks."""
    cal = has_calibrated(res)
    header = ["size", "measured busbw GB/s", "uncalibrated GB/s", "error %"]
    if cal:
        header += ["calibrated GB/s", "calibrated error %"]
    header.append("algorithm/protocol" + (" (uncalibrated -> calibrated)" if cal else ""))
    rows = []
    for p in res["points"]:
        r = [fmt_size(p["size"]), "%.2f" % p["measured"],
             "n/a" if p["predicted"] is None else "%.2f" % p["predicted"],
             "n/a" if p["predicted"] is None else fmt_err(p["error"])]
        pick = fmt_pick(p["algorithm"], p["protocol"]) if p["predicted"] is not None else "n/a"
        if cal:
            r += ["n/a" if p["cal_predicted"] is None else "%.2f" % p["cal_predicted"],
                  "n/a" if p["cal_predicted"] is None else fmt_err(p["cal_error"])]
            cpick = fmt_pick(p["cal_algorithm"], p["cal_protocol"])
            if cpick != pick:
                pick = "%s -> %s" % (pick, cpick)
        r.append(pick)
        rows.append(r)
    return header, rows


def cross_summary_table(results):
    """(header, rows): per log, then pooled: the calibrated logs (both columns over the same
    rows) and all logs (uncalibrated only)."""
    header = ["log", "kind", "source reports", "calibrated on", "calibration",
              ">= 64 MiB uncal.", ">= 64 MiB cal.", "1-64 MiB uncal.", "1-64 MiB cal."]
    rows = []

    def meds(points):
        (lu, mu), (lc, mc) = bins(points, "error"), bins(points, "cal_error")
        return [fmt_med(median_abs(lu)), fmt_med(median_abs(lc)),
                fmt_med(median_abs(mu)), fmt_med(median_abs(mc))]

    for res in results:
        row = res["row"]
        m = meds(res["points"])
        if not has_calibrated(res):
            m[1] = m[3] = "-"
        rows.append([row["file"], row["system_kind"], row["status"],
                     res["other"]["file"] if res["other"] else "-", cross_status(res)] + m)
    for name, keep in (("calibrated logs", lambda r: True),
                       ("calibrated normal logs", lambda r: r["row"]["status"] == "normal"),
                       ("calibrated problem logs", lambda r: r["row"]["status"] == "problem")):
        chosen = [r for r in results if has_both(r) and keep(r)]
        # The same rows on both sides: those with both predictions.
        pts = [p for r in chosen for p in r["points"]
               if p["predicted"] is not None and p["cal_predicted"] is not None]
        rows.append(["%s (%d)" % (name, len(chosen)), "", "", "", ""] + meds(pts))
    pts = [p for r in results for p in r["points"]]
    m = meds(pts)
    rows.append(["all logs (%d)" % len(results), "", "", "", "uncalibrated only",
                 m[0], "-", m[2], "-"])
    return header, rows


def cross_summary_title(engine):
    return ("Median |error| of predicted in-place busbw, uncalibrated and calibrated on another "
            "log of the same kind (%s engine)" % engine)


def render_cross(results, md, engine):
    out = [CROSS_NOTE, ""]
    table(out, md, cross_summary_title(engine), *cross_summary_table(results))
    for res in results:
        header, rows = cross_log_table(res)
        title, detail = cross_title(res, engine), cross_detail(res)
        if md:
            out += ["### %s\n" % title] + [l + "\n" for l in detail]
            out += md_table(header, rows)
            out.append("")
        else:
            table(out, False, "\n".join([title] + detail), header, rows)
    return "\n".join(out) + "\n"


def cross_failures(results):
    return sum(1 for r in results
               if r["failed"] or r["cal_failed"]
               or (r["calibration"] and r["calibration"]["result"] == "rejected"))


# --- main ------------------------------------------------------------------------------------

def write_text(text, markdown):
    if markdown and markdown != "-":
        tmp = markdown + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, markdown)
    else:
        sys.stdout.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gcsim", default=os.environ.get("GCSIM") or
                    os.path.join(REPO, "build", "sim", "cli", "gcsim"),
                    help="gcsim binary (default: $GCSIM, else build/sim/cli/gcsim)")
    ap.add_argument("--engine", choices=("analytic", "des"), default="analytic")
    ap.add_argument("--markdown", nargs="?", const="-", metavar="FILE",
                    help="markdown tables (for docs/validation.md) to FILE, or stdout")
    ap.add_argument("--dir", default=DEFAULT_DIR, help="folder of SOURCES.tsv and the logs")
    ap.add_argument("--compare", metavar="OLD_GCSIM",
                    help="also an older gcsim binary's predictions and errors (before/after)")
    ap.add_argument("--calibrate-check", action="store_true",
                    help="run gcsim calibrate on every log as published instead of the report")
    ap.add_argument("--cross-calibrate", action="store_true",
                    help="per log, also a prediction on its platform calibrated on another "
                    "log of the same system kind, instead of the report")
    args = ap.parse_args(argv)
    md = args.markdown is not None

    if args.cross_calibrate:
        if args.compare or args.calibrate_check:
            print("nccl_logs.py: --compare and --calibrate-check do not apply to "
                  "--cross-calibrate", file=sys.stderr)
            return 2
        try:
            results = cross_calibrate(args.gcsim, args.dir, args.engine)
        except InputError as e:
            print("nccl_logs.py: %s" % e, file=sys.stderr)
            return 2
        write_text(render_cross(results, md, args.engine), args.markdown)
        failed = cross_failures(results)
        for res in results:
            for line in cross_detail(res):
                if line.startswith(("Failed:", "Calibration failed:")):
                    print("nccl_logs.py: %s: %s" % (res["row"]["file"], line), file=sys.stderr)
        return 1 if failed else 0

    if args.calibrate_check:
        if args.compare:
            print("nccl_logs.py: --compare does not apply to --calibrate-check", file=sys.stderr)
            return 2
        try:
            text, rejected, missed = calibrate_check(args.gcsim, args.dir, md)
        except InputError as e:
            print("nccl_logs.py: %s" % e, file=sys.stderr)
            return 2
        write_text(text, args.markdown)
        if rejected:
            print("nccl_logs.py: %d log(s) rejected by gcsim calibrate as published"
                  % rejected, file=sys.stderr)
        if missed:
            print("nccl_logs.py: %d log(s) missed by the platform calibrate wrote for them "
                  "(median |busbw error| above %.1f%% over the rows or a size band)"
                  % (missed, SELF_BOUND_PCT), file=sys.stderr)
        return 1 if rejected or missed else 0

    try:
        results = collect(args.gcsim, args.dir, args.engine, args.compare,
                          warn=lambda t: print("nccl_logs.py: warning: %s" % t,
                                               file=sys.stderr))
    except InputError as e:
        print("nccl_logs.py: %s" % e, file=sys.stderr)
        return 2
    except gcsim_cli.GcsimError as e:
        print("nccl_logs.py: %s: %s\n%s" % (getattr(e, "log", "?"), e, (e.stderr or "").strip()),
              file=sys.stderr)
        return 1
    write_text(render(results, md, args.engine, args.compare), args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
