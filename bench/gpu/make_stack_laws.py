#!/usr/bin/env python3
"""Derive the op-cost laws of gcsim's training stacks from a measured GPU codec run
(bench/gpu/codec_profile.py output), and check them against the same run.

    python3 bench/gpu/make_stack_laws.py bench/gpu/results/h100-codec.json --gpu h100 \
        [--update platforms/stacks/pytorch-ddp.json platforms/stacks/horovod.json]

A law is one op's cost per call by tensor size, in two parts (docs/stacks.md):
  gpu_us   the GPU's busy time (torch.profiler: the op's kernels, cold L2), measured;
  host_us  the host's time per call (Python, dispatch, launches): the back-to-back wall
           time per call where that is host-bound (over 1.25 x the GPU's busy time); at
           sizes where the GPU sets the pace, the host's time at the largest host-bound
           size (a call's host work does not shrink as the tensor grows).
gcsim charges max(host, GPU) per call, and on another GPU scales the GPU part above the
smallest size's (the launch-bound floor) by the datasheet memory bandwidths.

Laws fitted to nothing but these micro-benchmarks:
  X.encode, X.decode     per codec, as measured;
  copy                   a device-to-device copy (elementwise passes: error-feedback add,
                         clone, division, fusion-buffer copies, with a gpu_scale per op);
  X.decode_add           decoding one received payload and adding it into the sum:
                         X.decode plus an add (copy x 1.5 bytes, one more op of host time),
                         scaled so that it equals the run's decode-then-add measurement
                         (mean per payload over the worker counts measured) at the one size
                         that was measured; the scale is printed;
  powersgd_rK.gs         Gram-Schmidt of one rank-K factor, from the run's PowerSGD
                         breakdown (two sizes: its time does not depend on them).

Laws by setting (--settings RUN [RUN ...], bench/gpu/codec_settings.py output: the primary
run and its repeats, one GPU type): the laws of top-k, DGC and random-k (density), QSGD (code
width in bits) and PowerSGD (rank) get one table per measured setting (docs/stacks.md, "Laws
by setting"). The reference GPU's law (--gpu, measured at one setting: top-k 1%, DGC 0.1%,
random-k 1%, QSGD s=4 in int8 codes = 8 bits, PowerSGD ranks 1, 2, 4) stays as measured at its
setting; another setting's table is that law times the settings run's ratio of the setting to
the reference setting at the same size (GPU part, per size; host part, one ratio per setting
of the robust host times below); decode_add adds decode's difference (the add does not
depend on the setting). In the settings run, per setting: the GPU part is the median over
the runs of gpu_busy_us at each size; the host part one number, the median of
host_back_to_back_us over the host-bound samples (over 1.25 x the GPU's busy time) of every
size and run (a call's host work does not depend on the size; single samples vary by up to
2x between runs).
Without --update the laws are printed as JSON after the check table (on stderr).
"""
import argparse
import json
import math
import sys

CODECS = [  # law prefix, op name in the run
    ("fp16", "fp16"), ("bf16", "bf16"), ("sign", "sign_1bit"), ("terngrad", "terngrad_2bit"),
    ("qsgd", "qsgd_s4_int8"), ("topk", "topk_1pct"), ("dgc", "dgc_0.1pct"),
    ("randomk", "randk_1pct"), ("powersgd_r1", "powersgd_r1"), ("powersgd_r2", "powersgd_r2"),
    ("powersgd_r4", "powersgd_r4"),
]
# decode-then-add measured for these; the others borrow the nearest one's scale
ACCUMULATE = {"fp16": "fp16", "bf16": "fp16", "sign": "sign_1bit",
              "terngrad": "terngrad_2bit", "qsgd": "qsgd_s4_int8", "topk": "topk_1pct",
              "dgc": "topk_1pct", "randomk": "topk_1pct"}
HOST_BOUND = 1.25
ADD_BYTES_OVER_COPY = 1.5  # an add reads two fp32 arrays and writes one; a copy one and one


# ---------------------------------------------------------------- laws by setting

# law prefix -> (settings-run family, parameter, (scale, host beyond) per phase, the
# reference setting the reference GPU's law was measured at)
SETTING_LAWS = {
    "topk": ("topk", "density", {"encode": ("log", "held"), "decode": ("sectors", "held")}, 0.01),
    "dgc": ("dgc", "density", {"encode": ("linear", "held"), "decode": ("sectors", "held")}, 0.001),
    "randomk": ("randk", "density", {"encode": ("gather", "held"), "decode": ("linear", "held")},
                0.01),
    "qsgd": ("qsgd", "bits", {"encode": ("log", "held"), "decode": ("passes", "extends")}, 8),
    "powersgd": ("powersgd", "rank", {"encode": ("linear", "extends"),
                                      "decode": ("linear", "extends")}, None),
}
# Whose host time depends on the setting: QSGD's widths run different ops (packing below 8
# bits, an offset at 8, neither at 16) and PowerSGD's Gram-Schmidt loops over the rank's
# columns. A sparsifier runs the same torch ops at every density: its host time is one
# figure for all settings (the reference GPU's as measured; in the settings run, the median
# over the settings), the settings run's differences between densities (e.g. DGC's decode
# 41-51 us, random-k's 43-63 us) being within its run-to-run spread (median 46%).
HOST_BY_SETTING = {"qsgd", "powersgd"}

