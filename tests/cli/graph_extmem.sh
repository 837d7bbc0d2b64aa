#!/usr/bin/env bash
# graph_extmem.sh -- heapfmt-graph dominators --temp-dir (issue 39): the
# external-memory path prints what the in-memory one prints, byte for
# byte and with the same exit code, on every row (-n beyond the heap):
# crafted shapes (a chain as long as the heap, wide fan-in, a diamond,
# cycles, unreachable objects, several roots, dangling and weak
# references), heapfmt-gen dumps of a few sizes, profiles and seeds, the
# test suite's dumps (valid and invalid), by object and --by
# class, site and both. Small knobs force the DFS
# stack's spill and many predecessor buckets. A diamond checks known
# values too (a naive tree would credit the first parent). Temporary
# files never stay in DIR; a write failure is an error, exit 1.
. "$(dirname "$0")/lib.bash"

graph=$BIN/heapfmt-graph
import=$BIN/heapfmt-import
in_tmpdir
tmp=$TMPDIR/extmem-dir
rm -rf "$tmp"
mkdir -p "$tmp"
ALL=1000000000

# same DUMP WHAT [OPTION...]: both paths, every row, the same stdout and
# exit code; then again with a 2-frame stack ring and 64-byte buckets
same() {
    local dump=$1 what=$2
    shift 2
    run "$graph" dominators -f tsv -n $ALL "$@" "$dump"
    local want=$out want_rc=$rc
    for knobs in "" "HEAPFMT_EXTMEM_RING=2 HEAPFMT_EXTMEM_BUCKET=64"; do
        run env $knobs "$graph" dominators -f tsv -n $ALL --temp-dir "$tmp" \
            "$@" "$dump"
        [ "$rc" = "$want_rc" ] && pass ||
            fail "$what ($knobs): exit $rc, in memory $want_rc"
        [ "$out" = "$want" ] && pass ||
            fail "$what ($knobs): the rows differ from the in-memory ones"
        [ -z "$(ls -A "$tmp")" ] && pass || fail "$what: files left in DIR"
    done
}

# ---- crafted shapes, as ObjectSpace.dump_all lines ----
obj() { # ADDR SIZE REFS...
    local a=$1 s=$2 refs= r
    shift 2
    for r in "$@"; do refs="$refs${refs:+, }\"$r\""; done
    printf '{"address":"%s", "type":"OBJECT", "class":"0xc0", "memsize":%s, "references":[%s]}\n' \
        "$a" "$s" "$refs"
}
root() { # KIND REFS...
    local k=$1 refs= r
    shift
    for r in "$@"; do refs="$refs${refs:+, }\"$r\""; done
    printf '{"type":"ROOT", "root":"%s", "references":[%s]}\n' "$k" "$refs"
}
class() { printf '{"address":"0xc0", "type":"CLASS", "name":"Node", "memsize":400}\n'; }

# A diamond: vm -> A, vm -> B, A -> X, B -> X, X -> Y. X and Y are
# dominated by the roots alone: A retains its own 50 bytes (the import
# counts a 40-byte slot), not X's 6000.
{
    class
    obj 0x100 10 0x300
    obj 0x200 20 0x300
    obj 0x300 1000 0x400
    obj 0x400 5000
    root vm 0x100 0x200 0xc0
} >diamond.json
run "$import" -o diamond.hfd diamond.json
expect_success "import the diamond"
run "$graph" dominators -f tsv --temp-dir "$tmp" diamond.hfd
expect_success "dominators --temp-dir of the diamond"
expect_out_has "$(printf '0x0000000000000300\tNode\tT_OBJECT\t1000\t\t6000')" "X retains Y"
expect_out_has "$(printf '0x0000000000000100\tNode\tT_OBJECT\t50\t\t50')" "A retains itself only"
same diamond.hfd "diamond"

