#!/usr/bin/env bash
# realworld_graph.sh -- heapfmt-graph on the public HPROF dumps of other
# projects' test suites (REALWORLD_DUMPS, default ../shared/realworld-dumps
# beside the repository, as tests/cli/realworld.sh): an optional check,
# skipped when the folder is absent (tests/test_graph_load.c and
# import_hprof.sh cover each case with dumps of their own).
#
# The objects no root reaches, as heapfmt-graph dominators counts them,
# equal those of an independent model of the import (realworld_model.py,
# over heapfmt-export's records, nothing written down): every object
# reaches its class's object, weak references (a Reference's referent)
# reach nothing. Without the class references, as
# before them, more objects are lost: the array classes whose instances
# are alive. The retained sizes of the 20 objects heapfmt-graph
# dominators ranks first equal those of the model's dominator tree (by
# another algorithm than heapfmt's). A failure names the file and the
# numbers.
. "$(dirname "$0")/lib.bash"

repo=$PWD
realworld_dir
cd "$TMPDIR" || exit 1

model() { # DUMP: objects no root reaches, by the model
    "$BIN/heapfmt-export" -r objects,roots,classes "$1" |
        python3 "$repo/tests/cli/realworld_model.py" unreachable
}

retained_model() { # DUMP: "id retained" of every reachable object
    "$BIN/heapfmt-export" -r objects,roots,classes "$1" |
        python3 "$repo/tests/cli/realworld_model.py" retained
}

retained_check() { # NAME DUMP: heapfmt-graph's top 20 against the model
    retained_model "$2" > model.txt
    "$BIN/heapfmt-graph" dominators -n 20 -f tsv "$2" 2>/dev/null |
        awk -F'\t' 'NR > 1 { print $1, $NF }' > graph.txt
    bad=$(python3 - model.txt graph.txt <<'PY'
import sys
model = {}
for line in open(sys.argv[1]):
    i, r = line.split()
    model[i] = int(r)
rows = [line.split() for line in open(sys.argv[2])]
bad = [f"{i}: heapfmt-graph {r}, the model {model.get(i)}"
       for i, r in rows if model.get(i) != int(r)]
top = sorted(model.values(), reverse=True)[:len(rows)]
if sorted((int(r) for _, r in rows), reverse=True) != top:
    bad.append(f"top {len(rows)} retained sizes differ from the model\'s")
if len(rows) < 20:
    bad.append(f"only {len(rows)} rows")
print("; ".join(bad[:3]))
PY
)
    [ -z "$bad" ] && pass || fail "$1: retained sizes: $bad"
    echo "$1: the top 20 retained sizes equal the model's (first: $(head -1 graph.txt))"
}

unreachable() { # DUMP [OPTION]: what heapfmt-graph dominators counts
    "$BIN/heapfmt-graph" dominators -n 1 "$@" 2>&1 >/dev/null |
        sed -n 's/.*note: \([0-9,]*\) objects\{0,1\} (.*not reachable.*/\1/p' |
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
    retained_check "$1" g.dump
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