# One kernel under two names: top-k's and DGC's decode are both codec_profile.dec_scatter
# (int32 indices widened to int64, a scatter of k values into n zeros; top-k's indices come
# from the radix select, DGC's from nonzero, both in ascending blocks): the settings run
# measured them within 1% of each other at every shared density (0.001, 0.01, 0.1, 0.5), so
# their law's shape by density is one table pooled from both (medians over both names'
# samples), and leaving a density out leaves it out under both names.
SAME_KERNEL = {("topk", "decode"): "scatter", ("dgc", "decode"): "scatter"}

# The L2 capacity that decides whether random-k's gather re-reads the gradient from L2 or
# from DRAM: the settings run's GPU as the device reports it (torch.cuda.get_device_properties
# .L2_cache_size, "gpu_l2_cache_bytes" in h200-codec-settings*.json's provenance: 62,914,560
# bytes on the H200 measured, 2026-11-28; the GH100 die has 60 MB of L2, Chips and Cheese,
# "Nvidia's H100: Funny L2, and Tons of Bandwidth", 2023-07-02; the H100 SXM reports 50 MiB,
# h100-codec.json). Read from the run, not fitted.
L2_SOURCE = ("gpu_l2_cache_bytes of the settings run's provenance (torch's L2_cache_size of "
             "the measuring GPU)")

# Why each form (docs/stacks.md, "Laws by setting"); the coordinate in which cost is linear
# between measured settings, per element of the tensor (sim/stack/stack_law.c's coordinate):
#   log      torch.topk's radix selection passes over the whole tensor whatever k is: log k;
#   linear   work per kept element (DGC's nonzero and gathers, random-k's scatter, PowerSGD's
#            products and Gram-Schmidt by rank);
#   sectors  a scatter of k sorted (ascending-block) indices into n zeros: 24 bytes streamed
#            per kept element (int32 index read, int64 written, both read back, the fp32
#            value read) plus 64 bytes per touched 32-byte sector (a partial sector: read
#            and written back), sectors touched = n/8 (1 - (1 - d)^8): sublinear in k at
#            high density (many kept elements share a sector);
#   gather   random-k's gather of k elements at random indices (with replacement) of n:
#            20 bytes per kept element (int64 index written by randint and read back, fp32
#            value written) plus 32 bytes per sector read from DRAM: the first touches of the
#            gradient's n/8 sectors, n/8 (1 - exp(-8d)) (L2 is cold: the profile flushes it),
#            and the re-touches k - that, missed in the share 1 - L2/footprint of the
#            footprint (gradient 4n bytes + the kernel's index and value streams 12k) beyond
#            the L2 (0 while it fits): saturating while the gradient stays in L2, linear in
#            k beyond it;
#   passes   QSGD's decode by code width: the elementwise passes over n elements its kernel
#            runs (bench/gpu/codec_settings.py dec_qsgd_packed): 16 bits a cast and a scale
#            (2), 8 bits a cast, the offset subtraction and the scale (3), 2 and 4 bits the
#            unpacking shift and mask before those (5); a pass costs about the same at any
#            element width (the uint8 shift and mask of 4-bit codes cost as the fp32 passes).


def coordinate(scale, v, n, l2_bytes=0.0):
    """sim/stack/stack_law.c's coordinate, line for line: where setting v lies, at n elements,
    in the coordinate the law is linear in."""
    import math
    if scale == "log":
        return math.log(v)
    if scale == "sectors":
        d = min(max(v, 0.0), 1.0)
        return 24 * d + 8 * (1 - (1 - d) ** 8)
    if scale == "gather":
        d = max(v, 0.0)
        first = 1 - math.exp(-8 * d)  # sectors touched, per sector
        miss = max(0.0, 1 - l2_bytes / (n * (4 + 12 * d))) if n > 0 else 0.0
        return 20 * d + 4 * first + 32 * max(d - first / 8, 0.0) * miss
    if scale == "passes":
        return 2.0 if v >= 16 else 3.0 if v >= 8 else 5.0
    return v


def qsgd_bits(levels):
    """bench/gpu/codec_settings.py's qsgd_width_bits, and gcsim_stack_qsgd_bits."""
    import math
    need = 1 + math.ceil(math.log2(levels + 1) - 1e-12)
    for w in (2, 4, 8, 16):
        if need <= w:
            return w
    return 32


