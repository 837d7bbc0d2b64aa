#!/usr/bin/env bash
# malloc.sh -- heapfmt-malloc, the LD_PRELOAD tracker, on programs whose
# allocations are known (tests/malloc/hm_prog.c): the dumps must say
# exactly what the programs did, and the tracker must never change what a
# program sees, deadlock, or lose a dump's readable part.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
prog=$BIN/../tests/hm_prog
. "$root/tests/malloc/native.bash"
hm() { "$BIN/heapfmt-malloc" "$@"; }
cd "$TMPDIR"

# --- the launcher's contract ---
expect_usage_error "$BIN/heapfmt-malloc" "no command"
expect_usage_error "$BIN/heapfmt-malloc" "bad mode" --mode=sometimes -- true
expect_usage_error "$BIN/heapfmt-malloc" "bad signal" --signal=NOPE -- true
expect_usage_error "$BIN/heapfmt-malloc" "bad depth" --depth=0 -- true
expect_usage_error "$BIN/heapfmt-malloc" "missing dir" -d "$TMPDIR/nowhere" -- true
run hm --no-exit-dump -- "$TMPDIR/no-such-program"
expect_rc 127 "a missing command exits 127"
expect_err_has "no-such-program" "and names it"
run hm -- false
expect_rc 1 "the command's exit status is heapfmt-malloc's"
run env HEAPFMT_MALLOC_LIB="$TMPDIR/none.so" "$BIN/heapfmt-malloc" -- true
expect_failure 1 "a missing tracker library"

# --- what the program sees is unchanged: results, output, nothing on stderr ---
mkdir calls && cd calls
run "$prog" calls
want_out=$out
run hm --mode=exact -- "$prog" calls
expect_success "every allocation call under the tracker"
[ "$out" = "$want_out" ] && [ "$out" = "calls: ok" ] && pass || fail "calls: stdout '$out' (without the tracker: '$want_out')"
dump=$(ls heapfmt-malloc-*-1.hfd 2>/dev/null)
[ -n "$dump" ] && pass || fail "calls: no exit dump written"
for k in malloc calloc realloc reallocarray posix_memalign aligned_alloc memalign valloc pvalloc; do
    n=$(groups "$dump" class | awk -v k="$k" '$3 == k {print $1}')
    [ "${n:-0}" -ge 1 ] && pass || fail "calls: no live $k block in the exit dump"
done
cd ..

# --- real programs, threaded and not, both modes: the same output ---
mkdir real && cd real
seq 200000 | sort -R --random-source=<(yes) > shuffled
same_output() { # MODE CMD...: CMD prints the same under the tracker
    local mode=$1; shift
    local want got
    want=$("$@" | md5sum)
    got=$("$BIN/heapfmt-malloc" --mode="$mode" --no-exit-dump -- "$@" | md5sum)
    [ "$got" = "$want" ] && pass || fail "real programs, $mode: '$*' printed something else"
}
for mode in sampled exact; do
    same_output "$mode" sort -n shuffled
    same_output "$mode" python3 -c 'import json, threading
out = []
t = [threading.Thread(target=lambda k=k: out.append(len(json.dumps([str(i) * k for i in range(50000)])))) for k in range(4)]
[x.start() for x in t]; [x.join() for x in t]; print(sorted(out))'
    same_output "$mode" ruby -e 'puts((1..50000).map { |i| i.to_s * 3 }.join.size)'
    same_output "$mode" sh -c 'seq 1000 | sort | uniq | wc -l'
done
cd ..

# --- allocations before the tracker's own start (another preloaded
# library's constructor, the loader's dlopen and dlerror) ---
mkdir early && cd early
if ${CC:-cc} -O2 -shared -fPIC -o early.so "$root/tests/malloc/early.c" -ldl 2>cc.err; then
    run timeout 20 env LD_PRELOAD="$BIN/../lib/libheapfmt-malloc.so:$PWD/early.so" \
        HEAPFMT_MALLOC_MODE=exact "$prog" calls
    expect_success "early: allocations before the tracker starts"
    [ "$out" = "calls: ok" ] && pass || fail "early: '$out'"
    dump=$(ls heapfmt-malloc-*-1.hfd 2>/dev/null)
    [ -n "$dump" ] && pass || fail "early: no exit dump"
