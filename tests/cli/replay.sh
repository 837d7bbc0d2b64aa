#!/usr/bin/env bash
# replay.sh -- heapfmt-replay on traces recorded with heapfmt-malloc
# --record from programs whose allocations are known
# (tests/replay/replay_prog.c), and on traces no recorder would write
# (tests/replay/mktrace.c): live bytes exact at every MARK, resident
# memory close to the recorded run's, the fragmenting program's overhead
# in the direction glibc's arenas predict, and bad input of every kind
# reported, never a crash.
. "$(dirname "$0")/lib.bash"

tests=$BIN/../tests
cd "$TMPDIR"
replay() { "$BIN/heapfmt-replay" "$@"; }
# json FILE EXPR: a Python expression over the replay's JSON (as j)
json() { python3 -c "import json, sys; j = json.load(open(sys.argv[1])); print($2)" "$1"; }
installed() { # NAME: Debian's library of that allocator is installed
    local so
    case $1 in
    jemalloc) so=libjemalloc.so.2 ;;
    tcmalloc) so=libtcmalloc_minimal.so.4 ;;
    mimalloc) so=libmimalloc.so.2 ;;
    esac
    ldconfig -p 2>/dev/null | grep -q "$so"
}
record() { # NAME CMD...: NAME.hfd, the trace of CMD (10 ms MARKs)
    local name=$1
    shift
    mkdir -p "rec-$name"
    run "$BIN/heapfmt-malloc" --record --mark-interval=10 -d "rec-$name" -- "$@"
    expect_success "record $name"
    mv "rec-$name"/heapfmt-malloc-*-trace.hfd "$name.hfd"
}

# --- the command line ---
expect_usage_error "$BIN/heapfmt-replay" "no trace"
expect_usage_error "$BIN/heapfmt-replay" "two traces" a.hfd b.hfd
expect_usage_error "$BIN/heapfmt-replay" "bad format" -f xml a.hfd
expect_usage_error "$BIN/heapfmt-replay" "unknown allocator" -a hoard a.hfd
expect_usage_error "$BIN/heapfmt-replay" "a setting without =" -a glibc:MALLOC_ARENA_MAX a.hfd
expect_usage_error "$BIN/heapfmt-replay" "bad size" --max-memory=lots a.hfd
run replay -a glibc no-such.hfd
expect_failure 1 "a missing trace"
expect_err_has "no-such.hfd" "names it"
"$BIN/heapfmt-gen" -n 100 -o dump.hfd
run replay -a glibc dump.hfd
expect_failure 1 "a dump that is no trace"
expect_err_has "heapfmt-malloc --record" "says how to make one"

