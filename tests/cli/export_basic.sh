#!/usr/bin/env bash
# export_basic.sh -- command-line contract of heapfmt-export on good input:
# every format and record kind, stdin and -o, closed pipes, a full disk,
# incomplete dumps.
. "$(dirname "$0")/lib.bash"

gen=$BIN/heapfmt-gen
exp=$BIN/heapfmt-export
info=$BIN/heapfmt-info
in_tmpdir

# Parses every line (or the whole file with "whole") as JSON; prints the
# number of documents. Uses python3 if there is one, else jq, else only
# counts lines.
json_count() { # file [whole]
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$@" <<'EOF'
import json, sys
data = open(sys.argv[1], "rb").read().decode("utf-8")
if len(sys.argv) > 2:
    json.loads(data)
    print(1)
else:
    lines = data.split("\n")
    assert lines[-1] == "", "no newline at the end"
    for n, line in enumerate(lines[:-1]):
        json.loads(line)
    print(len(lines) - 1)
EOF
    elif command -v jq >/dev/null 2>&1; then
        if [ $# -gt 1 ]; then jq -e . "$1" >/dev/null && echo 1; else
            jq -c . "$1" | wc -l; fi
    else
        wc -l <"$1"
    fi
}

# --help, --version
run "$exp" --help
expect_success "--help"
expect_out_has "Usage: heapfmt-export [OPTION]... DUMP" "--help"
for o in --format= --records= --dump-tag= --max-refs= --output= \
    ndjson mongo json edges "Exit status"; do
    expect_out_has "$o" "--help mentions $o"
done
run "$exp" --version
expect_success "--version"
expect_out_has "heapfmt-export " "--version"
expect_out_has "libheapfmt" "--version"

run "$gen" --objects 20000 --seed 3 --block-size 16384 -o a.dump
expect_success "gen"
run "$info" --plain a.dump
objects=$(row objects)
roots=$(row roots)
[ "$objects" = 20000 ] && pass || fail "gen wrote $objects objects"

# ndjson: one valid document per object, nothing on stderr.
"$exp" a.dump >a.ndjson 2>err
rc=$?
err=$(cat err)
expect_success "ndjson"
[ "$(json_count a.ndjson)" = "$objects" ] && pass ||
    fail "ndjson: $(json_count a.ndjson) documents, $objects objects"
head -n 1 a.ndjson | grep -q '^{"id":"0x[0-9a-f]\{16\}","class":"' && pass ||
    fail "ndjson: first line is $(head -c 200 a.ndjson)"

# -o FILE and standard input give the same bytes.
run "$exp" -o b.ndjson a.dump
expect_success "-o"
expect_out_empty "-o"
cmp -s a.ndjson b.ndjson && pass || fail "-o output differs"
"$exp" - <a.dump >c.ndjson 2>err
rc=$?
err=$(cat err)
expect_success "stdin"
cmp -s a.ndjson c.ndjson && pass || fail "stdin output differs"
run "$exp" --output=d.ndjson --format=ndjson --records=objects a.dump
expect_success "long options"
cmp -s a.ndjson d.ndjson && pass || fail "--format=ndjson --records=objects"

# mongo: the same objects, with _id and Int64 sizes.
"$exp" -f mongo -t run1 a.dump >a.mongo 2>err
rc=$?
err=$(cat err)
expect_success "mongo"
[ "$(json_count a.mongo)" = "$objects" ] && pass || fail "mongo: count"
head -n 1 a.mongo | grep -q '^{"_id":"run1:0x[0-9a-f]\{16\}","dump":"run1","id":"0x' &&
    pass || fail "mongo: first line is $(head -c 200 a.mongo)"
grep -q '"bytes":{"$numberLong":"[0-9]*"}' a.mongo && pass ||
    fail "mongo: no \$numberLong"

# json: one value with the default sections.
"$exp" --format=json a.dump >a.json 2>err
rc=$?
err=$(cat err)
expect_success "json"
[ "$(json_count a.json whole)" = 1 ] && pass || fail "json: not one value"
tail -c 20 a.json | grep -q '"complete":true}' && pass || fail "json: complete"
for k in objects roots classes meta; do
    grep -q "^\"$k\":" a.json && pass || fail "json: no \"$k\""
done
grep -q '^"edges":' a.json && fail "json: edges by default" || pass
"$exp" --format=json --records=all --dump-tag=x a.dump >all.json 2>err
rc=$?
err=$(cat err)
expect_success "json all"
[ "$(json_count all.json whole)" = 1 ] && pass || fail "json all: not one value"

# --records=all: every kind, each document says which.
"$exp" --records=all a.dump >all.ndjson 2>err
rc=$?
err=$(cat err)
expect_success "records=all"
n=$(json_count all.ndjson)
[ "$n" -gt "$objects" ] && pass || fail "records=all: only $n documents"
c_obj=$(grep -c '^{"record":"object",' all.ndjson)
c_root=$(grep -c '^{"record":"root",' all.ndjson)
c_edge=$(grep -c '^{"record":"edge",' all.ndjson)
c_meta=$(grep -c '^{"record":"meta",' all.ndjson)
[ "$c_obj" = "$objects" ] && pass || fail "records=all: $c_obj objects"
[ "$c_root" = "$roots" ] && pass || fail "records=all: $c_root roots"
[ "$c_meta" -ge 5 ] && pass || fail "records=all: $c_meta meta"
# one edge per reference
refs=$("$exp" a.dump | grep -o '"0x[0-9a-f]\{16\}"' | wc -l)
root_refs=$("$exp" -r roots a.dump | grep -o '"0x[0-9a-f]\{16\}"' | wc -l)
[ "$c_edge" = $((refs - objects + root_refs)) ] && pass ||
    fail "records=all: $c_edge edges, $((refs - objects + root_refs)) references"
run "$exp" --records=edges,roots a.dump
expect_success "records=edges,roots"
grep -q '"record":"object"' <<<"$out" && fail "edges,roots has objects" || pass

# A closed pipe ends the export quietly with success.
gen_dump big.dump --objects 300000 --seed 4
"$exp" big.dump 2>err | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
err=$(cat err)
expect_success "| head"
"$exp" -f mongo -r all big.dump 2>err | head -c 100000 >/dev/null
rc=${PIPESTATUS[0]}
err=$(cat err)
expect_success "mongo | head -c"

# A full disk is an error, with a message and nothing left behind.
if [ -w /dev/full ]; then
    run "$exp" -o /dev/full a.dump
    expect_failure 1 "-o /dev/full"
    expect_err_has "No space left on device" "-o /dev/full"
    run "$exp" -f json -r all -o /dev/full a.dump
    expect_failure 1 "json -o /dev/full"
    "$exp" a.dump >/dev/full 2>err
    rc=$?
    err=$(cat err)
    [ "$rc" = 1 ] && pass || fail ">/dev/full: exit $rc"
    expect_err_has "No space left on device" ">/dev/full"
fi

# An incomplete dump: what is readable is exported, a warning, exit 3.
size=$(wc -c <a.dump)
head -c $((size / 2)) a.dump >cut.dump
"$exp" cut.dump >cut.ndjson 2>err
rc=$?
err=$(cat err)
expect_rc 3 "truncated dump"
expect_err_has "warning" "truncated dump"
expect_err_has "incomplete" "truncated dump"
n=$(json_count cut.ndjson)
[ "$n" -gt 0 ] && [ "$n" -lt "$objects" ] && pass ||
    fail "truncated dump: $n documents"
"$exp" -f json cut.dump >cut.json 2>/dev/null
rc=$?
expect_rc 3 "truncated dump, json"
[ "$(json_count cut.json whole)" = 1 ] && pass || fail "cut json: not one value"
tail -c 30 cut.json | grep -q '"complete":false}' && pass ||
    fail "cut json: not marked incomplete"

finish
