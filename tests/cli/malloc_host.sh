#!/usr/bin/env bash
# malloc_host.sh -- the malloc tracker inside hostile hosts: programs that
# do to their process what production programs do (tests/malloc/
# hostile_host.c: a daemon closing every descriptor and reusing the
# numbers, dup2 over them, exec in the middle of a dump, tiny rlimits,
# umask 777, every signal blocked, signals on every thread, a thousand
# forks, chdir, standard error replaced, a fault with the fault signal
# asked for as the dump signal, a seccomp filter refusing private
# descriptor tables). The program's data, descriptors, exit status and
# output must be what they are without the tracker; dumps are written when
# asked for, never otherwise, and always verify or read as incomplete.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
host=$BIN/../tests/hm_host
rt7=$(kill -l RTMIN+7)
hm() { "$BIN/heapfmt-malloc" "$@"; }
cd "$TMPDIR"

ndumps() { ls heapfmt-malloc-*.hfd 2>/dev/null | wc -l; }
all_verify() { # WHAT: every dump here verifies
    local d
    for d in heapfmt-malloc-*.hfd; do
        [ -e "$d" ] || continue
        run "$BIN/heapfmt-info" --verify "$d"
        expect_rc 0 "$1: $d verifies"
    done
}
fresh() { rm -rf "$TMPDIR/$1" && mkdir "$TMPDIR/$1" && cd "$TMPDIR/$1"; }

# --- a daemon closes 3..1023, then its pipes get those numbers: every byte
# of its data comes back, its first open gets 3, and while it is idle the
# tracker writes nothing ---
fresh daemon
run timeout 60 "$host" daemon 20 0
want=$out
[ "$rc" = 0 ] && [ "$want" = "daemon: 20 rounds, 0 bad" ] && pass || fail "daemon: alone: $want"
run timeout 60 "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump -- "$host" daemon 20 0
expect_rc 0 "daemon: under the tracker"
[ "$out" = "$want" ] && pass || fail "daemon: the program's data changed: '$out'"
n=$(ndumps)
[ "$n" = 0 ] && pass || fail "daemon: $n dumps written while none was asked for"
# the same with libunwind alone in the picture (no dump thread): the
# stacks through frames without unwind tables make it check memory
run timeout 60 "$BIN/heapfmt-malloc" --mode=exact --signal=none --no-exit-dump -- "$host" daemon 20 0
expect_rc 0 "daemon: libunwind's memory checks leave the program's pipes alone"
# dumps asked for by signal while the pipes hold the old numbers: at least
# one and at most one per signal (5), each whole
run timeout 60 "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump -- "$host" daemon 20 "$rt7"
expect_rc 0 "daemon: with dump signals"
n=$(ndumps)
[ "$n" -ge 1 ] && [ "$n" -le 5 ] && pass || fail "daemon: $n dumps for 5 signals"
all_verify "daemon"
# periodic dumps: one a second, not one per wake-up
rm -f heapfmt-malloc-*.hfd
start=$(date +%s%N)
run timeout 60 "$BIN/heapfmt-malloc" --interval=1 --no-exit-dump -- "$host" daemon 20 0
secs=$(( ($(date +%s%N) - start) / 1000000000 + 1 ))
expect_rc 0 "daemon: with --interval=1"
n=$(ndumps)
[ "$n" -le "$secs" ] && pass || fail "daemon: $n interval dumps in under $secs s"
all_verify "daemon, interval"

# --- dup2 of the program's own pipe over every number 3..63 ---
fresh dup2
run timeout 60 "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump -- "$host" dup2 10 "$rt7"
expect_rc 0 "dup2: the program's data"
[ "$(ndumps)" -ge 1 ] && pass || fail "dup2: no dump"
all_verify "dup2"

# --- exec in the middle of a dump: the new program inherits nothing of
# the tracker's (its dump files, the objects it reads symbols from) ---
fresh exec
run timeout 120 "$BIN/heapfmt-malloc" --mode=exact -- "$host" exec "$rt7" "$host"
expect_rc 0 "exec mid-dump: nothing inherited"
expect_out_has "fdcheck: 0 inherited" "exec mid-dump"

# --- RLIMIT_NOFILE at the lowest free number: the dump is still written,
# and the program's own open fails as it would alone ---
fresh nofile
run timeout 60 "$BIN/heapfmt-malloc" -- "$host" nofile
expect_rc 0 "nofile: a dump under RLIMIT_NOFILE"
expect_out_has "dump written, open: Too many open files" "nofile"
all_verify "nofile"

# --- RLIMIT_FSIZE of 1 KiB: dumps fail, the program exits 0 (not killed
# by SIGXFSZ), and no dump reads as complete ---
fresh fsize
run timeout 60 "$BIN/heapfmt-malloc" --mode=exact -- "$host" fsize
expect_rc 0 "fsize: SIGXFSZ does not kill the program"
expect_out_has "fsize: exiting 0" "fsize"
for d in heapfmt-malloc-*.hfd; do
    [ -e "$d" ] || continue
    run "$BIN/heapfmt-info" "$d"
    expect_rc 3 "fsize: $d reads as incomplete"
