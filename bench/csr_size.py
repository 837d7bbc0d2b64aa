#!/usr/bin/env python3
"""How small a dump's reference graph gets as compressed successor lists.

Issue 39's design for heaps larger than the machine keeps the graph in
memory as, for each object (numbered in file order), its targets sorted,
each written as the zigzag varint of its difference from the one before
(the first from the object's own number). This counts the bytes that
form would take, from `heapfmt-export -f rows` of the dump, so that the
design's bytes per reference are a measurement, not a guess.

    bench/csr_size.py [--bin build/bin] DUMP
"""
import argparse
import json
import subprocess
import sys


def rows(binary, kind, dump):
    p = subprocess.Popen([binary + "/heapfmt-export", "-f", "rows", "-r", kind, dump],
                         stdout=subprocess.PIPE, text=True)
    for line in p.stdout:
        yield json.loads(line)
    if p.wait() != 0:
        sys.exit("csr_size.py: heapfmt-export failed on %s" % dump)


def varint_len(x):
    n = 1
    while x >= 128:
        x >>= 7
        n += 1
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("dump")
    a = ap.parse_args()
    number = {}
    for o in rows(a.bin, "objects", a.dump):
        number.setdefault(o["id"], len(number))
    succ = {}
    edges = dangling = 0
    for e in rows(a.bin, "edges", a.dump):
        if e["root"]:
            continue
        s, d = number.get(e["from_id"]), number.get(e["to_id"])
        if s is None or d is None:
            dangling += 1
            continue
        succ.setdefault(s, []).append(d)
        edges += 1
    size = 0
    for s, targets in succ.items():
        prev = s
        for d in sorted(targets):
            delta = d - prev
            size += varint_len(2 * delta if delta >= 0 else -2 * delta - 1)
            prev = d
    n = max(len(number), 1)
    print("objects %d references %d (%.2f an object; %d dangling left out)"
          % (len(number), edges, edges / n, dangling))
    print("compressed successors: %d bytes, %.2f a reference, %.2f an object"
          % (size, size / max(edges, 1), size / n))


if __name__ == "__main__":
    main()
