#!/usr/bin/python3
"""A round of hostile inputs on the surfaces issue 45 names, counted by class.

mutate_inputs.py attacks platforms, models and every option of five commands with generic
values. This round attacks what came after it: stack files, codec profiles, baselines, the
training options (sharding, accumulation, checkpointing, --mfu, --step-time, --stack,
--exchange, --protocol), outputs that name an input, environments, address-space limits,
and it reads what an accepted run printed, because the worst outcome is a number that looks
like an answer.

Each case ends in one class:
  clean           exit 0 with a sane output, or exit 2 with nothing on stdout, no output
                  file, and a message that names the file or option and the field;
                  (plan's documented exit 1 "no feasible" counts as clean)
  unclear         refused, but the message names neither the file/option nor the field
  accepted-bad    a malformed input (a string where a number belongs, null, an array, a
                  duplicate, a conflict) was accepted
  silently-wrong  accepted, but the output holds a number that cannot be right: not finite,
                  over 1e18 in magnitude, an efficiency above 100.5%, a different answer
                  under another address-space limit, an input file changed by the run
  crash           any other exit code, or a signal
  hang            no answer within TIMEOUT_S
Prints one line per case that is not clean and a table of counts; exit 0 always unless
--strict CLASS,... names classes that must be empty (CI runs it with --strict
crash,hang,silently-wrong on a stride).

usage: hostile_round.py GCSIM SOURCE_DIR SCRATCH_DIR [--stride K] [--strict CLASSES] [--list]
                        [--only FAMILIES]
  --only stack,codec,baseline,options,conflicts,output-is-input,environment,ulimit
"""
import concurrent.futures
import csv
import hashlib
import io
import json
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_inputs as mi  # noqa: E402  (its JSON walkers and value pools)

TIMEOUT_S = 30
WORKERS = 2
GIB = 1 << 30

# Values for the training options, beyond mutate_inputs' generic ones: the lenient spellings
# and conflicts issue 45 lists, control characters, absurd magnitudes.
TRAINING_OPTION_VALUES = {
    "--sharding": ["hsdp: 4", "hsdp:+4", "hsdp:0x4", "hsdp:4.0", "zero3+qwz+qwz", "zero3+",
                   "+qwz", "zero2+qwz", "hsdp:3", "hsdp:1", "hsdp:16", "hsdp:64", "fsdp ",
                   "FSDP", "zero4", "zero3+hpz+hpz", "zero\x1b[31m3"],
    "--act-ckpt=": ["every:+3", "every:0", "every:-1", "every:3.0", "every:1e1",
                    "fraction:0x1p-1", "fraction:1.5", "fraction:-0.1", "fraction:nan",
                    "fraction: 0.5", "op ", "OP", "every:", "fraction:", "full,op", ""],
    "--grad-accum": ["+2", "2.0", "0x2", " 2", "1e1", "0", "-1", "99999999999"],
    "--mfu": [" 0.5", "0x1p-1", "+0.5", "1e300", "1.5", "0", "nan", "inf", "0.5 "],
    "--step-time": ["1e300", "0x1p-1", " 1", "inf", "-1", "1e-300"],
    "--stack": ["", " ", "horovod\x07", "fused\n", "pytorch-ddp,horovod", "../etc/passwd"],
    "--exchange": ["BEST", "best ", "", "allreduce,allgather"],
    "--protocol": ["ll128", "LL", "simple ", "", "ll128,ll128"],
    "--precision": ["bf16 ", "fp8", "", "FP16"],
}
# Pairs that must be refused together (conflicts accepted silently before issue 45).
CONFLICTS = [
    ["--mfu", "0.5", "--step-time", "100ms"],
    ["--act-ckpt=op", "--act-ckpt=full"],
    ["--act-ckpt", "--act-ckpt=every:2"],
]
BASE = {
    "predict": ["predict", "--platform", "h100-ndr", "--model", "llama-2-7b", "--gpus", "16",
                "--sharding", "fsdp"],
    "sweep": ["sweep", "--platform", "h100-ndr", "--model", "llama-2-7b", "--gpus", "16",
              "--sharding", "fsdp"],
    "collective": ["collective", "--platform", "terngrad-fig5a", "--gpus", "16"],
    "plan": ["plan", "--platform", "h100-ndr", "--model", "llama-2-7b", "--gpus", "16,32",
             "--target-throughput", "10", "--sharding", "fsdp"],
    "breakeven": ["breakeven", "--platform", "h100-ndr", "--model", "resnet-50",
                  "--compressor", "fp16"],
}


