#!/usr/bin/env bash
# malloc_attach.sh -- heapfmt-malloc -p PID, --dump PID, --detach PID on
# programs started without the tracker (tests/malloc/attach_prog.c, and a
# Ruby leaking through Fiddle): attached after they have run a while, two
# dumps name the leaking function and line (heapfmt-diff --by=frame) and
# the Ruby line (--by=site); 20 attach/detach cycles on 8 busy threads
# neither crash nor hang them, and a fixed workload run after them gives
# the same blocks as launch mode; a module loaded after the attach is
# tracked, and a bare name still found through the program's RUNPATH;
# refusals are one line and leave the process as it was.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/ruby/procs.sh"
cd "$TMPDIR"
HM=$BIN/heapfmt-malloc
${CC:-cc} -O1 -g -pthread -o attach_prog "$root/tests/malloc/attach_prog.c" ||
    fail "build attach_prog.c"

# start NAME ARGS...: attach_prog ARGS in dir NAME (its pid in $pid)
start() {
    local name=$1
    shift
    mkdir -p "$name"
    ./attach_prog "$@" &
    track $!
    pid=$(wait_pidfile "$name/pid")
    [ -n "$pid" ] || { echo "FAIL: $name did not start" >&2; exit 1; }
}
stop_prog() { # DIR PID: asks it to end, waits, checks its status
    touch "$1/stop"
    local st
    wait "$2"
    st=$?
    [ "$st" -eq 0 ] && pass || fail "$1: the program ended with status $st"
}
wait_for() { # FILE: up to 20 s
    for _ in $(seq 400); do [ -e "$1" ] && return 0; sleep 0.05; done
    return 1
}
newest() { ls -t "$1"/heapfmt-malloc-*.hfd 2>/dev/null | head -1; }
dump_now() { # DIR PID: asks for a dump, waits for the file; prints its name
    local before after
    before=$(ls "$1"/heapfmt-malloc-*.hfd 2>/dev/null | wc -l)
    "$HM" --dump "$2" || return 1
    for _ in $(seq 400); do
        after=$(ls "$1"/heapfmt-malloc-*.hfd 2>/dev/null | wc -l)
        [ "$after" -gt "$before" ] && break
        sleep 0.05
    done
    local f
    f=$(newest "$1")
    for _ in $(seq 400); do # named before it is whole: wait for its footer
        "$BIN/heapfmt-info" "$f" 2>/dev/null | grep -q '^status *complete' && break
        sleep 0.05
    done
    printf '%s\n' "$f"
}

# ---- usage ----
expect_usage_error "$HM" "-p without a number" -p abc
expect_usage_error "$HM" "-p with a COMMAND" -p 1 -- true
expect_usage_error "$HM" "-p and --detach together" -p 1 --detach=1

# ---- a C server: attached late, the leak by function ----
start serve serve serve
sleep 0.5 # it has run a while before the attach
fds() { ls "/proc/$1/fd" | sort | tr '\n' ' '; }
fds0=$(fds "$pid")
run env -C serve "$HM" -p "$pid" --mode=exact
expect_success "attach to a running C server"
d1=$(dump_now serve "$pid")
sleep 1
d2=$(dump_now serve "$pid")
# the tracker holds no descriptor in the program's table (issue 31)
[ "$(fds "$pid")" = "$fds0" ] && pass ||
    fail "descriptors before the attach: $fds0; after two dumps: $(fds "$pid")"
run "$BIN/heapfmt-info" --verify "$d2"
expect_success "the attached tracker's dump verifies"
run "$BIN/heapfmt-diff" --by=frame -f tsv "$d1" "$d2"
first=$(printf '%s\n' "$out" | sed -n 2p | cut -f 1)
line=$(grep -n 'char \*p = malloc(64);' "$root/tests/malloc/attach_prog.c" | cut -d: -f1)
[[ "$first" == "handle_request "*"attach_prog.c:$line" ]] && pass ||
    fail "the leak first, at attach_prog.c:$line: $first"
