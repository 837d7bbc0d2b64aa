#!/usr/bin/env bash
# ruby_write_target.sh -- HeapFmt.dump into an object's #write: a #write
# that takes part of what it is given gets the rest; one that returns 0,
# nil or something else fails the dump instead of reporting it written.
# And into a FIFO: the other threads run while it waits for a reader.
. tests/ruby/common.sh
. "$(dirname "$0")/lib.bash"
set +e

cat >"$TMPDIR/targets.rb" <<'RUBY'
require "heapfmt"
class Nil;  def write(s) nil; end; end
class Zero; def write(s) 0; end; end
class Text; def write(s) "ok"; end; end
class Half
  attr_reader :buf
  def initialize; @buf = "".b; end
  def write(s) # at most half of what it is given
    n = [s.bytesize / 2, 1].max
    @buf << s.byteslice(0, n)
    n
  end
end
[Nil, Zero, Text].each do |k|
  begin
    HeapFmt.dump(k.new)
    puts "#{k}: reported written"
  rescue HeapFmt::Error => e
    puts "#{k}: #{e.message}"
  end
end
h = Half.new
n = HeapFmt.dump(h)
File.binwrite(ARGV[0], h.buf)
puts "Half: #{n} objects"
RUBY
run ruby -I "$RUBY_EXT_DIR" "$TMPDIR/targets.rb" "$TMPDIR/half.dump"
expect_rc 0 "the script runs"
expect_out_has "Nil: the target's #write returned nil" "nil is a failure"
expect_out_has "Zero: the target's #write returned 0" "0 is a failure"
expect_out_has 'Text: the target'"'"'s #write returned "ok"' "a String is a failure"
expect_out_has "Half: " "partial writes get the rest"
run "$BIN/heapfmt-info" --verify "$TMPDIR/half.dump"
expect_success "what the partial writer got is the whole dump"
# A FIFO without a reader: the dump waits for one without the GVL, so the
# other threads run meanwhile (with and without fork).
cat >"$TMPDIR/fifo.rb" <<'RUBY'
require "heapfmt"
fifo, out, fork = ARGV[0], ARGV[1], ARGV[2] == "fork"
ticks = 0
Thread.new { loop { ticks += 1; sleep 0.01 } }
dumper = Thread.new { HeapFmt.dump(fifo, fork: fork) }
sleep 0.5
waiting = ticks
data = IO.popen(["cat", fifo], "rb", &:read)
n = dumper.value
File.binwrite(out, data)
puts "ticks #{waiting} objects #{n}"
RUBY
for mode in nofork fork; do
    rm -f "$TMPDIR/fifo"
    mkfifo "$TMPDIR/fifo"
    run timeout 60 ruby -I "$RUBY_EXT_DIR" "$TMPDIR/fifo.rb" "$TMPDIR/fifo" \
        "$TMPDIR/fifo-$mode.hfd" "$mode"
    expect_rc 0 "a dump into a FIFO ($mode)"
    ticks=$(printf '%s' "$out" | awk '{ print $2 }')
    [ "${ticks:-0}" -ge 10 ] && pass ||
        fail "other threads ran while the dump waited ($mode): $out"
    run "$BIN/heapfmt-info" --verify "$TMPDIR/fifo-$mode.hfd"
    expect_success "the dump read from the FIFO is complete ($mode)"
done
finish