def sha(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def run(gcsim, argv, cwd=None, env=None, vm_kib=None):
    cmd = [gcsim] + argv
    if vm_kib:
        cmd = ["sh", "-c", 'ulimit -v %d && exec "$@"' % vm_kib, "sh"] + cmd
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT_S, cwd=cwd, env=env)
    except subprocess.TimeoutExpired:
        return None, b"", b""
    return p.returncode, p.stdout, p.stderr


def insane_numbers(text):
    """The first cell of a CSV output that cannot be a real answer, or None."""
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error:
        return None
    if len(rows) < 2:
        return None
    head = rows[0]
    for row in rows[1:]:
        for name, cell in zip(head, row):
            try:
                v = float(cell)
            except ValueError:
                continue
            if not math.isfinite(v) or abs(v) > 1e18:
                return "%s=%s" % (name, cell[:40])
            if name == "efficiency_pct" and v > 100.5:
                return "%s=%s" % (name, cell)
    return None


def classify(rc, out, err, made, names, must_refuse, output_text=None, infeasible_ok=False):
    if rc is None:
        return "hang", "no answer within %d s" % TIMEOUT_S
    text = err.decode(errors="replace")
    if rc == 1 and infeasible_ok and "no feasible" in text and not out:
        return "clean", ""
    if rc == 0:
        if must_refuse:
            return "accepted-bad", "accepted (exit 0)"
        bad = insane_numbers(output_text if output_text is not None
                             else out.decode(errors="replace"))
        if bad:
            return "silently-wrong", bad
        return "clean", ""
    if rc != 2:
        return "crash", "exit %d: %s" % (rc, text.strip()[:200])
    if out or made:
        return "crash", "refused but wrote %s" % ("stdout" if out else "the output file")
    for words in names:
        words = words if isinstance(words, tuple) else (words,)
        if not any(w and w in text for w in words):
            return "unclear", "names none of %r: %s" % (words, text.strip()[:200])
    return "clean", ""


def json_mutations(doc):
    """(label, mutated document, key, json path, must_refuse) for every leaf; a retyped
    value (null, an array, an object, a string for a number or back) must be refused."""
    for path in mi.leaves(doc, []):
        key = mi.key_of(path)
        value = mi.get_parent(doc, path)[path[-1]]
        free = key in mi.FREE_TEXT or key in ("description", "source", "notes", "date",
                                               "measured_as", "gpu", "kind")
        pool = mi.TEXT_VALUES if free else (mi.STRING_VALUES if isinstance(value, str)
                                            else mi.NUMBER_VALUES)
        muts = ([("delete", None)] if isinstance(path[-1], str) else []) + \
               [("set", v) for v in pool]
        for kind, v in muts:
            m = json.loads(json.dumps(doc))
            parent = mi.get_parent(m, path)
            if kind == "delete":
                del parent[path[-1]]
            else:
                parent[path[-1]] = v
            retyped = kind == "set" and (v is None or isinstance(v, (list, dict)) or
                                         (isinstance(value, str) != isinstance(v, str)))
            if free and kind == "set" and isinstance(v, str):
                retyped = False
            label = "%s:%s=%s" % (mi.dotted(path), kind,
                                  json.dumps(v)[:24] if kind == "set" else "")
            yield label, m, key, mi.json_path(path[:-1]), retyped


def stack_cases(src):
    folder = os.path.join(src, "platforms", "stacks")
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            doc = json.load(f)
        for label, m, key, jpath, must in json_mutations(doc):
            yield ("stack", "stacks/%s:%s" % (name, label), name, m, (key, jpath), must)


def codec_cases(src):
    with open(os.path.join(src, "platforms", "codec", "h100-pytorch.json")) as f:
        doc = json.load(f)
    doc["entries"] = doc["entries"][:3]
    for label, m, key, jpath, must in json_mutations(doc):
        yield ("codec", "codec/h100-pytorch.json:%s" % label, "h100-pytorch.json", m,
               (key, jpath), must)


