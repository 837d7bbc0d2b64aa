#!/usr/bin/env bash
# verdicts.sh -- heapfmt-info --verify and the readers agree on every input
# (issue 31): a dump verifies if and only if every reader (histo --scan,
# heapfmt-export -r all, heapfmt-graph dominators, heapfmt-diff) exits 0
# without a warning (notes about the heap, such as references to objects
# the dump does not hold, are not warnings). So --verify passes nothing a
# reader rejects or shows as a placeholder, and a dump --verify rejects
# makes some reader say what is wrong.
#
# The inputs: every file of fuzz/corpus/*, tests/fixtures/invalid and
# valid, and the dumps of tests/hostile/mkhostile, one per MUST of the
# spec (docs/robustness.md, "What --verify checks").
#
# Exceptions, rules only --verify enforces: object flag bits 5-31 must be
# zero in a dump (section 1), but readers keep and ignore them (6.4)
# (must-object-flags-reserved.hfd); a lifespan counts no more frees than
# allocations (6.9: must-lifespan-frees.hfd), which readers show as it
# is; a thread's EVENTS records come in its order (6.10:
# must-events-order.hfd), which only heapfmt-replay reads (it drops and
# counts such events). Any input --verify rejects for one of these alone
# passes when every reader passes it.
#
# A file that is not a heapfmt dump (the corpora of the import, roundtrip
# and stream harnesses) fails to open in the code every reader shares
# (cli_dump_open): --verify and one reader, in turn, read each of those.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
mk=$BIN/../tests/mkhostile
in_tmpdir

mkdir hostile
run "$mk" hostile
expect_success "mkhostile writes its dumps"

readers=("histo -S" "export -r all" "graph dominators" "diff")

# reader_clean K FILE: reader K exits 0 and prints no warning or error
# (its exit status in reader_rc, its messages in r.err).
reader_clean() {
    local cmd=${readers[$1]} f=$2
    set -- $cmd
    local tool=$1
    shift
    local prog=$BIN/heapfmt-$tool
    [ "$tool" = histo ] && prog=$BIN/histo
    local args=("$@" "$f")
    [ "$tool" = diff ] && args=("$f" "$f")
    "$prog" "${args[@]}" >/dev/null 2>r.err
    reader_rc=$?
    [ "$reader_rc" = 0 ] || return 1
    local line
    while IFS= read -r line; do
        case $line in
        *": note: "*) ;;
        *) return 1 ;;
        esac
    done <r.err
    return 0
}

# check FILE KIND TURN: prints one line per failed check ("FAIL: ..."),
# or "ok". KIND is D for a heapfmt dump (or a prefix of its magic: a cut
# header; an empty file is a dump truncated at offset 0, spec 10), N for
# anything else, which --verify and reader TURN must refuse.
check() {
    local f=$1 kind=$2 k=$3 base=${1#"$root"/}
    "$BIN/heapfmt-info" --verify "$f" >/dev/null 2>v.err
    local vrc=$?
    case $vrc in
    0 | 1 | 3) ;;
    *) echo "FAIL: $base: heapfmt-info --verify exit $vrc"; return ;;
    esac
    if [ "$kind" = N ]; then
        if [ "$vrc" = 0 ]; then
            echo "FAIL: $base: not a heapfmt dump, yet --verify passes it"
        elif reader_clean "$k" "$f"; then
            echo "FAIL: $base: ${readers[$k]} passes what --verify rejects"
        else
            echo ok
        fi
        return
    fi
    if [ "$vrc" = 0 ]; then
        for k in "${!readers[@]}"; do
            reader_clean "$k" "$f" ||
                echo "FAIL: $base: --verify passes it, ${readers[$k]} exits $reader_rc: $(head -c 300 r.err)"
        done
        echo ok
        return
    fi
    for k in "${!readers[@]}"; do
        if ! reader_clean "$k" "$f"; then
            echo ok
            return
        fi
    done
    if grep -qE 'reserved flag bits|a lifespan with more frees|where its previous record ended' v.err; then
        echo ok
    else
        echo "FAIL: $base: --verify rejects it ($(head -c 200 v.err)), every reader passes it"
    fi
}

