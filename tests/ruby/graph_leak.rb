# graph_leak.rb -- a live heap with two leaks of known owners, dumped three
# times, for tests/cli/graph_ruby.sh:
#   $cache, a global Hash, keeps every Request it is given;
#   HANDLER, a constant Proc, captures an Array `seen` that keeps growing.
# Usage: ruby -I EXTDIR graph_leak.rb DIR
# Writes DIR/g1.dump, g2.dump, g3.dump and DIR/ids: the address of one
# Request kept in $cache and of the Array the closure captured.
require "heapfmt"
require "objspace"
require "json"

class Request
  def initialize(path)
    @path = path
  end
end

def make_handler
  seen = []
  proc { |x| seen << x; seen }
end

$cache = {}
HANDLER = make_handler

dir = ARGV.fetch(0)
def fill(from, count)
  count.times do |i|
    n = from + i
    $cache["req-#{n}"] = Request.new("/item/#{n}")
    HANDLER.call("seen-#{n}")
  end
end

address = ->(obj) { JSON.parse(ObjectSpace.dump(obj))["address"] }

fill(0, 100)
GC.start
HeapFmt.dump("#{dir}/g1.dump")
fill(100, 3000)
GC.start
HeapFmt.dump("#{dir}/g2.dump")
fill(3100, 3000)
GC.start
HeapFmt.dump("#{dir}/g3.dump", fork: true) # the production way: labels from the child
File.write("#{dir}/ids", [address.(($cache["req-150"])),
                         address.(HANDLER.call(nil))].join("\n") + "\n")