def settings_tables(runs, dtype="fp32"):
    """{(family, phase): {setting: {"elements": [...], "host_us": H, "gpu_us": [...]}}}
    from codec_settings.py runs (QSGD keyed by code width, its levels of one width pooled);
    plus, for each kernel of SAME_KERNEL, (kernel, phase): the table of its names' samples
    pooled."""
    import statistics
    samples = {}
    for run in runs:
        for o in run["ops"]:
            if "error" in o or o["phase"] == "copy" or o["dtype"] != dtype:
                continue
            v = qsgd_bits(o["value"]) if o["family"] == "qsgd" else o["value"]
            keys = [(o["family"], o["phase"], v)]
            if (o["family"], o["phase"]) in SAME_KERNEL:
                keys.append((SAME_KERNEL[(o["family"], o["phase"])], o["phase"], v))
            for key in keys:
                samples.setdefault(key, {}).setdefault(o["elements"], []).append(
                    (o["host_back_to_back_us"], o["gpu_busy_us"]))
    out = {}
    for (fam, phase, v), by_size in samples.items():
        sizes = sorted(by_size)
        host = [b for e in sizes for (b, g) in by_size[e] if b > HOST_BOUND * g]
        out.setdefault((fam, phase), {})[v] = {
            "elements": sizes,
            "host_us": statistics.median(host) if host else 0.0,
            "gpu_us": [statistics.median(g for (_, g) in by_size[e]) for e in sizes]}
    return out


def shape_table(tables, fam, phase):
    """The table a family's law takes its shape by setting from: its kernel's pooled one
    where two names run one kernel (SAME_KERNEL), else its own."""
    return tables.get((SAME_KERNEL.get((fam, phase), fam), phase), {})


def setting_law(settings, parameter, scale, beyond, l2_bytes=0.0):
    """A law by setting from tables {v: {"elements", "host_us" (one number or per size),
    "gpu_us"}} (all of one size grid)."""
    vs = sorted(settings)
    el = settings[vs[0]]["elements"]
    per = lambda h: h if isinstance(h, list) else [h] * len(el)
    law = {"elements": el, "parameter": parameter, "scale": scale, "beyond": beyond,
           "settings": [{"at": v, "host_us": per(settings[v]["host_us"]),
                         "gpu_us": settings[v]["gpu_us"]} for v in vs]}
    if scale == "gather":
        law["l2_bytes"] = l2_bytes
    return law


def _interp_size(law, ys, n, grows):
    xs = law["elements"]
    if n <= xs[0]:
        return ys[0]
    if n >= xs[-1]:
        return ys[-1] * n / xs[-1] if grows else ys[-1]
    i = 1
    while xs[i] < n:
        i += 1
    return ys[i - 1] + (ys[i] - ys[i - 1]) * (n - xs[i - 1]) / (xs[i] - xs[i - 1])


def at_setting(law, v, n):
    """(host_us, gpu_us) of a law by setting at setting v and n elements on its own GPU:
    sim/stack/stack_law.c's at_setting, line for line. Linear in the law's coordinate
    between the two measured settings around v; beyond them the nearest segment continued
    with a slope per unit of coordinate never below 0 (cost never falls as the work grows),
    never below zero; below the smallest setting of a log law the GPU part is held."""
    st = law["settings"]
    scale, l2 = law["scale"], law.get("l2_bytes", 0.0)
    k, i, j = len(st), 0, 0
    x = x0 = x1 = 0.0
    extends = law["beyond"] == "extends"
    if k > 1:
        if v <= st[0]["at"]:
            i, j = 0, 1
        elif v >= st[-1]["at"]:
            i, j = k - 2, k - 1
        else:
            j = 1
            while st[j]["at"] < v:
                j += 1
            i = j - 1
        x, x0, x1 = (coordinate(scale, u, n, l2) for u in (v, st[i]["at"], st[j]["at"]))
    # two settings at one coordinate (QSGD's 2 and 4 bits): v's own, else the lower
    w = (x - x0) / (x1 - x0) if x1 != x0 else (1.0 if k > 1 and v >= st[j]["at"] else 0.0)
    h0 = _interp_size(law, st[i]["host_us"], n, False)
    h1 = _interp_size(law, st[j]["host_us"], n, False)
    g0 = _interp_size(law, st[i]["gpu_us"], n, True)
    g1 = _interp_size(law, st[j]["gpu_us"], n, True)
    hs = (h1 - h0) / (x1 - x0) if x1 != x0 else 0.0
    gs = (g1 - g0) / (x1 - x0) if x1 != x0 else 0.0
    if w < 0:
        host = max(h0 + max(hs, 0) * (x - x0), 0) if extends else h0
        gpu = g0 if scale == "log" else max(g0 + max(gs, 0) * (x - x0), 0)
        return host, gpu
    if w <= 1:
        return h0 + (h1 - h0) * w, g0 + (g1 - g0) * w
    host = h1 + max(hs, 0) * (x - x1) if extends else h1
    return host, g1 + max(gs, 0) * (x - x1)


