#!/usr/bin/env bash
# export_pprof.sh -- heapfmt-export -f pprof read back by the real
# consumer, go tool pprof (Debian golang-go): -top per function, site or
# class against histo --by=frame, --by=site and by class; -diff_base of
# two exports against histo's change between the dumps; -traces against
# histo --by=stack; alloc_* and inuse_* of a real heapfmt-malloc dump
# against what its program did.
#
# Without go the test is skipped, except in CI (CI=true), where that is a
# failure.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
export LC_ALL=C
if ! command -v go >/dev/null 2>&1 || ! go tool pprof -h >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: go tool pprof not found (golang-go)" >&2
        exit 1
    fi
    echo "SKIP: go tool pprof not found; install golang-go (scripts/install-deps.sh)"
    exit 0
fi
# pprof keeps nothing in $HOME for local files, but go wants a cache dir
export HOME=$TMPDIR GOCACHE=$TMPDIR/gocache PPROF_TMPDIR=$TMPDIR
cd "$TMPDIR" || exit 1
export_pb() { # DUMP OUT [OPTION...]
    local dump=$1 pb=$2
    shift 2
    run "$BIN/heapfmt-export" -f pprof "$@" -o "$pb" "$dump"
    expect_success "export $dump as pprof"
}

# "name<TAB>value" lines of pprof -top's flat column, every node.
top() { # SAMPLE_INDEX PPROF_ARG...
    local index=$1
    shift
    go tool pprof -top -unit=B -nodecount=1000000 -nodefraction=0 \
        -sample_index="$index" "$@" 2>pprof.err |
        awk 'f { v = $1; sub(/B$/, "", v); n = $0
                 sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+  /, "", n)
                 if (v != 0) print n "\t" v }
             / flat +flat% / { f = 1 }' | sort
}

# histo's TSV rows, summed per name (column NAME, after FILTER: an awk
# expression on the name n), as "name<TAB>value" of column COL.
histo_sum() { # NAME COL FILTER HISTO_ARG...
    local name=$1 col=$2 filter=$3
    shift 3
    "$BIN/histo" -f tsv "$@" |
        awk -F'\t' -v col="$col" -v name="$name" "NR > 1 { n = \$name; $filter; s[n] += \$col }
            END { for (n in s) if (s[n] != 0) print n \"\\t\" s[n] }" | sort
}
# a frame's function: histo names it "function (library+0x...) file:line"
frame_fn='if (n !~ /^\(/ && index(n, " (") > 0) n = substr(n, 1, index(n, " (") - 1)'

same() { # WANT GOT WHAT
    if [ -n "$1" ] && [ "$1" = "$2" ]; then
        pass
    else
        fail "$3: pprof and histo differ: $(diff <(printf '%s\n' "$1") <(printf '%s\n' "$2") | head -8)"
    fi
}

# ---- a malloc-like dump: samples per stack, functions as histo's frames ----
gen_dump s1.hfd -n 30000 -s 3 --stacks
gen_dump s2.hfd -n 34000 -s 3 --stacks
export_pb s1.hfd s1.pb.gz
export_pb s2.hfd s2.pb.gz
[ "$(head -c 2 s1.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] && pass || fail "the profile is gzip'd"
run go tool pprof -raw s1.pb.gz
expect_rc 0 "pprof parses the profile"
expect_out_has "inuse_objects/count inuse_space/bytes[dflt]" "sample types, inuse_space the default"
expect_out_has "class:[" "samples carry their class as a label"

same "$(histo_sum 3 2 "$frame_fn" --by=frame s1.hfd)" "$(top inuse_space s1.pb.gz)" \
    "-top inuse_space vs histo --by=frame"
same "$(histo_sum 3 1 "$frame_fn" --by=frame s1.hfd)" "$(top inuse_objects s1.pb.gz)" \
    "-top inuse_objects vs histo --by=frame"

# -diff_base: the change per function between the two dumps
same "$(histo_sum 1 7 "$frame_fn" -a --by=frame s1.hfd s2.hfd)" \
    "$(top inuse_space -diff_base=s1.pb.gz s2.pb.gz)" "-diff_base inuse_space vs histo's delta"
same "$(histo_sum 1 4 "$frame_fn" -a --by=frame s1.hfd s2.hfd)" \
    "$(top inuse_objects -diff_base=s1.pb.gz s2.pb.gz)" "-diff_base inuse_objects vs histo's delta"

# -traces: a trace per sample; its frames, outermost last, are the end of
# one of histo's stacks (the allocator's frames left out), and its count
# that stack's count (summed over the sites and classes that split it).
go tool pprof -traces -sample_index=inuse_objects s1.pb.gz 2>/dev/null |
    awk '/^-+\+/ { if (k != "") s[k] += v; k = ""; v = 0; on = 1; next }
         !on { next }
         /^ +[a-z_]+: / { next }
         NF == 0 || /^[A-Z]/ { next }
         { if ($1 ~ /^[0-9]+$/ && k == "") { v = $1; $1 = "" } sub(/^ +/, ""); k = k (k == "" ? "" : " < ") $0 }
         END { if (k != "") s[k] += v; for (k in s) print k "\t" s[k] }' | sort > traces.tsv
"$BIN/histo" -f tsv --by=stack s1.hfd |
    awk -F'\t' 'NR > 1 { print $3 "\t" $1 }' > stacks.tsv
python3 - traces.tsv stacks.tsv <<'EOF' >traces.check
import sys
def fn(frame):  # histo's frame name -> the function pprof shows
    if not frame.startswith("(") and " (" in frame:
        return frame[:frame.index(" (")]
    return frame
traces = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[1]))
got = {}
for line in open(sys.argv[2]):
    stack, count = line.rstrip("\n").split("\t")
    frames = [fn(f) for f in stack.split(" < ")]
    # the trace whose frames are the longest end of this stack
    for i in range(len(frames)):
        k = " < ".join(frames[i:])
        if k in traces:
            got[k] = got.get(k, 0) + int(count)
            break
    else:
        print("no trace for", stack)
