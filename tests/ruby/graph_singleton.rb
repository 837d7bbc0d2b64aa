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
    svc.define_singleton_method(:remember) { |x| x ? kept << x : kept }
    svc
  end

  def self.worker
    w = Object.new
    w.extend(Module.new do
      store = []
      define_method(:store) { |x| x ? store << x : store }
    end)
    w
  end

  def self.stats
    s = Object.new
    s.singleton_class.instance_variable_set(:@samples, [])
    s
  end
end

SERVICE = Build.service
WORKER = Build.worker
STATS = Build.stats

def samples
  STATS.singleton_class.instance_variable_get(:@samples)
end

def fill(from, count)
  count.times do |i|
    SERVICE.remember("svc-#{from + i}")
    WORKER.store("wrk-#{from + i}")
    samples << "st-#{from + i}"
  end
end

dir = ARGV.fetch(0)
address = ->(obj) { JSON.parse(ObjectSpace.dump(obj))["address"] }
fill(0, 10)
GC.start
HeapFmt.dump("#{dir}/s1.dump")
fill(10, 1000)
GC.start
HeapFmt.dump("#{dir}/s2.dump")
fill(1010, 1000)
GC.start
HeapFmt.dump("#{dir}/s3.dump")
File.write("#{dir}/sids",
           [SERVICE.remember(nil), WORKER.store(nil), samples]
             .map { |a| address.(a) }.join("\n") + "\n")
