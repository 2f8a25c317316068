#!/usr/bin/env python3
"""One vocabulary across the subcommands (issue 46) and the shared option groups (issue 44).

    vocabulary_check.py GCSIM SOURCE_DIR

Checks, each against what the commands do:
  - the list options take their singular and plural names with the same result (sweep, plan,
    breakeven), byte for byte;
  - `gcsim` with no command exits 2 with the usage on stderr and nothing on stdout;
  - each command's --help states defaults the command then uses: the help text is parsed
    (the option's paragraph, "default: X" / "X (default)") and compared with the output of a
    run that leaves the option out;
  - sweep's collective column names what the tuner chose for a tuned run (the collectives
    `predict --steps` lists for the same case), and the plain collective otherwise;
  - breakeven's uncompressed column is labelled by what it holds (none, at the training
    precision), not fp32;
  - every shared option group (cli_groups.c) reaches every command that takes it: an option of
    each group set on the command line moves that command's answer the way it must, and a
    command that does not take a group refuses its options.
"""
import csv
import io
import json
import re
import subprocess
import sys

GCSIM, SRC = sys.argv[1], sys.argv[2]
FAILS = []


def run(*args, ok=True):
    p = subprocess.run([GCSIM, *args], cwd=SRC, capture_output=True, text=True)
    if ok and p.returncode != 0:
        FAILS.append(f"gcsim {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[:300]}")
    return p


def check(cond, what):
    print(("PASS: " if cond else "FAIL: ") + what)
    if not cond:
        FAILS.append(what)


def help_paragraph(cmd, opt):
    """The text of option opt's entry in `gcsim cmd --help`: its line and the indented lines
    that continue it, joined."""
    text = run(cmd, "--help").stdout.splitlines()
    out = []
    for line in text:
        if out:
            if re.match(r"^  --|^\S|^$", line):
                break
            out.append(line.strip())
        elif re.match(r"^  " + re.escape(opt) + r"\b", line):
            out.append(line.strip())
    return " ".join(out)


def help_default(cmd, opt):
    """The default an option's help states: "default: X", "default X" or "X (default)"."""
    p = help_paragraph(cmd, opt)
    m = re.search(r"([A-Za-z0-9_-]+) \(default[),]", p) or re.search(r"default:? ([A-Za-z0-9_.,-]*[A-Za-z0-9])", p)
    return m.group(1) if m else None


def sweep_rows(*args):
    p = run("sweep", *args)
    return list(csv.DictReader(io.StringIO(p.stdout)))


def json_of(*args):
    p = run(*args, "--format", "json")
    return json.loads(p.stdout) if p.returncode == 0 else {"meta": {}, "rows": [], "notes": {}}


SMALL = ["--platform", "h100-ndr", "--model", "resnet-50"]

# ---- singular and plural names: the same run ----
pairs = {
    "sweep": [("--platform", "--platforms", "h100-ndr,a100-hdr"), ("--model", "--models", "resnet-50,vgg-16"),
              ("--compressor", "--compressors", "none,fp16"), ("--collective", "--collectives", "ring,tree"),
              ("--stack", "--stacks", "fused,horovod"), ("--scaling", "--scalings", "weak,strong"),
              ("--batch", "--batches", "32,64"), ("--engine", "--engines", "analytic")],
    "plan": [("--platform", "--platforms", "h100-ndr,a100-hdr"), ("--compressor", "--compressors", "none,fp16"),
             ("--collective", "--collectives", "ring,tree"), ("--stack", "--stacks", "fused,horovod"),
             ("--sharding", "--shardings", "ddp,zero2")],
    "breakeven": [("--platform", "--platforms", "h100-ndr,a100-hdr"), ("--model", "--models", "resnet-50,vgg-16"),
                  ("--compressor", "--compressors", "terngrad,fp16")],
}
base = {"sweep": ["--gpus", "8,16"], "plan": ["--model", "resnet-50", "--target-throughput", "20000", "--top", "0"],
        "breakeven": ["--gpus", "16"]}
for cmd, ps in pairs.items():
    for one, many, value in ps:
        defaults = [] if one == "--platform" else ["--platform", "h100-ndr"]
        if cmd != "plan" and one != "--model":
            defaults += ["--model", "resnet-50"]
        if cmd == "breakeven" and one != "--compressor":
            defaults += ["--compressor", "terngrad"]
        a = run(cmd, *base[cmd], *defaults, one, value)
        b = run(cmd, *base[cmd], *defaults, many, value)
        check(a.returncode == 0 and a.stdout != "" and (a.stdout, a.stderr, a.returncode) == (b.stdout, b.stderr, b.returncode),
              f"{cmd} {one} {value} == {cmd} {many} {value} (exit {a.returncode}, {len(a.stdout.splitlines())} lines)")

