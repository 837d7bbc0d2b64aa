#!/usr/bin/env bash
# ruby_attach.sh -- heapfmt-ruby on live Ruby processes that never loaded
# heapfmt: a plain `ruby` (no -I, no gems), a Bundler application whose
# Gemfile lacks the gem, one that loaded the gem itself; the options;
# every refusal (no such process, not Ruby, a zombie, 32-bit, stopped,
# traced, another user's, seccomp without ptrace, another Ruby version, no
# safe point) as one line with the target left running as it was; targets
# that exit during the attach or the dump. The 50 dumps of a server under
# load are tests/cli/ruby_attach_load.sh.
. tests/ruby/common.sh
. "$(dirname "$0")/lib.bash"
set +e

R=$BIN/heapfmt-ruby
INFO=$BIN/heapfmt-info
CC=${CC:-cc}
. tests/ruby/procs.sh

# start NAME ARG...: runs ARG... in the background; it writes its pid to
# $TMPDIR/NAME.pid, which is awaited; sets $pid.
start() {
    local name=$1
    shift
    rm -f "$TMPDIR/$name.pid"
    "$@" &
    track $!
    pid=$(wait_pidfile "$TMPDIR/$name.pid")
    [ -n "$pid" ] || { echo "FAIL: $name did not start" >&2; exit 1; }
    track "$pid"
}

# What must not change in a target an error leaves: it runs, with the
# same threads and the same mappings.
snapshot() { # PID
    printf '%s|%s|%s' "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" \
        "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" \
        "$({ md5sum <"/proc/$1/maps"; } 2>/dev/null)"
}

# refused WHAT PID TEXT ARG...: heapfmt-ruby -p PID ARG... fails with one
# line holding TEXT, writes nothing, and leaves a running PID as it was.
refused() {
    local what=$1 p=$2 text=$3
    shift 3
    local before
    before=$(snapshot "$p")
    run "$@"
    expect_failure 1 "$what"
    expect_err_has "$text" "$what"
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && pass ||
        fail "$what: one line"
    [ "$(snapshot "$p")" = "$before" ] && pass ||
        fail "$what: the target changed: $before -> $(snapshot "$p")"
    leftovers=$(ls -A "$TMPDIR/out" 2>/dev/null)
    [ -z "$leftovers" ] && pass || fail "$what: files left: $leftovers"
}

verified() { # FILE WHAT
    run "$INFO" --verify "$1"
    expect_success "$2: the dump verifies"
}

mkdir -p "$TMPDIR/out"

# ---- usage ----
expect_usage_error "$R" "no -p"
expect_usage_error "$R" "-p 0" -p 0
expect_usage_error "$R" "-p not a number" -p 12x
expect_usage_error "$R" "--level out of range" -p 1 -l 20
expect_usage_error "$R" "--level for stored" -p 1 --codec=stored -l 3
expect_usage_error "$R" "--codec" -p 1 --codec=lz4
expect_usage_error "$R" "an operand" -p 1 extra

# ---- a plain ruby: no -I, no gems ----
cat >"$TMPDIR/plain.rb" <<'RUBY'
$keep = Array.new(2000) { |i| "plain kept #{i}" }
$stdout.sync = true
Thread.new { loop { sleep 0.01 } }
File.write(ARGV[0], Process.pid.to_s)
loop { [1, 2, 3].map(&:to_s); sleep 0.001 }
RUBY
start plain ruby "$TMPDIR/plain.rb" "$TMPDIR/plain.pid"
run "$R" -p "$pid" -o "$TMPDIR/out/p1.hfd"
expect_success "a plain ruby"
expect_out_empty "a named output: nothing on stdout"
verified "$TMPDIR/out/p1.hfd" "a plain ruby"
run "$INFO" "$TMPDIR/out/p1.hfd"
[ "$(row meta.pid)" = "$pid" ] && pass || fail "the dump is of $pid: $(row meta.pid)"
objects=$(row objects | tr -d ,)
[ "${objects:-0}" -gt 2000 ] && pass || fail "the whole heap: $objects objects"
# the global that keeps the strings is there, by name
"$BIN/heapfmt-export" -r roots "$TMPDIR/out/p1.hfd" 2>/dev/null |
    grep -q '"label":"\$keep"' && pass || fail "the \$keep global is labeled"