# the blocks made before the attach are not the tracker's: the frees of
# them pass untouched, and nothing older than the attach is in a dump
run "$BIN/histo" --by=frame -f tsv "$d1"
printf '%s\n' "$out" | awk -F '\t' 'index($3, "parse_request") == 1 && $4 > 0 { f = 1 } END { exit !f }' &&
    pass || fail "parse_request's frees are counted since the attach"
# detach: the allocator is the program's again; a dump is refused
run "$HM" --detach "$pid"
expect_success "detach"
run "$HM" --dump "$pid"
expect_failure 1 "--dump after --detach"
run "$HM" --detach "$pid"
expect_failure 1 "--detach twice"
expect_err_has "not attached" "--detach twice: why"
# attached again with other settings: the tracker's thread takes up the
# interval; detached, it writes no more
mkdir -p again
run env -C again "$HM" -p "$pid" --interval=1 --prefix=again
expect_success "attach again with --interval=1"
sleep 3.5
n_on=$(ls again/again-*.hfd 2>/dev/null | wc -l)
[ "$n_on" -ge 1 ] && [ "$n_on" -le 5 ] && pass || # a loaded host: slack
    fail "attached again: $n_on interval dumps in 3.5 s at 1 s"
run "$HM" --detach "$pid"
expect_success "detach again"
n_off=$(ls again/again-*.hfd | wc -l)
sleep 2.5
[ "$(ls again/again-*.hfd | wc -l)" -eq "$n_off" ] && pass ||
    fail "interval dumps after the detach: $n_off -> $(ls again/again-*.hfd | wc -l)"
[ "$(fds "$pid")" = "$fds0" ] && pass || fail "descriptors after the cycles: $(fds "$pid")"
stop_prog serve "$pid"

# ---- 20 attach/detach cycles on 8 busy threads (and one loading and
# unloading a module), then a fixed workload: the same blocks attached
# as launched ----
mkdir -p work_l launched
env -C launched "$HM" --mode=exact --no-exit-dump -- ../attach_prog work ../work_l 8 &
track $!
pid_l=$(wait_pidfile work_l/pid)
touch work_l/go
wait_for work_l/done || fail "launched: the workload ran"
dl=$(dump_now launched "$pid_l")
touch work_l/stop
${CC:-cc} -O1 -g -shared -fPIC -o plugin.so "$root/tests/malloc/attach_plugin.c" ||
    fail "build attach_plugin.c"
start work_a work work_a 8 "$PWD/plugin.so" # and a module loaded and unloaded in a loop
pid_a=$pid
ok=0
for i in $(seq 20); do
    timeout 60 "$HM" -p "$pid_a" --mode=exact -t 20 >/dev/null 2>"busy.err" || {
        fail "cycle $i: attach: $(cat busy.err)"
        break
    }
    sleep 0.1
    timeout 60 "$HM" --detach "$pid_a" -t 20 >/dev/null 2>"busy.err" || {
        fail "cycle $i: detach: $(cat busy.err)"
        break
    }
    ok=$((ok + 1))
done
[ "$ok" -eq 20 ] && pass || fail "20 cycles: $ok done"
c1=$(cat work_a/count)
sleep 0.5
c2=$(cat work_a/count)
[ "$c2" -gt "$c1" ] && pass || fail "the busy threads run on after the cycles: $c1 -> $c2"
echo "figures: 20 attach/detach cycles on 8 busy threads; their progress $c1 -> $c2 in 0.5 s after"
mkdir -p attached
run env -C attached "$HM" -p "$pid_a" --mode=exact --no-exit-dump
expect_success "attach after the cycles, before the workload"
touch work_a/go
wait_for work_a/done || fail "attached: the workload ran"
echo "figures: the module was loaded and unloaded $(cat work_a/cycles) times during the cycles"
da=$(dump_now attached "$pid_a")
run "$HM" --detach "$pid_a"
expect_success "detach after the workload"
stop_prog work_a "$pid_a"
for d in "$dl" "$da"; do
    "$BIN/histo" --by=frame -f tsv "$d" | awk -F '\t' 'NR > 1 && $3 ~ /^work_/ {
        split($3, n, " "); print n[1], $1, $2, $4 }' | sort >"$(basename "$d").rows"
