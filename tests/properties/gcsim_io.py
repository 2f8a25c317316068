"""Running gcsim and reading its three output formats (table, JSON, CSV) for the property
suite. Nothing here knows about properties: run() returns bytes and the exit status,
the parsers return rows as dicts."""
import csv
import io
import json
import shlex
import subprocess


class Result:
    def __init__(self, argv, rc, out, err):
        self.argv, self.rc, self.out, self.err = argv, rc, out, err

    def command(self):
        return " ".join(shlex.quote(a) for a in self.argv)


def run(gcsim, args, cwd, timeout_s=300):
    """gcsim ARGS in cwd; its stdout as text (bytes compared as text: gcsim prints ASCII)."""
    argv = [gcsim] + list(args)
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout_s)
    return Result(argv, p.returncode, p.stdout, p.stderr)


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def json_rows(text):
    return json.loads(text)["rows"]


def table_rows(text):
    """The per-count table of `gcsim predict` (format table): the line that starts with
    `GPUs` is the header; each row's cells are assigned to the header label whose span they
    overlap (numbers are right-aligned under their label, words left-aligned), so an empty
    cell (an analytic row's `DES vs analytic %`) is simply absent from the row."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("GPUs ")), None)
    if start is None:
        return []
    header = lines[start]
    labels = []  # (begin, end, label); labels are separated by two spaces or more
    i = 0
    while i < len(header):
        if header[i] == " ":
            i += 1
            continue
        j = i
        while j < len(header) and not (header[j] == " " and header[j + 1:j + 2] in (" ", "")):
            j += 1
        labels.append((i, j, header[i:j]))
        i = j
    rows = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        row = {}
        k = 0
        while k < len(line):
            if line[k] == " ":
                k += 1
                continue
            e = k
            while e < len(line) and line[e] != " ":
                e += 1
            hit = [lab for (b, en, lab) in labels if k < en and e > b]
            if len(hit) != 1:
                raise ValueError("table cell %r at %d-%d under %s" % (line[k:e], k, e, hit))
            row[hit[0]] = line[k:e]
            k = e
        rows.append(row)
    return rows
