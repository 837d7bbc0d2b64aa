#!/usr/bin/env bash
# graph_ruby.sh -- heapfmt-graph on live Ruby heaps: the owners of two
# leaks and the paths to them end at the global and the constant the
# program used (tests/ruby/graph_leak.rb); three leaks held only by
# singleton classes get their Arrays as owners and paths through the
# singleton's object and its class (tests/ruby/graph_singleton.rb); a
# freshly collected heap has at most 0.1% of its objects unreachable.
# Skipped without ruby-dev.
. tests/ruby/common.sh
. "$(dirname "$0")/lib.bash"
set +e

graph=$BIN/heapfmt-graph
ruby -I "$RUBY_EXT_DIR" tests/ruby/graph_leak.rb "$TMPDIR" || {
    echo "FAIL: tests/ruby/graph_leak.rb" >&2
    exit 1
}
request=$(sed -n 1p "$TMPDIR/ids")
seen=$(sed -n 2p "$TMPDIR/ids")
d1=$TMPDIR/g1.dump d2=$TMPDIR/g2.dump d3=$TMPDIR/g3.dump
hex() { printf '0x%016x' "$1"; }

# The path to a kept Request: the global table, $cache's Hash, the Request.
run "$graph" path -f tsv "$d3" "$request"
expect_rc 0 "path to a Request in \$cache"
first=$(printf '%s\n' "$out" | sed -n 2p | cut -f 6,7)
[ "$first" = "$(printf '(root)\tglobal_tbl')" ] && pass ||
    fail "the path starts at the global variables: $first"
hop1=$(printf '%s\n' "$out" | sed -n 3p | cut -f 6)
[ "$hop1" = "Hash" ] && pass || fail "then \$cache's Hash: $hop1"
last=$(printf '%s\n' "$out" | tail -n 1 | cut -f 5,6)
[ "$last" = "$(printf '%s\tRequest' "$(hex "$request")")" ] && pass ||
    fail "and ends at the Request: $last"
# with the labels of the references: the global's name, then the key
via1=$(printf '%s\n' "$out" | sed -n 3p | cut -f 4)
[ "$via1" = '$cache' ] && pass || fail "the Hash is reached as \$cache: $via1"
via2=$(printf '%s\n' "$out" | tail -n 1 | cut -f 4)
[ "$via2" = '["req-150"]' ] && pass || fail "the Request by its key: $via2"

# The path to the captured Array goes through the Proc.
run "$graph" path -f tsv "$d3" "$seen"
expect_rc 0 "path to the captured Array"
expect_out_has "$(printf '\tProc\t')" "through the Proc"
expect_out_has "$(printf 'HANDLER\t0x')" "reached as the constant HANDLER"
expect_out_has "$(printf '%s\tArray' "$(hex "$seen")")" "to the Array"

# owners: the Hash holds ~6,000 leaked objects (3,000 Requests and their
# keys and paths), the Array ~3,000 Strings.
run "$graph" owners -f tsv "$d1" "$d2" "$d3"
expect_rc 0 "owners"
owners=$(printf '%s\n' "$out" | awk -F '\t' 'NR > 1 && $1 <= 2' |
    awk -F '\t' '{ last[$1] = $7 "\t" $6 } END { for (k in last) print k "\t" last[k] }' | sort)
o1=$(printf '%s\n' "$owners" | sed -n 1p | cut -f 2)
o2=$(printf '%s\n' "$owners" | sed -n 2p | cut -f 2,3)
[ "$o1" = "Hash" ] && pass || fail "owner 1 is the Hash: $owners"
[ "$o2" = "$(printf 'Array\t%s' "$(hex "$seen")")" ] && pass ||
    fail "owner 2 is the captured Array: $owners"
leaked=$(printf '%s\n' "$out" | awk -F '\t' '$1 == 1 { print $2; exit }')
[ "${leaked:-0}" -ge 6000 ] && pass || fail "the Hash holds >= 6,000: $leaked"