else
    fail "early: cannot build early.so: $(cat cc.err)"
fi
cd ..

# --- the leak story: two dumps, the function and the counts, exactly ---
mkdir leak && cd leak
run hm --mode=exact --no-exit-dump -- "$prog" leak 20000 48 d1.hfd d2.hfd
expect_success "leak: runs"
group_is d1.hfd frame leaky_function 10000 480000 "leak: first dump"
group_is d2.hfd frame leaky_function 20000 960000 "leak: second dump"
n=$(groups d2.hfd frame | awk '$3 == "tidy_function"' | wc -l)
[ "$n" = 0 ] && pass || fail "leak: freed blocks are not live"
run "$BIN/heapfmt-diff" -f tsv d1.hfd d2.hfd
expect_rc 0 "leak: heapfmt-diff"
row=$(printf '%s\n' "$out" | awk -F'\t' '$1 == "malloc" {print $2, $3, $4}')
[ "$row" = "10000 480000 0" ] && pass || fail "leak: diff new/bytes/freed: want '10000 480000 0', got '$row'"
# heapfmt-diff names the function, with the count and bytes leaked
run "$BIN/heapfmt-diff" --by=frame -f tsv d1.hfd d2.hfd
expect_success "leak: heapfmt-diff --by=frame"
row=$(printf '%s\n' "$out" | sed -n 2p | cut -f 1-5) # lifespans follow (1.2)
[[ "$row" == "leaky_function ("*"hm_prog.c:"*$'\t'"10000"$'\t'"480000"$'\t'"0"$'\t'"0" ]] && pass \
    || fail "leak: heapfmt-diff --by=frame's first row: '$row'"
