#!/usr/bin/env python3
"""The DES timeline's shared-link counter tracks (issue 41; docs/des.md "Timeline",
sim/des/des_link_rates.h), against hand values.

    link_rates_check.py GCSIM WORKDIR

Platform: 4 nodes of 1 GPU, 10 Gb/s NICs (1.25e9 B/s), a fat tree of 2 nodes per leaf, so
two leaves; a leaf's uplink is nodes_per_leaf x NIC / oversubscription (topology.c).
ResNet-50, ring all-reduce, DES, --timeline.

1. Oversubscription 4: U = 2 x 1.25e9 / 4 = 6.25e8 B/s, below the NIC, so the one ring flow
   crossing each leaf boundary per direction runs at U: every leaf link's counter is 0 or U
   (to 1e-6), reaches U, and integrates to the bytes the transfer slices send across that
   boundary (GPUs of leaf 0 to peers in leaf 1 for leaf 0's uplink and leaf 1's downlink);
   the counters sit on one process "shared links" after the endpoints and end at 0.
2. --background-load 0.5 on the leaf links: every leaf counter carries background_Bps =
   0.5 x U (the load's share of the full capacity), and carried_Bps is 0 or (1 - 0.5) U.
3. Oversubscription 1 (U = 2.5e9) with --ecmp-spines 2: each leaf link is 2 spine links of
   1.25e9 B/s; four counters per leaf (2 spines x up/down), each 0 or at most 1.25e9, and
   per leaf and direction the spines together integrate to the bytes crossing.
4. A star (no fat tree, no background load) has no "shared links" process.
5. The star with --background-load 0.5 --background-links nic: one counter per NIC and
   direction, background_Bps = 0.5 x 1.25e9, carried at most the other half, and each
   NIC's outbound counter integrates to the bytes its GPU's transfer slices send.
"""
import json
import os
import subprocess
import sys

failures = []
NIC_Bps = 10e9 / 8


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def platform(path, oversub, star=False):
    p = {"name": "ft-4x1", "nodes": 4, "gpus_per_node": 1,
         "gpu": {"type": "v100", "speed": "15.7Tflops"},
         "intra_node": {"kind": "pcie-switch", "gpu_to_host": "12GBps",
                        "gpu_to_gpu": "11GBps", "latency": "10us"},
         "nic": {"kind": "ethernet", "bandwidth": "10Gbps", "latency": "5us", "per_node": 1}}
    p["fabric"] = {"topology": "star", "switch_latency": "1us"} if star else \
        {"topology": "fat-tree", "nodes_per_leaf": 2, "oversubscription": oversub,
         "switch_latency": "1us"}
    with open(path, "w") as f:
        json.dump(p, f)


def timeline(gcsim, work, name, plat, extra):
    out = os.path.join(work, name + ".trace.json")
    argv = [gcsim, "predict", "--platform", plat, "--model", MODEL, "--gpus", "4",
            "--collective", "ring", "--engine", "des", "--timeline", out] + extra
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: %s: exit %d: %s" % (" ".join(argv), r.returncode, r.stderr))
        sys.exit(1)
    with open(out) as f:
        return json.load(f)["traceEvents"]


def ns(us):
    """A ts as the exact nanosecond (three exact decimals, then the marker digit)."""
    whole, frac = us.split(".") if isinstance(us, str) else ("%.4f" % us).split(".")
    return int(whole) * 1000 + int(frac[:3])


def series(events, pid):
    """name -> [(ns, carried, background)] of the shared links' counters, in file order."""
    out = {}
    for e in events:
        if e.get("ph") == "C" and e.get("pid") == pid:
            a = e["args"]
            out.setdefault(e["name"], []).append(
                (ns(e["ts"]), a["carried_Bps"], a.get("background_Bps")))
    return out


def integral(points):
    """Bytes under a piecewise-constant counter (each value holds until the next point)."""
    return sum((t1 - t0) * 1e-9 * v for (t0, v, _), (t1, _, _) in zip(points, points[1:]))


def crossing_bytes(events, src_leaf):
    """Bytes the transfer slices send from GPUs of src_leaf to peers in the other leaf
    (GPU g is on node g, leaf g // 2)."""
    total = 0.0
    for e in events:
        a = e.get("args", {})
        if e.get("ph") == "X" and a.get("kind") == "transfer" and "peer" in a:
            g = e["pid"] - 1
            if g // 2 == src_leaf and a["peer"] // 2 != src_leaf:
                total += a.get("bytes_sent", 0)
    return total


def shared_pid(events):
    names = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e["name"] == "process_name"}
    pids = [p for p, n in names.items() if n == "shared links"]
    return (pids[0] if pids else None), names


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1.0)