def leave_one_out(tables, per_run=(), l2_bytes=0.0):
    """Every family and phase with >= 3 settings: each setting predicted from the others by
    its law form (the shape from shape_table, the setting left out under every name of its
    kernel), against its own table, at every size. Rows (family, phase, setting, elements,
    predicted us, measured us, error, spread) of max(host, GPU), what gcsim charges;
    spread: the run-to-run range of the measured value (max/min - 1 over the tables of
    per_run, one per run), 0 without them."""
    import statistics
    rows = []
    for prefix, (fam, parameter, forms, _) in SETTING_LAWS.items():
        for phase in ("encode", "decode"):
            t, shape = tables.get((fam, phase), {}), shape_table(tables, fam, phase)
            if len(t) < 3:
                continue
            scale, beyond = forms[phase]
            for out in sorted(t):
                rest = {v: x for v, x in shape.items() if v != out}
                if fam not in HOST_BY_SETTING:  # one host time: the others' median
                    pooled = statistics.median(x["host_us"] for x in rest.values())
                    rest = {v: dict(x, host_us=pooled) for v, x in rest.items()}
                law = setting_law(rest, parameter, scale, beyond, l2_bytes)
                for i, n in enumerate(t[out]["elements"]):
                    h, g = at_setting(law, out, n)
                    pred = max(h, g)
                    meas = max(t[out]["host_us"], t[out]["gpu_us"][i])
                    each = [max(r[(fam, phase)][out]["host_us"], r[(fam, phase)][out]["gpu_us"][i])
                            for r in per_run if out in r.get((fam, phase), {})]
                    spread = max(each) / min(each) - 1 if len(each) > 1 else 0.0
                    rows.append((fam, phase, out, n, pred, meas, pred / meas - 1, spread))
    return rows


def l2_of(runs):
    """The settings run's L2 capacity in bytes (L2_SOURCE); every run must agree."""
    sizes = {r["provenance"].get("gpu_l2_cache_bytes") for r in runs}
    if len(sizes) != 1 or not isinstance(next(iter(sizes)), int):
        raise ValueError("settings runs disagree on, or lack, gpu_l2_cache_bytes: %s" % sizes)
    return sizes.pop()


def _ratio_at(table, v, ref, n):
    """The settings run's GPU time at setting v over the reference setting's, at n elements
    (the nearest measured size's ratio outside its sizes, linear between them)."""
    el = table[v]["elements"]
    r = [a / b if b > 0 else 1.0 for a, b in zip(table[v]["gpu_us"], table[ref]["gpu_us"])]
    if n <= el[0]:
        return r[0]
    if n >= el[-1]:
        return r[-1]
    i = 1
    while el[i] < n:
        i += 1
    return r[i - 1] + (r[i] - r[i - 1]) * (n - el[i - 1]) / (el[i] - el[i - 1])


