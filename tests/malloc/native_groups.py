#!/usr/bin/env python3
"""native_groups.py -- sums a native dump's objects by where they were made.

Reads `heapfmt-export -r objects DUMP` (NDJSON) on stdin and prints one
line per group, "COUNT BYTES KEY", for tests/cli/malloc.sh to check against
what the program under the tracker did. KEY is, with --by:
  frame    the innermost frame that is not the C library's or the
           tracker's (its function, or LIBRARY+0xOFFSET when unnamed)
  function every distinct function anywhere on the stack (an object
           counts once for each function on its stack)
  library  every distinct library basename anywhere on the stack
  in:LIB   the innermost frame in library LIB (a basename), so that
           blocks made through LIB are told apart by where LIB made them
  site     the Ruby file:line (objects without one are left out)
  class    the allocation call
With --size N, only objects of N bytes count.
This is an independent reading of the dump (the export, not histo), so
that the tracker and the tools are checked against each other."""
import json
import os
import sys

ALLOCATOR_LIBS = ("libc.so", "libc-", "ld-linux", "libheapfmt-malloc")


def frame_name(f):
    if f.get("function"):
        return f["function"]
    lib = os.path.basename(f.get("library") or "?")
    return "%s+0x%x" % (lib, f.get("offset", 0))


def keys(obj, by):
    stack = obj.get("stack") or []
    if by == "frame":
        for f in stack:
            lib = os.path.basename(f.get("library") or "")
            if not lib.startswith(ALLOCATOR_LIBS):
                return [frame_name(f)]
        return ["(allocator only)"]
    if by.startswith("in:"):
        for f in stack:
            if os.path.basename(f.get("library") or "") == by[3:]:
                return [frame_name(f) if f.get("function") else
                        "%s+0x%x" % (by[3:], f.get("offset", 0))]
        return []
    if by == "function":
        return sorted({frame_name(f) for f in stack})
    if by == "library":
        return sorted({os.path.basename(f.get("library") or "?") for f in stack})
    if by == "site":
        return ["%s:%s" % (obj["file"], obj.get("line", 0))] if obj.get("file") else []
    return [obj.get("class") or "(none)"]


def main():
    by = sys.argv[sys.argv.index("--by") + 1] if "--by" in sys.argv else "frame"
    size = int(sys.argv[sys.argv.index("--size") + 1]) if "--size" in sys.argv else None
    groups = {}
    for line in sys.stdin:
        obj = json.loads(line)
        if "id" not in obj or (size is not None and int(obj.get("bytes", 0)) != size):
            continue
        for k in keys(obj, by):
            c, b = groups.get(k, (0, 0))
            groups[k] = (c + 1, b + int(obj.get("bytes", 0)))
    for k, (c, b) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
        print(c, b, k)


main()
