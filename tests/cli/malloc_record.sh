#!/usr/bin/env bash
# malloc_record.sh -- heapfmt-malloc --record: a trace of every allocation
# call (spec 6.10) instead of dumps. The program sees nothing different;
# the trace is a whole heapfmt file with nothing lost; threads, forks and
# exec get what the man page says. What the events say is checked by
# replaying them (tests/cli/replay.sh).
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
prog=$BIN/../tests/hm_prog
. "$root/tests/malloc/native.bash"
cd "$TMPDIR"

expect_usage_error "$BIN/heapfmt-malloc" "mark interval too short" --record --mark-interval=5 -- true
expect_usage_error "$BIN/heapfmt-malloc" "mark interval not a number" --record --mark-interval=x -- true

# --- every call, the program unchanged ---
mkdir calls && cd calls
run "$prog" calls
want_out=$out
run "$BIN/heapfmt-malloc" --record -- "$prog" calls
expect_success "every allocation call, recorded"
[ "$out" = "$want_out" ] && [ "$out" = "calls: ok" ] && pass || fail "calls: stdout '$out' (without the tracker: '$want_out')"
traces=$(ls heapfmt-malloc-*-trace.hfd 2>/dev/null | wc -l)
[ "$traces" = 1 ] && pass || fail "calls: $traces traces written, expected 1"
[ -z "$(ls heapfmt-malloc-*-[0-9].hfd 2>/dev/null)" ] && pass || fail "calls: record mode wrote dumps"
trace=$(ls heapfmt-malloc-*-trace.hfd)
run "$BIN/heapfmt-info" --verify "$trace"
expect_success "the trace verifies"
run "$BIN/heapfmt-info" -p "$trace"
# EVENTS came with 1.2; the library writes its newest minor
case $(row format) in
1.[2-9] | 1.[1-9][0-9]) pass ;;
*) fail "calls: format $(row format), expected 1.2 or later" ;;
esac
[ "$(row meta.malloc.mode)" = record ] && pass || fail "calls: malloc.mode $(row meta.malloc.mode)"
[ "$(row meta.trace.lost)" = 0 ] && pass || fail "calls: events lost"
[ "$(row meta.trace.untracked_frees)" = 0 ] && pass || fail "calls: frees of unknown blocks"
# the program's 11 allocations, a realloc to 0 (a free), stdout's buffer
[ "$(row meta.trace.events)" -ge 13 ] && pass || fail "calls: $(row meta.trace.events) events"
cd ..

# --- the exit status is the program's; --dir and --prefix name the trace ---
mkdir status
run "$BIN/heapfmt-malloc" --record -d status --prefix st -- sh -c 'exit 7'
expect_rc 7 "the program's exit status"
ls status/st-*-trace.hfd >/dev/null 2>&1 && pass || fail "status: no trace named by --prefix in --dir"

# --- threads: one thread number each; frees across threads kept ---
mkdir storm && cd storm
run "$BIN/heapfmt-malloc" --record --mark-interval=10 -- "$prog" storm 8 200000 100
expect_success "8 threads freeing each other's blocks"
trace=$(ls heapfmt-malloc-*-trace.hfd)
run "$BIN/heapfmt-info" -p "$trace"
[ "$(row meta.trace.threads)" -ge 9 ] && pass || fail "storm: $(row meta.trace.threads) threads, expected 9"
[ "$(row meta.trace.lost)" = 0 ] && pass || fail "storm: events lost"
# every op is an allocation and a free (realloc: two calls)
[ "$(row meta.trace.events)" -ge 400000 ] && pass || fail "storm: $(row meta.trace.events) events"
cd ..

# --- a fork is not recorded, an exec'd program is, in its own trace ---
# (bash: dash leaves through _exit, which ends a trace at its last flush)
mkdir fork && cd fork
run "$BIN/heapfmt-malloc" --record -- bash -c 'ls / >/dev/null; (echo sub >/dev/null); true'
expect_success "sh forks and execs"
n=$(ls heapfmt-malloc-*-trace*.hfd | wc -l)
[ "$n" = 2 ] && pass || fail "fork: $n traces, expected bash's and ls's"
for f in heapfmt-malloc-*-trace*.hfd; do
    run "$BIN/heapfmt-info" --verify "$f"
    expect_success "fork: $f verifies"
done
cd ..

