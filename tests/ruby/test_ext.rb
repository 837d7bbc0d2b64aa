# test_ext.rb -- HeapFmt.dump on small, known heaps: counts, names,
# references, roots, metadata, allocation sites, targets, fork, errors.
require_relative "helper"
require "objspace"
require "stringio"

# ---- a known heap ----

class Node
  attr_reader :kids

  def initialize(value)
    @value = value
    @kids = []
  end
end

module Outer
  class Inner; end
end

# Globals, not constants: a constant would give them a name.
$anon = Class.new
$anon_mod = Module.new
$anon_mod.const_set(:Named, Class.new) # named under an anonymous module
$anons = Array.new(7) { $anon.new }
SINGLE = Object.new
def SINGLE.hello; end
$anon_single = $anon.new
def $anon_single.hello; end
class Outer::Inner
  def self.meta; end # a singleton class of a class
end
Comparable.singleton_class # made on first use
NODES = Array.new(1000) { |i| Node.new(i) }

LEAF = +"leaf string"
FROZEN = "frozen string".freeze
A = Node.new(LEAF)
B = Node.new(1234)
H = { "k" => A, sym: B }
ARR = [A, B, H, LEAF, LEAF] # LEAF twice: references are a set
$hf_root = ARR
FLOAT = 1.5e300 # not a flonum: a heap object
BIG = 2**100
DSYM = "dynamic_#{rand(1000)}_symbol".to_sym

# Parsed dumps are big: each section drops its own (d = nil) before the
# next dump, so that they are not in it.

# ---- metadata ----

path = tmp("meta.dump")
n = HeapFmt.dump(path)
Check.ok(n.is_a?(Integer) && n > 1000, "dump returns the object count (#{n})")
d = Dump.new(path)
Check.eq(d.objects.size, n, "objects in the file")
m = d.meta
d = nil
Check.eq(m["producer"], "heapfmt-ruby #{HeapFmt::VERSION}", "meta producer")
Check.eq(m["vm.name"], "ruby", "meta vm.name")
Check.eq(m["vm.version"], RUBY_VERSION, "meta vm.version")
Check.eq(m["vm.description"], RUBY_DESCRIPTION, "meta vm.description")
Check.eq(m["pid"], Process.pid.to_s, "meta pid")
Check.eq(m["pointer_size"], [0].pack("J").bytesize.to_s, "meta pointer_size")
Check.eq(m["ids_stable"], GC.auto_compact ? "0" : "1", "meta ids_stable")
Check.eq(m["gc.compactions"], GC.stat(:compact_count).to_s, "meta gc.compactions")
Check.ok((1..GC.count).cover?(m["gc.count"].to_i), "meta gc.count #{m['gc.count']}")
Check.ok((Time.now.to_i - m["time"].to_i).abs < 60, "meta time")
start = m["process.start"].to_i
Check.ok(start <= m["time"].to_i && start > m["time"].to_i - 600,
         "meta process.start #{start} vs time #{m['time']}")
Check.ok(HeapFmt::FORMAT_VERSION.match?(/\A1\.\d+\z/), "FORMAT_VERSION")

# ---- counts per class equal ObjectSpace.each_object's ----
#
# With the GC off nothing dies, so every object counted before the dump is
# in it, and every object in it is still there after: before <= dump <=
# after, class by class. The difference is what the counting and the
# dumping allocate, which must be small.

CLASS_OF = Kernel.instance_method(:class)
def tally
  counts = Hash.new(0)
  ObjectSpace.each_object { |o| counts[CLASS_OF.bind_call(o)] += 1 }
  counts.transform_keys { |k| k.name || k.inspect }
end

GC.start
GC.disable
before = tally
path = tmp("counts.dump")
HeapFmt.dump(path, gc: false)
after = tally
GC.enable
d = Dump.new(path)
counts = d.real_counts
# Class: the dump also holds the singleton classes each_object hides.
names = (before.keys | after.keys | counts.keys) - ["Class"]
bad = names.reject { |k| before[k] <= counts[k] && counts[k] <= after[k] }
Check.ok(bad.empty?, "before <= dump <= after for every class; not for: " +
         bad.first(10).map { |k| "#{k} #{before[k]}/#{counts[k]}/#{after[k]}" }.join(", "))