# once loaded, the extension stays; the next dump reuses it
run "$R" -p "$pid" -o "$TMPDIR/out/p2.hfd" -v
expect_rc 0 "a second dump"
expect_err_has "took the request" "--verbose says which thread took it"
verified "$TMPDIR/out/p2.hfd" "a second dump"
[ "$(grep -c 'heapfmt.so' "/proc/$pid/maps")" -gt 0 ] && pass ||
    fail "the extension is loaded in the process"
# the default name, printed on stdout
run env -C "$TMPDIR/out" "$R" -p "$pid"
expect_success "the default name"
case $out in
heap-"$pid"-2*Z.hfd) pass ;;
*) fail "named heap-PID-TIME.hfd: $out" ;;
esac
verified "$TMPDIR/out/$out" "the default name"
rm -f "$TMPDIR/out/$out"
# standard output
"$R" -p "$pid" -o - >"$TMPDIR/stdout.hfd" 2>"$TMPDIR/stdout.err"
[ $? -eq 0 ] && [ ! -s "$TMPDIR/stdout.err" ] && pass || fail "-o -: $(cat "$TMPDIR/stdout.err")"
verified "$TMPDIR/stdout.hfd" "-o -"
# the options of HeapFmt.dump
run "$R" -p "$pid" -o "$TMPDIR/out/opts.hfd" --no-fork --no-gc --no-labels \
    --codec=deflate -l 6
expect_success "--no-fork --no-gc --no-labels --codec=deflate -l 6"
verified "$TMPDIR/out/opts.hfd" "the options"
run "$INFO" "$TMPDIR/out/opts.hfd"
expect_out_has "deflate" "--codec=deflate"
"$BIN/heapfmt-export" -f ndjson "$TMPDIR/out/opts.hfd" 2>/dev/null |
    grep -q ref_labels && fail "--no-labels: labels written" || pass
"$BIN/heapfmt-export" -f ndjson "$TMPDIR/out/p1.hfd" 2>/dev/null |
    grep -q ref_labels && pass || fail "labels by default"
