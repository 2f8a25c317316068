#!/usr/bin/env python3
"""A DES timeline as Perfetto reads it (docs/des.md "Timeline").

    timeline_check.py GCSIM REPO WORKDIR

`gcsim predict --engine des --timeline FILE` without --gpus on an 8-GPU-per-machine
platform (so 16 GPUs on 2 machines), for a ring all-reduce (fp32) and an all-gather
(QSGD, with encode and decode slices), checks that
- the file is created with mode 0666 & ~umask (two umasks, so no mode is hard-coded);
- every event has a non-empty "cat" (metadata and counters too);
- every pid is >= 1 and has a process_name, every (pid, tid) with slices a thread_name;
- no two slices on one (pid, tid) overlap, compared in exact integer nanoseconds, and
  every ts and dur gives the same nanosecond parsed exactly, truncated or rounded;
- every X event has args with its kind; transfer slices name bucket, phase and bytes;
- every flow start ("s") has exactly one finish ("f") with its id, no earlier, and each
  end lies inside a slice of its own track;
- the slices end at the iteration time predict prints (to the nanosecond);
- each endpoint's "transfer rate" counter integrates to the bytes its transfer slices
  sent, and ends at 0;
- per-tensor codec slices (QSGD): on a track named "compression (per tensor)", every
  encode and decode bucket slice is tiled exactly (to the nanosecond) by one slice per
  layer of the bucket, each apportioned in proportion to its modelled seconds (within
  2 ns), whose modelled seconds add up to the bucket's; every GPU encodes every layer of
  the model once, with the seconds `predict --tensors` prints for it; fp32 has none.
"""
import json
import os
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def ns(v):
    """A ts or dur (microseconds, parsed as Decimal) in integer nanoseconds."""
    return int(v * 1000)


def run(gcsim, repo, args, umask):
    def set_umask():
        os.umask(umask)
    r = subprocess.run([gcsim] + args, capture_output=True, text=True, cwd=repo,
                       preexec_fn=set_umask, timeout=120)
    if r.returncode != 0:
        print("gcsim %s -> %d: %s" % (" ".join(args), r.returncode, r.stderr))
        sys.exit(1)
    return r