done
cmp -s "$(basename "$dl").rows" "$(basename "$da").rows" && pass ||
    fail "the workload's blocks: launched $(tr '\n' ';' <"$(basename "$dl").rows") attached $(tr '\n' ';' <"$(basename "$da").rows")"
grep -q '^work_leak 1000 ' "$(basename "$da").rows" && pass ||
    fail "work_leak keeps 1,000 blocks: $(cat "$(basename "$da").rows")"
grep -q '^work_churn 0 0 50000$' "$(basename "$da").rows" && pass ||
    fail "work_churn frees its 50,000 blocks: $(cat "$(basename "$da").rows")"

# ---- a module loaded (dlopen) after the attach is tracked ----
plugin_blocks() { # DUMP WHAT: the plugin's 500 blocks of 48 bytes are there
    run "$BIN/histo" --by=frame -f tsv "$1"
    printf '%s\n' "$out" | awk -F '\t' 'index($3, "plugin_leak ") == 1 &&
        $1 == 500 && $2 == 24000 { f = 1 } END { exit !f }' &&
        pass || fail "$2: $out"
}
start plug plugin plug "$PWD/plugin.so"
run env -C plug "$HM" -p "$pid" --mode=exact
expect_success "attach before the dlopen"
touch plug/go
wait_for plug/done || fail "the plugin ran"
plugin_blocks "$(dump_now plug "$pid")" "the plugin's 500 blocks"
run "$HM" --detach "$pid"
expect_success "detach from the plugin's host"
stop_prog plug "$pid" # the plugin frees its blocks after the detach

# ---- a dlopen bound to its caller: a bare name found through the
# program's DT_RUNPATH loads as without the tracker, and the module is
# tracked from the next dump on ----
mkdir -p rp/plugins rpd
cp plugin.so rp/plugins/libattachplug.so
${CC:-cc} -O1 -g -pthread -Wl,--enable-new-dtags,-rpath,'$ORIGIN/plugins' \
    -o rp/attach_prog "$root/tests/malloc/attach_prog.c" || fail "build attach_prog with a RUNPATH"
rp/attach_prog plugin rpd libattachplug.so 2>rpd.err &
rpid=$!
track "$rpid"
pid=$(wait_pidfile rpd/pid)
run env -C rpd "$HM" -p "$pid" --mode=exact
expect_success "attach to a program with a RUNPATH"
touch rpd/go
wait_for rpd/done && pass || fail "dlopen(\"libattachplug.so\") through the RUNPATH, attached: $(cat rpd.err)"
dump_now rpd "$pid" >/dev/null # the module loaded since is patched
touch rpd/go2
wait_for rpd/done2 || fail "the plugin ran again"
plugin_blocks "$(dump_now rpd "$pid")" "the RUNPATH plugin's blocks after the next dump"
run "$HM" --detach "$pid"
expect_success "detach from the RUNPATH program"
stop_prog rpd "$pid"

# ---- a Ruby leaking through Fiddle: the line ----
if ruby -rfiddle -e 1 >/dev/null 2>&1; then
    mkdir -p rb
    cat >rb/leak.rb <<'RUBY'
require "fiddle"
File.write(ARGV[0], Process.pid.to_s)
kept = []
loop do
  kept << Fiddle.malloc(256) # LEAK
  Fiddle.free(Fiddle.malloc(64))
  sleep 0.001
end
RUBY
    ruby rb/leak.rb rb/pid &
    track $!
    rpid=$(wait_pidfile rb/pid)
    sleep 1
    run env -C rb "$HM" -p "$rpid" --mode=exact
    expect_success "attach to a running Ruby"
    sleep 0.5
    r1=$(dump_now rb "$rpid")
    sleep 1
    r2=$(dump_now rb "$rpid")
    run "$BIN/heapfmt-diff" --by=site -f tsv "$r1" "$r2"
    first=$(printf '%s\n' "$out" | sed -n 2p | cut -f 1)
    [[ "$first" == *"leak.rb:5" ]] && pass || fail "the Ruby line first: $first ($out)"
    run "$HM" --detach "$rpid"
    expect_success "detach from the Ruby"
    kill "$rpid"
