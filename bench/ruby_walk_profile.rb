# ruby_walk_profile.rb -- one HeapFmt.dump (or its walk floor) of a small
# app-like heap, for instruction counts under callgrind, which do not move
# with the machine's load (issue 14's "within 1.3x of the floor"):
#
#   for m in none floor dump nocompress; do
#     valgrind --tool=callgrind --callgrind-out-file=cg.$m \
#       ruby -I build/ruby bench/ruby_walk_profile.rb $m
#   done
#
# floor - none is the walk through the VM writing nothing; nocompress -
# none the dump's walk thread; callgrind_annotate --inclusive=yes shows
# where the difference goes. With 40,000 records the heap is ~337,000
# objects.
require "heapfmt"

require_relative "app_record"

$heap = Array.new(Integer(ENV.fetch("RECORDS", "40000"))) { |i| User.new(i) }
GC.start
GC.disable
out = ENV.fetch("OUT", "/tmp/ruby_walk_profile.hfd")
case ARGV[0]
when "floor" then HeapFmt.send(:walk_floor)
when "dump" then HeapFmt.dump(out, threads: false)
when "nocompress" then HeapFmt.dump(out, threads: false, compress: false)
end