# compress: one trace, the list in one option or in several, under either name (--wide: one
# table, so each compressor is named once; the default stacks tables that repeat the name)
trace = f"{SRC}/traces/data/fmnist_lenet/lenet_step000010_rank0.safetensors"
comp = ["compress", "--wide", "--quiet", "--seeds", "0", "--trace", trace]
a = run(*comp, "--compressor", "terngrad", "--compressor", "qsgd:s=4,bucket=512")
b = run(*comp, "--compressors", "terngrad,qsgd:s=4,bucket=512")
check(a.returncode == 0 and a.stdout.count("qsgd:s=4,bucket=512") == 1 and a.stdout == b.stdout,
      "compress --compressor A --compressor B == compress --compressors A,B (a spec's own commas kept)")

# ---- gcsim alone: usage on stderr, exit 2 ----
p = subprocess.run([GCSIM], capture_output=True, text=True)
check(p.returncode == 2 and p.stdout == "" and p.stderr.startswith("usage: gcsim <command>"),
      f"gcsim with no command: exit {p.returncode} (2), stdout {len(p.stdout)} bytes (0), usage on stderr")

# ---- --help against the defaults ----
platform_collective = json.load(open(f"{SRC}/platforms/terngrad-fig5a.json"))["collective"]
h = help_paragraph("predict", "--collective")
check("default: the platform's \"collective\"" in h and "tunes each" in h and "fused, which all-reduces with ring" in h,
      "predict --help: default collective = the platform's, else tuned per call, fused: ring")
d = json_of("predict", "--gpus", "16")
check(d["meta"].get("collective") == platform_collective,
      f"predict: the default platform's collective {platform_collective} is the default ({d['meta'].get('collective')})")
d = json_of("predict", *SMALL, "--gpus", "16")
check("collective tuned per call" in d["notes"].get("engine", ""),
      "predict on a platform without a collective under pytorch-ddp: tuned per call")
d = json_of("predict", *SMALL, "--gpus", "16", "--stack", "fused")
check(d["meta"].get("collective") == "ring" and "tuned" not in d["notes"].get("engine", ""),
      f"predict --stack fused: ring ({d['meta'].get('collective')})")
d = json_of("predict", *SMALL, "--gpus", "16")
for opt, key in [("--scaling", "scaling"), ("--engine", "engine"), ("--sharding", "sharding")]:
    want = help_default("predict", opt)
    check(want is not None and d["meta"].get(key) == want, f"predict --help {opt} default {want} = meta {key} {d['meta'].get(key)}")

want = help_default("sweep", "--compressor")
rows = sweep_rows(*SMALL, "--gpus", "1,8,16")
check(want == "none" and {r["compressor"] for r in rows} == {want}, f"sweep --help --compressor default {want}")
for opt, col in [("--scaling", "scaling"), ("--engine", "engine")]:
    want = help_default("sweep", opt)
    check(want is not None and {r[col] for r in rows} == {want}, f"sweep --help {opt} default {want}: rows {sorted({r[col] for r in rows})}")
want = help_default("sweep", "--format")
check(want == "csv" and rows and list(rows[0])[0] == "case", f"sweep --help --format default {want}: CSV")

want = help_default("plan", "--compressors")
d = json_of("plan", "--model", "resnet-50", "--platform", "h100-ndr", "--target-throughput", "20000", "--top", "0")
got = {r["compressor"].split(":")[0] for r in d["rows"]}
check(want is not None and got == set(want.split(",")), f"plan --help --compressors default {want}: rows {sorted(got)}")
want = help_default("plan", "--top")
d10 = run("plan", "--model", "resnet-50", "--platform", "h100-ndr", "--target-throughput", "20000").stdout
table_rows = [l for l in d10.splitlines() if re.match(r"^\s*\d+\s+h100-ndr", l)]
check(want == "10" and len(d["rows"]) > 10 and len(table_rows) == 10,
      f"plan --help --top default {want}: {len(table_rows)} of {len(d['rows'])} rows shown")

want = help_default("breakeven", "--gpus")
d = json_of("breakeven", *SMALL, "--compressor", "terngrad")
check(want == "64" and {r["gpus"] for r in d["rows"]} == {64}, f"breakeven --help --gpus default {want}")

want = help_default("collective", "--engine")
d = json_of("collective", "--platform", "h100-ndr", "--gpus", "16", "--sizes", "64MiB")
got = {r.get("engine") for r in d["rows"]}
check(want == "both" and got == {"analytic", "des"}, f"collective --help --engine default {want}: rows {sorted(map(str, got))}")

