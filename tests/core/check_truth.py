#!/usr/bin/env python3
"""check_truth.py -- checks a heapfmt-core dump of tests/core/truth.c
against what the program recorded (tests/cli/core.sh).

    check_truth.py RECORDS MALLOC_INFO DUMP.json [LEAKED.tsv]
    (MALLOC_INFO "-": the program ran under jemalloc, which has none)
    check_truth.py --tracker TRACKED.ndjson DUMP.json

DUMP.json is `heapfmt-export -f json` of the dump. Checks, each printed
as "ok: ..." or "FAIL: ...":
  - every held block is a used block with the same address and usable
    size (used >= held);
  - reachability computed here, from the dump's roots through its
    references (an independent model of heapfmt-graph leaked): every held
    block reachable, and the unreachable set is exactly the blocks leaked
    on purpose; when LEAKED.tsv (heapfmt-graph leaked --objects -f tsv) is
    given, it lists that same set with the same heads;
  - per arena, the free blocks malloc_info(3) printed at that moment:
    fast count and size, rest count and size (bins plus top), system.
Exit status 1 when any check failed.
"""
import json
import re
import sys

failures = 0


def check(ok, what):
    global failures
    if ok:
        print("ok: " + what)
    else:
        failures += 1
        print("FAIL: " + what)


def reachable(d, skip_label=(), skip_kind=()):
    """The ids reachable from the roots of a `heapfmt-export -f json`
    document, leaving out root references whose label starts with one of
    skip_label or whose root kind is in skip_kind: an independent model
    of heapfmt-graph's reachability."""
    succ = {int(o["id"], 16): [int(x, 16) for x in o["refs"]] for o in d["objects"]}
    seen, stack = set(), []
    for r in d["roots"]:
        if r["kind"] in skip_kind:
            continue
        labels = [l.get("label", "") for l in r.get("ref_labels", [])] or [""] * len(r["refs"])
        for x, label in zip(r["refs"], labels):
            x = int(x, 16)
            if any(label.startswith(s) for s in skip_label):
                continue
            if x not in seen:
                seen.add(x)
                stack.append(x)
    while stack:
        for b in succ.get(stack.pop(), ()):
            if b not in seen:
                seen.add(b)
                stack.append(b)
    return seen


def tracker(tracked_path, dump_path):
    """truth.c under heapfmt-malloc --mode=exact: its dump (the live set
    at the stop) and heapfmt-core's of the same stop agree block for
    block, address and usable size, both ways; heapfmt-core also sees
    glibc's tcaches (made inside malloc, never returned by it) and the
    tracker's own blocks: those the program's roots do not reach, leaving
    out the tracker's dump thread (started before main: thread 2) and the
    other anonymous mappings, which hold the stacks glibc keeps of the
    tracker's writer threads once they ended (their thread control blocks
    point at their own allocations)."""
    tracked = {}
    for line in open(tracked_path):
        o = json.loads(line)
        v = o.get("value", "")
        tracked[int(o["id"], 16) & ((1 << 48) - 1)] = \
            int(v.split()[1]) if v.startswith("usable ") else o["bytes"]
    d = json.load(open(dump_path))
    used = {int(o["id"], 16): o for o in d["objects"]}
    check(len(tracked) > 600, "the tracker's dump holds %d blocks" % len(tracked))
    missing = [hex(a) for a in tracked if a not in used]
    check(not missing, "every tracked block is a used block (missing: %s)" % missing[:5])
    wrong = [(hex(a), n, used[a]["bytes"]) for a, n in tracked.items()
             if a in used and used[a]["bytes"] != n]
    check(not wrong, "with the same usable size (differ: %s)" % wrong[:5])
    seen = reachable(d, skip_label=("thread 2 ",), skip_kind=("mapping",))
    odd = [(hex(a), o["class"]) for a, o in used.items()
           if a not in tracked and o["class"] != "glibc tcache" and a in seen]
    check(not odd, "heapfmt-core's other blocks are tcaches and the tracker's "
          "own (%d more; held by the program: %s)" %
          (sum(1 for a in used if a not in tracked), odd[:5]))
    sys.exit(1 if failures else 0)