done

# --- out of memory (RLIMIT_AS): malloc fails, the program recovers, the
# dump asked for meanwhile is whole or not written ---
fresh oom
run timeout 120 "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump -- "$host" oom 64
expect_rc 0 "oom: the program runs out of memory and recovers"
expect_out_has "ran out and recovered" "oom"
all_verify "oom"

# --- umask 777: the dump is still readable by its owner ---
fresh umask
run timeout 60 "$BIN/heapfmt-malloc" --no-exit-dump -- "$host" umask
expect_rc 0 "umask 777: the dump's owner can read and write it"
expect_out_has "dump mode 600" "umask"

# --- every signal blocked in every thread: the dump signal still dumps ---
fresh blocked
run timeout 60 "$BIN/heapfmt-malloc" --no-exit-dump -- "$host" blocked
expect_rc 0 "blocked: a dump though the program blocks every signal"
all_verify "blocked"

# --- the dump signal sent to each thread in turn, the tracker's too ---
fresh anythread
run timeout 120 "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump -- "$host" anythread 4 20 "$rt7"
expect_rc 0 "anythread: signals on every thread"
[ "$(ndumps)" -ge 1 ] && pass || fail "anythread: no dump"
all_verify "anythread"

# --- a thousand forks: every child's status comes back, and only the
# processes that exit through exit() write an exit dump ---
fresh forks
run timeout 120 "$BIN/heapfmt-malloc" --no-exit-dump -- "$host" forks 1000
expect_rc 0 "forks: 1000 children"
expect_out_has "1000 children, 0 bad" "forks"
[ "$(ndumps)" = 0 ] && pass || fail "forks: $(ndumps) dumps with --no-exit-dump"
run timeout 120 "$BIN/heapfmt-malloc" -- "$host" forks 200
expect_rc 0 "forks: 200 children with exit dumps"
n=$(ndumps)
[ "$n" = 101 ] && pass || fail "forks: $n exit dumps, want 101 (the parent and the 100 children that call exit)"