Check.ok(counts["Class"] >= before["Class"], "Class: dump >= each_object")
growth = names.sum { |k| after[k] - before[k] }
Check.ok(growth <= 50, "objects allocated while counting and dumping: #{growth}")
Check.eq(counts["Node"], before["Node"], "Node instances")
Check.eq(counts["Node"], 1002, "Node instances are the 1002 made")
Check.ok(counts["String"] > 1000, "String instances (#{counts['String']})")

# ---- names of anonymous and singleton classes ----

Check.eq(d.name_of(hex($anon)), $anon.inspect, "anonymous class name")
Check.ok($anon.inspect.start_with?("#<Class:0x"), "anonymous class name form")
Check.eq(d.name_of(hex($anon_mod)), $anon_mod.inspect, "anonymous module name")
named = $anon_mod.const_get(:Named)
Check.eq(d.name_of(hex(named)), named.name, "class named under an anonymous module")
Check.eq(d.name_of(hex(Outer::Inner)), "Outer::Inner", "nested class name")
Check.eq(d.name_of(hex(Outer)), "Outer", "module name")
Check.eq(d.name_of(hex(SINGLE.singleton_class)), SINGLE.singleton_class.inspect,
         "singleton class of an object")
Check.eq(d.name_of(hex($anon_single.singleton_class)),
         $anon_single.singleton_class.inspect,
         "singleton class of an instance of an anonymous class")
Check.eq(d.name_of(hex(Outer::Inner.singleton_class)), "#<Class:Outer::Inner>",
         "singleton class of a class")
Check.eq(d.name_of(hex(Comparable.singleton_class)), "#<Class:Comparable>",
         "singleton class of a module")
sc = d.classes[hex(SINGLE.singleton_class)]
Check.eq(sc&.flags, 2, "singleton class flag")
Check.eq(sc&.super_id, hex(Object), "singleton class super is the class")
Check.eq(d.classes[hex(Outer)]&.flags, 1, "module flag")
Check.eq(d.classes[hex(Outer::Inner)]&.super_id, hex(Object), "class super")
anon_objs = d.objects.values.count { |o| o.class_id == hex($anon) }
Check.eq(anon_objs, 7, "instances of the anonymous class")
Check.eq(d.objects[hex(SINGLE)]&.class_id, hex(SINGLE.singleton_class),
         "an object's class is its singleton class")
d = counts = nil

# ---- references of a known graph, roots, flags, values ----

# Strings, arrays, objects and hashes whose references the walk lists without
# the VM's mark function, beside the cases it leaves to the VM (shared
# bytes or elements, generic instance variables): the same references
# as ObjectSpace.reachable_objects_from (the mark function), class left
# out.
class Wide
  def initialize(leaf)
    @a, @b, @c, @d, @e, @f = leaf, Wide, nil, 3, leaf, [leaf]
    @g, @h, @i, @j, @k, @l = 1.5e300, :sym, "g", leaf, self, 2**70
  end
end
LONG = "long " * 40
DIRECT = {
  "an embedded string" => +"short",
  "a heap string" => LONG,
  "a shared string" => LONG[5, 150],
  "a string with an instance variable" =>
    (+"ivar").tap { |s| s.instance_variable_set(:@note, LEAF) },
  "an embedded array" => [LEAF, 1, nil, LEAF, Array],
  "a heap array" => Array.new(40) { |i| i.even? ? [i] : i } << LEAF << Array,
  "an array with an instance variable" =>
    [LEAF].tap { |a| a.instance_variable_set(:@note, FROZEN) },
  "an object of twelve instance variables" => Wide.new(LEAF),
  "a small hash" => { "k" => LEAF, sym: [1], 3 => nil, LEAF => 4 },
  "a hash of 20 pairs" => (1..20).to_h { |i| [i, "v#{i}"] },
  "a hash with a default" => Hash.new(FROZEN).merge!(a: LEAF),
  "a hash with a default proc" => Hash.new { |h, x| x }.merge!(b: LEAF),
  "a hash by identity" => { +"id" => LEAF }.compare_by_identity,
  "a hash with an instance variable" =>
    { c: LEAF }.tap { |h| h.instance_variable_set(:@note, FROZEN) },
}
DIRECT["a shared array"] = DIRECT["a heap array"][3..35]

