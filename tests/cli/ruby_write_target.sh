#!/usr/bin/env bash
# ruby_write_target.sh -- HeapFmt.dump into an object's #write: a #write
# that takes part of what it is given gets the rest; one that returns 0,
# nil or something else fails the dump instead of reporting it written.
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
finish
