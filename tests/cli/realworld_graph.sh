#!/usr/bin/env bash
# realworld_graph.sh -- heapfmt-graph on the public HPROF dumps of other
# projects' test suites (REALWORLD_DUMPS, default ../shared/realworld-dumps
# beside the repository, as tests/cli/realworld.sh): an optional check,
# skipped when the folder is absent (tests/test_graph_load.c and
# import_hprof.sh cover each case with dumps of their own).
#
# The objects no root reaches, as heapfmt-graph dominators counts them,
# equal those of an independent model of the import (a breadth-first
# search in Python over heapfmt-export's records, never written down):
# every object reaches its class's object, weak references (a
# Reference's referent) reach nothing. Without the class references, as
# before them, more objects are lost: the array classes whose instances
# are alive. A failure names the file and the numbers.
. "$(dirname "$0")/lib.bash"

repo=$PWD
dir=${REALWORLD_DUMPS:-$repo/../shared/realworld-dumps}
if [ ! -d "$dir" ]; then
    echo "SKIP: no real-world dumps ($dir absent; set REALWORLD_DUMPS)"
    exit 0
fi
dir=$(cd "$dir" && pwd)
cd "$TMPDIR" || exit 1

model() { # DUMP: objects no root reaches, by the model
    "$BIN/heapfmt-export" -r objects,roots,classes "$1" | python3 -c '
import collections, json, sys
objs, roots, ids = {}, [], {}
for line in sys.stdin:
    d = json.loads(line)
    if d["record"] == "object":
        objs.setdefault(d["id"], d)
    elif d["record"] == "root":
        roots += d.get("refs", [])
    elif d["record"] == "class":
        ids.setdefault(d["name"], []).append(d["id"])
seen = {r for r in roots if r in objs}
queue = collections.deque(seen)
while queue:
    o = objs[queue.popleft()]
    labels = o.get("ref_labels") or []
    out = [t for i, t in enumerate(o.get("refs", []))
           if not (i < len(labels) and labels[i] and labels[i].get("weak"))]
    klass = ids.get(o["class"], [])
    if len(klass) == 1 and klass[0]:
        out.append(klass[0])
    for t in out:
        if t in objs and t not in seen:
            seen.add(t)
            queue.append(t)
print(len(objs) - len(seen))'
}

unreachable() { # DUMP [OPTION]: what heapfmt-graph dominators counts
    "$BIN/heapfmt-graph" dominators -n 1 "$@" 2>&1 >/dev/null |
        sed -n 's/.*warning: \([0-9,]*\) objects\{0,1\} (.*not reachable.*/\1/p' |
        tr -d , | grep . || echo 0
}

check() { # NAME FILE
    run "$BIN/heapfmt-import" -o g.dump "$2"
    [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] && pass || fail "$1: import exit $rc"
    want=$(model g.dump)
    got=$(unreachable g.dump)
    [ -n "$want" ] && [ "$got" = "$want" ] && pass ||
        fail "$1: objects no root reaches: heapfmt-graph $got, the model $want"
    without=$(unreachable g.dump --no-class-refs)
    [ "$without" -ge "$got" ] && pass ||
        fail "$1: without class references, $without unreachable (with: $got)"
    echo "$1: $got objects unreachable ($without without class references)"
}

n=0
for f in mat-sun_jdk6_32bit.hprof mat-sun_jdk6_31_hprofagent_compressedOops.hprof; do
    [ -f "$dir/$f" ] || { echo "SKIP: $dir/$f absent"; continue; }
    check "$f" "$dir/$f"
    n=$((n + 1))
done
f=py-hprof-example-java.hprof.bz2
if [ -f "$dir/$f" ]; then
    bzip2 -dc "$dir/$f" > example.hprof
    check "$f" example.hprof
    # its String[] and Object[] classes are alive only through their
    # instances: the class references reach them
    [ "$without" -gt "$got" ] && pass ||
        fail "$f: the class references reach more ($without without, $got with)"
    n=$((n + 1))
fi
[ "$n" -gt 0 ] || echo "SKIP: none of the HPROF dumps is in $dir"

finish
