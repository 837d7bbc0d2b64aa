#!/usr/bin/env bash
# ruby_production.sh -- the production helpers of the Ruby extension:
# HeapFmt.on_signal (one dump per signal, named with pid and time, from a
# trap) and heapfmt_dump_to_path, called from gdb attached to a live
# process. The gdb part is skipped, with a message, when gdb is missing or
# may not attach (ptrace restricted).
. tests/ruby/common.sh
. "$(dirname "$0")/lib.bash"
set +e

mkdir -p "$TMPDIR/sig"
cat >"$TMPDIR/signal.rb" <<'RUBY'
require "heapfmt"
dir = ARGV[0]
HeapFmt.on_signal("USR2", dir: dir)
$keep = Array.new(1000) { |i| "kept #{i}" }
2.times do
  before = Dir[File.join(dir, "*.hfd")].size
  Process.kill("USR2", Process.pid)
  sleep 0.05 until Dir[File.join(dir, "*.hfd")].size > before &&
                   Thread.list.size == 1
end
puts Process.pid
RUBY
run timeout 60 ruby -I "$RUBY_EXT_DIR" "$TMPDIR/signal.rb" "$TMPDIR/sig"
expect_rc 0 "two signals, two dumps"
pid=$out
n=0
for f in "$TMPDIR"/sig/*.hfd; do
    n=$((n + 1))
    case $(basename "$f") in
    heap-"$pid"-2*Z.hfd) pass ;;
    *) fail "dump named with pid and time: $(basename "$f")" ;;
    esac
    run "$BIN/heapfmt-info" --verify "$f"
    expect_success "a dump per signal is complete"
done
[ "$n" -eq 2 ] && pass || fail "$n dumps for two signals"

if ! command -v gdb >/dev/null 2>&1; then
    echo "SKIP: gdb is not installed (heapfmt_dump_to_path)"
    finish
fi
if [ -n "${LD_PRELOAD:-}" ]; then # tests/ruby/common.sh, sanitizer builds
    echo "SKIP: heapfmt_dump_to_path from gdb under a sanitizer build (gdb" \
        "attaching to a process with the ASan runtime takes minutes)"
    finish
fi
cat >"$TMPDIR/live.rb" <<'RUBY'
require "heapfmt"
$keep = Array.new(500) { |i| "live #{i}" }
File.write(ARGV[0], Process.pid.to_s)
a = []
loop { a << 1; a.clear } # Ruby code running: a breakpoint holds the GVL
RUBY

# The gdb recipes of the READMEs, run as written: every "(gdb) " line of a
# block, in order, with gdb -batch (only /tmp/heap.hfd becomes a file of
# this test's own). Each block must dump, verify, and leave the process
# running on.
n_blocks=0
for readme in README.md bindings/ruby/README.md; do
    awk -v out="$TMPDIR/recipe" '
        /^```/ { if (inblock) { inblock = 0; if (cmds != "") { n++; print cmds > (out "." n); close(out "." n) } }
                 else { inblock = 1; cmds = "" } next }
        inblock && /^\(gdb\) / { sub(/^\(gdb\) /, ""); cmds = cmds $0 "\n" }
    ' "$readme"
    for recipe in "$TMPDIR"/recipe.*; do
        [ -f "$recipe" ] || continue
        n_blocks=$((n_blocks + 1))
        rm -f "$TMPDIR/live.pid" "$TMPDIR/gdb.hfd"
        ruby -I "$RUBY_EXT_DIR" "$TMPDIR/live.rb" "$TMPDIR/live.pid" &
        rpid=$!
        for _ in $(seq 100); do [ -s "$TMPDIR/live.pid" ] && break; sleep 0.1; done
        args=()
        while IFS= read -r cmd; do
            [ -n "$cmd" ] && args+=(-ex "${cmd//\/tmp\/heap.hfd/$TMPDIR/gdb.hfd}")
        done <"$recipe"
        run timeout 60 gdb -q -batch -p "$rpid" "${args[@]}"
        sleep 0.5
        alive=no
        [ "$(cut -d' ' -f3 "/proc/$rpid/stat" 2>/dev/null)" = R ] ||
            [ "$(cut -d' ' -f3 "/proc/$rpid/stat" 2>/dev/null)" = S ] && alive=yes
        kill "$rpid" 2>/dev/null
        wait "$rpid" 2>/dev/null
        if printf '%s' "$out$err" | grep -qi 'ptrace: Operation not permitted\|could not attach'; then
            echo "SKIP: gdb may not attach here (ptrace restricted)"
            break 2
        fi
        what="$readme, gdb recipe $(basename "$recipe")"
        case $out in
        *'$1 = '[1-9]*) pass ;;
        *) fail "$what: the call returns the objects dumped" ;;
        esac
        run "$BIN/heapfmt-info" --verify "$TMPDIR/gdb.hfd"
        expect_success "$what: the dump is complete"
        [ "$alive" = yes ] && pass || fail "$what: the process runs on after gdb detached"
        rm -f "$recipe"
    done
done
[ "$n_blocks" -ge 1 ] && pass || fail "the READMEs have a gdb recipe"
finish