path = tmp("refs.dump")
HeapFmt.dump(path)
d = Dump.new(path, refs: true)
refs = ->(obj) { d.objects[hex(obj)]&.refs&.sort }
DIRECT.each do |what, obj|
  # A hidden object (a shared array's root) comes wrapped: the dump's
  # reference to it is one to an object without a class.
  hidden, vm = ObjectSpace.reachable_objects_from(obj)
                          .partition { |o| o.is_a?(ObjectSpace::InternalObjectWrapper) }
  want = (vm.map { |o| hex(o) }.uniq - [hex(obj.class)]).sort
  got = refs.(obj) || []
  rest = got - want
  Check.eq(got - rest, want, "refs of #{what}")
  Check.eq(rest.size, hidden.size, "hidden refs of #{what}")
  Check.ok(rest.all? { |r| (c = d.objects[r]&.class_id).nil? || c.to_i(16).zero? },
           "the hidden refs of #{what} have no class")
end
Check.eq(refs.(ARR), [A, B, H, LEAF].map { |o| hex(o) }.sort, "refs of an array")
Check.eq(refs.(A), [LEAF, A.kids].map { |o| hex(o) }.sort, "refs of an object")
Check.eq(refs.(B), [hex(B.kids)], "refs of an object with an Integer")
Check.eq(refs.(H), [H.keys.first, A, B].map { |o| hex(o) }.sort, "refs of a hash")
Check.eq(refs.(A.kids), nil, "refs of an empty array")
Check.eq(d.objects[hex(ARR)].nrefs, 4, "nrefs counts distinct references")
Check.ok(d.roots["global_tbl"].include?(hex(ARR)), "global variable in roots")
Check.ok(d.roots.keys.include?("vm"), "vm roots (#{d.roots.keys.join(' ')})")
all_ids = d.objects.keys.to_h { |k| [k, true] }
dangling = d.objects.values.sum { |o| (o.refs || []).count { |r| !all_ids[r] } }
Check.eq(dangling, 0, "every reference is an object of the dump")
Check.eq(d.objects[hex(LEAF)].value, LEAF, "string value")
Check.eq(d.objects[hex(LEAF)].type, "T_STRING", "string type")
Check.eq(d.objects[hex(LEAF)].flags & 1, 0, "unfrozen string")
Check.eq(d.objects[hex(FROZEN)].flags & 1, 1, "frozen string")
Check.eq(d.objects[hex(FLOAT)]&.value&.to_f, FLOAT, "float value")
Check.eq(d.objects[hex(BIG)]&.type, "T_BIGNUM", "bignum type")
Check.eq(d.objects[hex(DSYM)]&.value, DSYM.to_s, "dynamic symbol value")
Check.eq(d.objects[hex(Outer::Inner)]&.value, "Outer::Inner", "class value")
Check.eq(d.objects[hex(A)].size, ObjectSpace.memsize_of(A), "size is memsize_of")
Check.eq(d.objects[hex(NODES)].size, ObjectSpace.memsize_of(NODES),
         "size of a big array")
Check.eq(d.objects[hex(A)].class_id, hex(Node), "class of an object")
Check.ok(d.objects.values.any? { |o| o.type == "T_IMEMO" && o.class_id == "0" },
         "internal objects: T_IMEMO without a class")