def stack_setting_laws(laws, tables, where, sgpu="h200", l2_bytes=0.0):
    """Replaces laws (of the reference GPU, one setting each) by laws by setting: the
    reference law at its setting, times the settings run's ratios at the others (module
    docstring). Returns the names of the laws it replaced or added."""
    r1 = lambda x: round(x, 1)
    done = []

    def by_ratio(law, t, ref, v, fam):
        hr = t[v]["host_us"] / t[ref]["host_us"] if t[ref]["host_us"] > 0 else 1.0
        if fam not in HOST_BY_SETTING:
            hr = 1.0
        if v == ref:
            return list(law["host_us"]), list(law["gpu_us"])
        return ([r1(h * hr) for h in law["host_us"]],
                [r1(g * _ratio_at(t, v, ref, n)) for g, n in zip(law["gpu_us"], law["elements"])])

    def make(name, base, parameter, form, ref, settings, how):
        scale, beyond = form
        laws[name] = {"gpu": base["gpu"], "elements": base["elements"], "parameter": parameter,
                      "scale": scale, "beyond": beyond, "reference": ref}
        if scale == "gather":
            laws[name]["l2_bytes"] = l2_bytes
            how += "; l2_bytes: the %s's L2 as the device reports it (%s)" % (sgpu, L2_SOURCE)
        laws[name]["settings"] = settings
        laws[name]["source"] = ("by setting (bench/gpu/make_stack_laws.py --settings): %s; "
                                "settings from %s" % (how, where))
        done.append(name)

    for prefix, (fam, parameter, forms, ref) in SETTING_LAWS.items():
        if prefix == "powersgd":
            continue
        dec = {}
        for phase in ("encode", "decode"):
            base, t = laws["%s.%s" % (prefix, phase)], shape_table(tables, fam, phase)
            if (fam, phase) in SAME_KERNEL:
                fam_how = "%s %s (the %s kernel: its names' samples pooled)" % (
                    fam, phase, SAME_KERNEL[(fam, phase)])
            else:
                fam_how = "%s %s" % (fam, phase)
            what = ("%s kernel (top-k's and DGC's decode pooled)" % SAME_KERNEL[(fam, phase)]
                    if (fam, phase) in SAME_KERNEL else "%s %s" % (fam, phase))
            sts = []
            for v in sorted(t):
                h, g = by_ratio(base, t, ref, v, fam)
                dec[v] = (h, g)
                sts.append({"at": v, "basis": "measured on %s" % base["gpu"] if v == ref else
                            "%s law at %g x %s ratio" % (base["gpu"], ref, sgpu),
                            "host_us": h, "gpu_us": g,
                            "source": "measured: %s" % base["source"][10:] if v == ref else
                            "derived: the %g law x the settings run's %s %g / %g (GPU per "
                            "size; host %s)" % (ref, what, v, ref,
                                                "one ratio" if fam in HOST_BY_SETTING else
                                                "as at %g: the same ops" % ref)})
            make("%s.%s" % (prefix, phase), base, parameter, forms[phase], ref, sts, fam_how)
            if phase == "decode" and "%s.decode_add" % prefix in laws:
                da = laws["%s.decode_add" % prefix]
                sts = []
                for v in sorted(t):
                    h = [x if v == ref else r1(x + a - b) for x, a, b in
                         zip(da["host_us"], dec[v][0], dec[ref][0])]
                    g = [x if v == ref else r1(x + a - b) for x, a, b in
                         zip(da["gpu_us"], dec[v][1], dec[ref][1])]
                    sts.append({"at": v, "basis": "measured on %s" % da["gpu"] if v == ref else
                                "%s law at %g + %s decode diff." % (da["gpu"], ref, sgpu),
                                "host_us": h, "gpu_us": g,
                                "source": da["source"] if v == ref else
                                "derived: the %g law plus %s.decode's difference at %g (the add "
                                "does not depend on the setting)" % (ref, prefix, v)})
                make("%s.decode_add" % prefix, da, parameter, forms["decode"], ref,
                     sts, "%s decode + an add" % fam)
    # PowerSGD: ranks 1, 2, 4 measured on the reference GPU; above, rank 4 x the ratio
    fam, parameter, forms, _ = SETTING_LAWS["powersgd"]
    for part in ("encode", "decode", "gs"):
        t = tables[(fam, "encode" if part == "gs" else part)]
        sts = []
        for v in sorted(t):
            if v in (1, 2, 4):
                base = laws["powersgd_r%d.%s" % (v, part)]
                sts.append({"at": v, "basis": "measured on %s" % base["gpu"],
                            "host_us": base["host_us"], "gpu_us": base["gpu_us"],
                            "source": base["source"]})
                continue
            base = laws["powersgd_r4.%s" % part]
            if part == "gs":  # its time is the host's loop over columns: encode's host ratio
                k = t[v]["host_us"] / t[4]["host_us"]
                h, g = [r1(x * k) for x in base["host_us"]], [r1(x * k) for x in base["gpu_us"]]
                how = "encode's host time %g / 4 (Gram-Schmidt's loop over the columns)" % v
            else:
                h, g = by_ratio(base, t, 4, v, fam)
                how = "%s %g / 4 (GPU per size, host one ratio)" % (part, v)
            sts.append({"at": v, "basis": "%s law at 4 x %s ratio" % (base["gpu"], sgpu),
                        "host_us": h, "gpu_us": g,
                        "source": "derived: the rank-4 law x the settings run's powersgd " + how})
        make("powersgd.%s" % part, laws["powersgd_r4.%s" % part], parameter,
             forms["encode" if part == "gs" else part], 1, sts, "powersgd " + part)
    for r in (1, 2, 4):
        for part in ("encode", "decode", "gs"):
            del laws["powersgd_r%d.%s" % (r, part)]
    return done


# what the laws by setting change in the entries' descriptions
SOURCES = {
    "qsgd": [("sign and level in one int8;", "sign and level bit-packed at 2, 4, 8 or 16 bits "
              "(the width s needs, rounded up; bench/gpu/codec_settings.py, the payload the "
              "compressor sends);")],
    "powersgd": [("(powersgd_rK.gs)", "(powersgd.gs)")],
}


