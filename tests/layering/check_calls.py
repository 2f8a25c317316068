#!/usr/bin/env python3
"""Circles of source files calling each other (issue 44's done-when: "no circle of files
calling each other outside des/'s C/C++ pair").

    check_calls.py BUILD_DIR SOURCE_DIR [--allow A,B ...]

Reads the object files the build made for the libraries of sim/, compressors/ and traces/
(BUILD_DIR/<room>/CMakeFiles/<target>.dir/<file>.o; objects whose source is no longer in
SOURCE_DIR, left by an older build, are skipped) with `nm -P`: file A calls file B when
A leaves undefined a global symbol that B defines. A circle is a strongly connected set of
two or more files (Tarjan's algorithm). Each circle found is printed with one call per
edge that closes it; exit 1 if any circle is not in the allowed list (--allow names the
files of one permitted circle, comma-separated, by their path under the source tree),
0 otherwise; 2 on bad arguments or no object files."""
import os
import subprocess
import sys

ROOMS = ("sim", "compressors", "traces")


def objects(build, source):
    """{source path under the tree (e.g. sim/step/program.c): object path}."""
    found = {}
    for room in ROOMS:
        top = os.path.join(build, room)
        for d, _, files in os.walk(top):
            if "CMakeFiles" not in d or not d.endswith(".dir") and ".dir/" not in d + "/":
                continue
            for f in files:
                if not f.endswith(".o"):
                    continue
                rel_dir = os.path.relpath(d, build)
                parts = rel_dir.split(os.sep)
                i = parts.index("CMakeFiles")
                inner = parts[i + 2:]  # below <target>.dir
                src = os.path.join(*(parts[:i] + inner + [f[:-2]]))
                if src.startswith(os.path.join("sim", "cli")) or "fuzz" in src:
                    continue  # the command (nothing calls it) and fuzz drivers
                if not os.path.isfile(os.path.join(source, src)):
                    continue  # a file moved or removed since this object was built
                found.setdefault(src, os.path.join(d, f))
    return found


def symbols(objs):
    """{object: (defined globals, undefined names)}: one nm for many objects (-A: each line
    starts "OBJECT: "), a process per object was most of this check's CPU time."""
    result = {o: (set(), set()) for o in objs}
    objs = list(objs)
    for i in range(0, len(objs), 200):
        chunk = objs[i:i + 200]
        out = subprocess.run(["nm", "-P", "-A"] + chunk, capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            obj, sep, rest = line.partition(": ")
            if not sep or obj not in result:
                continue
            f = rest.split()
            if len(f) < 2:
                continue
            name, kind = f[0], f[1]
            defined, undefined = result[obj]
            if kind == "U":
                undefined.add(name)
            elif kind in "TDBRVWG":
                defined.add(name)
    return result


def circles(graph):
    """Strongly connected components of two or more nodes (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop(); on.discard(w); comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def main(argv):
    allowed = []
    args = list(argv)
    while "--allow" in args:
        i = args.index("--allow")
        if i + 1 >= len(args):
            print("check_calls.py: --allow needs a list of files", file=sys.stderr)
            return 2
        allowed.append(sorted(args[i + 1].split(",")))
        del args[i:i + 2]
    if len(args) != 2:
        print("usage: check_calls.py BUILD_DIR SOURCE_DIR [--allow A,B ...]", file=sys.stderr)
        return 2
    objs = objects(args[0], args[1])
    if not objs:
        print("check_calls.py: no object files under %s/{%s}" % (args[0], ",".join(ROOMS)),
              file=sys.stderr)
        return 2
    by_obj = symbols(objs.values())
    syms = {src: by_obj[o] for src, o in objs.items()}
    owner = {}
    for src, (defined, _) in syms.items():
        for name in defined:
            owner.setdefault(name, src)
    graph = {src: set() for src in syms}
    why = {}
    for src, (_, undefined) in syms.items():
        for name in sorted(undefined):
            dst = owner.get(name)
            if dst and dst != src:
                graph[src].add(dst)
                why.setdefault((src, dst), name)
    bad = 0
    found = circles(graph)
    for comp in found:
        ok = comp in allowed
        bad += not ok
        print("%s circle of %d files:" % ("allowed" if ok else "FORBIDDEN", len(comp)))
        members = set(comp)
        for a in comp:
            for b in sorted(graph[a] & members):
                print("  %s -> %s (%s)" % (a, b, why[(a, b)]))
    print("check_calls: %d files, %d calls between files, %d circles, %d forbidden"
          % (len(graph), sum(len(v) for v in graph.values()), len(found), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