# the embedded platform and model every command names as its default
def embedded(cmd, opt):
    m = re.search(r"default: the embedded (?:platforms|models)/([A-Za-z0-9_.-]+)\.json", help_paragraph(cmd, opt))
    return m.group(1) if m else None

runs = {
    "predict": lambda: json_of("predict", "--gpus", "8"),
    "sweep": lambda: {"rows": sweep_rows("--gpus", "8")},
    "plan": lambda: json_of("plan", "--target-throughput", "10", "--compressors", "none", "--collectives", "ring"),
    "breakeven": lambda: json_of("breakeven", "--compressor", "fp16", "--gpus", "8"),
    "collective": lambda: json_of("collective", "--gpus", "8", "--sizes", "64MiB", "--engine", "analytic"),
}
for cmd, go in runs.items():
    d = go()
    meta, row = d.get("meta", {}), (d.get("rows") or [{}])[0]
    got_p = meta.get("platform", {}).get("name") if isinstance(meta.get("platform"), dict) else row.get("platform")
    want_p = embedded(cmd, "--platform")
    check(want_p is not None and got_p == want_p, f"{cmd} --help --platform default {want_p}: ran {got_p}")
    if cmd == "collective":
        continue
    got_m = meta.get("model", {}).get("name") if isinstance(meta.get("model"), dict) else row.get("model")
    want_m = embedded(cmd, "--model")
    check(want_m is not None and got_m == want_m, f"{cmd} --help --model default {want_m}: ran {got_m}")

d = json_of("collective", "--platform", "h100-ndr", "--gpus", "16", "--sizes", "64MiB", "--engine", "analytic")
for opt, key, word in [("--op", "operation", None), ("--dtype", "dtype", None), ("--protocol", "protocol", "tuned")]:
    want = help_default("collective", opt)
    if word:  # "default: the tuner's pick per size": the meta says tuned
        check("tuner" in help_paragraph("collective", opt) and d["meta"].get(key) == word,
              f"collective --help {opt} default the tuner's: meta {key} {d['meta'].get(key)}")
    else:
        check(want is not None and d["meta"].get(key) == want, f"collective --help {opt} default {want}: meta {key} {d['meta'].get(key)}")
want = help_default("compress", "--seeds")
t = run("compress", "--quiet", "--trace", trace, "--compressor", "fp16").stdout
check(want == "4" and re.search(r"^bias_seeds: 4$", t, re.M) is not None, f"compress --help --seeds default {want}")

# ---- sweep's collective column: the tuner's choice ----
for gpus in (8, 16, 64):
    steps = json_of("predict", *SMALL, "--gpus", str(gpus), "--steps")
    chosen = {r["collective"] for r in steps["rows"] if r.get("collective")}
    row = sweep_rows(*SMALL, "--gpus", str(gpus))[0]
    label = row["collective"]
    check(label.startswith("tuned:") and set(label[len("tuned:"):].split("+")) == chosen,
          f"sweep at {gpus} GPUs under pytorch-ddp: collective {label}, predict --steps runs {sorted(chosen)}")
row = sweep_rows(*SMALL, "--gpus", "16", "--stack", "fused")[0]
check(row["collective"] == "ring", f"sweep under fused (not tuned): collective {row['collective']}")
row = sweep_rows(*SMALL, "--gpus", "16", "--collective", "tree")[0]
check(row["collective"] == "tree", f"sweep --collective tree: collective {row['collective']}")

# ---- breakeven: the baseline column says what it holds ----
t = run("breakeven", *SMALL, "--gpus", "16", "--compressor", "terngrad", "--precision", "bf16").stdout
check("none samples/s" in t and "fp32 samples/s" not in t, "breakeven --precision bf16: the baseline column is 'none samples/s'")

# ---- the shared option groups reach every command that takes them ----
def iteration(d):
    return [r["iteration_s"] for r in d["rows"]]

plain, cv = (json_of("predict", *SMALL, "--gpus", "16,64", *x) for x in ([], ["--compute-cv", "0.2"]))
check(all(b > a for a, b in zip(iteration(plain), iteration(cv))) and len(iteration(cv)) == 2,
      "predict --compute-cv 0.2: every count's iteration longer (the expected slowest of the draws)")
a = sweep_rows(*SMALL, "--gpus", "16,64")
b = sweep_rows(*SMALL, "--gpus", "16,64", "--compute-cv", "0.2")
check(len(a) == len(b) == 2 and all(float(y["iteration_s"]) > float(x["iteration_s"]) for x, y in zip(a, b)),
      "sweep --compute-cv 0.2 reaches every case")