# ObjectSpace::WeakMap: its mark function reports none of its entries;
# they follow its own references, marked weak (they keep nothing alive:
# tests/cli/graph_weak.sh checks what heapfmt-graph makes of them).
WEAK = ObjectSpace::WeakMap.new
WEAK_KEY = +"weak key"
WEAK_VALUE = +"weak value"
WEAK[WEAK_KEY] = WEAK_VALUE
HeapFmt.dump(path)
d = Dump.new(path, refs: true)
wrefs = d.objects[hex(WEAK)]&.refs || []
Check.eq(wrefs.last(2).sort, [hex(WEAK_KEY), hex(WEAK_VALUE)].sort,
         "a WeakMap's key and value follow its references")
d = nil
long = "x" * 1000
HeapFmt.dump(path)
Check.eq(Dump.new(path).objects[hex(long)]&.value, "x" * 64, "value preview cut")

# ---- allocation sites ----

ObjectSpace.trace_object_allocations_start
traced = "traced #{rand}"
traced_line = __LINE__ - 1
traced_arr = [traced]
ObjectSpace.trace_object_allocations_stop
path = tmp("alloc.dump")
HeapFmt.dump(path)
d = Dump.new(path)
o = d.objects[hex(traced)]
Check.eq(o&.file, ObjectSpace.allocation_sourcefile(traced), "allocation file")
Check.eq(o&.file, __FILE__, "allocation file is this file")
Check.eq(o&.line, traced_line, "allocation line")
Check.eq(o&.generation, ObjectSpace.allocation_generation(traced),
         "allocation generation")
Check.eq(d.objects[hex(traced_arr)]&.line, traced_line + 2, "allocation line 2")
Check.eq(d.objects[hex(ARR)]&.file, nil, "untraced object has no site")
d = o = nil

# With tracing still on, the dump reads objspace's table whole (x86-64,
# Ruby 3.1; a page at a time elsewhere): every object's site and
# generation as objspace gives them, fork: false and true, with objects
# allocated in runs and freed between them (the table out of address
# order).
ObjectSpace.trace_object_allocations_start
kept = []
20.times do |i|
  batch = Array.new(500) { |j| "site #{i} #{j}" }
  kept.concat(batch.select.with_index { |_, j| (j % 3).zero? })
  GC.start if i % 5 == 4
end
[false, true].each do |fork|
  path = tmp("alloc_on_#{fork}.dump")
  HeapFmt.dump(path, fork: fork)
  d = Dump.new(path)
  bad = kept.reject do |x|
    o = d.objects[hex(x)]
    o && o.file == ObjectSpace.allocation_sourcefile(x) &&
      o.line == ObjectSpace.allocation_sourceline(x) &&
      o.generation == ObjectSpace.allocation_generation(x)
  end
  Check.eq(bad.size, 0, "tracing on, fork: #{fork}: the sites of #{kept.size} " \
                        "objects as objspace gives them")
  with_site = d.objects.each_value.count(&:file)
  Check.ok(with_site >= kept.size, "tracing on: #{with_site} objects with a site")
end
ObjectSpace.trace_object_allocations_stop
d = kept = nil
ObjectSpace.trace_object_allocations_clear

# ---- targets: IO, StringIO, an object with #write, levels ----

path = tmp("io.dump")
n = File.open(path, "wb") { |f| HeapFmt.dump(f) }
Check.eq(Dump.count(path), n, "dump to a File")

sio = StringIO.new(+"", "wb")
n = HeapFmt.dump(sio)
File.binwrite(tmp("sio.dump"), sio.string)
Check.eq(Dump.count(tmp("sio.dump")), n, "dump to a StringIO")

class Sink
  attr_reader :chunks

  def initialize
    @chunks = []
  end

  def write(s)
    @chunks << s
    s.bytesize
  end
end
sink = Sink.new
n = HeapFmt.dump(sink)
File.binwrite(tmp("sink.dump"), sink.chunks.join)
Check.eq(Dump.count(tmp("sink.dump")), n, "dump to an object with #write")

