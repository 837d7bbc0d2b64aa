#!/usr/bin/env bash
# realworld.sh -- heapfmt-import and heapfmt-diff on public heap dumps of
# other projects' test suites (the folder REALWORLD_DUMPS, default
# ../shared/realworld-dumps beside the repository; its README names each
# file's source). An optional check: skipped when the folder is absent;
# tests/test_import_v8.c and tests/test_import_hprof.c cover each case
# with fixtures of their own. Every expected number is computed here from
# the file's bytes (tests/cli/realworld_hprof.py, a few lines of Python
# over the snapshots' JSON) or by Chromium's DevTools front end
# (tests/v8/devtools_diff.mjs), never written down; a failure names the
# file and the number.
. "$(dirname "$0")/lib.bash"

imp=$BIN/heapfmt-import
histo=$BIN/histo
repo=$PWD
realworld_dir
cd "$TMPDIR" || exit 1
have() { [ -f "$dir/$1" ] || { echo "SKIP: $dir/$1 absent"; return 1; }; }

# Objects per class: histo of an import against counts from elsewhere
# (count<TAB>class lines); names the file and each class that differs.
same_counts() { # FILE DUMP WANT.tsv
    run "$histo" -f tsv -s name "$2"
    awk -F '\t' 'NR > 1 { print $1 "\t" $3 }' <<<"$out" | sort -t "$(printf '\t')" -k 2 > got.sorted
    sort -t "$(printf '\t')" -k 2 "$3" > want.sorted
    local d
    d=$(diff want.sorted got.sorted | head -n 6 | tr '\n' ' ')
    [ -z "$d" ] && [ -s want.sorted ] && pass ||
        fail "$1: objects per class (< the file's bytes, > histo): $d"
}

# ---- V8: a snapshot of older Chrome, types beyond its meta ----
f=stefanpenner-heapsnapshot-small.heapsnapshot
if have $f; then
    run "$imp" -o small.dump "$dir/$f"
    expect_rc 0 "$f: imported whole"
    python3 - "$dir/$f" > want.tsv <<'PY'
import collections, json, sys
s = json.load(open(sys.argv[1]))
m = s['snapshot']['meta']; nf = len(m['node_fields']); types = m['node_types'][0]
S, n = s['strings'], s['nodes']
c = collections.Counter()
for i in range(0, len(n), nf):
    t = types[n[i]] if n[i] < len(types) else None
    c[S[n[i + 1]] if t in ('object', 'native') else '(system)' if t == 'hidden'
      else '(compiled code)' if t == 'code' else '(%s)' % (t or 'unknown')] += 1
for k, v in c.items():
    print('%d\t%s' % (v, k))
PY
    unknown=$(awk -F '\t' '$2 == "(unknown)" { print $1 }' want.tsv)
    expect_err_has "warning: $unknown nodes of a type beyond snapshot.meta.node_types" \
        "$f: the nodes of unknown type counted"
    same_counts $f small.dump want.tsv
fi

