"""Running the gcsim command from the validation scripts and reading its JSON output.

Only the row fields listed in docs/schema.md (gpus, engine, iteration_s, ...) are relied upon;
extra fields and extra top-level keys are ignored, so the scripts survive additions."""
import json
import os
import re
import signal
import shlex
import subprocess
import sys


class GcsimError(Exception):
    """gcsim exited non-zero or printed something that is not the expected JSON."""

    def __init__(self, argv, returncode, stderr, why):
        self.argv = argv
        self.returncode = returncode
        self.stderr = stderr
        self.why = why
        super().__init__("%s: %s" % (command_line(argv), why))


def read_tsv(path):
    """The rows of one of this folder's tab-separated measurement files: '#' lines and blank
    lines skipped, the first other line the header; each row a (line number, dict) pair.
    A row of the wrong width raises ValueError naming the file and line."""
    header, rows = None, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if header is None:
                header = fields
                continue
            if len(fields) != len(header):
                raise ValueError("%s:%d: %d fields, the header has %d"
                                 % (path, n, len(fields), len(header)))
            rows.append((n, dict(zip(header, fields))))
    return rows


def command_line(argv):
    return " ".join(shlex.quote(a) for a in argv)


def run_json(argv, cwd, timeout_s=None):
    """Run gcsim (argv[0]) with --format json appended; returns the parsed document.

    gcsim runs in its own process group: the DES forks a child per simulation, and a
    timeout must stop that child too, not leave it running without a parent."""
    argv = list(argv) + ["--format", "json"]
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        raise GcsimError(argv, None, err or "", "timed out after %g s" % timeout_s)
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    if p.returncode != 0:
        why = ("killed by signal %d" % -p.returncode if p.returncode < 0
               else "exit status %d" % p.returncode)
        raise GcsimError(argv, p.returncode, err, why)
    try:
        return json.loads(out)
    except ValueError as e:
        raise GcsimError(argv, p.returncode, err, "output is not JSON: %s" % e)


def table_script_main(name, argv, tables):
    """The main() of a script that prints one markdown table: `NAME GCSIM REPO [--markdown
    FILE]`. tables(gcsim, repo) returns (table text, summary lines); the table goes to FILE
    or standard output, the summaries to standard error. A failed gcsim run (GcsimError,
    RuntimeError) or a bad data file (ValueError, KeyError) exits 1 with its message; bad
    arguments exit 2."""
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--markdown"):
        print("usage: %s GCSIM REPO [--markdown FILE]" % name, file=sys.stderr)
        return 2
    gcsim, repo = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    try:
        table, summaries = tables(gcsim, repo)
    except (GcsimError, RuntimeError, ValueError, KeyError) as e:
        print("%s: %s" % (name, e), file=sys.stderr)
        return 1
    if len(argv) == 4:
        with open(argv[3], "w") as f:
            f.write(table)
    else:
        sys.stdout.write(table)
    for line in summaries:
        print(line, file=sys.stderr)
    return 0


def first_row(gcsim, repo, args):
    """The first row of `gcsim ARGS --format json`, run in the repository (paths in ARGS
    are relative to it)."""
    argv = [gcsim] + list(args)
    doc = run_json(argv, repo, timeout_s=600)
    rows = doc.get("rows") if isinstance(doc, dict) else doc
    if not isinstance(rows, list) or not rows:
        raise GcsimError(argv, 0, "", "JSON has no rows")
    return rows[0]


def predict_rows(doc, argv):
    """{gpus: {engine: row}} from a `gcsim predict --format json` document. Rows without an
    `engine` field (one-engine runs of older builds) are filed under "analytic"."""
    rows = doc.get("rows") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise GcsimError(argv, 0, "", "JSON has no \"rows\" list")
    out = {}
    for r in rows:
        if not isinstance(r, dict) or "gpus" not in r:
            raise GcsimError(argv, 0, "", "a row without \"gpus\": %r" % (r,))
        out.setdefault(int(r["gpus"]), {})[r.get("engine", "analytic")] = r
    return out


def collectives_from_help(gcsim):
    """The collective names `gcsim predict --help` lists under --collective: the words of
    that option's paragraph, parenthesised remarks removed."""
    p = subprocess.run([gcsim, "predict", "--help"], capture_output=True, text=True)
    text = p.stdout + p.stderr
    lines = text.splitlines()
    block = []
    for n, line in enumerate(lines):
        if re.match(r"\s+--collective\b", line):
            block.append(re.sub(r"^\s+--collective\s+\S+", "", line))
            for cont in lines[n + 1:]:
                if not cont.strip() or re.match(r"\s+--", cont):
                    break
                block.append(cont)
            break
    para = re.sub(r"\([^)]*\)", " ", " ".join(block))
    para = re.sub(r"\b(or|and)\b", " ", para)
    names = []
    for tok in re.split(r"[\s,;]+", para):
        tok = tok.strip(".:")
        if re.fullmatch(r"[a-z][a-z0-9-]*", tok) and tok not in names:
            names.append(tok)
    return names