# A chain as long as the heap: each link retains the rest.
n=20000
awk -v n=$n 'BEGIN {
    print "{\"address\":\"0xc0\", \"type\":\"CLASS\", \"name\":\"Link\", \"memsize\":400}"
    for (i = 0; i < n; i++)
        printf "{\"address\":\"0x%x\", \"type\":\"OBJECT\", \"class\":\"0xc0\", \"memsize\":%d, \"references\":[%s]}\n",
            4096 + 40 * i, 40 + i % 7, i + 1 < n ? sprintf("\"0x%x\"", 4096 + 40 * (i + 1)) : ""
    print "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[\"0x1000\"]}"
}' >chain.json
run "$import" -o chain.hfd chain.json
expect_success "import the chain"
same chain.hfd "a chain of $n objects"
run env HEAPFMT_EXTMEM_RING=2 "$graph" dominators -f tsv -n 1 --temp-dir "$tmp" chain.hfd
expect_out_has "$(printf '0x0000000000001000\tLink\tT_OBJECT\t40\t\t')" "the head retains the chain"

# One object whose list takes more than 64 KiB (a "wide" block of the
# compressed lists): an Array of 40,000 references, each target held
# by it and by its neighbour.
awk 'BEGIN {
    print "{\"address\":\"0xc0\", \"type\":\"CLASS\", \"name\":\"Big\", \"memsize\":400}"
    refs = ""
    for (i = 0; i < 40000; i++)
        refs = refs (i ? ", " : "") sprintf("\"0x%x\"", 1048576 + 40 * ((i * 7919) % 40000))
    printf "{\"address\":\"0x1000\", \"type\":\"ARRAY\", \"class\":\"0xc0\", \"memsize\":320040, \"references\":[%s]}\n", refs
    for (i = 0; i < 40000; i++)
        printf "{\"address\":\"0x%x\", \"type\":\"OBJECT\", \"class\":\"0xc0\", \"memsize\":40, \"references\":[%s]}\n",
            1048576 + 40 * i, i % 3 ? sprintf("\"0x%x\"", 1048576 + 40 * ((i + 1) % 40000)) : ""
    print "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[\"0x1000\"]}"
}' >wide.json
run "$import" -o wide.hfd wide.json
expect_success "import the wide Array"
same wide.hfd "an object of 40,000 references"

# Wide fan-in, cycles, several roots, unreachable objects, dangling and
# weak references (labels), in one heap of a few thousand objects.
awk 'BEGIN {
    print "{\"address\":\"0xc0\", \"type\":\"CLASS\", \"name\":\"Node\", \"memsize\":400}"
    srand(7)
    for (i = 0; i < 3000; i++) {
        refs = ""
        if (i % 3 == 0) refs = "\"0x10000\""               # fan-in to one
        if (i % 50 == 49) refs = refs (refs ? ", " : "") sprintf("\"0x%x\"", 65536 + 16 * (i - 49)) # cycles back
        if (i % 7 == 0) refs = refs (refs ? ", " : "") sprintf("\"0x%x\"", 65536 + 16 * int(rand() * 3000))
        if (i % 11 == 0) refs = refs (refs ? ", " : "") "\"0xdead0\""  # not in the dump
        if (i + 1 < 3000 && i % 50 != 49) refs = refs (refs ? ", " : "") sprintf("\"0x%x\"", 65536 + 16 * (i + 1))
        printf "{\"address\":\"0x%x\", \"type\":\"OBJECT\", \"class\":\"0xc0\", \"memsize\":%d, \"references\":[%s]}\n",
            65536 + 16 * i, 16 + i % 13, refs
    }
    # unreachable: a small cycle and a tail nobody holds
    print "{\"address\":\"0x900000\", \"type\":\"OBJECT\", \"class\":\"0xc0\", \"memsize\":99, \"references\":[\"0x900010\"]}"
    print "{\"address\":\"0x900010\", \"type\":\"OBJECT\", \"class\":\"0xc0\", \"memsize\":98, \"references\":[\"0x900000\", \"0x10100\"]}"
    for (r = 0; r < 60; r++)
        printf "{\"type\":\"ROOT\", \"root\":\"%s\", \"references\":[\"0x%x\"]}\n", r % 2 ? "vm" : "global_tbl", 65536 + 16 * 50 * r
}' >shapes.json
run "$import" -o shapes.hfd shapes.json
expect_success "import the shapes"
same shapes.hfd "fan-in, cycles, roots, unreachable"
same shapes.hfd "the same without class references" --no-class-refs
run "$graph" dominators -f tsv --temp-dir "$tmp" shapes.hfd
expect_err_has "2 objects (197 B) are not reachable" "the unreachable ones are said"