for k, v in traces.items():
    if got.get(k) != int(v):
        print("trace", k, "has", v, "histo", got.get(k))
print("traces", len(traces))
EOF
ntraces=$(sed -n 's/^traces //p' traces.check)
[ "$(grep -vc '^traces ' traces.check)" = 0 ] && [ "${ntraces:-0}" -gt 40 ] && pass ||
    fail "-traces vs histo --by=stack: $(head -5 traces.check)"

# ---- a Ruby-like dump: samples per site (and class) ----
gen_dump r1.hfd -n 20000 -s 5
export_pb r1.hfd r1.pb.gz
same "$(histo_sum 3 2 "" --by=site r1.hfd)" "$(top inuse_space r1.pb.gz)" "-top vs histo --by=site"
same "$(histo_sum 3 1 "" --by=site r1.hfd)" "$(top inuse_objects r1.pb.gz)" "-top objects vs histo --by=site"
# the class label: -tagfocus keeps the samples of one class
same "$("$BIN/histo" -f tsv -m '^String$' r1.hfd | awk -F'\t' 'NR > 1 { print $2 }')" \
    "$(top inuse_space -tagfocus=class=String r1.pb.gz | awk -F'\t' '{ s += $2 } END { print s }')" \
    "-tagfocus=class=String vs histo's String row"

# ---- a dump without sites: samples per class ----
gen_dump c1.hfd -n 20000 -s 6 --no-sites
export_pb c1.hfd c1.pb.gz
same "$(histo_sum 3 2 "" c1.hfd)" "$(top inuse_space c1.pb.gz)" "-top vs histo by class"

# identity and time in the profile's comments
export_pb c1.hfd c1id.pb.gz --host=web-7 --pid=4242 --release=2026.11.1 --time=2026-11-21T10:00:00Z --dump-tag=w7
run go tool pprof -raw c1id.pb.gz
expect_out_has "Comment: host web-7" "the host as a comment"
expect_out_has "Comment: pid 4242 time 1795255200" "pid and time as a comment"
expect_out_has "Comment: release 2026.11.1" "the release as a comment"
expect_out_has "Comment: dump w7" "the dump tag as a comment"
expect_out_has "Time: 2026-11-21 10:00:00 +0000 UTC" "time_nanos from --time"

