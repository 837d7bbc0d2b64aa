#!/usr/bin/env bash
# import_ids.sh -- an import's output always verifies (issue 31): inputs
# that repeat an object id (a dump_all address twice, a V8 snapshot whose
# nodes all have id 0) give each repeat a new id, say so, and write a dump
# heapfmt-info --verify passes (lib.bash's run verifies every import);
# V8's edges follow the renamed nodes. HPROF: tests/test_import_hprof.c.
. "$(dirname "$0")/lib.bash"

imp=$BIN/heapfmt-import
in_tmpdir

# --- dump_all: one address three times, and a reference to it ---
cat >dup.json <<'EOF'
{"type":"ROOT", "root":"vm", "references":["0x7f0000000100"]}
{"address":"0x7f0000000100", "type":"ARRAY", "references":["0x7f0000000128"], "memsize":40}
{"address":"0x7f0000000128", "type":"STRING", "value":"a", "memsize":40}
{"address":"0x7f0000000128", "type":"STRING", "value":"b", "memsize":40}
{"address":"0x7f0000000128", "type":"STRING", "value":"c", "memsize":40}
EOF
run "$imp" -o dup.hfd dup.json
expect_rc 0 "dump_all with a repeated address"
expect_err_has "warning: 2 objects repeat the id of an earlier one (the first: 0x7f0000000128)" \
    "the repeats are said"
run "$BIN/heapfmt-info" --verify dup.hfd
expect_success "it verifies"
run "$BIN/heapfmt-export" -r objects dup.hfd
expect_out_has '"id":"0xffffffffffffffff"' "a repeat, renamed from the top"
expect_out_has '"id":"0xfffffffffffffffe"' "the next repeat"
expect_out_has '"refs":["0x00007f0000000128"]' "the reference goes to the first"

# --- references to objects the input lacks, a class never described:
# allowed by the format, kept, and the dump verifies (run checks it) ---
printf '%s\n' '{"address":"0x100", "type":"OBJECT", "class":"0xdead", "references":["0x999999"], "memsize":40}' \
    '{"type":"ROOT", "root":"vm", "references":["0x100", "0x777"]}' >dangling.json
run "$imp" -o dangling.hfd dangling.json
expect_success "dangling references and an undescribed class"

# --- V8: n nodes of id 0, node i holding node i+1 ---
n=200000
awk -v n="$n" 'BEGIN {
    printf "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"
    printf "\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\"],\"string\",\"number\",\"number\",\"number\"],"
    printf "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
    printf "\"edge_types\":[[\"context\",\"element\",\"property\"],\"string_or_number\",\"node\"]},"
    printf "\"node_count\":%d,\"edge_count\":%d},\n\"nodes\":[", n, n - 1
    for (i = 0; i < n; i++)
        printf "%s3,1,0,16,%d", (i ? "," : ""), (i < n - 1 ? 1 : 0)
    printf "],\n\"edges\":["
    for (i = 0; i < n - 1; i++)
        printf "%s2,2,%d", (i ? "," : ""), 5 * (i + 1)
    printf "],\n\"strings\":[\"\",\"Node\",\"next\"]}\n"
}' >zero.heapsnapshot
start=$(date +%s)
run "$imp" -o zero.hfd zero.heapsnapshot
expect_rc 0 "$n V8 nodes of id 0"
expect_err_has "warning: $((n - 1)) nodes repeat the id of an earlier node (the first: node 1, id 0)" \
    "the repeats are said"
[ $(($(date +%s) - start)) -lt 60 ] && pass || fail "the import took over a minute"
run "$BIN/heapfmt-info" --plain zero.hfd
[ "$(row objects)" = "$n" ] && pass || fail "objects: $(row objects)"
# every node has an id of its own, and every edge goes to the node after
# its own: the next object's id
"$BIN/heapfmt-export" -r objects zero.hfd >zero.ndjson
[ "$(cut -d'"' -f4 zero.ndjson | sort | uniq -d | wc -l)" = 0 ] && pass ||
    fail "two nodes share an id"
awk -F'"' 'NR > 1 && prev_ref != $4 { bad++ }
           { prev_ref = "none"; for (i = 1; i <= NF; i++) if ($i == "refs") prev_ref = $(i + 2) }
           END { exit bad > 0 }' zero.ndjson && pass ||
    fail "an edge does not go to the node it named"

finish
