# graph_weak.rb -- an ObjectSpace::WeakMap whose value nothing else holds,
# for tests/cli/graph_weak.sh. The GC is off from the start, so the value
# is still in the heap when it is dumped (gc: false: no collection first).
# Usage: ruby -I EXTDIR graph_weak.rb DIR
# Writes DIR/weak.dump and DIR/weak.ids: the addresses of the map, its key
# (the constant KEY holds it) and its value, one a line.
require "heapfmt"
require "objspace"
require "json"

class WeakKey; end
class WeakValue; end

GC.disable
KEY = WeakKey.new
MAP = ObjectSpace::WeakMap.new
MAP[KEY] = WeakValue.new
dir = ARGV.fetch(0)
HeapFmt.dump("#{dir}/weak.dump", gc: false)
File.write("#{dir}/weak.ids",
           [MAP, KEY, MAP[KEY]].map { |o| JSON.parse(ObjectSpace.dump(o))["address"] }
                               .join("\n") + "\n")
