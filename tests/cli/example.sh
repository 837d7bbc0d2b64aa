#!/usr/bin/env bash
# example.sh -- examples/heap_roundtrip.c, the library's complete example
# (heapfmt(3)), writes its heap and reads it back: every record it wrote,
# labels included, and a complete dump; the tools agree with it.
. "$(dirname "$0")/lib.bash"

example=$BIN/../examples/heap_roundtrip
cd "$TMPDIR" || exit 1

run "$example" heap.dump
expect_success "the example runs"
expected='object 0x2000 Hash T_HASH 160 bytes
    -> 0x2028 via a
    -> 0x2050 via b
object 0x2028 String T_STRING 40 bytes "alpha"
object 0x2050 String T_STRING 40 bytes "beta"
root global_tbl
    -> 0x2000 via $cache
complete dump of examplevm'
[ "$out" = "$expected" ] && pass || fail "it prints what it wrote"

run "$BIN/heapfmt-info" --verify heap.dump
expect_success "heapfmt-info --verify accepts its dump"
run "$BIN/heapfmt-graph" path -f tsv heap.dump 0x2050
expect_success "heapfmt-graph reads it"
expect_out_has "$(printf '1\t1\t$cache\t0x0000000000002000\tHash')" "the global holds the Hash"
expect_out_has "$(printf '1\t2\t[b]\t0x0000000000002050\tString')" "which holds the String by its key"

run "$example"
expect_rc 2 "no file: usage"
run "$example" /nonexistent/dir/heap.dump
expect_rc 1 "an unwritable path fails"
expect_out_empty "and prints nothing on stdout"

finish