require "zlib"
Zlib::GzipWriter.open(tmp("gz.dump.gz")) { |gz| n = HeapFmt.dump(gz) }
File.binwrite(tmp("gz.dump"), Zlib.gunzip(File.binread(tmp("gz.dump.gz"))))
Check.eq(Dump.count(tmp("gz.dump")), n, "dump to a Zlib::GzipWriter (has #to_io)")

require "tempfile"
tf = Tempfile.new("heapfmt")
n = HeapFmt.dump(tf)
Check.eq(Dump.count(tf.path), n, "dump to a Tempfile")
tf.close!

require "pathname"
n = HeapFmt.dump(Pathname.new(tmp("pathname.dump")))
Check.eq(Dump.count(tmp("pathname.dump")), n, "dump to a Pathname")

GC.start
GC.disable
n1 = HeapFmt.dump(tmp("l1.dump"), gc: false)
n0 = HeapFmt.dump(tmp("l0.dump"), gc: false, compress: false)
n9 = HeapFmt.dump(tmp("l9.dump"), gc: false, compress: 9)
GC.enable
Check.ok(n0 >= n1 && n0 - n1 < 50 && n9 >= n0 && n9 - n0 < 50,
         "levels dump the same heap (#{n1} #{n0} #{n9})")
Check.ok(File.size(tmp("l0.dump")) > 2 * File.size(tmp("l1.dump")),
         "compress: false stores, true compresses")
Check.ok(File.size(tmp("l9.dump")) <= File.size(tmp("l1.dump")), "level 9")

# ---- fork ----

path = tmp("fork.dump")
n = HeapFmt.dump(path, fork: true)
d = Dump.new(path)
Check.eq(d.objects.size, n, "fork: true returns the child's count")
Check.eq(d.meta["pid"], Process.pid.to_s, "fork: META pid is the parent's")
Check.eq(d.objects[hex(A)]&.class_id, hex(Node), "fork: the parent's heap")
d = nil

path = tmp("nowait.dump")
pid = HeapFmt.dump(path, fork: true, wait: false)
Check.ok(pid.is_a?(Integer) && pid != Process.pid, "wait: false returns the pid")
done = false
600.times do
  done = system(READDUMP, path, out: File::NULL, err: File::NULL)
  break if done

  sleep 0.05
end
Check.ok(done, "wait: false: the child completes the dump")

# Into a pipe read by a thread of this process: fork keeps it flowing.
r, w = IO.pipe
reader = Thread.new { r.read }
n = HeapFmt.dump(w, fork: true)
w.close
File.binwrite(tmp("pipe.dump"), reader.value)
Check.eq(Dump.count(tmp("pipe.dump")), n, "fork: into a pipe")

# Other threads alive (a ticker) after a dump that compressed on a worker
# thread: the forked child must not create threads of its own (they would
# reuse the stacks of the parent's threads, which the walk reads). This
# crashed the child before.
HeapFmt.dump(tmp("worker.dump"), gc: false, threads: true)
stop = false
ticker = Thread.new { sleep 0.0005 until stop }
sleep 0.02
counts = Array.new(3) { HeapFmt.dump(tmp("tick.dump"), gc: false, fork: true, threads: true) }
stop = true
ticker.join
Check.ok(counts.all? { |c| c.is_a?(Integer) && c > 1000 },
         "fork: true with another thread running: #{counts.inspect}")
Check.eq(Dump.count(tmp("tick.dump")), counts.last, "its dump is whole")

# ---- errors ----

Check.raises(Errno::ENOENT, "missing directory") do
  HeapFmt.dump(tmp("no/such/dir.dump"))
end
Check.raises(ArgumentError, "fork needs a descriptor", /fork/) do
  HeapFmt.dump(StringIO.new, fork: true)
end
Check.raises(ArgumentError, "unknown keyword") { HeapFmt.dump(tmp("x"), bogus: 1) }
Check.raises(ArgumentError, "bad level") { HeapFmt.dump(tmp("x"), compress: 20) }
Check.raises(TypeError, "bad target") { HeapFmt.dump(42) }
Check.raises(IOError, "read-only IO") do
  File.open(tmp("meta.dump"), "rb") { |f| HeapFmt.dump(f) }
