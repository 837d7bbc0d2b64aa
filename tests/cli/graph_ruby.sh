#!/usr/bin/env bash
# graph_ruby.sh -- heapfmt-graph on a live Ruby heap (tests/ruby/
# graph_leak.rb): the owners of two leaks and the paths to them end at the
# global and the constant the program used. Skipped without ruby-dev.
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

finish