# ---- V8: two snapshots compared as DevTools compares them ----
a=chrome-devtools-mcp-heap-1.heapsnapshot b=chrome-devtools-mcp-heap-2.heapsnapshot
if have $a && have $b && command -v node >/dev/null 2>&1; then
    run "$imp" -o h1.dump "$dir/$a"
    expect_success "$a: imported"
    run "$imp" -o h2.dump "$dir/$b"
    expect_success "$b: imported"
    node "$repo/tests/v8/devtools_diff.mjs" "$dir/$a" "$dir/$b" > devtools.tsv 2> devtools.err
    rc=$?
    if [ $rc = 77 ]; then
        echo "SKIP: DevTools' Comparison: $(cat devtools.err)"
    else
        run "$BIN/heapfmt-diff" -f tsv h1.dump h2.dump
        expect_success "heapfmt-diff $a $b"
        ours=$(awk -F '\t' 'NR > 1 { a += $2; b += $3; c += $4; d += $5 }
            END { print a + 0, b + 0, c + 0, d + 0 }' <<<"$out")
        theirs=$(awk -F '\t' '$1 == "totals" { print $2, $3, $4, $5 }' devtools.tsv)
        [ -n "$theirs" ] && [ "$ours" = "$theirs" ] && pass ||
            fail "$a -> $b: new and freed (count bytes count bytes): heapfmt-diff $ours, DevTools $theirs"
    fi
fi

# ---- HPROF: the hprof agent, two heap dumps, instances before classes ----
f=mat-sun_jdk6_31_hprofagent_compressedOops.hprof
if have $f; then
    at=$(python3 "$repo/tests/cli/realworld_hprof.py" "$dir/$f" dumps | sed 's/ /, /g')
    run "$imp" -o agent1.dump "$dir/$f"
    expect_rc 0 "$f: dump 1 imported"
    n=$(wc -w <<<"${at//,/}")
    expect_err_has "the input holds $n heap dumps (at bytes $at): imported dump 1 alone" \
        "$f: the $n dumps listed"
    python3 "$repo/tests/cli/realworld_hprof.py" "$dir/$f" 1 > want1.tsv
    same_counts "$f (dump 1)" agent1.dump want1.tsv
    run "$BIN/heapfmt-info" --verify agent1.dump
    expect_rc 0 "$f: heapfmt-info --verify accepts the import (no id twice)"
    run "$imp" --dump=2 -o agent2.dump "$dir/$f"
    expect_rc 0 "$f: --dump=2"
    python3 "$repo/tests/cli/realworld_hprof.py" "$dir/$f" 2 > want2.tsv
    same_counts "$f (dump 2)" agent2.dump want2.tsv
    # dump 2 has instances before their class: the file keeps their
    # references, a pipe cannot and says so
    run bash -c "cat '$dir/$f' | '$imp' --dump=2 > agent2p.dump"
    expect_rc 3 "$f: --dump=2 from a pipe"
    expect_err_has "instances of classes not dumped before them" "$f: a pipe loses references"
    r2=$("$BIN/heapfmt-export" -f ndjson agent2.dump | grep -o '"0x[0-9a-f]*"' | wc -l)
    r2p=$("$BIN/heapfmt-export" -f ndjson agent2p.dump | grep -o '"0x[0-9a-f]*"' | wc -l)
    [ "$r2" -gt "$r2p" ] && pass ||
        fail "$f: dump 2 from the file keeps more references (ids named: file $r2, pipe $r2p)"
    run "$imp" --dump=$((n + 1)) -o x.dump "$dir/$f"
    expect_failure 1 "$f: --dump beyond the dumps"
    expect_err_has "--dump=$((n + 1)): the input holds $n heap dumps" "$f: --dump beyond"
    run "$BIN/heapfmt-info" agent1.dump
    expect_out_has "assumed: the hprof agent's dumps do not say" "$f: META jvm.size_model"
fi

# ---- HPROF: sizes checked against the addresses ----
# HotSpot writes objects in address order: an object's size is at most
# the distance to the next one. Under the model detected, (nearly) no
# object overlaps the next; under a wrong one, many do.
overlaps() { # DUMP -> objects larger than the gap to the next, of all
    "$BIN/heapfmt-export" -f ndjson "$1" | python3 -c '
import json, sys
o = sorted((int(j["id"], 16), j["bytes"]) for j in map(json.loads, sys.stdin)
           if j.get("type") != "class")
print(sum(1 for (a, s), (b, _) in zip(o, o[1:]) if b - a < s), len(o))'
}
check_model() { # FILE MODEL MAX_OVERLAP_PERCENT
    local f=$1
    run "$imp" -o model.dump "$dir/$f"
    expect_rc 0 "$f: imported"
    run "$BIN/heapfmt-info" model.dump
    expect_out_has "hotspot $2: " "$f: the $2 model detected"
    expect_out_has "(detected: " "$f: META says it was detected"
    python3 "$repo/tests/cli/realworld_hprof.py" "$dir/$f" 1 > want.tsv
    same_counts "$f" model.dump want.tsv
    set -- $(overlaps model.dump) "$3"
    [ $(($1 * 100)) -le $(($2 * $3)) ] && pass ||
        fail "$f: $1 of $2 objects larger than the gap to the next (at most $3%)"
}
f=mat-sun_jdk6_32bit.hprof
# JDK 6 adds no field to ClassLoader, the JDK 17 model one pointer: its
# subclasses' instances overlap (48 of 16,000)
have $f && check_model $f 32-bit 1
f=py-hprof-example-java.hprof.bz2
if have $f; then
    bzip2 -dc "$dir/$f" > example.hprof
    dir=$PWD check_model example.hprof compressed 0
fi

finish
