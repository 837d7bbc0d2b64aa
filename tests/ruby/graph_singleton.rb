# graph_singleton.rb -- leaks that only a singleton class holds, dumped
# three times, for tests/cli/graph_ruby.sh. Each object below keeps a
# growing Array through its singleton class, and through nothing else:
#   SERVICE  a closure of define_singleton_method captures `kept`;
#   WORKER   was extended with an anonymous module whose method's closure
#            captures `store`;
#   STATS    its singleton class has an instance variable @samples.
# The objects are built inside methods, so no top-level local, binding or
# instruction sequence of this file holds the Arrays.
# Usage: ruby -I EXTDIR graph_singleton.rb DIR
# Writes DIR/s1.dump, s2.dump, s3.dump and DIR/sids: the addresses of the
# three Arrays, in that order.
require "heapfmt"
require "objspace"
require "json"

module Build
  def self.service
    svc = Object.new
    kept = []
    svc.define_singleton_method(:remember) { |x| x ? (kept << x; nil) : kept }
    svc
  end

  def self.worker
    w = Object.new
    w.extend(Module.new do
      store = []
      define_method(:store) { |x| x ? (store << x; nil) : store }
    end)
    w
  end

  def self.stats
    s = Object.new
    s.singleton_class.instance_variable_set(:@samples, [])
    s
  end
end

# Made and filled in threads that end before each dump: the machine
# stack the VM scans (conservatively: a stale copy of an address there
# is a root) is the dumping thread's, which never held them.
Thread.new do
  Object.const_set(:SERVICE, Build.service)
  Object.const_set(:WORKER, Build.worker)
  Object.const_set(:STATS, Build.stats)
end.join

def samples
  STATS.singleton_class.instance_variable_get(:@samples)
end

def fill(from, count)
  count.times do |i|
    SERVICE.remember("svc-#{from + i}")
    WORKER.store("wrk-#{from + i}")
    samples << "st-#{from + i}"
  end
  nil # (the methods return nil: no Array is left in a register)
end

dir = ARGV.fetch(0)
address = ->(obj) { JSON.parse(ObjectSpace.dump(obj))["address"] }
Thread.new { fill(0, 10) }.join
GC.start
HeapFmt.dump("#{dir}/s1.dump")
Thread.new { fill(10, 1000) }.join
GC.start
HeapFmt.dump("#{dir}/s2.dump")
Thread.new { fill(1010, 1000) }.join
GC.start
HeapFmt.dump("#{dir}/s3.dump")
File.write("#{dir}/sids",
           [SERVICE.remember(nil), WORKER.store(nil), samples]
             .map { |a| address.(a) }.join("\n") + "\n")