def one(gcsim, repo, work, compressor, umask, stack):
    path = os.path.join(work, "timeline-%s-%s.json" % (compressor.split(":")[0], stack))
    if os.path.exists(path):
        os.unlink(path)
    r = run(gcsim, repo, ["predict", "--platform", "platforms/cloud-v100-25gbe.json",
                          "--model", "models/resnet-50.json", "--engine", "des",
                          "--stack", stack,
                          "--compressor", compressor, "--timeline", path, "--format", "json"],
            umask)
    check("16 GPUs (2 machines of 8)" in r.stderr, "no --gpus: says it uses 16 GPUs: %r" % r.stderr)
    iteration_s = json.loads(r.stdout)["rows"][0]["iteration_s"]
    mode = os.stat(path).st_mode & 0o777
    check(mode == 0o666 & ~umask, "%s: mode %o, umask %03o" % (path, mode, umask))

    events = json.load(open(path), parse_float=Decimal)["traceEvents"]
    process_names, thread_names = set(), set()
    track_names = {}  # (pid, tid) -> thread name
    codec = {}  # (pid, kind, bucket) -> (start_ns, end_ns, modelled_s) of a bucket slice
    tensors = defaultdict(list)  # (pid, kind, bucket) -> [(start_ns, end_ns, args, tid)]
    slices = defaultdict(list)  # (pid, tid) -> [(start_ns, end_ns)]
    starts, finishes = {}, defaultdict(list)
    kinds = set()
    counters = defaultdict(list)  # pid -> [(ts_ns, sent_Bps)], in file order
    sent = defaultdict(Decimal)   # pid -> bytes_sent over its transfer slices
    for e in events:
        ph, pid = e.get("ph"), e.get("pid")
        check(isinstance(pid, int) and pid >= 1, "pid %r >= 1: %r" % (pid, e))
        # some trace libraries need a category on every event, metadata and counters
        # included (issue 29)
        check(isinstance(e.get("cat"), str) and e["cat"], "event has a cat: %r" % e)
        if ph == "M":
            if e["name"] == "process_name":
                process_names.add(pid)
            elif e["name"] == "thread_name":
                thread_names.add((pid, e["tid"]))
                track_names[(pid, e["tid"])] = e["args"]["name"]
            check(isinstance(e.get("args"), dict) and e["args"], "metadata has args: %r" % e)
        elif ph == "X":
            t0 = ns(Decimal(e["ts"]))
            for key in ("ts", "dur"):
                # exact, truncated (older Perfetto) and rounded (current) readings agree
                exact, as_double = ns(Decimal(e[key])), float(e[key]) * 1000.0
                check(int(as_double) == exact == round(as_double),
                      "%s %s: %d ns exact, %r as a double" % (key, e[key], exact, as_double))
            slices[(pid, e["tid"])].append((t0, t0 + ns(Decimal(e["dur"]))))
            args = e.get("args")
            check(isinstance(args, dict) and args.get("kind"), "X event with args: %r" % e)
            if isinstance(args, dict):
                kinds.add(args.get("kind"))
                span = (t0, t0 + ns(Decimal(e["dur"])))
                k = args.get("kind")
                if k in ("encode", "decode"):
                    key = (pid, k, args.get("bucket"))
                    check(key not in codec, "one %s slice per bucket and GPU: %r" % (k, key))
                    codec[key] = span + (Decimal(args.get(k + "_s", -1)),)
                elif k in ("encode-tensor", "decode-tensor"):
                    tensors[(pid, k.split("-")[0], args.get("bucket"))].append(
                        span + (args, e["tid"]))
                if args.get("kind") == "transfer" and "bytes_sent" in args:
                    sent[pid] += Decimal(args["bytes_sent"]) if ns(Decimal(e["dur"])) > 0 else 0
                if args.get("kind") == "transfer":
                    check(all(k in args for k in ("bucket", "phase", "bytes_sent", "bytes_received")),
                          "transfer args: %r" % e)
        elif ph == "s":
            check(e["id"] not in starts, "flow id %r started twice" % e["id"])
            starts[e["id"]] = e
        elif ph == "f":
            finishes[e["id"]].append(e)
        elif ph == "C":
            a = e.get("args", {})
            check(a.get("sent_Bps", -1) >= 0 and a.get("received_Bps", -1) >= 0,
                  "transfer rate counter: %r" % e)
            counters[pid].append((ns(Decimal(e["ts"])), Decimal(a.get("sent_Bps", 0))))
        else:
            check(False, "unexpected event phase %r" % ph)
    check(len(process_names) >= 16, "16 GPUs named: %d process names" % len(process_names))
    for key, spans in slices.items():
        check(key[0] in process_names, "pid %d has a process_name" % key[0])
        check(key in thread_names, "(pid, tid) %r has a thread_name" % (key,))
        spans.sort()
        for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
            check(b0 >= a1, "%r: [%d, %d] ns overlaps [%d, %d] ns" % (key, a0, a1, b0, b1))

    def inside(e):
        t = ns(Decimal(e["ts"]))
        return any(a <= t <= b for a, b in slices.get((e["pid"], e["tid"]), []))

    check(len(starts) > 0, "some flow events")
    for fid, s in starts.items():
        f = finishes.get(fid, [])
        check(len(f) == 1, "flow %r: %d finishes" % (fid, len(f)))
        if len(f) == 1:
            check(f[0].get("bp") == "e", "flow finish binds to its enclosing slice")
            check(Decimal(f[0]["ts"]) >= Decimal(s["ts"]), "flow %r goes back in time" % fid)
            check(inside(s) and inside(f[0]), "flow %r ends lie inside slices" % fid)
            check(s["pid"] != f[0]["pid"], "flow %r links two endpoints" % fid)
    check(set(finishes) <= set(starts), "every flow finish has a start")
    # The sent-rate counter integrates back to the bytes the slices sent, and ends at 0.
    check({p for p, b in sent.items() if b > 0} <= set(counters),
          "a rate counter wherever something was sent")
    for pid, points in counters.items():
        points.sort(key=lambda x: x[0])  # stable: equal times keep file order
        total = sum((b[0] - a[0]) * a[1] for a, b in zip(points, points[1:])) / Decimal(10**9)
        check(points[-1][1] == 0, "pid %d: the rate ends at 0" % pid)
        check(abs(total - sent[pid]) <= Decimal("1e-6") * max(sent[pid], 1),
              "pid %d: rate integrates to %s bytes, slices sent %s" % (pid, total, sent[pid]))
    check(len(counters) >= 16, "transfer rate counters for every GPU: %d" % len(counters))
    end = max(b for spans in slices.values() for _, b in spans)
    check(abs(end - round(iteration_s * 1e9)) <= 1,
          "slices end at %d ns, predict's iteration %.9f s" % (end, iteration_s))
    if stack == "fused":  # the codec model's per-tensor figures: the fused stack's
        check_tensors(codec, tensors, track_names, compressor, gcsim, repo)
    return kinds


