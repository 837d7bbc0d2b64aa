#!/usr/bin/env bash
# hostile.sh -- the robustness rules of docs/robustness.md, tested as
# classes over every fixture, a sample of the fuzz corpus and the hostile
# dumps of tests/hostile/mkhostile (valid by checksum, hostile by
# meaning), for every reading tool:
#   - no crash, no hang: each run ends within a timeout with 0, 1 or 3;
#   - no quadratic time: each run within a CPU time limit of 2 s plus 1 s
#     per MiB of input (the hash flooding dumps took 13 s and more of CPU
#     for 4 MB before their tables were seeded; 8 times more under the
#     sanitizers);
#   - memory bounded by what is present: each run under a memory limit
#     (not under AddressSanitizer, which reserves terabytes of address
#     space);
#   - output bounded by input: at most F times the dump's decoded bytes
#     plus 1 MiB, F the tool's factor of docs/robustness.md ("Output is
#     bounded by input"; the factors below);
#   - file = stdin: the same output (but the file's name) and exit status
#     (for inputs under 1 MiB: the flooding and amplification dumps of
#     several MB are read from their file only, to keep the script's time);
#   - serial = parallel: histo --scan -j1 and -j2 agree, output and status.
# Four items of make test, so that each stays well within run-tests.sh's
# time limit on a loaded machine (together 3 min of CPU, 6 min at load
# 12): this one over the fixtures, tests/cli/hostile_corpus.sh
# (HOSTILE_PART=corpus) over every 8th file of the fuzz_read corpus,
# tests/cli/hostile_crafted.sh (HOSTILE_PART=crafted) over mkhostile's
# dumps and the cases by name, tests/cli/hostile_writers.sh
# (HOSTILE_PART=writers): the tools that write a dump from another
# format, heapfmt-import and heapfmt-core, on their fixtures and corpora.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
mk=$BIN/../tests/mkhostile
in_tmpdir

mkdir hostile corpus