# settings a stack's implementation never runs: GRACE's qsgd (Horovod) casts the signed level
# to int8 (s < 128) or int16, never bit-packs (grace_dl/dist/compressor/qsgd.py), so its laws
# have the 8- and 16-bit settings only (narrower widths: held at 8, stack_law.c); GRACE's
# TensorFlow qsgd (horovod-tf) casts the same way
UNPACKED = {name: {"qsgd.encode", "qsgd.decode", "qsgd.decode_add"} for name in ("horovod", "horovod-tf")}


def setting_ops(stack):
    """A stack's PowerSGD ops on the laws by rank: the rank-1 ops, on powersgd.X, without
    their rank; the other ranks' ops dropped (the laws now carry the rank)."""
    for entry in stack.get("compressors", {}).values():
        for key in ("encode", "unpack", "between", "decode"):
            if key not in entry:
                continue
            ops = []
            for op in entry[key]:
                if "rank" not in op:
                    ops.append(op)
                elif op["rank"] == 1:
                    op = dict(op, law="powersgd." + op["law"].split(".", 1)[1])
                    del op["rank"]
                    ops.append(op)
            entry[key] = ops


def law_from_run(ops, name):
    sizes = sorted(e for (op, e) in ops if op == name)
    host, gpu, last_host = [], [], None
    for e in sizes:
        o = ops[(name, e)]
        b2b, busy = o["host_back_to_back_us"], o["gpu_busy_us"]
        if b2b > HOST_BOUND * busy:
            last_host = b2b
        host.append(last_host)
        gpu.append(busy)
    first = next((h for h in host if h is not None), 0.0)
    host = [first if h is None else h for h in host]
    return {"elements": sizes, "host_us": host, "gpu_us": gpu}


# torch.randperm(n, device="cuda") as torch 2.x runs it (aten/src/ATen/native/cuda/Randperm.cu,
# pytorch/pytorch @0715ee70; docs/stacks.md, "Random-k drawn with torch.randperm"): arange(n)
# as the values (int64, 8 B written), n random keys of `bits` bits (int32 keys when bits <= 32,
# else int64: 4 or 8 B written), cub's radix_sort_pairs over bits [0, bits): onesweep on sm_70+
# with 8 radix bits per pass (cub dispatch_radix_sort.cuh Policy800/900: ONESWEEP for keys of
# >= 4 bytes, ONESWEEP_RADIX_BITS 8): one histogram kernel reading every key once, an
# exclusive sum, then per pass a memset of the look-back and one kernel reading and writing
# every key and value; then randperm_handle_duplicate_keys reading every key once. GPU time =
# kernels x the measured GPU time of a small kernel + bytes / the measured copy rate.
RANDPERM_LOG_Q12 = 12 * math.log(0.9)  # Randperm.cu: log_threshold_12 = std::log(0.9) * 12
RANDPERM_SINGLE_TILE = 2304  # cub SingleTilePolicy 256 threads x 19 items x 4 / 8 B (values)


def randperm_bits(n):
    """Randperm.cu: ceil(log2(n - (6 n^2 + 1) / (12 log 0.9))), at most 64."""
    return min(64, math.ceil(math.log2(n - (6.0 * n * n + 1) / RANDPERM_LOG_Q12)))


def randperm_passes(n):
    """(kernels, bytes per element) of one torch.randperm(n) on the GPU."""
    key = 4 if randperm_bits(n) <= 32 else 8
    if n <= RANDPERM_SINGLE_TILE:
        return 4, 8 + key + 2 * (key + 8) + key  # arange, keys, one tile sorted, duplicates
    p = math.ceil(randperm_bits(n) / 8)
    return 6 + 2 * p, 8 + key + key + p * 2 * (key + 8) + key


def randperm_law(copy, run, gpu, where):
    """The randperm.sort law: modelled from the passes above, anchored on the run's measured
    copy rate (copy_d2d's GPU time at its largest size: 8 B per element) and its GPU time per
    small kernel (launch_latency.cuda_graph_replay). Host part 0: the call's dispatch is
    already in randomk.encode's measured torch.randint, and its extra launches' host time
    is not counted (a lower bound)."""
    n_big, t_big = copy["elements"][-1], copy["gpu_us"][-1]
    bytes_per_us = 8.0 * n_big / t_big
    kernel_us = run["references"]["launch_latency"]["cuda_graph_replay"]["per_kernel_us_median"]
    gpu_us = []
    for n in copy["elements"]:
        k, b = randperm_passes(n)
        gpu_us.append(round(k * kernel_us + b * n / bytes_per_us, 1))
    return {"gpu": gpu, "elements": copy["elements"], "basis": "modelled from its kernels' passes",
            "host_us": [0.0] * len(gpu_us), "gpu_us": gpu_us,
            "source": "modelled, not measured: torch.randperm(n) on the GPU as torch 2.x runs "
                      "it (pytorch/pytorch aten/src/ATen/native/cuda/Randperm.cu @0715ee70: "
                      "arange, random keys of ceil(log2(n + 4.75 n^2)) bits, cub "
                      "radix_sort_pairs at 8 bits per onesweep pass, duplicate-key fix-up): "
                      "kernels x %.3f us (measured GPU time per small kernel, cuda_graph_replay) "
                      "+ bytes x n / %.0f GB/s (copy_d2d's measured GPU rate at %d elements), "
                      "both from %s; per call %s; host 0 (the dispatch is in randomk.encode's "
                      "randint; extra launches not counted: a lower bound) "
                      "(bench/gpu/make_stack_laws.py randperm_law)"
                      % (kernel_us, bytes_per_us / 1e3, n_big, where,
                         ", ".join("%d B x %d kernels at %d" % (randperm_passes(n)[1],
                                                                randperm_passes(n)[0], n)
                                   for n in copy["elements"]))}


