#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Folders depend one way: no include cycle between the modules of the libraries.

A module is a folder (core/src, core/backends/socket, mpi_compat/src/pt2pt, ...), except at the top
of mpi_compat/src, where each file stem is one (runtime, errors, messages). Every quoted
#include is resolved as the compilers resolve it (the including file's folder, then the include
folders the CMake targets give) and becomes an edge between two modules; a strongly connected
component of more than one module is a cycle, printed with the includes that make it. Exit 1 if
there is any. Usage: check_layers.py [repository root]
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
SCANNED = ["common", "core", "ucx_backend", "mpi_compat"]
INCLUDE_DIRS = ["", "core/src", "core/base", "core", "core/include", "mpi_compat/src", "mpi_compat/include",
                "mpi_compat/bootstrap"]
FLAT = ["mpi_compat/src"]  # folders whose top-level files are modules of their own


def module(rel):
    folder = os.path.dirname(rel)
    if folder in FLAT:
        return os.path.splitext(rel)[0]
    return folder + "/"


def resolve(including, name):
    for base in [os.path.dirname(including)] + INCLUDE_DIRS:
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(ROOT, candidate)):
            return candidate
    return None


def main():
    edges, why = {}, {}
    for top in SCANNED:
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if not f.endswith((".c", ".h", ".cpp", ".hpp")):
                    continue
                rel = os.path.relpath(os.path.join(folder, f), ROOT)
                with open(os.path.join(ROOT, rel), errors="replace") as text:
                    for n, line in enumerate(text, 1):
                        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                        if not m:
                            continue
                        target = resolve(rel, m.group(1))
                        if target is None or target.split(os.sep)[0] not in SCANNED:
                            continue
                        a, b = module(rel), module(target)
                        if a != b:
                            edges.setdefault(a, set()).add(b)
                            why.setdefault((a, b), []).append(f"{rel}:{n} includes {m.group(1)}")
    # Tarjan's strongly connected components, iteratively.
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(comp)
    cycles = [sorted(c) for c in comps if len(c) > 1]
    modules = len(set(edges) | {b for bs in edges.values() for b in bs})
    if not cycles:
        print(f"check_layers: {modules} modules, no include cycle")
        return 0
    for c in cycles:
        print("include cycle between: " + ", ".join(c))
        for a in c:
            for b in sorted(edges.get(a, ())):
                if b in c:
                    print(f"  {a} -> {b}: " + "; ".join(why[(a, b)][:3]))
    return 1


if __name__ == "__main__":
    sys.exit(main())