def main():
    global MODEL
    gcsim, work = sys.argv[1], sys.argv[2]
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    MODEL = os.path.join(src, "models", "resnet-50.json")
    os.makedirs(work, exist_ok=True)

    # 1. oversubscribed: every leaf link at U or idle, integrating to the crossing bytes
    plat = os.path.join(work, "ft4.json")
    platform(plat, 4)
    U = 2 * NIC_Bps / 4
    ev = timeline(gcsim, work, "oversub", plat, [])
    pid, names = shared_pid(ev)
    check(pid is not None, "oversubscribed: a 'shared links' process")
    if pid is not None:
        check(pid > max(p for p in names if p != pid), "shared links after the endpoints")
        s = series(ev, pid)
        check(sorted(s) == ["leaf 0 downlink", "leaf 0 uplink", "leaf 1 downlink",
                            "leaf 1 uplink"], "four leaf counters: %s" % sorted(s))
        for name, pts in s.items():
            vals = [v for _, v, _ in pts]
            check(all(v == 0 or close(v, U) for v in vals),
                  "%s: every value 0 or U = %g: %s" % (name, U, sorted(set(vals))))
            check(any(close(v, U) for v in vals), "%s: reaches U" % name)
            check(vals[-1] == 0, "%s: ends at 0" % name)
            check(all(t0 <= t1 for (t0, _, _), (t1, _, _) in zip(pts, pts[1:])),
                  "%s: in time order" % name)
            check(all(b is None for _, _, b in pts), "%s: no background without a load" % name)
        for leaf, up, down in ((0, "leaf 0 uplink", "leaf 1 downlink"),
                               (1, "leaf 1 uplink", "leaf 0 downlink")):
            want = crossing_bytes(ev, leaf)
            check(want > 0, "leaf %d sends across" % leaf)
            for name in (up, down):
                if name in s:
                    got = integral(s[name])
                    check(close(got, want, 1e-6),
                          "%s integrates to %.6g B, the slices send %.6g B" % (name, got, want))

    # 2. half the leaf links' capacity taken by a background load
    ev = timeline(gcsim, work, "background", plat, ["--background-load", "0.5"])
    pid, _ = shared_pid(ev)
    check(pid is not None, "background: a 'shared links' process")
    if pid is not None:
        for name, pts in series(ev, pid).items():
            check(all(b is not None and close(b, 0.5 * U) for _, _, b in pts),
                  "%s: background_Bps = 0.5 U = %g" % (name, 0.5 * U))
            vals = [v for _, v, _ in pts]
            check(all(v == 0 or close(v, 0.5 * U) for v in vals) and
                  any(close(v, 0.5 * U) for v in vals),
                  "%s: carried 0 or (1 - 0.5) U: %s" % (name, sorted(set(vals))))

    # 3. ECMP: two spine links per leaf and direction, each at most a NIC's rate
    plat1 = os.path.join(work, "ft1.json")
    platform(plat1, 1)
    ev = timeline(gcsim, work, "ecmp", plat1, ["--ecmp-spines", "2", "--ecmp-seed", "3"])
    pid, _ = shared_pid(ev)
    check(pid is not None, "ECMP: a 'shared links' process")
    if pid is not None:
        s = series(ev, pid)
        want_names = sorted(["leaf %d to spine %d" % (l, k) for l in (0, 1) for k in (0, 1)] +
                            ["spine %d to leaf %d" % (k, l) for l in (0, 1) for k in (0, 1)])
        check(sorted(s) == want_names, "eight spine counters: %s" % sorted(s))
        for name, pts in s.items():
            check(all(v <= NIC_Bps * (1 + 1e-6) for _, v, _ in pts),
                  "%s: at most one spine link's capacity" % name)
        for leaf in (0, 1):
            other = 1 - leaf
            want = crossing_bytes(ev, leaf)
            up = sum(integral(s.get("leaf %d to spine %d" % (leaf, k), [])) for k in (0, 1))
            down = sum(integral(s.get("spine %d to leaf %d" % (k, other), [])) for k in (0, 1))
            check(close(up, want), "leaf %d's spine uplinks carry %.6g B of %.6g" % (leaf, up, want))
            check(close(down, want), "leaf %d's spine downlinks carry %.6g B of %.6g"
                  % (other, down, want))

    # 4. a star has no shared links
    star = os.path.join(work, "star.json")
    platform(star, 1, star=True)
    ev = timeline(gcsim, work, "star", star, [])
    check(shared_pid(ev)[0] is None, "star: no 'shared links' process")

    # 5. a star with half of every NIC taken: one counter per NIC and direction, at most the
    # other half, each integrating to what its GPU sends (every peer is on another node)
    ev = timeline(gcsim, work, "star_nic", star, ["--background-load", "0.5",
                                                  "--background-links", "nic"])
    pid, _ = shared_pid(ev)
    check(pid is not None, "NIC load: a 'shared links' process")
    if pid is not None:
        s = series(ev, pid)
        want_names = sorted("node %d NIC 0 %s" % (k, d) for k in range(4) for d in ("in", "out"))
        check(sorted(s) == want_names, "eight NIC counters: %s" % sorted(s))
        for name, pts in s.items():
            check(all(b is not None and close(b, 0.5 * NIC_Bps) for _, _, b in pts),
                  "%s: background_Bps = 0.5 x 1.25e9" % name)
            check(all(v <= 0.5 * NIC_Bps * (1 + 1e-6) for _, v, _ in pts),
                  "%s: carries at most the other half" % name)
        for k in range(4):
            sent = sum(e["args"].get("bytes_sent", 0) for e in ev
                       if e.get("ph") == "X" and e["args"].get("kind") == "transfer"
                       and e["pid"] == k + 1)
            got = integral(s.get("node %d NIC 0 out" % k, []))
            check(sent > 0 and close(got, sent),
                  "node %d NIC out integrates to %.6g B, GPU %d sends %.6g B" % (k, got, k, sent))

    print("link_rates_check: %d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