# ---- a real heapfmt-malloc dump, exact mode: alloc_* and inuse_* ----
prog=$BIN/../tests/hm_prog
if [ -x "$prog" ]; then
    run "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump -- "$prog" leak 20000 48 m1.hfd m2.hfd
    expect_success "hm_prog leak under heapfmt-malloc"
    export_pb m1.hfd m1.pb.gz
    export_pb m2.hfd m2.pb.gz
    run go tool pprof -raw m2.pb.gz
    expect_out_has "alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes[dflt]" \
        "an exact malloc dump has alloc_* and inuse_*"
    same "$(histo_sum 3 2 "$frame_fn" --by=frame m2.hfd)" "$(top inuse_space m2.pb.gz)" \
        "malloc dump: -top inuse_space vs histo --by=frame"
    row=$(top inuse_objects m2.pb.gz | awk -F'\t' '$1 == "leaky_function" { print $2 }')
    [ "$row" = 20000 ] && pass || fail "leaky_function keeps 20000 blocks, pprof says '$row'"
    # tidy_function frees what it allocates: allocated, nothing in use
    row=$(top alloc_objects m2.pb.gz | awk -F'\t' '$1 == "tidy_function" { print $2 }')
    [ "${row:-0}" -gt 0 ] && pass || fail "tidy_function's allocations: '$row'"
    row=$(top inuse_objects m2.pb.gz | awk -F'\t' '$1 == "tidy_function"')
    [ -z "$row" ] && pass || fail "tidy_function has nothing in use: '$row'"
    # alloc counts are at least what is in use, stack by stack (function)
    join -t $'\t' <(top alloc_objects m2.pb.gz) <(top inuse_objects m2.pb.gz) |
        awk -F'\t' '$2 < $3 { bad++ } END { exit bad > 0 }' && pass ||
        fail "a function has fewer allocations than live blocks"
    row=$(top inuse_space -diff_base=m1.pb.gz m2.pb.gz | awk -F'\t' '$1 == "leaky_function" { print $2 }')
    [ "$row" = 480000 ] && pass || fail "-diff_base: leaky_function grew by 480000 bytes, pprof says '$row'"
    # sampled mode: no alloc_* (the dump counts sampled calls only)
    run "$BIN/heapfmt-malloc" --no-exit-dump -- "$prog" leak 2000 48 ms1.hfd ms2.hfd
    expect_success "hm_prog leak, sampled"
    export_pb ms2.hfd ms2.pb.gz
    run go tool pprof -raw ms2.pb.gz
    expect_out_has "inuse_objects/count inuse_space/bytes[dflt]" "a sampled dump: inuse only"
    expect_out_has "PeriodType: space bytes" "the sampling interval as the period"
else
    fail "no $prog (make test builds it)"
fi

# ---- the command line ----
expect_usage_error "$BIN/heapfmt-export" "pprof takes no --records" -f pprof -r edges s1.hfd
expect_usage_error "$BIN/heapfmt-export" "pprof takes no --max-refs" -f pprof --max-refs=5 s1.hfd
cat s1.hfd | "$BIN/heapfmt-export" -f pprof - > stdin.pb.gz
[ "$(top inuse_space stdin.pb.gz)" = "$(top inuse_space s1.pb.gz)" ] && pass ||
    fail "the same profile from standard input"
# an incomplete dump: the profile of its readable part, exit 3
head -c $(( $(stat -c %s s1.hfd) / 2 )) s1.hfd > half.hfd
run "$BIN/heapfmt-export" -f pprof -o half.pb.gz half.hfd
expect_rc 3 "a truncated dump exits 3"
run go tool pprof -raw half.pb.gz
expect_rc 0 "and its profile parses"
run "$BIN/heapfmt-export" -f pprof -o /dev/full s1.hfd
expect_failure 1 "a full disk"
finish
