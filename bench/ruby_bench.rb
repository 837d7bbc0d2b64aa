# ruby_bench.rb -- HeapFmt.dump against ObjectSpace.dump_all on one heap.
#
# Usage: ruby -I build/ruby bench/ruby_bench.rb [OBJECTS [DIR]]
#   OBJECTS  about how many objects the heap holds (default 1000000)
#   DIR      where the dumps go (default: a temporary directory, removed)
# Environment:
#   HEAPFMT_IMPORT  path of heapfmt-import: also time importing the JSON
#   BENCH_RUNS      runs of each writer; the fastest counts (default 3)
#   BENCH_TRACE     1: build the heap under
#                   ObjectSpace.trace_object_allocations (sites in both
#                   dumps)
#
# Prints TSV: one row per writer with its time, file size and rates (the
# "walk floor" row: HeapFmt.dump's walk through the VM's functions writing
# nothing), then the ratios against dump_all, then the longest time another
# thread of the application was stopped ("pause") during HeapFmt.dump with
# fork: true and during dump_all. The heap is app-like: objects with instance
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

require_relative "app_record"

def live_objects
  c = ObjectSpace.count_objects
  c[:TOTAL] - c[:FREE]
end

ObjectSpace.trace_object_allocations_start if ENV["BENCH_TRACE"] == "1"
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
    best = [s, path ? File.size(path) : 0, n] if best.nil? || s < best[0]
  end
  best
end

# The longest gap a ticking thread sees while the block runs: how long the
# application was stopped.
def pause
  gap = 0.0
  done = false
  ticker = Thread.new do
    last = clock
    until done
      sleep 0.0005
      now = clock
      gap = now - last if now - last > gap
      last = now
    end
  end
  sleep 0.02
  yield
  done = true
  ticker.join
  gap
end

rows = {}
path = File.join(dir, "heap.dump")
rows["HeapFmt.dump compress:true"] = measure(runs, path) do
  HeapFmt.dump(path, gc: false)
end
rows["HeapFmt.dump threads:false"] = measure(runs, path) do
  HeapFmt.dump(path, gc: false, threads: false)
end
rows["walk floor"] = measure(runs, nil) do
  HeapFmt.send(:walk_floor)[0]
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
  next if name.start_with?("ObjectSpace") || bytes.zero?

  puts [name, format("%.1f", base_s / s), format("%.1f", base_bytes.fdiv(bytes))].join("\t")
end
pauses = {
  "HeapFmt.dump fork:true" => Array.new(runs) { GC.start; pause { HeapFmt.dump(path, gc: false, fork: true) } }.min,
  "ObjectSpace.dump_all" => Array.new([runs, 2].min) do
    GC.start
    pause { File.open(json, "w") { |f| ObjectSpace.dump_all(output: f) } }
  end.min,
}
puts
puts %w[pause seconds].join("\t")
pauses.each { |name, s| puts [name, format("%.4f", s)].join("\t") }
if import && rows.key?("heapfmt-import (of the JSON)")
  s = rows["heapfmt-import (of the JSON)"][0]
  puts format("import_throughput_MB_per_s\t%.0f", File.size(json) / s / 1e6)
end
FileUtils.rm_rf(tmpdir) if tmpdir
