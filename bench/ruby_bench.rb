# ruby_bench.rb -- HeapFmt.dump against ObjectSpace.dump_all on one heap.
#
# Usage: ruby -I build/ruby bench/ruby_bench.rb [OBJECTS [DIR]]
#   OBJECTS  about how many objects the heap holds (default 1000000)
#   DIR      where the dumps go (default: a temporary directory, removed)
# Environment:
#   HEAPFMT_IMPORT  path of heapfmt-import: also time importing the JSON
#   BENCH_RUNS      runs of each writer; the fastest counts (default 3)
#
# Prints TSV: one row per writer with its time, file size and rates, then
# the ratios against dump_all. The heap is app-like: objects with instance
# variables, strings, arrays, hashes, symbols, floats.
require "heapfmt"
require "objspace"
require "tmpdir"
require "fileutils"

target = Integer(ARGV[0] || 1_000_000)
dir = ARGV[1]
tmpdir = dir ? nil : Dir.mktmpdir("heapfmt-bench")
dir ||= tmpdir
FileUtils.mkdir_p(dir)
runs = Integer(ENV.fetch("BENCH_RUNS", "3"))

# ---- the heap: records of 7 objects, made until the heap is big enough ----

class User
  def initialize(id)
    @id = id
    @name = "user #{id}"
    @email = "user#{id}@example.com"
    @tags = [:"tag#{id % 50}", "t#{id % 7}"]
    @prefs = { "lang" => "en", "n" => id, "score" => id * 0.5 }
    @created = Time.at(1_600_000_000 + id)
  end
end

def live_objects
  c = ObjectSpace.count_objects
  c[:TOTAL] - c[:FREE]
end

$heap = []
loop do
  $heap.concat(Array.new(50_000) { |i| User.new($heap.size + i) })
  GC.start
  break if live_objects >= target
end

def clock
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

# The fastest of runs: [seconds, bytes, objects].
def measure(runs, path)
  best = nil
  runs.times do
    GC.start
    t = clock
    n = yield
    s = clock - t
    best = [s, File.size(path), n] if best.nil? || s < best[0]
  end
  best
end

rows = {}
path = File.join(dir, "heap.dump")
rows["HeapFmt.dump compress:true"] = measure(runs, path) do
  HeapFmt.dump(path, gc: false)
end
path0 = File.join(dir, "heap0.dump")
rows["HeapFmt.dump compress:false"] = measure(runs, path0) do
  HeapFmt.dump(path0, compress: false, gc: false)
end
json = File.join(dir, "heap.json")
rows["ObjectSpace.dump_all"] = measure(runs, json) do
  n = live_objects
  File.open(json, "w") { |f| ObjectSpace.dump_all(output: f) }
  n
end
import = ENV["HEAPFMT_IMPORT"]
if import && File.executable?(import)
  imported = File.join(dir, "imported.dump")
  rows["heapfmt-import (of the JSON)"] = measure(runs, imported) do
    system(import, "-o", imported, json, exception: true)
    rows["ObjectSpace.dump_all"][2]
  end
end

puts %w[writer seconds bytes objects objects_per_s bytes_per_object].join("\t")
rows.each do |name, (s, bytes, n)|
  puts [name, format("%.3f", s), bytes, n, (n / s).round, format("%.1f", bytes.fdiv(n))].join("\t")
end
base_s, base_bytes, = rows["ObjectSpace.dump_all"]
puts
puts %w[vs_dump_all times_faster times_smaller].join("\t")
rows.each do |name, (s, bytes, _)|
  next if name.start_with?("ObjectSpace")

  puts [name, format("%.1f", base_s / s), format("%.1f", base_bytes.fdiv(bytes))].join("\t")
end
if import && rows.key?("heapfmt-import (of the JSON)")
  s = rows["heapfmt-import (of the JSON)"][0]
  puts format("import_throughput_MB_per_s\t%.0f", File.size(json) / s / 1e6)
end
FileUtils.rm_rf(tmpdir) if tmpdir