def evaluate(law, n):
    """The law on its own GPU: max(host, gpu), linear between points, clamped below."""
    xs = law["elements"]

    def interp(ys, grows):
        if n <= xs[0]:
            return ys[0]
        if n >= xs[-1]:
            return ys[-1] * n / xs[-1] if grows else ys[-1]
        i = 1
        while xs[i] < n:
            i += 1
        return ys[i - 1] + (ys[i] - ys[i - 1]) * (n - xs[i - 1]) / (xs[i] - xs[i - 1])
    return max(interp(law["host_us"], False), interp(law["gpu_us"], True))


def dumps(value, indent=0):
    """JSON with one key per line, but lists of numbers and flat objects (an op) on one
    line, so that a stack file reads as a table."""
    pad = " " * indent
    flat = lambda v: not isinstance(v, (list, dict))
    if isinstance(value, dict):
        if all(flat(v) for v in value.values()) and len(json.dumps(value)) < 110:
            return json.dumps(value)
        items = ['%s"%s": %s' % (pad + " ", k, dumps(v, indent + 1)) for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        if all(flat(v) for v in value):
            return json.dumps(value)
        items = [pad + " " + dumps(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("--gpu", required=True, help="gcsim GPU type the run was on")
    ap.add_argument("--update", nargs="*", default=[], help="stack files whose laws to replace")
    ap.add_argument("--settings", nargs="*", default=[],
                    help="codec_settings.py runs (primary first, then repeats): laws by setting")
    a = ap.parse_args(argv)
    with open(a.run) as f:
        run = json.load(f)
    ops = {(o["op"], o["elements"]): o for o in run["ops"] if "error" not in o}
    prov = run["provenance"]
    where = "%s (%s, torch %s, %s)" % (a.run, prov.get("gpu_name"), prov.get("torch"),
                                       prov.get("date_utc"))
    one_op_us = run["references"]["launch_latency"]["per_call_us_enqueue_only"]
    laws = {}

    def add(key, law, how):
        laws[key] = {"gpu": a.gpu, "elements": law["elements"],
                     "host_us": [round(x, 1) for x in law["host_us"]],
                     "gpu_us": [round(x, 1) for x in law["gpu_us"]],
                     "source": "measured: %s; %s (bench/gpu/make_stack_laws.py)" % (where, how)}

    copy = law_from_run(ops, "copy_d2d")
    add("copy", copy, "copy_d2d, device-to-device copy of the fp32 tensor")
    for prefix, name in CODECS:
        for part in ("encode", "decode"):
            add("%s.%s" % (prefix, part), law_from_run(ops, "%s.%s" % (name, part)),
                "%s.%s" % (name, part))
    # decode + add per received payload, scaled to the measured decode-then-add
    acc = run["decode_accumulate"]
    scales = {}
    for prefix, name in CODECS:
        if prefix not in ACCUMULATE:
            continue
        dec = law_from_run(ops, "%s.decode" % name)
        composed = {"elements": dec["elements"],
                    "host_us": [h + one_op_us for h in dec["host_us"]],
                    "gpu_us": [g + ADD_BYTES_OVER_COPY * c for g, c in zip(dec["gpu_us"], copy["gpu_us"])]}
        ref = ACCUMULATE[prefix]
        per = [x["per_payload_us"] for x in acc
               if x["codec"] == ref and x.get("variant") == "decode_then_add" and "error" not in x]
        n = acc[0]["elements"]
        ref_dec = law_from_run(ops, "%s.decode" % ref)
        i, j = ref_dec["elements"].index(n), copy["elements"].index(n)
        ref_host = ref_dec["host_us"][i] + one_op_us
        ref_gpu = ref_dec["gpu_us"][i] + ADD_BYTES_OVER_COPY * copy["gpu_us"][j]
        k = sum(per) / len(per) / max(ref_host, ref_gpu)
        # the scale goes to the part that sets the time at the measured size
        bound = "host_us" if ref_host >= ref_gpu else "gpu_us"
        scales[prefix] = (k, ref, n, bound)
        composed[bound] = [x * k for x in composed[bound]]
        add("%s.decode_add" % prefix, composed,
            "%s.decode + an add (one op of host time, copy x %.1f of GPU time); its %s x %.3f to "
            "match the measured decode-then-add of %s at %d elements (mean per payload over %d "
            "worker counts), where that part sets the time" %
            (name, ADD_BYTES_OVER_COPY, bound.split("_")[0], k, ref, n, len(per)))
    laws["randperm.sort"] = randperm_law(copy, run, a.gpu, where)
    for r in (1, 2, 4):
        t = [b["median_us"] for b in run["powersgd_breakdown"]
             if b["rank"] == r and b["part"] == "gram_schmidt"]
        e = sorted(b["elements"] for b in run["powersgd_breakdown"]
                   if b["rank"] == r and b["part"] == "gram_schmidt")
        m = sorted(t)[len(t) // 2]
        add("powersgd_r%d.gs" % r, {"elements": e, "host_us": [m] * len(e), "gpu_us": [m] * len(e)},
            "powersgd_breakdown gram_schmidt, rank %d: %s us at %s elements (the median of "
            "both as host and GPU time: it does not depend on the size)" %
            (r, ", ".join("%.1f" % x for x in t), ", ".join(str(x) for x in e)))

    # the check: each law against the run's back-to-back and event-timed medians
    print("law | elements | law us | back-to-back us | law/b2b | event median us", file=sys.stderr)
    ratios = []
    for prefix, name in [("copy", "copy_d2d")] + [(p + "." + s, n + "." + s) for p, n in CODECS
                                                   for s in ("encode", "decode")]:
        for e in laws[prefix]["elements"]:
            o = ops[(name, e)]
            v = evaluate(laws[prefix], e)
            ratios.append(v / o["host_back_to_back_us"])
            print("%s | %d | %.1f | %.1f | %.2f | %.1f" % (prefix, e, v, o["host_back_to_back_us"],
                                                           v / o["host_back_to_back_us"],
                                                           o["median_us"]), file=sys.stderr)
    ratios.sort()
    print("law / back-to-back over %d points: median %.2f, min %.2f, max %.2f" %
          (len(ratios), ratios[len(ratios) // 2], ratios[0], ratios[-1]), file=sys.stderr)
    for p, (k, ref, n, bound) in sorted(scales.items()):
        print("decode_add scale %s: %s x %.3f (from %s at %d elements)" % (p, bound, k, ref, n),
              file=sys.stderr)

    if a.settings:
        sruns = []
        for path in a.settings:
            with open(path) as f:
                sruns.append(json.load(f))
        sp = sruns[0]["provenance"]
        swhere = "%s (%s, torch %s, driver %s, %s; medians over %d runs: %s)" % (
            a.settings[0], sp.get("gpu_name"), sp.get("torch"),
            sp.get("driver_version", sp.get("nvidia_smi", {}).get("stdout", "?").split("\n")[-1]
                   .split(",")[0].strip()),
            sp.get("date_utc"), len(sruns), ", ".join(a.settings))
        tables = settings_tables(sruns)
        l2 = l2_of(sruns)
        done = stack_setting_laws(laws, tables, swhere,
                                  (sp.get("gpu_name") or "settings run").split()[-1].lower(), l2)
        print("laws by setting: %s" % ", ".join(done), file=sys.stderr)
        rows = leave_one_out(tables, [settings_tables([r]) for r in sruns], l2)
        over = [r for r in rows if abs(r[6]) > 0.25]
        print("leave-one-setting-out: %d points, %d over 25%% (%d beyond the run-to-run spread)"
              % (len(rows), len(over), sum(1 for r in over if abs(r[6]) > r[7])), file=sys.stderr)

    if not a.update:
        json.dump(laws, sys.stdout, indent=1)
        print()
        return 0
    for path in a.update:
        with open(path) as f:
            stack = json.load(f)
        stack["laws"] = json.loads(json.dumps(laws))
        for name in UNPACKED.get(stack.get("name"), ()):
            if name in stack["laws"]:
                stack["laws"][name]["settings"] = [x for x in stack["laws"][name]["settings"]
                                                   if x["at"] >= 8]
                # no unpacking passes to count: narrower widths run as 8 bits (log, held)
                stack["laws"][name].update(scale="log", beyond="held")
        if a.settings:
            setting_ops(stack)
            for name, text in SOURCES.items():
                if name in stack.get("compressors", {}) and "source" in stack["compressors"][name]:
                    old = stack["compressors"][name]["source"]
                    for was, now in text:
                        old = old.replace(was, now)
                    stack["compressors"][name]["source"] = old
        with open(path, "w") as f:
            f.write(dumps(stack) + "\n")
        print("updated the laws of %s" % path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
