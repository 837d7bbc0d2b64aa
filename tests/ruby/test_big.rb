# test_big.rb -- HeapFmt.dump on a large, app-like heap: it must not crash
# the VM, and every object must be in the dump. Many classes, modules and
# singletons, procs, fibers, threads, big arrays and hashes, frozen
# strings, dynamic symbols, and the odd objects of the core library.
require_relative "helper"
require "objspace"
require "set"

# ---- the heap ----

# An application's worth of classes and methods (each method an iseq).
APP = Module.new
200.times do |i|
  mod = Module.new
  APP.const_set(:"Service#{i}", mod)
  10.times do |j|
    klass = Class.new(j.even? ? Object : StandardError) do
      attr_accessor :a, :b

      define_method(:"call#{j}") { |x| x.to_s * j }
      class_eval("def run#{j}(x); [x, #{j}].map { |y| y.to_s }; end", __FILE__, __LINE__)
    end
    mod.const_set(:"Model#{j}", klass)
    klass.extend(Comparable) if j == 3
    klass.prepend(Module.new { def a = super }) if j == 4
    klass.singleton_class.define_method(:build) { new } if j == 5
  end
end
$anon_classes = Array.new(1000) { |i| Class.new { define_method(:i) { i } } }
$structs = Array.new(50) { |i| Struct.new(:"f#{i}", :g) }
$struct_objs = $structs.flat_map { |s| Array.new(100) { |k| s.new(k, "g#{k}") } }

$big_array = Array.new(1_000_000) { |i| i.even? ? "s#{i}" : i }
$big_hash = Array.new(200_000) { |i| [i, [i.to_s]] }.to_h
$frozen = Array.new(100_000) { |i| "frozen #{i}".freeze }
$syms = Array.new(100_000) { |i| "big_sym_#{i}".to_sym }
$procs = Array.new(50_000) { |i| proc { i } }
$lambdas = Array.new(10_000) { |i| ->(x) { x + i } }
$singletons = Array.new(10_000) do |i|
  o = Object.new
  o.define_singleton_method(:n) { i }
  o
end
$extended = Array.new(1000) { Object.new.extend(Enumerable) }
$fibers = Array.new(100) { |i| f = Fiber.new { Fiber.yield(i); i }; f.resume; f }
$enums = Array.new(100) { |i| e = (0..).lazy.map { |x| x * i }.each_entry; e.next; e }
queue = Thread::Queue.new
$threads = Array.new(50) { |i| Thread.new { queue.pop; i } }
Thread.pass until $threads.all? { |t| t.status == "sleep" }
$misc = [
  1..10, Rational(1, 3), Complex(1, 2), 2**200, 3.14e300, Time.now, Random.new,
  /(?<word>\w+)/.match("hello world"), Set.new([1, 2, 3]), Mutex.new,
  Thread::ConditionVariable.new, Thread::SizedQueue.new(3),
  ObjectSpace::WeakMap.new.tap { |w| w[$frozen[0]] = $frozen[1] },
  method(:puts), Kernel.instance_method(:puts), binding, IO.pipe, File.open(__FILE__),
  Dir.new("."), caller_locations(0), (begin; raise "boom"; rescue => e; e; end),
  TracePoint.new(:line) {}, Encoding::UTF_8, Process.clock_gettime(Process::CLOCK_MONOTONIC),
  "x".encode("UTF-16LE"), "\xff\xfe".b, String.new(capacity: 100_000),
  [1, 2, 3].each_slice(2), { a: 1 }.compare_by_identity,
  Hash.new { |h, k| h[k] = k }, Array.new(3) { [] }.freeze,
]
ObjectSpace.define_finalizer(Object.new, proc {})
ObjectSpace.trace_object_allocations_start
$traced = Array.new(10_000) { |i| "traced #{i}" }
ObjectSpace.trace_object_allocations_stop

# ---- the dumps ----

live = lambda do
  c = ObjectSpace.count_objects
  c[:TOTAL] - c[:FREE]
end

GC.start
GC.disable
before = live.()
t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
n = HeapFmt.dump(tmp("big.dump"), gc: false)
secs = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t
after = live.()
GC.enable
puts format("%d objects in %.2f s (%.0f objects/s), %d bytes", n, secs, n / secs,
            File.size(tmp("big.dump")))
Check.ok(n >= 1_000_000, "a big heap: #{n} objects")
Check.ok(before <= n && n <= after, "every live slot dumped: #{before} <= #{n} <= #{after}")
Check.eq(Dump.count(tmp("big.dump")), n, "the dump reads back complete")

n0 = HeapFmt.dump(tmp("big0.dump"), compress: false)
Check.eq(Dump.count(tmp("big0.dump")), n0, "compress: false reads back")
Check.ok(File.size(tmp("big0.dump")) > File.size(tmp("big.dump")), "stored is bigger")

nf = HeapFmt.dump(tmp("bigf.dump"), fork: true)
Check.eq(Dump.count(tmp("bigf.dump")), nf, "fork: true reads back")
Check.ok((nf - n0).abs < 10_000, "fork dumps the same heap (#{nf} vs #{n0})")

# The details of a few objects, read without building the whole dump.
thread_id = hex(Thread)
array_id = hex($big_array)
model = APP::Service7::Model3
names = {}
meta = {}
threads = sites = 0
array_size = nil
Dump.each_record(tmp("big.dump")) do |f|
  case f[0]
  when "M" then meta[f[1]] = f[2]
  when "C" then names[f[1]] = f[4]
  when "O"
    threads += 1 if f[3] == thread_id
    sites += 1 if f[6] == __FILE__
    array_size = f[4].to_i if f[1] == array_id
  end
end
Check.eq(array_size, ObjectSpace.memsize_of($big_array), "size of the big array")
Check.eq(names[hex(model)], "#{APP.inspect}::Service7::Model3",
         "a class named under an anonymous module")
Check.ok(threads >= 51, "threads: #{threads}")
Check.ok(sites >= 10_000, "allocation sites: #{sites}")
Check.eq(meta["ruby.refs_truncated"], nil, "no references cut")

if GC.respond_to?(:compact)
  GC.compact
  nc = HeapFmt.dump(tmp("bigc.dump"))
  Check.eq(Dump.count(tmp("bigc.dump")), nc, "dump after GC.compact")
end

queue.close
$threads.each(&:join)
Check.finish
