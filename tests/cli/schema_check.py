#!/usr/bin/env python3
"""Every subcommand's JSON (and CSV header) against docs/schema.json (docs/schema.md).

    schema_check.py GCSIM REPO WORKDIR [--dump]

Runs each subcommand once with --format json (sweep and merge: jsonl) on small inputs and
checks the envelope (schema_version, command, gcsim_version, meta, notes, rows), every meta
member (dotted paths) and every row field: the exact set of names (nothing missing, nothing
extra, so a column cannot vanish with a flag) and each value's type. Where the command
writes CSV, its header must list the row fields in the documented order. --dump prints the
fields seen, with their JSON types, instead of checking (to write a new entry).
"""
import csv
import io
import json
import os
import subprocess
import sys

failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what)


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def type_ok(v, spec):
    """spec: "integer", "number" (an integer is a number too), "string", "boolean",
    "object", "array", or alternatives joined by "|" ("number|null")."""
    k = kind(v)
    allowed = spec.split("|")
    return k in allowed or (k == "integer" and "number" in allowed)


def flatten(obj, prefix=""):
    """Meta as dotted paths: {"platform": {"name": x}} -> {"platform.name": x}."""
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def run(gcsim, args, cwd):
    r = subprocess.run([gcsim] + args, capture_output=True, text=True, cwd=cwd, timeout=120)
    if r.returncode not in (0, 1):  # plan and check answer "no" with 1
        raise RuntimeError("gcsim %s -> %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout


def check_fields(where, got, want, ordered=False):
    missing = [k for k in want if k not in got]
    extra = [k for k in got if k not in want]
    if missing:
        fail("%s: missing %s" % (where, missing))
    if extra:
        fail("%s: not in the schema %s" % (where, extra))
    for k, v in got.items():
        if k in want and not type_ok(v, want[k]):
            fail("%s.%s: %r is %s, the schema says %s" % (where, k, v, kind(v), want[k]))


def check_report(name, doc, entry, version):
    if kind(doc) != "object":
        fail("%s: not a JSON object" % name)
        return
    envelope = {"schema_version": "integer", "command": "string",
                "gcsim_version": "string", "meta": "object", "notes": "object",
                "rows": "array"}
    check_fields(name, doc, envelope)
    if doc.get("schema_version") != version:
        fail("%s: schema_version %r, docs/schema.json is %d" % (name, doc.get("schema_version"), version))
    if doc.get("command") != entry["command"]:
        fail("%s: command %r, expected %r" % (name, doc.get("command"), entry["command"]))
    for k, v in doc.get("notes", {}).items():
        if not isinstance(v, str):
            fail("%s: note %s is not text" % (name, k))
    check_fields(name + " meta", flatten(doc.get("meta", {})), entry["meta"])
    rows = doc.get("rows", [])
    if not rows:
        fail("%s: no rows to check" % name)
    for i, row in enumerate(rows):
        check_fields("%s rows[%d]" % (name, i), row, entry["rows"])


def check_lines(name, text, entry, version):
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        fail("%s: no lines" % name)
    want = dict(entry["rows"], schema_version="integer")
    for i, line in enumerate(lines):
        row = json.loads(line)
        check_fields("%s line %d" % (name, i + 1), row, want)
        if row.get("schema_version") != version:
            fail("%s line %d: schema_version %r" % (name, i + 1, row.get("schema_version")))


def check_csv_header(name, text, entry):
    header = next(csv.reader(io.StringIO(text)))
    if header != list(entry["rows"]):
        fail("%s --format csv: header %s, the schema's rows %s" % (name, header, list(entry["rows"])))


def check_documented(repo, schema):
    """Every output has its section in docs/schema.md naming each of its fields."""
    text = open(os.path.join(repo, "docs", "schema.md")).read()
    if "# Output schema (version %d)" % schema["schema_version"] not in text:
        fail("docs/schema.md: its title does not name version %d" % schema["schema_version"])
    for name, entry in schema["outputs"].items():
        head = "### `%s`\n" % name
        if head not in text:
            fail("docs/schema.md: no section %s" % head.strip())
            continue
        section = text.split(head, 1)[1].split("\n### ", 1)[0]
        for key in list(entry["meta"]) + list(entry["rows"]):
            if "`%s`" % key not in section:
                fail("docs/schema.md, %s: %s is not documented" % (head.strip(), key))


def main(argv):
    dump = "--dump" in argv
    argv = [a for a in argv if a != "--dump"]
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    gcsim, repo, work = os.path.abspath(argv[1]), os.path.abspath(argv[2]), argv[3]
    os.makedirs(work, exist_ok=True)
    work = os.path.abspath(work)
    schema = json.load(open(os.path.join(repo, "docs", "schema.json")))
    version = schema["schema_version"]
    check_documented(repo, schema)
    seen = set()
    for name, entry in schema["outputs"].items():
        args = [a.replace("@WORK@", work) for a in entry["example"]]
        if entry.get("needs") and not os.path.exists(os.path.join(repo, entry["needs"])):
            print("skipped %s: %s is not there" % (name, entry["needs"]))
            continue
        for pre in entry.get("before", []):
            run(gcsim, [a.replace("@WORK@", work) for a in pre], repo)
        try:
            text = run(gcsim, args, repo)
        except RuntimeError as e:
            if "unknown command" in str(e) or "this build has no" in str(e):
                print("skipped %s: %s" % (name, e))
                continue
            fail(str(e))
            continue
        seen.add(name)
        if dump:
            docs = [json.loads(text)] if entry["format"] == "json" else \
                [json.loads(l) for l in text.splitlines() if l.strip()]
            meta, rows = {}, {}
            for doc in docs:
                for k, v in flatten(doc.get("meta", {})).items():
                    meta.setdefault(k, set()).add(kind(v))
                for row in doc["rows"] if "rows" in doc else [doc]:
                    for k, v in row.items():
                        rows.setdefault(k, set()).add(kind(v))
            print(json.dumps({"output": name,
                              "meta": {k: "|".join(sorted(v)) for k, v in meta.items()},
                              "rows": {k: "|".join(sorted(v)) for k, v in rows.items()}}))
            continue
        if entry["format"] == "json":
            check_report(name, json.loads(text), entry, version)
        else:
            check_lines(name, text, entry, version)
        if entry.get("csv"):
            csv_args = [a.replace("@WORK@", work) for a in entry["csv"]]
            check_csv_header(name, run(gcsim, csv_args, repo), entry)
    print("%d outputs checked against docs/schema.json (schema_version %d)%s"
          % (len(seen), version, "" if not failures else ", %d failures" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