# ---- what a singleton class holds ----
# An object's class is a reference: the Arrays are alive, owned by
# themselves (each holds 1,000 leaked Strings), and reached from the
# constant through the object's singleton class.
ruby -I "$RUBY_EXT_DIR" tests/ruby/graph_singleton.rb "$TMPDIR" || {
    echo "FAIL: tests/ruby/graph_singleton.rb" >&2
    exit 1
}
s1=$TMPDIR/s1.dump s2=$TMPDIR/s2.dump s3=$TMPDIR/s3.dump
names=(SERVICE WORKER STATS)
for i in 0 1 2; do
    arr=$(sed -n "$((i + 1))p" "$TMPDIR/sids")
    name=${names[$i]}
    # Of the paths through each reference to the Array (a stale copy of
    # it on the C stack, which the VM scans conservatively, is one more
    # root sometimes), the one through its closure or ivar: from the
    # constant, then the singleton class as the object's class.
    run "$graph" path -k 4 -f tsv "$s3" "$arr"
    expect_success "path to the Array $name's singleton class holds"
    after=$(printf '%s\n' "$out" |
        awk -F '\t' -v n="$name" 'seen { print $4 "\t" $7; seen = 0 } $4 == n { seen = 1 }')
    [ "$after" = "$(printf '(class)\tT_CLASS')" ] && pass ||
        fail "$name: a path through the constant, then its singleton class as its class: $after"
    last=$(printf '%s\n' "$out" | tail -n 1 | cut -f 5,6)
    [ "$last" = "$(printf '%s\tArray' "$(hex "$arr")")" ] && pass ||
        fail "$name: the path ends at the Array: $last"
    # without the class references (as before them), the Array is lost,
    # or found through a call cache of the code that last called the
    # singleton method: never from the constant
    run "$graph" path -k 4 --no-class-refs -f tsv "$s3" "$arr"
    consts=$(printf '%s\n' "$out" | awk -F '\t' -v n="$name" '$4 == n' | wc -l)
    [ "$consts" -eq 0 ] && pass ||
        fail "$name: without class references, no path from the constant"
done
run "$graph" path --no-class-refs "$s3" "$(sed -n 3p "$TMPDIR/sids")"
expect_err_has "not reachable from any root" \
    "without class references, a singleton's instance variable is lost"
run "$graph" owners -f tsv "$s1" "$s2" "$s3"
expect_success "owners of the singleton leaks"
for i in 0 1 2; do
    arr=$(hex "$(sed -n "$((i + 1))p" "$TMPDIR/sids")")
    held=$(printf '%s\n' "$out" |
        awk -F '\t' -v id="$arr" 'NR > 1 && $6 == id { print $2; exit }')
    # (one may also be held elsewhere, by a stale copy on a stack)
    [ "${held:-0}" -ge 990 ] && [ "${held:-0}" -le 1000 ] && pass ||
        fail "${names[$i]}: its Array owns the 1,000 leaked Strings: ${held:-none}"
done

# Each owner's path, whose labels owners reads again from the file (it
# keeps none in memory), is the first path heapfmt-graph path prints,
# labels and class hops included.
owners_out=$out
nhops=0
for rank in $(printf '%s\n' "$owners_out" | awk -F '\t' 'NR > 1 { print $1 }' |
              uniq); do
    mine=$(printf '%s\n' "$owners_out" |
        awk -F '\t' -v r="$rank" 'NR > 1 && $1 == r' | cut -f 4-)
    id=$(printf '%s\n' "$mine" | tail -1 | cut -f 3)
    [ -n "$id" ] || continue # the roots themselves
    run "$graph" path -f tsv "$s3" "$id"
    theirs=$(printf '%s\n' "$out" | awk -F '\t' 'NR > 1 && $2 == 1' | cut -f 3-)
    [ "$mine" = "$theirs" ] && pass ||
        fail "owner $rank: its path is heapfmt-graph path's: $mine / $theirs"
    nhops=$((nhops + $(printf '%s\n' "$mine" | grep -c '(class)')))
done
[ "$nhops" -gt 0 ] && pass || fail "the owners' paths take a class hop"

# ---- a freshly collected heap is reachable ----
# Before the class references, 6% of such a heap (singleton classes, their
# method entries, call caches and crefs) was unreachable.
ruby -I "$RUBY_EXT_DIR" -e 'require "heapfmt"; require "json"; require "set"
    GC.start; HeapFmt.dump(ARGV[0])' "$TMPDIR/fresh.dump" || {
    echo "FAIL: dumping a fresh heap" >&2
    exit 1
}
objects=$("$BIN/heapfmt-info" "$TMPDIR/fresh.dump" |
    awk '$1 == "objects" { gsub(",", "", $2); print $2 }')
run "$graph" dominators -n 1 "$TMPDIR/fresh.dump"
expect_rc 0 "dominators of a fresh heap"
lost=$(printf '%s\n' "$err" |
    sed -n 's/.*note: \([0-9,]*\) objects\{0,1\} (.*not reachable.*/\1/p' | tr -d ,)
lost=${lost:-0}
echo "fresh heap: $lost of $objects objects unreachable"
[ "$objects" -gt 10000 ] && [ $((lost * 1000)) -le "$objects" ] && pass ||
    fail "at most 0.1% of a fresh heap is unreachable: $lost of $objects"

finish