# --- a pure-malloc program: live bytes exact, resident memory as recorded ---
record pure "$tests/replay_prog" pure
want_live=${out#live }
run replay -a glibc -f json pure.hfd
expect_success "replay pure under glibc"
printf '%s\n' "$out" > pure.json
[ "$(json pure.json 'j["allocators"][0]["result"]')" = ok ] && pass || fail "pure: result"
nmarks=$(json pure.json 'len(j["trace"]["marks"])')
[ "$nmarks" -ge 10 ] && pass || fail "pure: $nmarks MARKs (10 ms apart over 160 ms of pauses)"
[ "$(json pure.json 'j["allocators"][0]["marks_exact"]')" = "$nmarks" ] && pass ||
    fail "pure: live bytes differ from the trace's at some MARK"
# every MARK: the replay's live bytes are the trace's
[ "$(json pure.json '[m["live"] for m in j["allocators"][0]["marks"]] == [m["live"] for m in j["trace"]["marks"]]')" = True ] &&
    pass || fail "pure: live bytes per MARK"
# the program's own count of its live blocks; the trace adds stdout's buffer
end_live=$(json pure.json 'j["allocators"][0]["end_live"]')
[ "$end_live" -ge "$want_live" ] && [ "$end_live" -le $((want_live + 8192)) ] && pass ||
    fail "pure: end live $end_live, the program kept $want_live"
# peak resident memory within 10% of the recorded run's
ratio=$(json pure.json 'j["allocators"][0]["peak_rss"] / max(m["peak"] for m in j["trace"]["marks"])')
python3 -c "import sys; sys.exit(0 if 0.9 <= $ratio <= 1.1 else 1)" && pass ||
    fail "pure: peak RSS replayed / recorded = $ratio, not within 10%"
# the table, TSV and the page say the same
run replay -a glibc pure.hfd
expect_success "the table"
expect_out_has "(recorded)" "the recorded run's row"
expect_out_has "$nmarks/$nmarks" "every MARK exact"
run replay -a glibc -f tsv pure.hfd
expect_success "tsv"
[ "$(printf '%s\n' "$out" | awk -F'\t' '$1 == "glibc" {print $5}')" = "$end_live" ] && pass || fail "tsv: end_live"
# CSV: TSV's columns and rows, read back by Python's csv module; a label
# with a comma (a setting's value) is one quoted field. Times and resident memory
# differ between two runs: those columns are compared by shape only.
three=(-a "glibc,glibc:HEAPFMT_T=a,b,$tests/no_malloc.so")
"$BIN/heapfmt-replay" "${three[@]}" -f tsv pure.hfd > three.tsv
rc_tsv=$?
"$BIN/heapfmt-replay" "${three[@]}" -f csv pure.hfd > three.csv
rc_csv=$?
[ "$rc_tsv $rc_csv" = "1 1" ] && pass || fail "csv: exit $rc_csv, tsv: exit $rc_tsv (want 1, an allocator failed)"
python3 - three.tsv three.csv <<'PY' && pass || fail "csv: not the TSV's rows"
import csv, re, sys
tsv = [l.split("\t") for l in open(sys.argv[1], newline="").read().splitlines()]
rows = list(csv.reader(open(sys.argv[2], newline="")))
assert len(rows) == len(tsv) == 5, (len(rows), len(tsv))
assert rows[0] == tsv[0] and rows[0][0] == "allocator" and len(rows[0]) == 12, rows[0]
assert [r[0] for r in rows] == [r[0] for r in tsv], (rows, tsv)
assert [r[0] for r in rows[:4]] == ["allocator", "(recorded)", "glibc", "glibc:HEAPFMT_T=a,b"], rows
assert rows[4][0].endswith("no_malloc.so"), rows[4][0]
num = re.compile(r"^-?[0-9]+(\.[0-9]+)?$|^$")
for c, t in zip(rows[1:], tsv[1:]):
    assert len(c) == len(t) == 12, (c, t)
    for i in range(12):
        if i in (1, 2, 3, 5):  # time, resident memory: measured per run
            assert num.match(c[i]) and num.match(t[i]) and (c[i] == "") == (t[i] == ""), (i, c, t)
        else:
            assert c[i] == t[i], (i, c, t)
assert [r[11] for r in rows[2:4]] == ["ok", "ok"], rows
assert rows[4][11].startswith("not an allocator: ") and "defines no malloc" in rows[4][11], rows[4]
PY
grep -q '^"glibc:HEAPFMT_T=a,b",' three.csv && pass || fail "csv: the label with a comma is not quoted"
run replay -a glibc -o page.html pure.hfd
expect_success "a page"
grep -q '<title>heapfmt replay' page.html && grep -q '"allocators"' page.html && pass || fail "page: title or data"
run replay -a glibc,glibc:MALLOC_ARENA_MAX=2 -o page2.html pure.hfd
expect_success "a page of two allocators"
# resident memory over time: the recorded run (dashed) and one line each
n=$(grep -o '<polyline' page2.html | wc -l)
[ "$n" -ge 3 ] && pass || fail "page: $n lines in the chart, want the recorded run's and two replays'"
grep -q 'stroke-dasharray' page2.html && pass || fail "page: the recorded run's line"
run replay -a glibc -o - pure.hfd
expect_success "the page on stdout"
case $out in "<!DOCTYPE html>"*"</html>") pass ;; *) fail "-o -: stdout is not the page alone" ;; esac
run replay -a glibc -o pure.hfd pure.hfd
expect_failure 1 "the page never replaces the trace"
expect_err_has "not overwriting" "says why"
[ "$(json pure.json 'j["trace"]["events"]')" -gt 0 ] && "$BIN/heapfmt-info" --verify pure.hfd >/dev/null && pass ||
    fail "the trace is intact"

# --- the same trace from standard input ---
run sh -c "\"$BIN/heapfmt-replay\" -a glibc -f tsv - < pure.hfd"
expect_success "a trace on stdin"

# --- four threads fragmenting glibc: fewer arenas and jemalloc keep less ---
record frag "$tests/replay_prog" fragment
list=glibc,glibc:MALLOC_ARENA_MAX=2
installed jemalloc && list=$list,jemalloc
run replay -a "$list" -f json frag.hfd
expect_success "replay fragment"
printf '%s\n' "$out" > frag.json
[ "$(json frag.json 'len(j["trace"]["marks"]) > 20 and all(a["marks_exact"] == len(j["trace"]["marks"]) for a in j["allocators"])')" = True ] &&
    pass || fail "fragment: live bytes at every MARK, under each allocator"
over() { json frag.json "[a for a in j['allocators'] if a['allocator'] == '$1'][0]['end_rss'] / [a for a in j['allocators'] if a['allocator'] == '$1'][0]['end_live']"; }
glibc=$(over glibc)
arena2=$(over glibc:MALLOC_ARENA_MAX=2)
python3 -c "import sys; sys.exit(0 if $arena2 < $glibc else 1)" && pass ||
    fail "fragment: MALLOC_ARENA_MAX=2 overhead $arena2, glibc's $glibc"
