#!/usr/bin/env bash
# graph_indexed.sh -- an array's index labels written one by one (format
# 1.1) or implied by the elements' positions (format 1.3, HEAPFMT_F_INDEXED):
# heapfmt-graph path and referrers, heapfmt-export's edges and
# heapfmt-info --verify see the same dump either way, byte for byte, and
# the indexed one is smaller.
. "$(dirname "$0")/lib.bash"

graph=$BIN/heapfmt-graph
export_=$BIN/heapfmt-export
info=$BIN/heapfmt-info
in_tmpdir

gen_dump indexed.dump -n 30000 -s 5
gen_dump listed.dump -n 30000 -s 5 --listed-indexes
size() { wc -c <"$1" | tr -d ' '; }
[ "$(size indexed.dump)" -lt "$(size listed.dump)" ] && pass ||
    fail "indexed $(size indexed.dump) bytes, listed $(size listed.dump)"

for f in indexed listed; do
    run "$info" --verify $f.dump
    expect_success "verify $f"
    expect_out_has "OK: 30,000 objects verified" "verify $f"
    run "$export_" -r edges $f.dump
    expect_success "export edges $f"
    printf '%s\n' "$out" >$f.edges
done
if cmp -s indexed.edges listed.edges; then pass; else
    fail "export's edges differ"; fi
index_edges=$(grep -c '"label_kind":"index"' indexed.edges)
[ "$index_edges" -gt 1000 ] && pass ||
    fail "only $index_edges index labels among the edges"

# Paths to 40 objects an array holds, and what references them.
ids=$(grep '"label_kind":"index"' indexed.edges | awk 'NR % 97 == 1' |
    head -40 | sed 's/.*"to":"\([^"]*\)".*/\1/' | tr '\n' ' ')
[ "$(echo $ids | wc -w)" -eq 40 ] && pass || fail "ids: $ids"
for f in indexed listed; do
    run "$graph" path -f tsv $f.dump $ids
    expect_success "path $f"
    printf '%s\n' "$out" >$f.path
    run "$graph" referrers -f tsv $f.dump $ids
    expect_success "referrers $f"
    printf '%s\n' "$out" >$f.referrers
done
for what in path referrers; do
    if cmp -s indexed.$what listed.$what; then pass; else
        fail "$what output differs: $(diff indexed.$what listed.$what | head -5)"; fi
done
grep -q '\[[0-9][0-9]*\]' indexed.path && pass || fail "no [i] in the paths"
grep -q '\[[0-9][0-9]*\]' indexed.referrers && pass ||
    fail "no [i] among the referrers"
finish