plan = ["plan", "--model", "resnet-50", "--platform", "h100-ndr", "--target-throughput", "20000", "--top", "0",
        "--compressors", "none,fp16", "--collectives", "ring,tree", "--gpus", "64"]
a, b = json_of(*plan), json_of(*plan, "--compute-cv", "0.2")
ka = {(r["compressor"], r["collective"]): r["throughput_samples_per_s"] for r in a["rows"]}
kb = {(r["compressor"], r["collective"]): r["throughput_samples_per_s"] for r in b["rows"]}
check(ka and ka.keys() == kb.keys() and all(kb[k] < ka[k] for k in ka),
      f"plan --compute-cv 0.2 reaches every case ({len(ka)} rows, each slower)")
a, b = json_of(*plan), json_of(*plan, "--goodput")
check(a["rows"] and "goodput" not in json.dumps(a["meta"]) and "goodput" in json.dumps(b["meta"]) + json.dumps(b["rows"][0]),
      "plan --goodput reaches plan")
d = json_of("predict", *SMALL, "--gpus", "16", "--goodput")
check("goodput" in json.dumps(d["meta"]) + json.dumps(d["rows"][0] if d["rows"] else {}), "predict --goodput reaches predict")
p = run("predict", *SMALL, "--gpus", "16", "--background-load", "0.5", ok=False)
check(p.returncode == 2 and "--background-load is simulated by the DES only" in p.stderr,
      "predict --background-load reaches predict (analytic: refused)")
# the NICs of a 2-node ring set its time (tests/des/background_load_cli.sh: x2 at half load)
coll = ["collective", "--platform", "h100-ndr", "--gpus", "16", "--sizes", "256MiB", "--engine", "des",
        "--collective", "ring", "--protocol", "simple"]
a, b = json_of(*coll), json_of(*coll, "--background-load", "0.5", "--background-links", "nic")
check(a["rows"] and b["rows"] and b["rows"][0]["time_s"] > a["rows"][0]["time_s"] * 1.5,
      "collective --background-load 0.5 --background-links nic reaches the DES (slower)")
for cmd, opt in [("sweep", "--goodput"), ("sweep", "--background-load"), ("plan", "--background-load"),
                 ("collective", "--compute-cv"), ("collective", "--goodput")]:
    args = [opt] if opt == "--goodput" else [opt, "0.2"]
    p = run(cmd, *args, ok=False)
    check(p.returncode == 2 and "unknown" in p.stderr and p.stdout == "", f"{cmd} {opt}: refused (the group is not {cmd}'s)")
for cmd in ("predict", "sweep", "plan"):
    p = run(cmd, "--compute-cv", "0.1", "--seed", "1", "--seed", "2", ok=False)
    check(p.returncode == 2 and "--seed given twice" in p.stderr, f"{cmd}: a group's option given twice is refused")

# ---- a command's own value options: one value each (docs/cli.md, "Lists and single values") ----
# Given twice, a second value replaced the first without a word (predict --platform A
# --platform B ran B); now refused, exit 2, nothing on stdout. A list option's values add up.
for cmd, args in [("predict", ["--platform", "h100-ndr", "--platform", "a100-hdr"]),
                  ("collective", ["--gpus", "2", "--gpus", "4"]),
                  ("sweep", ["--gpus", "8", "--gpus", "16"]),
                  ("plan", ["--model", "resnet-50", "--model", "vgg-16"]),
                  ("breakeven", ["--gpus", "8", "--gpus", "16"]),
                  ("calibrate", ["--platform", "h100-ndr", "--platform", "a100-hdr"]),
                  ("train", ["--epochs", "1", "--epochs", "2"]),
                  ("check", ["--tolerance", "0.1", "--tolerance", "0.2"]),
                  ("compress", ["--seed", "1", "--seed", "2"]),
                  ("catalog", ["--format", "csv", "--format", "json"]),
                  ("plot", ["--title", "a", "--title", "b"]),
                  ("merge", ["--output", "x", "--output", "y"]),
                  ("trace", ["info", "--format", "csv", "--format=json"])]:
    p = run(cmd, *args, ok=False)
    name = args[1] if cmd == "trace" else args[0]
    check(p.returncode == 2 and f"{name} given twice" in p.stderr and p.stdout == "",
          f"{cmd} {name} given twice: refused ({p.returncode}: {p.stderr.strip()[:120]})")
p = run("sweep", "--platform", "h100-ndr", "--platform", "a100-hdr", "--model", "resnet-50",
        "--gpus", "8", "--count")
check(p.returncode == 0 and p.stdout.split()[0] == "2", "sweep: a list option given twice adds up")

print(f"{len(FAILS)} failed" if FAILS else "all passed")
sys.exit(1 if FAILS else 0)