# --- chdir: dumps go to the directory the program started in ---
fresh chdir
mkdir elsewhere
run timeout 60 "$BIN/heapfmt-malloc" --no-exit-dump -- "$host" chdir elsewhere
expect_rc 0 "chdir: runs"
[ "$(ndumps)" = 1 ] && [ -z "$(ls elsewhere)" ] && pass || fail "chdir: dumps followed the program: $(ls . elsewhere | tr '\n' ' ')"
rm -f heapfmt-malloc-*.hfd
run timeout 60 env LD_PRELOAD="$BIN/../lib/libheapfmt-malloc.so" HEAPFMT_MALLOC_AT_EXIT=0 "$host" chdir elsewhere
expect_rc 0 "chdir: with LD_PRELOAD alone"
[ "$(ndumps)" = 1 ] && [ -z "$(ls elsewhere)" ] && pass || fail "chdir, LD_PRELOAD: dumps followed the program: $(ls . elsewhere | tr '\n' ' ')"
mkdir rel
rm -f heapfmt-malloc-*.hfd
run timeout 60 env LD_PRELOAD="$BIN/../lib/libheapfmt-malloc.so" HEAPFMT_MALLOC_AT_EXIT=0 HEAPFMT_MALLOC_DIR=rel "$host" chdir elsewhere
[ "$(ls rel | wc -l)" = 1 ] && pass || fail "chdir: a relative HEAPFMT_MALLOC_DIR is taken from the start directory"
# heapfmt-malloc's own default: where it was started, for every program
# of the tree (a shell that changes directory before running the host)
rm -rf rel/* heapfmt-malloc-*.hfd
run timeout 60 "$BIN/heapfmt-malloc" --no-exit-dump -- sh -c 'cd elsewhere && exec "$0" chdir .' "$host"
[ "$(ndumps)" = 1 ] && [ -z "$(ls elsewhere)" ] && pass || fail "chdir: a child program's dumps went to $(ls . elsewhere | tr '\n' ' ')"

# --- a dump never replaces a file: a name taken (a pid that came back)
# is skipped ---
fresh names
run timeout 60 sh -c 'echo precious > heapfmt-malloc-$$-1.hfd; exec "$0" --no-exit-dump -- "$1" dump 2' \
    "$BIN/heapfmt-malloc" "$host"
expect_rc 0 "names: the dump is written"
precious=$(grep -l precious heapfmt-malloc-*-1.hfd 2>/dev/null)
[ -n "$precious" ] && pass || fail "names: an existing heapfmt-malloc-PID-1.hfd was overwritten"
[ "$(ls heapfmt-malloc-*-2.hfd 2>/dev/null | wc -l)" = 1 ] && pass || fail "names: the dump did not take the next name: $(ls)"

# --- standard error closed and a data file opened in its place: the log
# line (-v) does not go into it ---
fresh stdio
mkdir data
run timeout 60 "$BIN/heapfmt-malloc" -v --no-exit-dump -- "$host" stdio "$PWD/data"
expect_rc 0 "stdio: the program's files under numbers 0-2 are untouched"
[ "$(cat data/data2)" = "data 2" ] && pass || fail "stdio: data2 holds '$(cat data/data2)'"

# --- the dump signal: fault signals, uncatchable ones and the program's
# own are refused, by name and by number, saying why ---
for s in SEGV 11 SIGBUS BUS ILL FPE ABRT TRAP SYS KILL STOP; do
    expect_usage_error "$BIN/heapfmt-malloc" "--signal=$s" --signal="$s" -- true
done
run hm --signal=SEGV -- true
expect_err_has "SIGSEGV (11) carries faults" "--signal=SEGV says why"
run hm --signal=7 -- true
expect_err_has "SIGBUS (7) carries faults" "--signal=7 is SIGBUS"
for s in TERM INT HUP QUIT CHLD PIPE ALRM PROF VTALRM XCPU XFSZ CONT TSTP TTIN TTOU WINCH URG IO PWR 32 33; do
    run hm --signal="$s" -- true
    expect_rc 2 "--signal=$s is refused"
    case $err in
    *"choose USR1, USR2 or RTMIN+N"*) pass ;;
    *) fail "--signal=$s: no reason given" ;;
    esac
done
run hm --signal=TERM -- true
expect_err_has "SIGTERM (15) ends the program" "--signal=TERM says why"
run hm --signal=NOPE -- true
expect_err_has "'NOPE' is not a signal" "--signal=NOPE"
for s in USR1 SIGUSR2 RTMIN RTMIN+3 RTMAX RTMAX-2 "$rt7" none; do
    run hm --no-exit-dump --signal="$s" -- true
    expect_rc 0 "--signal=$s is accepted"
done
# the same rules for HEAPFMT_MALLOC_SIGNAL: SIGSEGV keeps its default
fresh refused
run env LD_PRELOAD="$BIN/../lib/libheapfmt-malloc.so" HEAPFMT_MALLOC_SIGNAL=11 HEAPFMT_MALLOC_LOG=1 HEAPFMT_MALLOC_AT_EXIT=0 "$host" refused 11
expect_rc 0 "HEAPFMT_MALLOC_SIGNAL=11: SIGSEGV's disposition is the program's"
expect_err_has "SIGSEGV (11) carries faults" "HEAPFMT_MALLOC_SIGNAL=11 is logged"
run env LD_PRELOAD="$BIN/../lib/libheapfmt-malloc.so" HEAPFMT_MALLOC_SIGNAL=TERM HEAPFMT_MALLOC_AT_EXIT=0 "$host" refused 15
expect_rc 0 "HEAPFMT_MALLOC_SIGNAL=TERM: SIGTERM's disposition is the program's"
# a program that faults dies of it, once, with no dump
run sh -c '"$@"' sh timeout 20 env LD_PRELOAD="$BIN/../lib/libheapfmt-malloc.so" HEAPFMT_MALLOC_SIGNAL=11 HEAPFMT_MALLOC_AT_EXIT=0 "$host" segv
expect_rc 139 "a fault with HEAPFMT_MALLOC_SIGNAL=11 kills the program"
[ "$(ndumps)" = 0 ] && pass || fail "segv: $(ndumps) dumps written by faults"

# --- a program that must be single-threaded (unshare(CLONE_NEWUSER)):
# the dump thread makes it two; without a dump signal or interval there
# is none (dumps from the program or at exit make a thread only while
# they are written) ---
fresh userns
run "$host" userns
if [ "$rc" = 0 ]; then
    run timeout 60 "$BIN/heapfmt-malloc" --signal=none -- "$host" userns
    expect_rc 0 "userns: --signal=none leaves the program single-threaded"
    [ "$(ndumps)" = 1 ] && pass || fail "userns: no exit dump"
else
    echo "SKIP: userns: user namespaces are not allowed here ($out)"
fi

# --- where the kernel refuses a private descriptor table (a seccomp
# filter, as in containers): unshare(2) without close_range, then the
# program's own table with every write checked ---
for mode in unshare shared; do
    fresh "seccomp-$mode"
    run timeout 60 "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump -- "$host" seccomp "$mode" "$host" daemon 20 "$rt7"
    expect_rc 0 "seccomp $mode: the daemon's data"
    [ "$(ndumps)" -ge 1 ] && pass || fail "seccomp $mode: no dump"
    all_verify "seccomp $mode"
    rm -f heapfmt-malloc-*.hfd
    run timeout 120 "$BIN/heapfmt-malloc" --mode=exact -- "$host" seccomp "$mode" "$host" exec "$rt7" "$host"
    expect_out_has "fdcheck: 0 inherited" "seccomp $mode: exec mid-dump"
    run timeout 60 "$BIN/heapfmt-malloc" --mode=exact -- "$host" seccomp "$mode" "$host" fsize
    expect_rc 0 "seccomp $mode: SIGXFSZ does not kill the program"
done

finish
