# ruby_bench.rb -- HeapFmt.dump against ObjectSpace.dump_all on one heap,
# in CPU and wall time, as a user measures them.
#
# Usage: ruby -I build/ruby bench/ruby_bench.rb [OBJECTS [DIR]]
#   OBJECTS  about how many objects the heap holds (default 1000000)
#   DIR      where the dumps go (default: a temporary directory, removed)
# Environment:
#   HEAPFMT_IMPORT  path of heapfmt-import: also time importing the JSON
#   BENCH_RUNS      rounds (default 3): each round runs every writer once,
#                   in turn, so that a change of the machine's load falls on
#                   all of them alike; medians and minima are reported
#   BENCH_TRACE     1: build the heap under
#                   ObjectSpace.trace_object_allocations (sites in both
#                   dumps)
#   BENCH_SHAPE     records (default): app records (7 objects each) held
#                   by one Array; array: the heap hangs off one Array of
#                   3/5 of the objects' count (a cache or a result set:
#                   3M elements at 5M objects), each element a String
#                   or a 2-element row [String, Integer] (issue 39)
#
# Prints TSV sections:
#   writer  one row per writer: cpu_s, cpu_min_s, wall_s, wall_min_s (CPU:
#           this process's threads, and for fork: true the child's, which
#           the child_cpu_s column also gives alone), bytes, objects,
#           thread_cpu_s (the calling thread's CPU: the walk; the rest of
#           the process's is the compression thread's). The
#           "walk floor" row is HeapFmt.dump's walk through the VM's
#           functions writing nothing (labels need the VM on the walk
#           thread: a figure, not a target).
#   pause   the longest time another thread of the application was stopped
#           during HeapFmt.dump(fork: true) (the requested GC excluded: gc:
#           false), during a bare Process.fork (the floor: fork(2) copies
#           the process's page tables with the GVL held) and during
#           dump_all, and the ticker's own longest gap while nothing runs
#           (the scheduler's share, on a shared machine)
#   import_throughput_MB_per_s, when HEAPFMT_IMPORT is given
# The heap is app-like: objects with instance variables, strings, arrays,
# hashes, symbols, floats, times (bench/app_record.rb).
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
shape = ENV.fetch("BENCH_SHAPE", "records")
loop do
  if shape == "array" # 5 objects per 3 elements
    $heap.concat(Array.new(60_000) { |i| (i % 3).zero? ? "row #{i}" : ["k#{i}", i] })
  else
    $heap.concat(Array.new(50_000) { |i| User.new($heap.size + i) })
  end
  GC.start
  break if live_objects >= target
end

def clock
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

def cpu
  Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
end

# CPU seconds of the calling thread alone: HeapFmt.dump walks on it, and
# the rest of the process's CPU is its compression thread's.
def thread_cpu
  Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
end

# CPU seconds of the reaped children so far.
def children_cpu
  t = Process.times
  t.cutime + t.cstime
end

# One run of a writer: [cpu_s, wall_s, child_cpu_s, objects, thread_cpu_s].
def once
  GC.start
  c0 = cpu
  k0 = children_cpu
  t0 = thread_cpu
  t = clock
  n = yield
  wall = clock - t
  own = thread_cpu - t0
  child = children_cpu - k0
  [cpu - c0 + child, wall, child, n, own]
end

def median(v)
  s = v.sort
  s.size.odd? ? s[s.size / 2] : (s[s.size / 2 - 1] + s[s.size / 2]) / 2.0
end

path = File.join(dir, "heap.dump")
json = File.join(dir, "heap.json")
writers = {
  "HeapFmt.dump" => [path, -> { HeapFmt.dump(path, gc: false) }],
  "HeapFmt.dump labels:false" => [path, -> { HeapFmt.dump(path, gc: false, labels: false) }],
  "HeapFmt.dump threads:false" => [path, -> { HeapFmt.dump(path, gc: false, threads: false) }],
  "HeapFmt.dump compress:false" => [path, -> { HeapFmt.dump(path, gc: false, compress: false) }],
  "HeapFmt.dump fork:true" => [path, -> { HeapFmt.dump(path, gc: false, fork: true) }],
  "walk floor" => [nil, -> { HeapFmt.send(:walk_floor)[0] }],
  "ObjectSpace.dump_all" => [json, lambda {
    n = live_objects
    File.open(json, "w") { |f| ObjectSpace.dump_all(output: f) }
    n
  }],
}
samples = Hash.new { |h, k| h[k] = [] }
bytes = {}
runs.times do
  writers.each do |name, (file, run)|
    samples[name] << once(&run)
    bytes[name] = file ? File.size(file) : 0
  end
end

puts %w[writer cpu_s cpu_min_s wall_s wall_min_s child_cpu_s bytes objects thread_cpu_s].join("\t")
writers.each_key do |name|
  s = samples[name]
  puts [name, format("%.4f", median(s.map { |r| r[0] })), format("%.4f", s.map { |r| r[0] }.min),
        format("%.4f", median(s.map { |r| r[1] })), format("%.4f", s.map { |r| r[1] }.min),
        format("%.4f", median(s.map { |r| r[2] })), bytes[name], s.last[3],
        format("%.4f", median(s.map { |r| r[4] }))].join("\t")
end

# ---- pause: the longest gap a ticking thread sees ----

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

pauses = {
  # the control: the ticker's own gaps, from the machine's scheduler
  "no dump (sleep 0.2 s)" => Array.new(runs) { pause { sleep 0.2 } },
  "HeapFmt.dump fork:true" => Array.new(runs) { GC.start; pause { HeapFmt.dump(path, gc: false, fork: true) } },
  # the floor of a fork: true dump's pause: fork(2) of this process alone,
  # whose page tables the kernel copies with the GVL held (the dump's own
  # work before and after it is under a millisecond)
  "bare fork" => Array.new(runs) do
    GC.start
    pause { Process.wait(Process.fork { exit!(0) }) }
  end,
  "ObjectSpace.dump_all" => Array.new([runs, 2].min) do
    GC.start
    pause { File.open(json, "w") { |f| ObjectSpace.dump_all(output: f) } }
  end,
}
puts
puts %w[pause seconds max_seconds].join("\t")
pauses.each { |name, v| puts [name, format("%.4f", median(v)), format("%.4f", v.max)].join("\t") }

import = ENV["HEAPFMT_IMPORT"]
if import && File.executable?(import)
  imported = File.join(dir, "imported.dump")
  s = Array.new(runs) do
    t = clock
    system(import, "-o", imported, json, exception: true)
    clock - t
  end.min
  puts
  puts format("import_throughput_MB_per_s\t%.0f", File.size(json) / s / 1e6)
end
FileUtils.rm_rf(tmpdir) if tmpdir