def baseline_cases(src):
    with open(os.path.join(src, "tests", "planning", "baseline.json")) as f:
        doc = json.load(f)
    doc["cases"] = doc["cases"][:2]
    for label, m, key, jpath, must in json_mutations(doc):
        # an expected value moved to another number is a legal baseline that drifts (exit 1)
        yield ("baseline", "baseline.json:%s" % label, "baseline.json", m, (key, jpath), must)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    gcsim, src, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), \
        os.path.abspath(sys.argv[3])
    args = sys.argv[4:]
    stride = int(args[args.index("--stride") + 1]) if "--stride" in args else 1
    strict = set(args[args.index("--strict") + 1].split(",")) if "--strict" in args else set()
    listing = "--list" in args
    only = set(args[args.index("--only") + 1].split(",")) if "--only" in args else None

    def wanted(family):
        return only is None or family in only
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)

    def json_case(k, case):
        family, label, name, doc, field, must = case
        d = os.path.join(scratch, "j%d" % k)
        os.makedirs(d)
        out = os.path.join(d, "out.csv")
        if family == "stack":
            path = os.path.join(d, name)
            argv = ["predict", "--platform", "h100-ndr", "--model", "resnet-50", "--gpus", "16",
                    "--compressor", "dgc", "--stack", path]
        elif family == "codec":
            os.makedirs(os.path.join(d, "codec"))
            path = os.path.join(d, "codec", name)
            shutil.copy(os.path.join(src, "platforms", "h100-ndr.json"), d)
            # no compressor: a broken profile must be refused when the platform is read,
            # not when a compressor first needs it
            argv = ["predict", "--platform", os.path.join(d, "h100-ndr.json"), "--model",
                    "resnet-50", "--gpus", "16"]
        else:
            path = os.path.join(d, name)
            os.makedirs(os.path.join(d, "platforms"))
            os.makedirs(os.path.join(d, "models"))
            for sub, f in (("platforms", "a100-hdr.json"), ("models", "resnet-50.json")):
                shutil.copy(os.path.join(src, sub, f), os.path.join(d, sub))
            argv = ["check", "--baseline", path]
        with open(path, "w") as f:
            json.dump(doc, f)
        argv += ["--format", "csv", "--output", out]
        rc, o, e = run(gcsim, argv)
        made = os.path.exists(out)
        text = open(out).read() if made else ""
        if family == "baseline" and rc == 1 and b"drift" in e and not o:
            rc, text = 0, ""  # a drifting case is check's answer (it echoes the expected)
        cls, why = classify(rc, o, e, made and rc != 0, [name, field], must, text)
        shutil.rmtree(d)
        return family, label, rc, cls, why

    def option_case(k, case):
        command, opt, value = case
        d = os.path.join(scratch, "o%d" % k)
        os.makedirs(d)
        out = os.path.join(d, "out.csv")
        optv = [opt + value] if opt.endswith("=") else [opt, value]
        argv = BASE[command] + optv + ["--format", "csv", "--output", out]
        rc, o, e = run(gcsim, argv)
        made = os.path.exists(out)
        text = open(out).read() if made else ""
        # a refusal names the option, or the file the value named
        cls, why = classify(rc, o, e, made and rc != 0, [(opt.strip("-="),
                                                          opt.strip("-=").rstrip("s"),
                                                          value if "/" in value else None)],
                            False, text, command == "plan")
        if cls == "clean" and rc == 0 and any(c < " " for c in value):
            cls, why = "accepted-bad", "a control character accepted"
        shutil.rmtree(d)
        return "options", "%s %s%r" % (command, opt, value), rc, cls, why

    def conflict_case(k, case):
        command, pair = case
        d = os.path.join(scratch, "c%d" % k)
        os.makedirs(d)
        out = os.path.join(d, "out.csv")
        rc, o, e = run(gcsim, BASE[command] + pair + ["--output", out])
        made = os.path.exists(out)
        cls, why = classify(rc, o, e, made and rc != 0, [(pair[0].split("=")[0][2:],)], True)
        shutil.rmtree(d)
        return "conflicts", "%s %s" % (command, " ".join(pair)), rc, cls, why

    def identity_case(k, case):
        """--output naming one of the command's inputs: refused, the input untouched."""
        label, make_argv = case
        d = os.path.join(scratch, "i%d" % k)
        os.makedirs(d)
        argv, victim = make_argv(d)
        before = sha(victim)
        rc, o, e = run(gcsim, argv, cwd=d)
        after = sha(victim)
        if rc is None:
            cls, why = "hang", "no answer"
        elif before != after:
            cls, why = "silently-wrong", "the input %s was changed (exit %s)" % (
                os.path.basename(victim), rc)
        elif rc == 2 and not o:
            cls, why = "clean", ""
        elif rc in (0, 1):
            cls, why = "accepted-bad", "exit %d with --output = an input" % rc
        else:
            cls, why = "crash", "exit %s" % rc
        shutil.rmtree(d)
        return "output-is-input", label, rc, cls, why

    def copy_in(d, rel):
        dst = os.path.join(d, os.path.basename(rel))
        shutil.copy(os.path.join(src, rel), dst)
        return dst

    identity = []
    for fmt in ("csv", "json"):
        identity += [
            ("predict --output = model (%s)" % fmt, lambda d, f=fmt: (
                ["predict", "--platform", "a100-hdr", "--model", copy_in(d, "models/resnet-50.json"),
                 "--gpus", "8", "--format", f, "--output", os.path.join(d, "resnet-50.json")],
                os.path.join(d, "resnet-50.json"))),
            ("predict --output = platform (%s)" % fmt, lambda d, f=fmt: (
                ["predict", "--platform", copy_in(d, "platforms/a100-hdr.json"), "--model",
                 "resnet-50", "--gpus", "8", "--format", f, "--output",
                 os.path.join(d, "a100-hdr.json")], os.path.join(d, "a100-hdr.json"))),
        ]
    identity += [
        ("predict --output = stack", lambda d: (
            ["predict", "--platform", "h100-ndr", "--model", "resnet-50", "--gpus", "8",
             "--stack", copy_in(d, "platforms/stacks/horovod.json"), "--output",
             os.path.join(d, "horovod.json")], os.path.join(d, "horovod.json"))),
        ("sweep --output = model", lambda d: (
            ["sweep", "--platform", "a100-hdr", "--model", copy_in(d, "models/resnet-50.json"),
             "--gpus", "8", "--output", os.path.join(d, "resnet-50.json")],
            os.path.join(d, "resnet-50.json"))),
        ("plan --output = platform", lambda d: (
            ["plan", "--platform", copy_in(d, "platforms/a100-hdr.json"), "--model", "resnet-50",
             "--gpus", "8,16", "--target-throughput", "1000", "--output",
             os.path.join(d, "a100-hdr.json")], os.path.join(d, "a100-hdr.json"))),
        ("breakeven --output = model", lambda d: (
            ["breakeven", "--platform", "a100-hdr", "--model", copy_in(d, "models/resnet-50.json"),
             "--compressor", "fp16", "--output", os.path.join(d, "resnet-50.json")],
            os.path.join(d, "resnet-50.json"))),
        ("collective --output = platform", lambda d: (
            ["collective", "--platform", copy_in(d, "platforms/a100-hdr.json"), "--gpus", "8",
             "--output", os.path.join(d, "a100-hdr.json")], os.path.join(d, "a100-hdr.json"))),
    ]

    # the same large case under three address-space limits: identical bytes or a refusal
    def ulimit_case(k, case):
        label, argv = case
        outs = []
        for vm in (600 * 1024, 2 * 1024 * 1024, None):
            rc, o, e = run(gcsim, argv, vm_kib=vm)
            outs.append((vm, rc, o))
        answers = {o for vm, rc, o in outs if rc == 0}
        if any(rc is None for _, rc, _ in outs):
            cls, why = "hang", "no answer under some limit"
        elif any(rc not in (0, 2) for _, rc, _ in outs):
            cls, why = "crash", "exits %s" % [rc for _, rc, _ in outs]
        elif len(answers) > 1:
            cls, why = "silently-wrong", "different answers under ulimit -v 600M/2G/unlimited"
        else:
            cls, why = "clean", ""
        return "ulimit", label, outs[-1][1], cls, why

    # h100-ndr grown to 2^14 nodes (2^17 GPUs): its double tree lists ~4 x 8 x 2^17 flows,
    # about 0.4 GB while built, which 600 MB of address space cannot hold beside the rest
    with open(os.path.join(src, "platforms", "h100-ndr.json")) as f:
        big = json.load(f)
    big["nodes"] = 16384
    big_path = os.path.join(scratch, "h100-ndr-16384-nodes.json")
    with open(big_path, "w") as f:
        json.dump(big, f)
    ulimits = [
        ("predict 2^17 GPUs (tuned)", ["predict", "--platform", big_path, "--model",
                                       "resnet-50", "--gpus", "131072"]),
        ("predict 2^17 GPUs fsdp (tuned)", ["predict", "--platform", big_path, "--model",
                                            "llama-2-7b", "--sharding", "fsdp", "--gpus",
                                            "131072"]),
        ("predict 2^17 GPUs horovod dgc", ["predict", "--platform", big_path, "--model",
                                           "resnet-50", "--stack", "horovod", "--compressor",
                                           "dgc", "--gpus", "131072"]),
        ("collective 2^16 GPUs", ["collective", "--platform", big_path, "--gpus", "65536"]),
    ]

    def env_case(k, case):
        label, var, value, argv = case
        env = dict(os.environ)
        env[var] = value
        rc, o, e = run(gcsim, argv, env=env)
        cls, why = classify(rc, o, e, False, [(var,)], False)
        if rc == 0:
            cls, why = "clean", ""
        return "environment", label, rc, cls, why

    des = ["predict", "--platform", "a100-hdr", "--model", "resnet-50", "--gpus", "16",
           "--engine", "des"]
    envs = [("GCSIM_DES_NETWORK_MODEL=bogus", "GCSIM_DES_NETWORK_MODEL", "bogus", des),
            ("GCSIM_DES_NETWORK_MODEL=''", "GCSIM_DES_NETWORK_MODEL", "", des),
            ("TMPDIR=/nonexistent", "TMPDIR", "/nonexistent", des),
            ("TMPDIR=/proc", "TMPDIR", "/proc", des),
            ("GCSIM_DES_PROGRESS=x", "GCSIM_DES_PROGRESS", "x\x1b", des),
            ("GCSIM_DES_FULL=2", "GCSIM_DES_FULL", "2", des)]

    jsons = [c for c in list(stack_cases(src)) + list(codec_cases(src)) + list(baseline_cases(src))
             if wanted(c[0])][::stride]
    takes = {c: set(subprocess.run([gcsim, c, "--help"], capture_output=True, text=True)
                    .stdout.replace("=", " ").replace("[", " ").replace("]", " ").split())
             for c in BASE}
    options = [(c, o, v) for c in BASE for o, vs in TRAINING_OPTION_VALUES.items()
               if o.rstrip("=") in takes[c] and not (c == "breakeven" and o == "--sharding")
               for v in vs if wanted("options")][::stride]
    conflicts = [(c, p) for c in ("predict", "sweep", "plan") for p in CONFLICTS
                 if p[0].split("=")[0] in takes[c] and p[-2 if len(p) == 4 else -1]
                 .split("=")[0] in takes[c] and wanted("conflicts")]
    identity = identity if wanted("output-is-input") else []
    envs = envs if wanted("environment") else []
    # AddressSanitizer reserves terabytes of address space: no ulimit -v can hold it
    ulimits = ulimits if wanted("ulimit") and not os.environ.get("ASAN_OPTIONS") else []
    results = []
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        results += pool.map(json_case, range(len(jsons)), jsons)
        results += pool.map(option_case, range(len(options)), options)
        results += pool.map(conflict_case, range(len(conflicts)), conflicts)
        results += pool.map(identity_case, range(len(identity)), identity)
        results += pool.map(env_case, range(len(envs)), envs)
    results += map(ulimit_case, range(len(ulimits)), ulimits)

    classes = ["clean", "unclear", "accepted-bad", "silently-wrong", "crash", "hang"]
    counts = {}
    for family, label, rc, cls, why in results:
        counts.setdefault(family, dict.fromkeys(classes, 0))[cls] += 1
        if listing or cls != "clean":
            print("%-14s %-15s %s%s" % (cls, family, label, ": " + why if why else ""))
    total = dict.fromkeys(classes, 0)
    print("\n%-16s %6s " % ("family", "cases") + " ".join("%14s" % c for c in classes))
    for family, c in counts.items():
        for k in classes:
            total[k] += c[k]
        print("%-16s %6d " % (family, sum(c.values())) + " ".join("%14d" % c[k] for k in classes))
    n = sum(total.values())
    print("%-16s %6d " % ("all", n) + " ".join("%14d" % total[k] for k in classes))
    print("hostile_round: %d cases, %.1f%% clean" % (n, 100.0 * total["clean"] / max(n, 1)))
    sys.exit(1 if any(total[c] for c in strict) else 0)


if __name__ == "__main__":
    main()