n=$(printf '%s\n' "$out" | wc -l)
[ "$n" = 2 ] && pass || fail "leak: heapfmt-diff --by=frame: $((n - 1)) frames grew, not one"
[ "$(meta d2.hfd malloc.mode)" = exact ] && pass || fail "leak: META malloc.mode"
# the frame's source line, from the program's debug information
want_line=$(grep -n 'char \*p = malloc(n);' "$root/tests/malloc/hm_prog.c" | head -1 | cut -d: -f1)
got=$("$BIN/heapfmt-export" -r objects d2.hfd | python3 -c '
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    for f in o.get("stack") or []:
        if f.get("function") == "leaky_function":
            print(f.get("file", "").rsplit("/", 1)[-1], f.get("line")); sys.exit()
')
[ "$got" = "hm_prog.c $want_line" ] && pass || fail "leak: leaky_function's frame: want 'hm_prog.c $want_line', got '$got'"
allocs=$(meta d2.hfd malloc.allocs); frees=$(meta d2.hfd malloc.frees)
live=$(meta d2.hfd malloc.live.objects)
[ $((allocs - frees)) = "$live" ] && pass || fail "leak: allocs $allocs - frees $frees != live $live"
cd ..

# --- a program linked with the tracker (no LD_PRELOAD) asks for its dumps ---
mkdir linked && cd linked
lib=$(cd "$BIN/../lib" && pwd)
if ${CC:-cc} -O2 -g -o linked "$root/tests/malloc/hm_prog.c" -I"$root/libheapfmt-malloc" \
        -L"$lib" -lheapfmt-malloc -Wl,-rpath,"$lib" -pthread 2>cc.err; then
    pass
    run env -u LD_PRELOAD HEAPFMT_MALLOC_MODE=exact HEAPFMT_MALLOC_AT_EXIT=0 ./linked leak 2000 64 d1.hfd d2.hfd
    expect_success "linked: runs"
    group_is d2.hfd frame leaky_function 2000 128000 "linked: the program's own dump"
else
    fail "linked: cannot link with -lheapfmt-malloc: $(cat cc.err)"
fi
cd ..

# --- a malloc storm: 8 threads, 10M operations, frees across threads ---
mkdir storm && cd storm
run timeout 120 "$BIN/heapfmt-malloc" --mode=exact -- "$prog" storm 8 10000000 777
expect_success "storm: 8 threads, 10M operations"
dump=$(ls heapfmt-malloc-*-1.hfd)
group_is "$dump" frame keep_function 777 $(( (777 / 7) * (100+101+102+103+104+105+106) )) "storm: what is left"
n=$(groups "$dump" frame | awk '$3 == "storm_alloc" {print $1}')
[ -z "$n" ] && pass || fail "storm: $n storm blocks left live though all were freed"
run "$BIN/heapfmt-info" --verify "$dump"
expect_rc 0 "storm: the dump verifies"
cd ..

# --- interval dumps while 8 threads allocate, and the program's exit:
# every dump whole (one due as the program exited once left an empty file)
mkdir storm-interval && cd storm-interval
run timeout 120 "$BIN/heapfmt-malloc" --sample=64 --interval=1 -- "$prog" storm 8 6000000 10
expect_success "storm with interval dumps"
for d in heapfmt-malloc-*.hfd; do
    run "$BIN/heapfmt-info" --verify "$d"
    expect_rc 0 "storm with interval dumps: $d verifies"
done
cd ..

# --- fork: the child keeps its inheritance and its dumps are its own ---
mkdir fork && cd fork
run hm --mode=exact --no-exit-dump -- "$prog" fork 1000 500 parent.hfd child.hfd
expect_rc 0 "fork: parent and child run"
group_is parent.hfd frame leaky_function 1000 32000 "fork: parent"
n=$(groups parent.hfd frame | awk '$3 == "tidy_function"' | wc -l)
[ "$n" = 0 ] && pass || fail "fork: the child's blocks are in the parent's dump"
group_is child.hfd frame leaky_function 1000 32000 "fork: child inherits"
group_is child.hfd frame tidy_function 500 24000 "fork: child's own"
ppid=$(meta parent.hfd pid); cpid=$(meta child.hfd pid)
[ -n "$cpid" ] && [ "$ppid" != "$cpid" ] && pass || fail "fork: pids $ppid and $cpid"
sigdump=$(ls heapfmt-malloc-"$cpid"-*.hfd 2>/dev/null | head -1)
[ -n "$sigdump" ] && pass || fail "fork: the child's signal gave the child no dump"
[ -n "$sigdump" ] && group_is "$sigdump" frame tidy_function 500 24000 "fork: child's signal dump"
n=$(ls heapfmt-malloc-"$ppid"-*.hfd 2>/dev/null | wc -l)
[ "$n" = 0 ] && pass || fail "fork: the child's signal woke the parent's dump thread"
cd ..

# --- signals arriving in the middle of malloc, many times ---
mkdir signals && cd signals
coproc SPIN { exec "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump -- "$prog" spin 2 20000; }
# bash unsets SPIN_PID and SPIN once the coprocess ends, which a loaded
# host can make happen before the signals are done: keep both now.
spin_pid=$SPIN_PID
exec {spin_out}<&"${SPIN[0]}"
read -r ready <&"$spin_out"
for _ in $(seq 30); do kill -s RTMIN+7 "$spin_pid" 2>/dev/null; sleep 0.03; done
read -r spun <&"$spin_out" || true
exec {spin_out}<&-
wait "$spin_pid"; rc=$?
[ "$ready" = ready ] && [ "$rc" = 0 ] && pass || fail "signals: the program did not finish ($rc, '$ready', '$spun')"
ndumps=$(ls heapfmt-malloc-*.hfd 2>/dev/null | wc -l)
[ "$ndumps" -ge 1 ] && pass || fail "signals: no dump written"
for d in heapfmt-malloc-*.hfd; do
    run "$BIN/heapfmt-info" --verify "$d"
    expect_rc 0 "signals: $d verifies"
done
group_is "$d" frame leaky_function 20000 480000 "signals: the last dump"
cd ..

# --- a dump cut short by a kill never shows under its name: it is written
# as a hidden temporary (renamed when whole), an incomplete dump read up to
# the cut ---
mkdir killed && cd killed
cut_ok=0
for live in 1000000 3000000; do
    rm -f heapfmt-malloc-*.hfd .heapfmt-malloc-*.tmp
    coproc SPIN2 { exec "$BIN/heapfmt-malloc" --mode=exact --level=19 --no-exit-dump -- "$prog" spin 60 "$live"; }
    read -r ready <&"${SPIN2[0]}"
    pid=$SPIN2_PID
    kill -s RTMIN+7 "$pid"
    for _ in $(seq 400); do
        f=$(ls .heapfmt-malloc-*.tmp 2>/dev/null | head -1)
        [ -n "$f" ] && [ "$(stat -c %s "$f")" -gt 500 ] && break
        sleep 0.02
    done
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    named=$(ls heapfmt-malloc-*.hfd 2>/dev/null | wc -l)
    run "$BIN/heapfmt-info" "$f"
    if [ "$rc" = 3 ] && [ "$named" = 0 ]; then cut_ok=1; break; fi
done
[ "$cut_ok" = 1 ] && pass || fail "killed: the dump was never caught mid-write (rc $rc)"
run "$BIN/histo" "$f"
expect_rc 3 "killed: histo reads the part before the cut"
n=$(printf '%s\n' "$out" | awk '$3 == "malloc" {print $1}')
[ "${n:-0}" -gt 0 ] && pass || fail "killed: no objects before the cut"
cd ..

# --- sampled mode: bytes are estimates close to the truth ---
mkdir sampled && cd sampled
run hm --sample=65536 -- "$prog" sampled 100000 1024 10000000
expect_success "sampled: runs"
dump=$(ls heapfmt-malloc-*-1.hfd)
[ "$(meta "$dump" malloc.estimates)" = 1 ] && pass || fail "sampled: META malloc.estimates"
est=$(groups "$dump" frame | awk '$3 == "leaky_function" {print $2}')
# 102,400,000 bytes in 1 KiB blocks; about 1,560 samples: within 10%
[ "${est:-0}" -gt 92160000 ] && [ "${est:-0}" -lt 112640000 ] && pass \
    || fail "sampled: estimate $est for 102400000 bytes"
big=$(groups "$dump" frame | awk '$3 == "tidy_function" {print $1, $2}')
[ "${big% *}" = 1 ] && [ "${big#* }" -ge 10000000 ] && [ "${big#* }" -le 10000100 ] && pass \
    || fail "sampled: the 10 MB block: '$big'"
cd ..

# --- exact mode's memory: at most 64 bytes of table per live block ---
mkdir memory && cd memory
run hm --mode=exact -- "$prog" sampled 1000000 16 16
expect_success "memory: a million live blocks"
dump=$(ls heapfmt-malloc-*-1.hfd)
table=$(meta "$dump" malloc.table_bytes); live=$(meta "$dump" malloc.live.objects)
[ "$live" -ge 1000000 ] && [ $((table / live)) -le 64 ] && pass \
    || fail "memory: $table table bytes for $live live blocks"
cd ..

# --- periodic dumps ---
mkdir interval && cd interval
run hm --interval=1 --no-exit-dump -- "$prog" spin 2.6 10
expect_rc 0 "interval: runs"
n=$(ls heapfmt-malloc-*.hfd 2>/dev/null | wc -l)
[ "$n" -ge 2 ] && pass || fail "interval: $n dumps in 2.6 s at 1 s"
cd ..

finish