if installed jemalloc; then
    jem=$(over jemalloc)
    python3 -c "import sys; sys.exit(0 if $jem < $glibc else 1)" && pass ||
        fail "fragment: jemalloc overhead $jem, glibc's $glibc"
else
    echo "SKIP: libjemalloc2 is not installed (fragment under jemalloc)"
fi
# the recorded run fragmented as glibc's replay does (both under glibc)
rec=$(json frag.json 'j["trace"]["marks"][-1]["rss"] / j["trace"]["marks"][-1]["live"]')
python3 -c "import sys; sys.exit(0 if abs($rec - $glibc) / $rec < 0.25 else 1)" && pass ||
    fail "fragment: recorded overhead $rec, glibc's replay $glibc"

# --- fragmentation without a replay: the dumps say it (info, histo, report) ---
mkdir dumps
run "$BIN/heapfmt-malloc" --mode=exact -d dumps -- "$tests/replay_prog" fragment
expect_success "an exact dump of the fragmenting program"
dump=$(ls dumps/*.hfd)
run "$BIN/heapfmt-info" -p "$dump"
expect_success "info"
live=$(row meta.malloc.live.bytes)
[ "$(row native-live)" = "$live" ] && pass || fail "info: native-live $(row native-live), META $live"
want=$(( $(row meta.rss) - $(row meta.malloc.tracker_bytes) ))
[ "$(row native-rss)" = "$want" ] && pass || fail "info: native-rss $(row native-rss), want $want"
[ "$(row native-free)" = "$(row meta.mallinfo2.fordblks)" ] && pass || fail "info: native-free"
over=$(row native-overhead)
python3 -c "import sys; sys.exit(0 if abs($over - $want / $live) < 0.01 and $over > 5 else 1)" && pass ||
    fail "info: native-overhead $over (fragmented: more than 5)"
run "$BIN/heapfmt-info" "$dump"
expect_out_has "resident / live" "info says what the ratio is"
run "$BIN/histo" "$dump"
expect_success "histo"
expect_out_has "native heap: resident" "histo's line under the table"
expect_out_has "not a leak" "and what a large overhead means"
run "$BIN/histo" -f json "$dump"
printf '%s\n' "$out" > histo.json
[ "$(json histo.json 'j["dumps"][0]["native"]["live"]')" = "$live" ] && pass || fail "histo json: native.live"
run "$BIN/heapfmt-report" -o report.html "$dump"
expect_success "report"
grep -q 'Native heap of dump 1: resident' report.html && pass || fail "report: the native heap line"
# a dump of another producer has none of it
run "$BIN/heapfmt-info" -p dump.hfd
[ -z "$(row native-rss)" ] && pass || fail "info: native rows for a heapfmt-gen dump"
run "$BIN/histo" dump.hfd
case $out in *"native heap"*) fail "histo: a native line for a heapfmt-gen dump" ;; *) pass ;; esac

# --- every installed allocator replays the Ruby-free trace; a PATH too ---
for a in jemalloc tcmalloc mimalloc; do
    if installed "$a"; then
        run replay -a "$a" -f tsv frag.hfd
        expect_success "replay under $a"
        [ "$(printf '%s\n' "$out" | awk -F'\t' -v a="$a" '$1 == a {print $NF}')" = ok ] && pass || fail "$a: result"
    else
        echo "SKIP: $a is not installed"
    fi
done
if installed jemalloc; then
    so=$(ldconfig -p | awk '/libjemalloc.so.2 / {print $NF; exit}')
    run replay -a "$so" -f tsv frag.hfd
    expect_success "an allocator by path"
fi

# --- allocators that cannot replay: their row says why, exit 1 ---
run replay -a glibc,"$tests/no_malloc.so" pure.hfd
expect_rc 1 "a shared object that is no malloc"
expect_out_has "not an allocator" "says so in its row"
expect_out_has "defines no malloc" "and why"
[ "$(printf '%s\n' "$out" | awk '$1 == "glibc" {print $NF}')" = ok ] && pass || fail "glibc still replays beside it"
echo 'not a library' > notlib.so
run replay -a glibc,"$TMPDIR/notlib.so" pure.hfd
expect_rc 1 "a file that is no shared object"
expect_out_has "cannot be loaded" "says so"
# the reason names the path: its control bytes are escaped, not sent to the terminal
esc=$(printf 'not\033[31mlib.so')
cp notlib.so "$esc"
run replay -a glibc,"$TMPDIR/$esc" pure.hfd
expect_rc 1 "a path with an escape byte"
case "$out" in *"$(printf '\033')"*) fail "the table sends the path's ESC byte to the terminal" ;; *) pass ;; esac
expect_out_has 'not\x1b[31mlib.so' "and shows it escaped"
run replay -a glibc,"$tests/crash_alloc.so" pure.hfd
expect_rc 1 "an allocator that crashes"
expect_out_has "crashed: SEGV (signal 11)" "the crash is its result"
[ "$(printf '%s\n' "$out" | awk '$1 == "glibc" {print $NF}')" = ok ] && pass || fail "glibc still replays beside the crash"
run env HEAPFMT_REPLAY_CHILD="$TMPDIR/nowhere" "$BIN/heapfmt-replay" -a glibc pure.hfd
expect_failure 1 "the replay program is missing"
expect_err_has "nowhere" "names where it looked"
run replay -a glibc --max-memory=1M pure.hfd
expect_failure 1 "a trace whose live bytes pass --max-memory"

# --- events a replay cannot make: skipped, counted, the rest exact ---
"$tests/mktrace" bad bad.hfd > bad.want
run replay -a glibc -f json bad.hfd
expect_success "a trace with bad events"
printf '%s\n' "$out" > bad.json
[ "$(json bad.json 'j["trace"]["skipped"]["frees_of_unknown_blocks"], j["trace"]["skipped"]["double_frees"], j["trace"]["skipped"]["reallocs_of_unknown_blocks"]')" = "1 2 1" ] &&
    pass || fail "bad: counts $(json bad.json 'j["trace"]["skipped"]')"
got=$(json bad.json '" ".join(str(m["live"]) for m in j["allocators"][0]["marks"])')
want=$(awk '$1 == "mark" {printf "%s%s", s, $3; s = " "}' bad.want)
[ "$got" = "$want" ] && pass || fail "bad: live bytes at the MARKs $got, want $want"
run replay -a glibc bad.hfd
expect_out_has "1 frees of blocks never made, 2 double frees" "the table's notes say"

# --- traces hostile by their numbers (tests/hostile/mkhostile) ---
mkdir hostile
"$tests/mkhostile" hostile
run replay -a glibc hostile/trace-threads.hfd
expect_failure 1 "5000 threads alive at once"
expect_err_has "trace-threads.hfd: more than 4096 threads alive at once" "says why, naming the trace"
run replay -a glibc hostile/trace-huge.hfd
expect_failure 1 "4 EiB live"
expect_err_has "more than --max-memory" "refused before any replay"
run replay -a glibc -M 0 -f tsv hostile/trace-huge.hfd
expect_success "4 EiB live without a limit: every call fails, the replay ends"
[ "$(printf '%s\n' "$out" | awk -F'\t' '$1 == "glibc" {print $10, $NF}')" = "1001 ok, some calls failed" ] && pass ||
    fail "huge: $(printf '%s\n' "$out" | tail -1)"
run replay -a glibc -f json hostile/trace-frees.hfd
expect_success "100,000 frees of blocks gone or never made"
printf '%s\n' "$out" > frees.json
[ "$(json frees.json 'j["trace"]["skipped"]["frees_of_unknown_blocks"], j["trace"]["skipped"]["double_frees"]')" = "49999 49999" ] &&
    pass || fail "frees: $(json frees.json 'j["trace"]["skipped"]')"

# --- a cut trace: replays what it has, says so, exit 3 ---
"$tests/mktrace" many many.hfd
run replay -a glibc -f json many.hfd
expect_success "the whole trace"
printf '%s\n' "$out" > many.json
size=$(stat -c %s many.hfd)
head -c $((size * 2 / 3)) many.hfd > cut.hfd
run replay -a glibc -f json cut.hfd
expect_rc 3 "a cut trace"
expect_err_has "incomplete" "says the trace is incomplete"
printf '%s\n' "$out" > cut.json
# the MARKs before the cut, exact; fewer events than the whole
n=$(json cut.json 'len(j["trace"]["marks"])')
[ "$n" -ge 5 ] && [ "$n" -lt 20 ] && pass || fail "cut: $n MARKs of 20"
[ "$(json cut.json 'j["allocators"][0]["marks_exact"]')" = "$n" ] && pass || fail "cut: live bytes at its MARKs"
python3 -c 'import json, sys
c = json.load(open("cut.json"))["trace"]["marks"]; w = json.load(open("many.json"))["trace"]["marks"]
sys.exit(0 if [m["live"] for m in c] == [m["live"] for m in w][:len(c)] else 1)' && pass || fail "cut: its MARKs are the whole trace's first ones"
head -c 100 many.hfd > head.hfd
run replay -a glibc head.hfd
expect_failure 1 "a trace cut in its head"

finish