# --- a program killed: its trace is cut, and reads as such ---
mkdir killed && cd killed
"$BIN/heapfmt-malloc" --record --mark-interval=10 -- "$prog" spin 30 1000 >spin.out &
pid=$!
for _ in $(seq 100); do grep -q ready spin.out 2>/dev/null && break; sleep 0.1; done
sleep 1.5 # past the flush (one second)
kill -KILL $pid
wait $pid 2>/dev/null
trace=$(ls heapfmt-malloc-*-trace.hfd)
run "$BIN/heapfmt-info" -p "$trace"
expect_rc 3 "killed: the trace reads as incomplete"
[ "$(row status)" != complete ] && pass || fail "killed: status $(row status)"
cd ..

# --- hostile hosts (tests/malloc/hostile_host.c, as malloc_host.sh runs
# them for dumps): the recorder's writer keeps the trace in a descriptor
# table of its own, and the program's data, descriptors and status stay
# its own ---
host=$BIN/../tests/hm_host
rt7=$(kill -l RTMIN+7)
rec() { timeout 120 "$BIN/heapfmt-malloc" --record "$@"; }
verify_traces() { # WHAT
    local f
    for f in heapfmt-malloc-*-trace*.hfd; do
        [ -e "$f" ] || { fail "$1: no trace"; continue; }
        run "$BIN/heapfmt-info" --verify "$f"
        expect_rc 0 "$1: $f verifies"
    done
}
# a program that executes another ends its trace at its last write (as at
# _exit: cut, readable); the new program's is whole
exec_traces() { # WHAT
    local f whole=0
    for f in heapfmt-malloc-*-trace*.hfd; do
        run "$BIN/heapfmt-info" --verify "$f"
        [ "$rc" = 0 ] && whole=$((whole + 1))
        [ "$rc" = 0 ] || [ "$rc" = 3 ] && pass || fail "$1: $f exit $rc"
    done
    [ "$whole" -ge 1 ] && pass || fail "$1: the executed program's trace is not whole"
}
mkdir hostile && cd hostile
mkdir daemon && cd daemon
run rec -- "$host" daemon 20 "$rt7"
expect_rc 0 "daemon: recorded, the dump signal asking for the trace so far"
[ "$out" = "daemon: 20 rounds, 0 bad" ] && pass || fail "daemon: the program's data changed: '$out'"
verify_traces daemon
cd .. && mkdir dup2 && cd dup2
run rec -- "$host" dup2 10 "$rt7"
expect_rc 0 "dup2: recorded"
verify_traces dup2
cd .. && mkdir exec && cd exec
run rec -- "$host" exec "$rt7" "$host"
expect_out_has "fdcheck: 0 inherited" "exec: the new program inherits nothing of the recorder's"
exec_traces exec
cd .. && mkdir nofile && cd nofile
# (the host's own check of a dump fails: record mode writes none)
run rec -- "$host" nofile
expect_out_has "open: Too many open files" "nofile: the program's open fails as alone"
verify_traces nofile
cd .. && mkdir fsize && cd fsize
run rec -- "$host" fsize
expect_rc 0 "fsize: SIGXFSZ does not kill the program"
expect_out_has "fsize: exiting 0" "fsize"
cd .. && mkdir forks && cd forks
run rec -- "$host" forks 200
expect_rc 0 "forks: recorded"
expect_out_has "200 children, 0 bad" "forks: every child's status"
n=$(ls heapfmt-malloc-*-trace*.hfd | wc -l)
[ "$n" = 1 ] && pass || fail "forks: $n traces, expected the parent's alone"
verify_traces forks
cd .. && mkdir chdir && cd chdir
mkdir elsewhere
run rec -- "$host" chdir elsewhere
expect_rc 0 "chdir: recorded"
[ -z "$(ls elsewhere)" ] && pass || fail "chdir: the trace followed the program"
verify_traces chdir
cd .. && mkdir stdio && cd stdio
mkdir data
run rec -v -- "$host" stdio "$PWD/data"
expect_rc 0 "stdio: recorded"
[ "$(cat data/data2)" = "data 2" ] && pass || fail "stdio: data2 holds '$(cat data/data2)'"
for mode in unshare shared; do
    cd .. && mkdir "seccomp-$mode" && cd "seccomp-$mode"
    run rec -- "$host" seccomp "$mode" "$host" daemon 20 0
    expect_rc 0 "seccomp $mode: the daemon's data"
    expect_out_has "20 rounds, 0 bad" "seccomp $mode"
    exec_traces "seccomp $mode"
done
cd ../..

finish