end
if File.exist?("/dev/full")
  Check.raises(Errno::ENOSPC, "disk full") { HeapFmt.dump("/dev/full") }
end
# A path gets the dump whole or keeps what it held: a write error (files
# limited to 64 KiB) leaves the file as it was and no temporary beside it,
# with and without fork; a symbolic link is followed and stays a link.
dir = tmp("whole")
Dir.mkdir(dir)
target = File.join(dir, "heap.dump")
Signal.trap("XFSZ", "IGNORE")
[false, true].each do |fork|
  File.write(target, "before")
  limit = Process.getrlimit(:FSIZE)
  Process.setrlimit(:FSIZE, 64 * 1024, limit[1])
  begin
    Check.raises(Errno::EFBIG, "fork: #{fork}: a write error") do
      HeapFmt.dump(target, compress: false, fork: fork)
    end
  ensure
    Process.setrlimit(:FSIZE, *limit)
  end
  Check.eq(File.read(target), "before", "fork: #{fork}: the file keeps what it held")
  Check.eq(Dir.children(dir), ["heap.dump"], "fork: #{fork}: no temporary left")
end
Signal.trap("XFSZ", "DEFAULT")
link = File.join(dir, "link.dump")
File.symlink("heap.dump", link)
n = HeapFmt.dump(link)
Check.ok(File.symlink?(link), "a link stays a link")
Check.eq(Dump.count(target), n, "the link's target holds the dump")
Check.eq(Dir.children(dir).sort, %w[heap.dump link.dump], "no temporary left")
Check.eq(HeapFmt.address(nil), nil, "address of an immediate")
Check.eq(HeapFmt.address(A), ObjectSpace.dump(A)[/"address":"0x(\h+)"/, 1].to_i(16),
         "address is the address dump_all shows")

# Re-entry: a TracePoint runs Ruby code while a dump is being prepared.
reentry = nil
tp = TracePoint.new(:call, :c_call) do |t|
  next unless t.method_id == :auto_compact && reentry.nil?

  begin
    HeapFmt.dump(tmp("reentry.dump"))
    reentry = :dumped
  rescue HeapFmt::Error => e
    reentry = e.message
  end
end
tp.enable { HeapFmt.dump(tmp("outer.dump")) }
Check.ok(reentry.is_a?(String) && reentry.include?("already in progress"),
         "re-entry refused (#{reentry.inspect})")
Check.ok(system(READDUMP, tmp("outer.dump"), out: File::NULL), "outer dump intact")
Check.ok(HeapFmt.dump(tmp("after.dump")) > 0, "dump works after a refusal")
Check.ok(!GC.disable, "the GC is enabled again after dumps") # false: was enabled
GC.enable

# ---- compaction: counted in META ----

if GC.respond_to?(:compact)
  before = GC.stat(:compact_count)
  GC.compact
  HeapFmt.dump(tmp("compact.dump"))
  d = Dump.new(tmp("compact.dump"))
  Check.eq(d.meta["gc.compactions"], (before + 1).to_s, "gc.compactions after GC.compact")
  Check.eq(d.objects[hex(ARR)]&.class_id, hex(Array), "dump after compaction")
end

# ---- other Ractors: refused (last: the VM stays in multi-Ractor mode) ----

if defined?(Ractor)
  $stderr = File.open(File::NULL, "w") # "Ractor is experimental..."
  r = Ractor.new { Ractor.receive }
  $stderr = STDERR
  Check.raises(HeapFmt::Error, "refused while another Ractor runs", /Ractor/) do
    HeapFmt.dump(tmp("ractor.dump"))
  end
  r.send(1)
  r.take
  200.times { Ractor.count > 1 ? sleep(0.01) : break } # it ends after take
  Check.ok(HeapFmt.dump(tmp("ractor2.dump")) > 0, "dump once the Ractor is gone")
end

Check.finish