# The inputs: the hostile dumps, every fixture, or every 8th file of the
# corpus (none for the writers).
part=${HOSTILE_PART:-fixtures}
inputs=()
if [ "$part" = crafted ]; then
    run "$mk" hostile
    expect_success "mkhostile writes its dumps"
    # but indexed-max-refs.hfd, by name below (its 2^24 edges would make
    # gigabytes of every edge format)
    for f in hostile/*.hfd; do
        [ "$f" = hostile/indexed-max-refs.hfd ] || inputs+=("$f")
    done
elif [ "$part" = fixtures ]; then
    inputs=("$FIXTURES"/invalid/*.hfd)
    for f in "$FIXTURES"/valid/*; do [ -f "$f" ] && inputs+=("$f"); done
elif [ "$part" = corpus ]; then
    n=0
    for f in "$root"/fuzz/corpus/fuzz_read/*; do
        n=$((n + 1))
        [ $((n % 8)) -eq 0 ] && inputs+=("$f")
    done
fi

limit_kib=$((1024 * 1024)) # 1 GiB of address space
cpu_scale=1
if sanitized_build; then
    limit_kib=unlimited
    cpu_scale=8
fi

# set_cur FILE: FILE is the input of the runs that follow ($cur), of
# $cur_bytes bytes.
set_cur() {
    cur=$1
    cur_set=$1
    cur_bytes=$(stat -c %s "$1")
}

# run_bounded NAME INPUT CMD...: runs CMD reading INPUT (a file, or - with
# INPUT on stdin), output to out.NAME, under the limits (the CPU limit of
# $cur; past it the kernel kills the run, which then fails as a kill); its
# exit status in $brc. The script makes 20,000 runs: a command
# substitution and a stat around each took as much CPU as the tools.
run_bounded() {
    local name=$1 input=$2 cpu=$(((2 + cur_bytes / 1048576) * cpu_scale))
    [ "$cur" = "${cur_set-}" ] || fail "run_bounded: $cur not given to set_cur"
    shift 2
    if [ "$input" = - ]; then
        ( ulimit -v "$limit_kib"; ulimit -t "$cpu"
          exec timeout 60 "$@" <"$cur" >"out.$name" 2>"err.$name" )
    else
        ( ulimit -v "$limit_kib"; ulimit -t "$cpu"
          exec timeout 60 "$@" >"out.$name" 2>"err.$name" )
    fi
    brc=$?
}

# factor CMD: sets $fac, the most output bytes per decoded byte of the
# dump (docs/robustness.md derives each from the cut of names, 256 bytes
# once escaped, and from the least bytes a row's or document's record
# takes).
factor() {
    case $1 in
    export*) fac=4096 ;; # an object's document: 32 KiB of stack
    "graph referrers"*) fac=2048 ;; # a row per reference (a byte)
    *stack* | *frame* | *folded*) fac=1024 ;; # 3 names per frame (a byte)
    *) fac=256 ;; # a row per record, names cut
    esac
}

# decoded CUR: the dump's decoded bytes (heapfmt-info's raw-bytes), or its
# size when it is more (stored blocks, or not a dump).
decoded() {
    local size raw
    size=$(stat -c %s "$1")
    raw=$("$BIN/heapfmt-info" "$1" 2>/dev/null |
        awk '/^raw-bytes/ { gsub(",", "", $2); print $2 }')
    [ -n "$raw" ] && [ "$raw" -gt "$size" ] && size=$raw
    echo "$size"
}

checked=0
for f in "${inputs[@]}"; do
    set_cur "$f"
    size=$(decoded "$cur")
    base=$(basename "$cur")
    big=
    [ "$cur_bytes" -ge 1048576 ] && big=1
    for cmd in "info" "info --verify" "histo" "histo -S" "histo -S --by=type" \
               "histo --by=site" "histo --by=stack" \
               "histo --by=frame -f csv" "histo -f folded" "export -r all" \
               "export -r all --format=mongo" "export -r edges --format=mongo" \
               "export --format=json" "export --format=rows" \
               "export --format=rows -r edges" "export --format=pprof" \
               "graph dominators -n 5" \
               "graph dominators --by=class,site -n 5" \
               "graph referrers --class=String -n 50" \
               "graph leaked -n 5" "graph leaked --objects -n 50" \
               "graph path -k 2 0x10000"; do
        factor "$cmd"
        bound=$((fac * size + 1048576))
        set -- $cmd
        tool=$1
        shift
        case $tool in
        histo) prog=$BIN/histo ;;
        *) prog=$BIN/heapfmt-$tool ;;
        esac
        # the dump before the ids of graph path
        if [ "$tool ${1-}" = "graph path" ]; then
            run_bounded file "$cur" "$prog" path -k 2 "$cur" 0x10000; rc_file=$brc
            [ "$big" ] || { run_bounded pipe - "$prog" path -k 2 - 0x10000; rc_pipe=$brc; }
        else
            run_bounded file "$cur" "$prog" "$@" "$cur"; rc_file=$brc
            [ "$big" ] || { run_bounded pipe - "$prog" "$@" -; rc_pipe=$brc; }
        fi
        what="$base: $cmd"
        case $rc_file in
        0 | 1 | 3) pass ;;
        124) fail "$what: timed out" ;;
        *) fail "$what: exit $rc_file (a crash or a kill)" ;;
        esac
        out_size=$(stat -c %s out.file)
        [ "$out_size" -le "$bound" ] && pass ||
            fail "$what: $out_size bytes out of $size in (bound $bound)"
        checked=$((checked + 1))
        [ "$big" ] && continue
        # file = stdin: same status and output, the name aside (and what
        # only a file knows: its size; graph dominators reads a file twice
        # and a pipe once, with the same answer)
        [ "$rc_file" = "$rc_pipe" ] && pass ||
            fail "$what: exit $rc_file from the file, $rc_pipe from stdin"
        if [ "$rc_file" = 0 ] && [ "$tool" != info ]; then
            cmp -s out.file out.pipe && pass ||
                fail "$what: output differs between file and stdin"
        fi
    done
    # serial = parallel
    run_bounded j1 "$cur" "$BIN/histo" -S -j1 "$cur"; r1=$brc
    run_bounded j2 "$cur" "$BIN/histo" -S -j2 "$cur"; r2=$brc
    [ "$r1" = "$r2" ] && pass || fail "$base: histo -S exit $r1 with -j1, $r2 with -j2"
    cmp -s out.j1 out.j2 && pass || fail "$base: histo -S output differs with -j2"
    cmp -s err.j1 err.j2 && pass || fail "$base: histo -S messages differ with -j2"
    run_bounded j1 "$cur" "$BIN/histo" --by=stack -j1 "$cur"; r1=$brc
    run_bounded j2 "$cur" "$BIN/histo" --by=stack -j2 "$cur"; r2=$brc
    [ "$r1" = "$r2" ] && pass || fail "$base: --by=stack exit $r1 with -j1, $r2 with -j2"
    cmp -s out.j1 out.j2 && pass || fail "$base: --by=stack output differs with -j2"
    # heapfmt-diff takes two dumps: the input against itself; heapfmt-graph
    # owners three
    for by in frame site; do
        run_bounded diff "$cur" "$BIN/heapfmt-diff" --by=$by "$cur" "$cur"; rc=$brc
        case $rc in
        0 | 1 | 3) pass ;;
        *) fail "$base: heapfmt-diff --by=$by: exit $rc" ;;
        esac
    done
    run_bounded owners "$cur" "$BIN/heapfmt-graph" owners "$cur" "$cur" "$cur"; rc=$brc
    case $rc in
    0 | 1 | 3) pass ;;
    *) fail "$base: heapfmt-graph owners: exit $rc" ;;
    esac
    # heapfmt-replay: what a trace holds is replayed (in a child, under
    # glibc), anything else refused; file and pipe agree
    bound=$((256 * size + 1048576))
    run_bounded replay "$cur" "$BIN/heapfmt-replay" -a glibc -f json -t 20 "$cur"; rc=$brc
    run_bounded replaypipe - "$BIN/heapfmt-replay" -a glibc -f json -t 20 -; rc_pipe=$brc
    case $rc in
    0 | 1 | 3) pass ;;
    *) fail "$base: heapfmt-replay: exit $rc" ;;
    esac
    [ "$rc" = "$rc_pipe" ] && pass || fail "$base: heapfmt-replay: exit $rc from the file, $rc_pipe from stdin"
    out_size=$(stat -c %s out.replay)
    [ "$out_size" -le "$bound" ] && pass ||
        fail "$base: heapfmt-replay: $out_size bytes out of $size in"
    # heapfmt-report on one dump (the sections that fit one) and on three
    # (every section): the input three times; its names stay text, never
    # markup of the page
    bound=$((256 * size + 1048576))
    for n in 1 3; do
        set -- "$cur"
        [ $n = 3 ] && set -- "$cur" "$cur" "$cur"
        run_bounded report "$cur" "$BIN/heapfmt-report" "$@"; rc=$brc
        case $rc in
        0 | 1 | 3) pass ;;
        *) fail "$base: heapfmt-report of $n: exit $rc" ;;
        esac
        out_size=$(stat -c %s out.report)
        [ "$out_size" -le "$bound" ] && pass ||
            fail "$base: heapfmt-report of $n: $out_size bytes out of $size in"
        if [ "$rc" = 0 ] || [ "$rc" = 3 ]; then
            [ "$(grep -o '<script' out.report | wc -l)" -eq 2 ] && pass ||
                fail "$base: heapfmt-report of $n: a name became a script element"
        fi
    done
done
echo "$checked runs over ${#inputs[@]} inputs"
[ "$part" = fixtures ] || [ "$part" = corpus ] && finish

if [ "$part" = writers ]; then
    # check_writer NAME OUT CMD...: CMD, which writes the dump OUT from
    # $cur, ends with 0, 1 or 3 under the limits, and OUT holds at most 16
    # bytes per byte of $cur plus 1 MiB.
    check_writer() {
        local name=$1 dumpfile=$2 rc out_size bound
        shift 2
        rm -f "$dumpfile"
        run_bounded writer "$cur" "$@"; rc=$brc
        case $rc in
        0 | 1 | 3) pass ;;
        *) fail "$name: ${1##*/}: exit $rc" ;;
        esac
        out_size=$(stat -c %s "$dumpfile" 2>/dev/null || echo 0)
        bound=$((16 * cur_bytes + 1048576))
        [ "$out_size" -le "$bound" ] && pass ||
            fail "$name: ${1##*/} wrote $out_size bytes (bound $bound)"
    }
    # heapfmt-import on every import fixture and every 8th input of the
    # fuzz_import corpus: no crash, no hang, a dump of at most 16 bytes per
    # byte of input plus 1 MiB.
    n=0
    imports=0
    for cur in "$FIXTURES"/import/* "$root"/fuzz/corpus/fuzz_import/*; do
        [ -f "$cur" ] || continue
        case $cur in
        */fuzz_import/*) n=$((n + 1)); [ $((n % 8)) -eq 0 ] || continue ;;
        *README*) continue ;;
        esac
        set_cur "$cur"
        check_writer "$(basename "$cur")" imported.hfd "$BIN/heapfmt-import" \
            -o imported.hfd "$cur"
        imports=$((imports + 1))
    done
    echo "$imports imports"
    # heapfmt-core on every second core of the fuzz_core corpus (an input
    # whose first byte's low bits are 0 is a core after that byte):
    # damaged and cut cores, no crash, no hang, a dump of at most 16 bytes
    # per byte of core plus 1 MiB.
    n=0
    cores=0
    for f in "$root"/fuzz/corpus/fuzz_core/*; do
        [ -f "$f" ] || continue
        mode=$(head -c 1 "$f" | od -An -tu1)
        [ $((mode % 4)) = 0 ] || continue
        n=$((n + 1))
        [ $((n % 2)) = 0 ] || continue
        tail -c +2 "$f" >core.in
        set_cur core.in
        check_writer "$(basename "$f")" core.hfd "$BIN/heapfmt-core" \
            --no-debug-files -o core.hfd "$cur"
        cores=$((cores + 1))
    done
    [ "$cores" -ge 20 ] && pass || fail "only $cores cores in fuzz/corpus/fuzz_core"
    echo "$cores cores"
    finish
fi

# bounded_ok WHAT CMD...: CMD under the limits (run_bounded, on $cur)
# exits 0 and writes at most $bound bytes (out.named).
bounded_ok() {
    local what=$1 rc out_size
    shift
    run_bounded named "$cur" "$@"; rc=$brc
    out_size=$(stat -c %s out.named)
    [ "$rc" = 0 ] && [ "$out_size" -le "$bound" ] && pass ||
        fail "$what: exit $rc, $out_size bytes (bound $bound), $(head -c 200 err.named)"
}

# Output and memory amplification (issue 31, point 6), by name: a dump of
# 1.6 MB whose class, type, file, function, label and root kind are 256
# KiB texts, 2,000 objects at 2,000 lines of one stack. Names are cut, so
# every answer is a few bytes per object: at most 64 times the dump here
# (before: histo --by=site 524 MB, heapfmt-export 344 MB, heapfmt-report
# and heapfmt-diff --by=site more than 120 s).
set_cur hostile/huge-names.hfd
size=$(decoded "$cur")
bound=$((64 * size + 1048576))
for cmd in "histo --by=site" "histo --by=site -f json" "histo --by=stack" \
           "histo -f folded" "histo --by=type" "export -r all" \
           "export -r all --format=mongo" "export -r edges" \
           "graph dominators -f json" "graph dominators --by=class,site" \
           "graph leaked --objects" "graph leaked --by=class,site -f json" \
           "heapfmt-report"; do
    set -- $cmd
    case $1 in
    histo) prog=$BIN/histo ;;
    heapfmt-*) prog=$BIN/$1 ;;
    *) prog=$BIN/heapfmt-$1 ;;
    esac
    shift
    bounded_ok "huge names: $cmd" "$prog" "$@" "$cur"
done
for cmd in "heapfmt-report" "heapfmt-diff --by=site" \
           "heapfmt-diff --by=stack -f json" "heapfmt-graph owners -f json"; do
    set -- $cmd
    prog=$BIN/$1
    shift
    bounded_ok "huge names: $cmd" "$prog" "$@" "$cur" "$cur" "$cur"
done
# The most edge output per byte of dump: an indexed array (1.3) whose
# references cost a byte each and their labels nothing, each printed with
# a 20-digit index, under an identity (host and release) of 255 control
# bytes that every row repeats, with the longest dump tag: still within
# heapfmt-export's 4,096 times (measured on this dump of 20,000: 3,316
# times as MongoDB edges, 3,093 as rows, 3,397 with -r all; 3,457 at
# most with 100,000).
set_cur hostile/many-indexed.hfd
size=$(decoded "$cur")
bound=$((4096 * size + 1048576))
tag=$(printf '%064d' 0)
for cmd in "-r edges" "-r edges -f rows" \
           "-r edges -f mongo --pid=1 -t $tag" "-r all -f mongo --pid=1 -t $tag" \
           "-r edges -f json --pid=1 -t $tag"; do
    # shellcheck disable=SC2086
    bounded_ok "indexed edges: export $cmd" "$BIN/heapfmt-export" $cmd "$cur"
    echo "export $cmd: $(($(stat -c %s out.named) / size)) times the dump"
done
# every edge carries its inferred index: 20,000 of them, the last
# 2^64 - 2^59 + 19,999
[ "$(grep -c '"label_kind":"index"' out.named)" = 20000 ] &&
    grep -q '"label":"17870283321406148127"' out.named && pass ||
    fail "indexed edges: every edge with its index"
# Memory: an indexed record of 2^24 references (the most a record holds)
# takes a byte of dump each, and every one has a label: a reader that
# gives them holds 32 bytes a reference (512 MiB), and the tools that ask
# for labels stay within the 1 GiB address space (measured: 543 MB in
# --verify and export, 674 MB in heapfmt-graph dominators, 739 MB in
# referrers), with the limits of every run (CPU, output).
set_cur hostile/indexed-max-refs.hfd
size=$(decoded "$cur")
bound=$((256 * size + 1048576))
for cmd in "heapfmt-info --verify" "heapfmt-export" "heapfmt-export -f mongo" \
           "heapfmt-graph dominators -n 5" "heapfmt-graph leaked -n 5" \
           "heapfmt-graph referrers -n 5 --class=Thing" "histo -S"; do
    set -- $cmd
    prog=$BIN/$1
    shift
    bounded_ok "2^24 indexed references: $cmd" "$prog" "$@" "$cur"
done
set_cur hostile/huge-names.hfd
run "$BIN/histo" --by=site -f tsv "$cur"
expect_out_has $'\xe2\x80\xa6(+261888 bytes):17' "a cut file name says what was cut"
# the last quarter of its objects is reached by no root: heapfmt-graph
# leaked names each, cut
run "$BIN/heapfmt-graph" leaked --objects -f tsv "$cur"
expect_success "huge names: leaked --objects"
[ "$(printf '%s\n' "$out" | grep -c $'\xe2\x80\xa6(+261888 bytes)')" -ge 500 ] && pass ||
    fail "huge names: leaked --objects names each of the 500 objects, cut"
# heapfmt-graph path keeps no row in table form: a path of 200,000 hops
# in 32 MiB of address space, as in JSON (before: 415 bytes a hop, more
# than 96 MiB).
if [ "$limit_kib" != unlimited ]; then
    last=$(printf '0x%x' $((0x10000 + 40 * 199999)))
    for fmt in table json; do
        ( ulimit -v $((32 * 1024))
          "$BIN/heapfmt-graph" path -f $fmt hostile/deep-chain.hfd "$last" >out.path 2>err.path )
        rc=$?
        [ "$rc" = 0 ] && [ "$(grep -c . out.path)" -gt 200000 ] && pass ||
            fail "a path of 200,000 hops in 32 MiB ($fmt): exit $rc, $(cat err.path)"
    done
    # the table: one header, then the root and every hop, printed as they
    # come past the first 4,096
    run "$BIN/heapfmt-graph" path hostile/deep-chain.hfd "$last"
    [ "$(printf '%s\n' "$out" | wc -l)" = 200002 ] &&
        [ "$(printf '%s\n' "$out" | grep -c '^TARGET ')" = 1 ] && pass ||
        fail "the path's table: one header and 200,001 rows"
fi

# Call stacks whose records are missing: placeholders, and a stack of
# 4096 frames named whole (issue 16); ids no record defines make a dump
# damaged (spec 6.4, 6.8), said once, with exit 3 (issue 31).
undefined_said() { # what
    expect_rc 3 "$1"
    expect_err_has "uses of ids that no record read defines before them" "$1: said"
}
run "$BIN/histo" --by=stack -f tsv hostile/stacks-undefined.hfd
undefined_said "undefined frames and stacks"
expect_out_has "#<undefined frame 77>" "a lost frame has a placeholder"
expect_out_has "#<undefined string 1000> (0xdead)" "a lost function name"
expect_out_has "(unknown stack)" "an object of a lost stack"
expect_out_has "(no stack)" "an object without a stack"
run "$BIN/histo" --by=frame -f tsv hostile/stacks-undefined.hfd
undefined_said "--by=frame: undefined frames and stacks"
expect_out_has "#<undefined frame 77>" "--by=frame: the lost frame is the top"
run "$BIN/histo" -f folded hostile/stacks-undefined.hfd
undefined_said "folded: undefined frames and stacks"
[ "$(printf '%s\n' "$out" | wc -l)" = 4 ] && pass ||
    fail "folded: one line per stack, names never split a line"
expect_out_has "a,b?c (libheapfmt-malloc.so+0x10) a,b?c:7" "folded: ';' and newline replaced"
run "$BIN/histo" --by=stack -f csv hostile/stacks-undefined.hfd
undefined_said "csv: a stack of 4096 frames"
[ "$(printf '%s\n' "$out" | awk 'length > 100000' | wc -l)" = 1 ] && pass ||
    fail "csv: the 4096-frame stack is not written whole"

# The cases of the adversarial run, by name (issue 15).
run "$BIN/heapfmt-export" -r all hostile/huge-class-index.hfd
expect_success "a class index of 2^32-1 costs nothing"
expect_out_has '"class":"Huge"' "and is named"
run "$BIN/heapfmt-export" -r edges hostile/long-root-kind.hfd
expect_success "edges of a root with a 64 KiB kind"
expect_out_has '"root_truncated":true' "the kind is cut in each edge"
[ "${#out}" -lt $((2000 * 4400 + 65536)) ] && pass ||
    fail "edge output ${#out} bytes: the kind repeated whole"
run "$BIN/heapfmt-export" hostile/long-class-name.hfd
expect_rc 3 "objects of a class with a 64 KiB name (no footer)"
expect_out_has '"class_truncated":true' "the name is cut in each object"
run "$BIN/heapfmt-info" --verify hostile/duplicate-ids.hfd
expect_failure 1 "duplicate ids fail --verify"
expect_err_has "3 objects have the id 0x10000" "and are named"
run "$BIN/heapfmt-info" --verify hostile/duplicate-ids-two.hfd
expect_failure 1 "two ids repeated fail --verify"
expect_err_has "2 objects have the id 0x10000" "the lower is named, with its count"
run "$BIN/heapfmt-export" --format=mongo hostile/duplicate-ids.hfd
[ "$(printf '%s\n' "$out" | grep -o '"_id":"[^"]*"' | sort | uniq -d)" = "" ] &&
    pass || fail "MongoDB _ids stay unique"
for j in 1 2 4; do
    run "$BIN/histo" -S -j$j hostile/index-skips-empty-block.hfd
    expect_rc 3 "an index that leaves out a block without objects, -j$j"
    expect_err_has "footer totals disagree" "said with -j$j"
    run "$BIN/histo" -S -j$j hostile/summary-disagrees.hfd
    expect_rc 3 "a summary that disagrees, -j$j"
    expect_err_has "summary of class index 1 says 35 objects" "said with -j$j"
done
# A footer shows only over the blocks it describes (issue 31): two dumps
# written into one file at once keep the longer one's footer intact, and
# histo must not show it as the dump's; nor a footer whose index or
# summary disagrees with itself.
for f in interleaved interleaved-zstd index-skips-block index-skips-empty-block \
         index-repeats-block summary-disagrees; do
    run "$BIN/histo" hostile/$f.hfd
    expect_rc 3 "histo from the footer of $f"
    expect_err_has "the footer does not describe the blocks" "$f: said"
    run "$BIN/heapfmt-info" --verify hostile/$f.hfd
    expect_failure 1 "$f fails --verify"
done
run "$BIN/histo" hostile/interleaved.hfd
case $out in
*Thing*) fail "interleaved: the footer's class is shown" ;;
*) pass ;;
esac
expect_err_has "block 40 of the block index" "interleaved: the first block out of place"
run "$BIN/histo" hostile/interleaved-zstd.hfd
expect_err_has "does not decompress" "interleaved-zstd: the overwritten block named"
# a closed pipe stops the export at once, after the document being written
run bash -c "'$BIN/heapfmt-export' -r edges hostile/long-root-kind.hfd | head -c 100 >/dev/null; echo \${PIPESTATUS[0]}"
[ "$out" = 0 ] && pass || fail "export into a closed pipe: exit $out"

finish