def main():
    if sys.argv[1] == "--tracker":
        tracker(sys.argv[2], sys.argv[3])
    records, mi_path, dump_path = sys.argv[1:4]
    leaked_tsv = sys.argv[4] if len(sys.argv) > 4 else None
    with open(dump_path) as f:
        d = json.load(f)
    objs = {int(o["id"], 16): o for o in d["objects"]}
    meta = d["meta"]
    held, leaked, heads = {}, {}, set()
    for line in open(records):
        kind, addr, usable, head = line.split()
        addr, usable = int(addr, 16), int(usable)
        if kind == "held":
            held[addr] = usable
        else:
            leaked[addr] = usable
            if head == "1":
                heads.add(addr)
    check(len(held) > 500 and len(leaked) >= 40,
          "the program recorded %d held and %d leaked blocks" % (len(held), len(leaked)))
    missing = [hex(a) for a in held if a not in objs]
    check(not missing, "every held block is a used block (missing: %s)" % missing[:5])
    wrong = [(hex(a), u, objs[a]["bytes"]) for a, u in held.items()
             if a in objs and objs[a]["bytes"] != u]
    check(not wrong, "held blocks have their usable size (differ: %s)" % wrong[:5])
    missing = [hex(a) for a in leaked if a not in objs]
    check(not missing, "every leaked block is a used block (missing: %s)" % missing[:5])
    if mi_path != "-":
        mm = sum(1 for o in d["objects"] if o["type"] == "mmapped")
        check(mm >= 40, "mmapped chunks are used blocks (%d)" % mm)

    # Reachability from the roots, here.
    seen = reachable(d)
    unreachable = set(objs) - seen
    check(all(a in seen for a in held), "every held block is reachable (%d not)" %
          sum(1 for a in held if a not in seen))
    extra = sorted(unreachable - set(leaked))
    lost = sorted(set(leaked) - unreachable)
    check(not extra and not lost,
          "unreachable = leaked on purpose (extra %s, reachable %s)" %
          ([(hex(a), objs[a]["class"]) for a in extra[:5]], [hex(a) for a in lost[:5]]))
    if leaked_tsv:
        rows = [l.rstrip("\n").split("\t") for l in open(leaked_tsv)][1:]
        got = {int(r[0], 16): r for r in rows}
        check(set(got) == unreachable,
              "heapfmt-graph leaked lists the unreachable set (%d rows, %d unreachable)"
              % (len(got), len(unreachable)))
        got_heads = {a for a, r in got.items() if r[-1] == "1"}
        check(got_heads == heads,
              "its heads are the blocks nothing leaked points at (%d, want %d)"
              % (len(got_heads), len(heads)))

    if mi_path == "-":  # jemalloc: no malloc_info; its bins and tcaches
        kinds = {k: meta.get("core.free.%s.blocks" % k, 0) for k in ("tcache", "bin")}
        check(all(v > 0 for v in kinds.values()), "free regions and cached ones: %s" % kinds)
        check(meta.get("core.complete") == 1 and not any(k.startswith("core.problem") for k in meta),
              "the dump says it is complete, with no problem")
        sys.exit(1 if failures else 0)
    # malloc_info, arena by arena.
    mi = open(mi_path).read()
    arenas = re.findall(r'<heap nr="(\d+)">(.*?)</heap>', mi, re.S)
    check(len(arenas) == meta.get("core.arenas"),
          "as many arenas as malloc_info (%d, dump %s)" % (len(arenas), meta.get("core.arenas")))
    for nr, body in arenas:
        fast = re.search(r'<total type="fast" count="(\d+)" size="(\d+)"/>', body).groups()
        rest = re.search(r'<total type="rest" count="(\d+)" size="(\d+)"/>', body).groups()
        system = re.search(r'<system type="current" size="(\d+)"/>', body).group(1)
        want = [int(x) for x in fast + rest + (system,)]
        got = [meta.get("core.arena.%s.%s" % (nr, k))
               for k in ("fast.count", "fast.size", "rest.count", "rest.size", "system")]
        check(want == got, "arena %s: fast, rest and system as malloc_info says "
              "(malloc_info %s, dump %s)" % (nr, want, got))
    kinds = {k: meta.get("core.free.%s.blocks" % k, 0) for k in ("tcache", "fast", "bin", "unsorted")}
    check(all(v > 0 for v in kinds.values()), "every kind of free list holds chunks: %s" % kinds)
    check(meta.get("core.complete") == 1 and not any(k.startswith("core.problem") for k in meta),
          "the dump says it is complete, with no problem")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