def check_tensors(codec, tensors, track_names, compressor, gcsim, repo):
    """Per-tensor slices tile their bucket's encode/decode slice (see the docstring)."""
    if compressor == "none":  # fused
        check(not codec and not tensors, "fp32: no codec slices")
        return
    check(len(codec) > 0, "%s: encode and decode slices" % compressor)
    check(set(tensors) == set(codec), "every codec bucket slice has per-tensor slices: "
          "%d bucket slices, %d split" % (len(codec), len(tensors)))
    for key, (b0, b1, bucket_s) in codec.items():
        parts = sorted(tensors.get(key, []), key=lambda x: (x[0], x[1]))
        if not parts:
            continue
        where = "%s pid %d bucket %r" % (key[1], key[0], key[2])
        check(all(track_names.get((key[0], p[3])) == "compression (per tensor)" for p in parts),
              "%s: per-tensor slices on the track \"compression (per tensor)\"" % where)
        check(parts[0][0] == b0 and parts[-1][1] == b1, "%s: tensors span [%d, %d] ns, the "
              "bucket [%d, %d]" % (where, parts[0][0], parts[-1][1], b0, b1))
        check(all(p[1] == q[0] for p, q in zip(parts, parts[1:])),
              "%s: per-tensor slices are contiguous" % where)
        check(sum(p[1] - p[0] for p in parts) == b1 - b0,
              "%s: durations sum to the bucket's %d ns" % (where, b1 - b0))
        modelled = [Decimal(p[2].get(key[1] + "_s", -1)) for p in parts]
        check(all(m > 0 for m in modelled), "%s: every tensor has its modelled %s_s" % (where, key[1]))
        total = sum(modelled)
        check(abs(total - bucket_s) <= Decimal("1e-9") * bucket_s,
              "%s: tensors' modelled %s s, the bucket's %s s" % (where, total, bucket_s))
        for p, m in zip(parts, modelled):
            a = p[2]
            check(a.get("apportioned") == "by modelled work" and a.get("layer")
                  and a.get("elements", 0) > 0 and a.get("bucket") == key[2],
                  "%s: per-tensor args: %r" % (where, a))
            if total > 0:
                want = Decimal(b1 - b0) * m / total
                check(abs(Decimal(p[1] - p[0]) - want) <= 2,
                      "%s %s: %d ns, %s ns by modelled work" % (where, a.get("layer"),
                                                                p[1] - p[0], want))
    # Every GPU encodes each layer of the model once, with predict --tensors' seconds.
    r = run(gcsim, repo, ["predict", "--platform", "platforms/cloud-v100-25gbe.json",
                          "--model", "models/resnet-50.json", "--compressor", compressor,
                          "--stack", "fused", "--tensors", "--format", "json"], 0o022)
    per_layer = {row["name"]: row for row in json.loads(r.stdout)["rows"]}
    pids = {k[0] for k in codec}
    for pid in pids:
        seen = defaultdict(list)
        for key, parts in tensors.items():
            if key[0] == pid and key[1] == "encode":
                for p in parts:
                    seen[p[2]["layer"]].append((p[2], key[2]))
        check(sorted(seen) == sorted(per_layer) and all(len(v) == 1 for v in seen.values()),
              "pid %d encodes every layer once: %d of %d" % (pid, len(seen), len(per_layer)))
        for name, [(a, bucket)] in ((n, v) for n, v in seen.items() if len(v) == 1):
            row = per_layer.get(name)
            if row is None:
                continue
            check(bucket == row["bucket"] and a["elements"] == row["elements"]
                  and abs(Decimal(a["encode_s"]) - Decimal(repr(row["encode_s"])))
                  <= Decimal("1e-12") * Decimal(a["encode_s"]),
                  "pid %d layer %s: timeline %r, --tensors %r" % (pid, name, a, row))


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    gcsim, repo, work = os.path.abspath(argv[1]), os.path.abspath(argv[2]), os.path.abspath(argv[3])
    os.makedirs(work, exist_ok=True)
    kinds = one(gcsim, repo, work, "none", 0o022, "fused")
    check({"forward", "backward", "exchange", "transfer"} <= kinds, "fp32 slice kinds: %s" % kinds)
    check(not kinds & {"encode-tensor", "decode-tensor"}, "fp32: no per-tensor slices")
    kinds = one(gcsim, repo, work, "qsgd", 0o002, "fused")
    check({"encode", "decode", "encode-tensor", "decode-tensor", "transfer"} <= kinds,
          "QSGD slice kinds: %s" % kinds)
    # A training stack's program, op by op: PyTorch's PowerSGD hook per bucket.
    kinds = one(gcsim, repo, work, "powersgd", 0o022, "pytorch-ddp")
    check({"encode P", "unpack", "orthogonalize, Q", "decompress", "exchange", "transfer"} <= kinds
          and not kinds & {"encode-tensor", "decode-tensor"},
          "PowerSGD hook slice kinds: %s" % kinds)
    print("ok" if not failures else "%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