# The test suite's graph: graph.sh's third dump, with weak references.
for f in "$FIXTURES"/valid/*.hfd; do
    same "$f" "fixture ${f##*/}"
done
for f in "$FIXTURES"/invalid/*.hfd; do
    same "$f" "invalid ${f##*/}"
done

# ---- heapfmt-gen heaps: sizes, profiles, seeds ----
for spec in "1000 1 app" "1000 2 random" "30000 3 app" "30000 4 random" "200000 5 app"; do
    set -- $spec
    gen_dump "gen-$1-$2.hfd" -n "$1" -s "$2" --profile="$3"
    same "gen-$1-$2.hfd" "heapfmt-gen -n $1 -s $2 --profile=$3"
done
same gen-30000-3.hfd "weak references kept" --weak
# --by: groups numbered as rollup.c numbers them (ties sort the same)
for by in class site class,site; do
    for f in gen-1000-2.hfd gen-30000-3.hfd gen-200000-5.hfd shapes.hfd \
        chain.hfd "$FIXTURES"/valid/*.hfd "$FIXTURES"/invalid/*.hfd; do
        same "$f" "--by=$by ${f##*/}" --by=$by
    done
done
run "$graph" dominators -f json -n 5 gen-30000-3.hfd
want=$out
run "$graph" dominators -f json -n 5 --temp-dir "$tmp" gen-30000-3.hfd
[ "$out" = "$want" ] && pass || fail "json rows differ"

# ---- errors ----
expect_usage_error "$graph" "standard input" dominators --temp-dir "$tmp" - <gen-1000-1.hfd
expect_usage_error "$graph" "another command" path --temp-dir "$tmp" gen-1000-1.hfd 0x1
expect_usage_error "$graph" "empty DIR" dominators --temp-dir= gen-1000-1.hfd
run "$graph" dominators --temp-dir "$tmp/missing" gen-1000-1.hfd
expect_failure 1 "a directory that does not exist"
expect_err_has "$tmp/missing: cannot create a temporary file" "it is named"
# A file size limit (SIGXFSZ ignored): the first write past it fails
# with EFBIG, as a full disk fails with ENOSPC.
run bash -c "trap '' XFSZ; ulimit -f 16; exec \"$graph\" dominators --temp-dir \"$tmp\" gen-200000-5.hfd"
expect_failure 1 "a write that fails"
expect_err_has "$tmp: cannot write or read a temporary file: File too large" "the write error is said"
[ -z "$(ls -A "$tmp")" ] && pass || fail "files left in DIR after an error"
# The same in later phases: the limit is a file's, and the 200k heap's
# lists pass 256 KiB while it is loaded, its predecessor buckets 1 to 4
# MiB after the numbering (HEAPFMT_EXTMEM_STATS shows where each stops)
for kib in 256 1024 2048 4096; do
    run bash -c "trap '' XFSZ; ulimit -f $kib; exec \"$graph\" dominators --temp-dir \"$tmp\" gen-200000-5.hfd"
    expect_failure 1 "a write that fails past $kib KiB"
    expect_err_has "cannot write or read a temporary file: File too large" "past $kib KiB: said"
    [ -z "$(ls -A "$tmp")" ] && pass || fail "files left in DIR after an error at $kib KiB"
done
# Killed in the middle: nothing in DIR, ever (the files have no name).
"$graph" dominators --temp-dir "$tmp" gen-200000-5.hfd >/dev/null 2>&1 &
pid=$!
sleep 0.2
left=$(ls -A "$tmp")
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
[ -z "$left$(ls -A "$tmp")" ] && pass || fail "files in DIR while running or after a kill: $left"
rm -rf "$tmp"
finish
