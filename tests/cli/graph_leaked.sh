#!/usr/bin/env bash
# graph_leaked.sh -- heapfmt-graph leaked on any dump: a small Ruby heap
# whose unreachable objects and heads are known (imported from
# ObjectSpace.dump_all lines), the output formats, the options that do
# not apply. (heapfmt-core's dumps are checked in core.sh.)
. "$(dirname "$0")/lib.bash"

cd "$TMPDIR"
g() { "$BIN/heapfmt-graph" "$@"; }

# root -> A -> B; C -> D (C a head, D not); E <-> F (a cycle: no head);
# G -> G (a head: its own reference does not count); H (alone: a head).
cat >heap.json <<'EOF'
{"type":"ROOT", "root":"vm", "references":["0x1000"]}
{"address":"0x1000", "type":"OBJECT", "class":"0x9000", "references":["0x1028"], "memsize":40}
{"address":"0x1028", "type":"STRING", "class":"0x9028", "memsize":40}
{"address":"0x1050", "type":"OBJECT", "class":"0x9000", "references":["0x1078"], "memsize":40}
{"address":"0x1078", "type":"STRING", "class":"0x9028", "memsize":100}
{"address":"0x10a0", "type":"OBJECT", "class":"0x9000", "references":["0x10c8"], "memsize":40}
{"address":"0x10c8", "type":"OBJECT", "class":"0x9000", "references":["0x10a0"], "memsize":40}
{"address":"0x10f0", "type":"ARRAY", "class":"0x9050", "references":["0x10f0"], "memsize":72}
{"address":"0x1118", "type":"STRING", "class":"0x9028", "memsize":1000}
{"address":"0x9000", "type":"CLASS", "class":"0x9078", "name":"Node", "memsize":500, "references":[]}
{"address":"0x9028", "type":"CLASS", "class":"0x9078", "name":"String", "memsize":500}
{"address":"0x9050", "type":"CLASS", "class":"0x9078", "name":"Array", "memsize":500}
{"address":"0x9078", "type":"CLASS", "class":"0x9078", "name":"Class", "memsize":500}
{"type":"ROOT", "root":"vm", "references":["0x9000", "0x9028", "0x9050", "0x9078"]}
EOF
"$BIN/heapfmt-import" heap.json -o heap.hfd 2>/dev/null
[ -s heap.hfd ] && pass || fail "the test heap was not imported"

want_groups='class	objects	bytes	heads	head_bytes
String	2	1100	1	1000
Node	3	120	1	40
Array	1	72	1	72'
expect_run_out "$want_groups" "leaked by class" g leaked -f tsv heap.hfd

want_objects='id	class	type	bytes	site	head
0x0000000000001118	String	T_STRING	1000		1
0x00000000000010f0	Array	T_ARRAY	72		1
0x0000000000001050	Node	T_OBJECT	40		1
0x0000000000001078	String	T_STRING	100		0
0x00000000000010a0	Node	T_OBJECT	40		0
0x00000000000010c8	Node	T_OBJECT	40		0'
expect_run_out "$want_objects" "leaked objects, heads first" g leaked --objects -f tsv heap.hfd

run g leaked --objects -n 2 -f csv heap.hfd
expect_success "-n cuts the object list"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ] && pass || fail "-n 2: two rows and the header"
run g leaked -f json heap.hfd
expect_success "json"
printf '%s' "$out" | python3 -c 'import json, sys
rows = json.load(sys.stdin)
assert rows[0] == {"class": "String", "objects": 2, "bytes": 1100, "heads": 1, "head_bytes": 1000}, rows[0]' \
    && pass || fail "json rows: $out"
run g leaked heap.hfd
expect_success "the table"
expect_out_has "HEAD_BYTES" "the table has its header"
run g leaked -b type heap.hfd
expect_rc 2 "--by type is not a grouping of leaked"

# A dump where everything is reachable: no row, and owners' words on
# stderr (nothing leaked); stdout keeps its form: nothing in the table,
# the header in tsv and csv, [] in json.
"$BIN/heapfmt-gen" --objects 5000 -o gen.hfd
for f in table tsv csv json; do
    run g leaked -f "$f" gen.hfd
    expect_rc 0 "a heap without leaks, -f $f"
    expect_err_has "gen.hfd: warning: every object is reachable from a root: nothing leaked" \
        "-f $f: said on stderr"
    [ "$(printf '%s\n' "$err" | grep -c 'nothing leaked')" -eq 1 ] &&
        pass || fail "-f $f: said once: $err"
    case $f in
    table) want= ;;
    tsv) want=$(printf 'class\tobjects\tbytes\theads\thead_bytes') ;;
    csv) want=class,objects,bytes,heads,head_bytes ;;
    json) want='[]' ;;
    esac
    [ "$out" = "$want" ] && pass || fail "-f $f: no leaked row: $out"
done
run g leaked --objects -f json gen.hfd
[ "$out" = "[]" ] && pass || fail "--objects -f json: $out"
expect_err_has "nothing leaked" "--objects: said on stderr"
run g leaked -f tsv heap.hfd
expect_success "a heap with leaks: no such word"

expect_usage_error "$BIN/heapfmt-graph" "leaked takes one dump" leaked heap.hfd heap.hfd
expect_usage_error "$BIN/heapfmt-graph" "leaked is not grouped by stack" leaked -b stack heap.hfd
expect_usage_error "$BIN/heapfmt-graph" "dominators is not grouped by stack" dominators -b stack heap.hfd
expect_usage_error "$BIN/heapfmt-graph" "dominators is not grouped by frame" dominators --by=frame heap.hfd
expect_usage_error "$BIN/heapfmt-graph" "--objects is for leaked" dominators --objects heap.hfd
expect_usage_error "$BIN/heapfmt-graph" "--objects without --by" leaked --objects -b site heap.hfd
run g leaked "$TMPDIR/none.hfd"
expect_failure 1 "a missing dump"
finish