rm -f "$TMPDIR"/out/*.hfd
plain=$pid

# ---- a Ruby that loaded heapfmt itself: its HeapFmt is used ----
start gem ruby -I "$RUBY_EXT_DIR" -rheapfmt -e \
    'File.write(ARGV[0], Process.pid.to_s); loop { sleep 0.01 }' "$TMPDIR/gem.pid"
run "$R" -p "$pid" -o "$TMPDIR/out/gem.hfd"
expect_success "a Ruby that required heapfmt"
verified "$TMPDIR/out/gem.hfd" "a Ruby that required heapfmt"
[ "$(grep -c 'heapfmt\.so' "/proc/$pid/maps" | head -1)" -gt 0 ] &&
    [ "$(awk '/heapfmt\.so/ { print $6 }' "/proc/$pid/maps" | sort -u | wc -l)" -eq 1 ] &&
    pass || fail "one copy of the extension in the process"
rm -f "$TMPDIR/out/gem.hfd"

# ---- a Bundler application whose Gemfile does not list heapfmt ----
if command -v bundle >/dev/null 2>&1; then
    app=$TMPDIR/app
    mkdir -p "$app"
    printf 'source "https://rubygems.org"\n' >"$app/Gemfile"
    cat >"$app/app.rb" <<'RUBY'
require "bundler/setup"
begin
  require "heapfmt"
  abort "heapfmt is loadable: not the case to test"
rescue LoadError
  nil
end
$orders = Array.new(500) { |i| { id: i, note: "order #{i}" } }
File.write(ARGV[0], Process.pid.to_s)
loop { sleep 0.01 }
RUBY
    if env -C "$app" BUNDLE_PATH="$TMPDIR/bundle" bundle install --local \
        >"$TMPDIR/bundle.log" 2>&1; then
        start bundled env -C "$app" BUNDLE_PATH="$TMPDIR/bundle" \
            bundle exec ruby app.rb "$TMPDIR/bundled.pid"
        run "$R" -p "$pid" -o "$TMPDIR/out/bundled.hfd"
        expect_success "a Bundler application without the gem"
        verified "$TMPDIR/out/bundled.hfd" "a Bundler application"
        rm -f "$TMPDIR/out/bundled.hfd"
    else
        fail "bundle install --local of an empty Gemfile: $(tail -3 "$TMPDIR/bundle.log")"
    fi
else
    echo "note: no bundle command (ruby-bundler): the Bundler case is skipped"
fi

# ---- refusals: one line each, the target untouched ----
# An idle Ruby (its memory map does not move while it sleeps) for the
# refusals that concern a Ruby process.
start idle ruby -e 'File.write(ARGV[0], Process.pid.to_s); sleep' "$TMPDIR/idle.pid"
idle=$pid
sh -c 'exit 0' &
gone=$!
wait "$gone"
refused "no such process" "$gone" "no such process" "$R" -p "$gone" -o "$TMPDIR/out/x.hfd"

start sleeper sh -c 'echo $$ >"$1"; exec sleep 300' sh "$TMPDIR/sleeper.pid"
refused "not a Ruby process" "$pid" "is not a Ruby process" \
    "$R" -p "$pid" -o "$TMPDIR/out/x.hfd"

start zparent sh -c 'sleep 0.1 & echo $! >"$1"; exec sleep 300' sh "$TMPDIR/zparent.pid"
for _ in $(seq 100); do
    [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
    sleep 0.05
done
refused "a zombie" "$pid" "is a zombie" "$R" -p "$pid" -o "$TMPDIR/out/x.hfd"

if $CC -m32 -nostdlib -static -fno-pie -no-pie -O1 -o "$TMPDIR/sleep32" \
    tests/ruby/sleep32.c 2>/dev/null; then
    "$TMPDIR/sleep32" &
    p32=$!
    track "$p32"
    sleep 0.2
    refused "a 32-bit process" "$p32" "is a 32-bit process" \
        "$R" -p "$p32" -o "$TMPDIR/out/x.hfd"
else
    echo "note: $CC -m32 cannot build: the 32-bit case is skipped"
fi

kill -STOP "$idle"
for _ in $(seq 100); do
    [ "$(cut -d' ' -f3 "/proc/$idle/stat")" = T ] && break
    sleep 0.02
done
refused "a stopped process" "$idle" "is stopped" "$R" -p "$idle" -o "$TMPDIR/out/x.hfd"
kill -CONT "$idle"

if command -v gdb >/dev/null 2>&1 && [ -z "${LD_PRELOAD:-}" ]; then
    gdb -q -batch -p "$idle" -ex 'shell sleep 4' >/dev/null 2>&1 &
    gdbpid=$!
    for _ in $(seq 100); do
        grep -q "TracerPid:[[:space:]]*[1-9]" "/proc/$idle/status" && break
        sleep 0.05
    done
    if grep -q "TracerPid:[[:space:]]*[1-9]" "/proc/$idle/status"; then
        refused "a traced process" "$idle" "debugger" \
            "$R" -p "$idle" -o "$TMPDIR/out/x.hfd"
    fi
    wait "$gdbpid"
    for _ in $(seq 100); do
        grep -q "TracerPid:[[:space:]]*0" "/proc/$idle/status" && break
        sleep 0.05
    done
fi

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
    refused "another user's process" "$idle" "permission denied" \
        setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$R" -p "$idle" -o "$TMPDIR/out/x.hfd"
else
    echo "note: not root or no setpriv: the other-user case is skipped"
fi

$CC -O1 -o "$TMPDIR/noptrace" tests/ruby/noptrace.c || fail "build noptrace"
refused "seccomp forbids ptrace" "$idle" "seccomp" \
    "$TMPDIR/noptrace" "$R" -p "$idle" -o "$TMPDIR/out/x.hfd"

$CC -shared -fPIC -o "$TMPDIR/other_ruby.so" tests/ruby/other_ruby_ext.c ||
    fail "build other_ruby.so"
refused "an extension for another Ruby" "$idle" "unsupported Ruby version" \
    "$R" -p "$idle" --ext "$TMPDIR/other_ruby.so" -o "$TMPDIR/out/x.hfd"
refused "no extension there" "$idle" "$TMPDIR/none.so" \
    "$R" -p "$idle" --ext "$TMPDIR/none.so" -o "$TMPDIR/out/x.hfd"

# No safe point: the only thread waits in read(2) of a pipe, which nothing
# wakes; the request is cancelled and the program goes on as it would.
mkfifo "$TMPDIR/fifo"
exec 9<>"$TMPDIR/fifo" # opened read-write: nothing waits for a reader
rm -f "$TMPDIR/reader.pid"
ruby -e 'File.write(ARGV[0], Process.pid.to_s)
  data = STDIN.read
  File.write(ARGV[1], "read #{data.bytesize}")' \
    "$TMPDIR/reader.pid" "$TMPDIR/reader.out" <"$TMPDIR/fifo" 9>&- &
track $!
pid=$(wait_pidfile "$TMPDIR/reader.pid")
for _ in $(seq 100); do
    [ "$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null)" = 0 ] && break
    sleep 0.05
done
run "$R" -p "$pid" -t 1 -o "$TMPDIR/out/x.hfd"
expect_failure 1 "no safe point in time"
expect_err_has "no safe point in 1.0 s" "no safe point in time"
expect_err_has "stays in read" "no safe point: where the thread is"
[ -z "$(ls -A "$TMPDIR/out")" ] && pass || fail "no safe point: files left"
printf 'abc' >&9
exec 9>&-
for _ in $(seq 100); do [ -s "$TMPDIR/reader.out" ] && break; sleep 0.05; done
[ "$(cat "$TMPDIR/reader.out" 2>/dev/null)" = "read 3" ] && pass ||
    fail "the program read its input as before: $(cat "$TMPDIR/reader.out" 2>/dev/null)"

# ---- targets that end during the attach or the dump ----
# Short-lived processes, attached as they start or as they end: a dump
# or one line, never a hang, never a file left, never a target harmed (a
# request run while the VM was still booting crashed it, before the
# attach waited for rb_argv0).
ok=0 gone_n=0 n_short=40
for i in $(seq $n_short); do
    ruby -e "sleep 0.$((i % 5))$((i % 10))" &
    short=$!
    sleep "0.0$((i % 10))$((i % 3))"
    timeout 30 "$R" -p "$short" -o "$TMPDIR/out/s.hfd" >"$TMPDIR/s.out" 2>"$TMPDIR/s.err"
    rc=$?
    wait "$short"
    src=$?
    [ "$src" -eq 0 ] || fail "short-lived $i: the target ended with status $src"
    if [ "$rc" -eq 0 ]; then
        "$INFO" --verify "$TMPDIR/out/s.hfd" >/dev/null 2>&1 && ok=$((ok + 1)) ||
            fail "short-lived $i: a dump that does not verify"
        rm -f "$TMPDIR/out/s.hfd"
    elif [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMPDIR/s.err")" -eq 1 ]; then
        gone_n=$((gone_n + 1))
        echo "short-lived $i: $(cat "$TMPDIR/s.err")"
    else
        fail "short-lived $i: exit $rc: $(cat "$TMPDIR/s.err")"
    fi
    [ -z "$(ls -A "$TMPDIR/out")" ] || fail "short-lived $i: files left: $(ls -A "$TMPDIR/out")"
done
echo "short-lived targets: $ok dumped, $gone_n refused in one line"
[ $((ok + gone_n)) -eq $n_short ] && pass || fail "$n_short short-lived targets"

# Killed while its child walks a big heap: one line, nothing left.
start big ruby -e '$a = Array.new(1_500_000) { |i| "s#{i}" }
  File.write(ARGV[0], Process.pid.to_s); loop { sleep 0.01 }' "$TMPDIR/big.pid"
"$R" -p "$pid" -o "$TMPDIR/out/big.hfd" >"$TMPDIR/big.out" 2>"$TMPDIR/big.err" &
tool=$!
for _ in $(seq 200); do
    [ -n "$(ls -A "$TMPDIR/out" 2>/dev/null | grep '\.tmp$')" ] &&
        [ -s "$TMPDIR/out/$(ls -A "$TMPDIR/out" | grep '\.status$')" ] && break
    sleep 0.02
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
wait "$tool"
rc=$?
[ "$rc" -eq 1 ] && pass || fail "killed during the dump: exit $rc ($(cat "$TMPDIR/big.err"))"
grep -q "exited" "$TMPDIR/big.err" && [ "$(wc -l <"$TMPDIR/big.err")" -eq 1 ] && pass ||
    fail "killed during the dump: one line: $(cat "$TMPDIR/big.err")"
sleep 0.5
[ -z "$(ls -A "$TMPDIR/out")" ] && pass || fail "killed during the dump: files left: $(ls -A "$TMPDIR/out")"

# the idle ruby lived through all of it, and is dumped as any other
[ -z "$(grep heapfmt "/proc/$idle/maps")" ] && pass ||
    fail "no refusal loaded anything into the idle ruby"
run "$R" -p "$idle" -o "$TMPDIR/out/idle.hfd"
expect_success "the idle ruby after the refusals"
verified "$TMPDIR/out/idle.hfd" "the idle ruby after the refusals"
[ -d "/proc/$plain" ] && [ "$(cut -d' ' -f3 "/proc/$plain/stat")" != Z ] && pass ||
    fail "the plain ruby still runs"
finish
