# fiddle_leak.rb -- Sam Saffron's hidden native leak (2019): memory taken
# with Fiddle.malloc is invisible to Ruby's own heap. 100,000 blocks of
# 1 KiB, half of them freed: 50,000 (51.2 MB) stay, all made at line 6.
require "fiddle"
out = ARGV[0]
blocks = Array.new(100_000) { Fiddle.malloc(1024) }
blocks.each_with_index { |b, i| Fiddle.free(b) if i.odd? }
HeapFmt.dump(out) if out && defined?(HeapFmt)