inputs=(hostile/*.hfd "$FIXTURES"/invalid/*.hfd "$FIXTURES"/valid/*)
for f in "$root"/fuzz/corpus/*/*; do inputs+=("$f"); done
# For each input, in one process, its kind (D or N: 8 first bytes against
# the magic) and the reader it gets. A file that is not a dump takes one
# of the few ways of the header check (libheapfmt/reader_open.c,
# not_heapfmt): JSON, gzip, fewer than 8 bytes, anything else; each way
# hands its files to the readers in turn, so that each reader sees each
# way. Under the sanitizers, 4,300 such files are 8,600 runs of a tool
# that starts, takes a way and stops, at 20 ms of CPU each (170 s) where
# a few per way check as much: there every dump is checked and, of the
# other files, the first 8 of each way (each reader twice); the plain
# build checks them all.
all_n=1
sanitized_build && all_n=0
python3 - "$all_n" "${#readers[@]}" "${inputs[@]}" >kinds <<'PY'
import sys
magic = b"\x89HFMT\r\n\x1a"
all_n = sys.argv[1] == "1"
nreaders = int(sys.argv[2])
seen = {}
for path in sys.argv[3:]:
    with open(path, "rb") as f:
        head = f.read(16)
    if magic.startswith(head[:8]):
        print("D 0")
        continue
    text = head.lstrip(b" \t\r\n")
    if len(head) < 8:
        way = "short"
    elif text[:1] in (b"{", b"["):
        way = "json"
    elif head[:2] == b"\x1f\x8b":
        way = "gzip"
    else:
        way = "other"
    n = seen.get(way, 0)
    seen[way] = n + 1
    print("N", n % nreaders, "run" if all_n or n < 2 * nreaders else "skip")
PY
mapfile -t kinds <kinds
[ "${#kinds[@]}" = "${#inputs[@]}" ] && pass || fail "classifying the inputs"

# Two shards, one per core.
for shard in 0 1; do
    (
        mkdir -p "shard$shard" && cd "shard$shard" || exit 1
        for i in "${!inputs[@]}"; do
            [ $((i % 2)) = "$shard" ] || continue
            set -- ${kinds[$i]}
            [ "${3-}" = skip ] && continue
            f=${inputs[$i]}
            case $f in /*) ;; *) f=$TMPDIR/$f ;; esac
            check "$f" "$1" "$2"
        done >../result.$shard
    ) &
done
wait
dumps=0
skipped=0
for k in "${kinds[@]}"; do
    case $k in D*) dumps=$((dumps + 1)) ;; *skip) skipped=$((skipped + 1)) ;; esac
done
while IFS= read -r line; do
    case $line in
    ok) pass ;;
    *) fail "${line#FAIL: }" ;;
    esac
done < <(cat result.0 result.1)
echo "${#inputs[@]} inputs, $dumps of them dumps, $skipped others left to the plain build, $checks checks"

# Each MUST dump is rejected by --verify, saying what is wrong.
must_says() { # file text
    run "$BIN/heapfmt-info" --verify "hostile/$1"
    expect_failure 1 "--verify $1"
    expect_err_has "$2" "--verify $1 says why"
}
must_says must-label-kind-7.hfd "unknown label kind"
must_says must-label-past-refs.hfd "label past the last reference"
must_says must-labels-over-refs.hfd "more labels than references"
must_says must-indexed-label-kind-7.hfd "unknown label kind"
must_says must-indexed-label-past-refs.hfd "label past the last reference"
must_says must-indexed-labels-over-refs.hfd "more labels than references"
must_says must-indexed-in-1.2.hfd "reserved OBJECT field bits set"
must_says must-indexed-bit-7.hfd "reserved OBJECT field bits set"
must_says must-indexed-refs-over-limit.hfd "reference count out of range"
must_says must-indexed-undefined.hfd "stack 5 is used, but no STACK record"
must_says must-label-string-undefined.hfd "label string 999 is used, but no STRING record defines it before"
must_says must-stack-undefined.hfd "stack 5 is used, but no STACK record"
must_says must-frame-undefined.hfd "frame 9 is used, but no FRAME record"
must_says must-class-after-use.hfd "class index 1 is used, but no CLASS record"
must_says must-string-after-use.hfd "type string 1 is used, but no STRING record"
must_says must-object-flags-reserved.hfd "reserved flag bits set (0x20)"
must_says must-varint-long.hfd "varint longer than its shortest encoding"
must_says must-lifespan-stack-undefined.hfd "record 1 (LIFESPAN): stack 5 is used, but no STACK record"
must_says must-lifespan-frees.hfd "a lifespan with more frees (3, 120 bytes) than allocations (2, 80 bytes)"
must_says must-events-order.hfd "thread 1's events start at sequence number 5, not after 11"
must_says stacks-undefined.hfd "is used, but no"
must_says undefined-index.hfd "is used, but no"

# heapfmt-export shows an undefined stack as a placeholder, and says so
run "$BIN/heapfmt-export" hostile/must-stack-undefined.hfd
expect_rc 3 "export of an object of an undefined stack"
expect_err_has "stack 5" "export names the undefined stack"
# heapfmt-graph does not skip a block with bad labels silently
run "$BIN/heapfmt-graph" dominators hostile/must-label-kind-7.hfd
expect_rc 3 "graph of a dump with a label of kind 7"
expect_err_has "unknown label kind" "graph says why the block was skipped"
# nor export an indexed record's undefined label string, after its
# undefined stack
run "$BIN/heapfmt-export" -r edges hostile/must-indexed-undefined.hfd
expect_rc 3 "export of an indexed record of undefined ids"
expect_err_has "2 uses of ids that no record read defines" "export counts both"
expect_out_has '"label":1,"label_kind":"index"' "the inferred index after the listed label"

finish
