# test_big_array.rb -- an Array too large for its references to be labeled
# one by one: 7.5M elements with a nil among them. The format writes an
# array's labels in the indexed form (1.3), where the reader infers every
# index but the one after a gap, so the whole array fits in a block. The
# writer once bounded a label for every reference and cut such an array
# at 6.4M ("ruby.refs_truncated" in the dump's META); every element must
# be there. heapfmt-info reads the META and the record counts without a
# line per object.
require_relative "helper"

N = 7_500_000
$big = Array.new(N) { |i| i == 5 ? nil : +"" }
GC.start
n = HeapFmt.dump(tmp("array.dump"), gc: false)

info = IO.popen([File.join(ENV.fetch("BIN"), "heapfmt-info"), tmp("array.dump")],
                &:read)
Check.ok($?.success?, "heapfmt-info reads the dump")
Check.ok(n > N, "the strings are in the dump: #{n} objects")
Check.ok(!info.include?("refs_truncated"),
         "no references cut: #{info[/^meta\.ruby\.refs_truncated.*$/]}")
Check.ok(info.match?(/^status\s+complete$/), "a complete dump")
Check.finish
