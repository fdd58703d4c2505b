#!/usr/bin/env python3
"""Fails where the files of a library call each other in a circle.

Usage: file-graph.py OBJDIR...

Each OBJDIR holds one library's object files (meson's <target>.p).  A file
calls another where its object needs (nm: U) a symbol the other defines
(T, D, B, R); a circle of such calls among a library's files fails.  A
GObject's type (*_get_type) and a debug category (*_debug) are left out:
every file of a type names them, through its cast macros and
GST_CAT_DEFAULT.
"""
import glob
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, needed = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            needed.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defined.add(parts[2])
    plumbing = {s for s in needed | defined
                if s.endswith("_get_type") or s.endswith("_debug")}
    defined -= plumbing
    needed -= plumbing
    return defined, needed


def name(obj):
    # meson names gst/clfilter/gstclfilter.c's object
    # clfilter_gstclfilter.c.o
    return os.path.basename(obj)[:-2].split("_", 1)[-1] \
        if "_" in os.path.basename(obj) else os.path.basename(obj)[:-2]


def cycle(graph):
    state, path = {}, []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if not state.get(nxt):
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if not state.get(node):
            found = visit(node)
            if found:
                return found
    return None


def main(dirs):
    failed = False
    for d in dirs:
        objs = sorted(glob.glob(os.path.join(d, "*.o")))
        if not objs:
            print(f"{d}: no object files", file=sys.stderr)
            return 1
        tables = {name(o): symbols(o) for o in objs}
        owner = {}
        for f, (defined, _) in tables.items():
            for s in defined:
                owner[s] = f
        graph = {f: {owner[s] for s in needed if s in owner and owner[s] != f}
                 for f, (_, needed) in tables.items()}
        found = cycle(graph)
        if found:
            print(f"{d}: files call each other in a circle: "
                  + " -> ".join(found), file=sys.stderr)
            failed = True
        else:
            print(f"{d}: {len(objs)} files, no circle")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
