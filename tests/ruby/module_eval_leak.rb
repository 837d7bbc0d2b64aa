# module_eval_leak.rb -- the leak of the article on hidden leaks
# (instruction sequences piling up: BigModule.module_eval of 10,000
# generated methods), dumped before, after, and after more work.
#
# Usage: ruby -I EXT module_eval_leak.rb DIR TRACE
#   DIR/d1.hfd, d2.hfd, d3.hfd  the three dumps (the leak between 1 and 2)
#   DIR/imemo.txt               "SUBTYPE COUNT" lines: ObjectSpace's count of
#                               the T_IMEMO objects d2 holds, by subtype
#   TRACE 1: under ObjectSpace.trace_object_allocations
require "securerandom"
require "objspace"
require "heapfmt"

dir = ARGV.fetch(0)
ObjectSpace.trace_object_allocations_start if ARGV[1] == "1"

module BigModule; end

def leak_methods
  10_000.times do
    method = "def _#{SecureRandom.hex}; #{"sleep;" * 100}; end"
    BigModule.module_eval(method) # the eval site
  end
end

def churn
  Array.new(20_000) { |i| "transient #{i}" }.size
end

HeapFmt.dump("#{dir}/d1.hfd")
leak_methods
GC.start
GC.disable # nothing is freed between the count and the dump
counts = ObjectSpace.count_imemo_objects
HeapFmt.dump("#{dir}/d2.hfd", gc: false)
GC.enable
File.write("#{dir}/imemo.txt",
           counts.map { |k, v| "#{k.to_s.delete_prefix("imemo_")} #{v}\n" }.join)
churn
HeapFmt.dump("#{dir}/d3.hfd")