else
    echo "note: ruby with fiddle is not installed: the Ruby case is skipped"
fi

# ---- refusals: one line, the process as it was ----
start idle serve idle
before=$(md5sum <"/proc/$pid/maps")
sh -c 'exit 0' &
gone=$!
wait "$gone"
run "$HM" -p "$gone"
expect_failure 1 "no such process"
expect_err_has "no such process" "no such process: why"
sh -c 'sleep 0.1 & echo $! >"$1"; exec sleep 300' sh zombie.pid &
track $!
zpid=$(wait_pidfile zombie.pid)
for _ in $(seq 100); do [ "$(cut -d' ' -f3 "/proc/$zpid/stat")" = Z ] && break; sleep 0.05; done
run "$HM" -p "$zpid"
expect_failure 1 "a zombie"
expect_err_has "zombie" "a zombie: why"
if ${CC:-cc} -m32 -nostdlib -static -fno-pie -no-pie -O1 -o sleep32 \
    "$root/tests/ruby/sleep32.c" 2>/dev/null; then
    ./sleep32 &
    p32=$!
    track "$p32"
    sleep 0.2
    run "$HM" -p "$p32"
    expect_failure 1 "a 32-bit process"
    expect_err_has "32-bit" "a 32-bit process: why"
fi
${CC:-cc} -O1 -o noptrace "$root/tests/ruby/noptrace.c" || fail "build noptrace"
run ./noptrace "$HM" -p "$pid"
expect_failure 1 "seccomp forbids ptrace"
expect_err_has "seccomp" "seccomp: why"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
    run setpriv --reuid=65534 --regid=65534 --clear-groups "$HM" -p "$pid"
    expect_failure 1 "another user's process"
    expect_err_has "permission denied" "another user's process: why"
fi
run "$HM" --dump "$pid"
expect_failure 1 "--dump without a tracker"
run "$HM" --detach "$pid"
expect_failure 1 "--detach without a tracker"
[ "$(md5sum <"/proc/$pid/maps")" = "$before" ] && pass ||
    fail "the refusals left the process's memory as it was"
# no thread at a safe point: the only thread computes, in no system call
cat >spin.c <<'C'
#include <stdio.h>
int main(int c, char **v) { FILE *f = fopen(v[1], "w"); fprintf(f, "x"); fclose(f);
  volatile unsigned long x = 0; for (;;) x++; }
C
${CC:-cc} -O1 -o spin spin.c
./spin spin.ready &
spid=$!
track "$spid"
wait_for spin.ready
run "$HM" -p "$spid" -t 1
expect_failure 1 "no safe point"
expect_err_has "no thread of spin waited" "no safe point: why"
[ -z "$(grep heapfmt-malloc "/proc/$spid/maps")" ] && pass || fail "no safe point: nothing loaded"
# a process that ends during the attach: one line or success, never a hang
n_ok=0 n_ref=0
for i in $(seq 10); do
    rm -f short/pid
    mkdir -p short
    ./attach_prog serve short &
    sp=$!
    (sleep "0.0$i"; touch short/stop) &
    timeout 60 "$HM" -p "$sp" >/dev/null 2>short.err
    rc=$?
    wait "$sp" 2>/dev/null
    rm -f short/stop
    if [ "$rc" -eq 0 ]; then
        n_ok=$((n_ok + 1))
    elif [ "$rc" -eq 1 ] && [ "$(wc -l <short.err)" -eq 1 ]; then
        n_ref=$((n_ref + 1))
    else
        fail "short-lived $i: exit $rc: $(cat short.err)"
    fi
done
echo "short-lived: $n_ok attached, $n_ref refused in one line"
[ $((n_ok + n_ref)) -eq 10 ] && pass || fail "10 short-lived attaches"
stop_prog idle "$pid"
finish
