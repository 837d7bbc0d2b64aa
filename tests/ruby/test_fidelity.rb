# test_fidelity.rb -- HeapFmt.dump against ObjectSpace.dump_all +
# heapfmt-import on the same heap.
#
# Both dumps are taken one after the other in this process with the GC off:
# nothing dies or moves in between, so every object of the first dump is in
# the second, at the same address. The second also holds what the first
# allocated and what dump_all allocates (its File, a few strings): at most
# TOLERANCE objects per type or class, TOTAL_TOLERANCE in all.
#
# Compared: objects per type; per class (by the class's address, and its
# name when dump_all names it); every row of `histo -a OLD NEW` of the two
# (by class name: singleton classes named from their object, as
# HeapFmt.dump names them, #<Class:Gem>); and object by object: type,
# class, size, references (as sets), string values, allocation sites.
# Internal objects (T_IMEMO, T_ICLASS...) are compared by type only.
require_relative "helper"
require "objspace"

TOLERANCE = 10
TOTAL_TOLERANCE = 40
IMPORT = File.join(ENV.fetch("BIN"), "heapfmt-import")
HISTO = File.join(ENV.fetch("BIN"), "histo")

# ---- a varied heap ----

Item = Struct.new(:name, :price, :tags)
class Order
  def initialize(id, items)
    @id = id
    @items = items
    @note = "order #{id}"
    @total = items.sum(&:price)
  end
end
$anon = Class.new { def initialize(i) = (@i = i.to_s) }

ObjectSpace.trace_object_allocations_start
$orders = Array.new(2000) do |i|
  Order.new(i, Array.new(3) { |j| Item.new("item#{j}", i * 1.5, [:a, "t#{j}"]) })
end
ObjectSpace.trace_object_allocations_stop
$index = $orders.each_with_index.to_h { |o, i| ["k#{i}", o] }
$anons = Array.new(300) { |i| $anon.new(i) }
$singles = Array.new(50) { |i| o = Object.new; o.define_singleton_method(:n) { i }; o }
PROC_LINE = __LINE__ + 1
$procs = Array.new(200) { |i| -> { i } }
# eval'd methods: their instruction sequences name the method and where
# its code is (a module_eval leak)
Gen = Module.new
30.times { |i| Gen.module_eval("def gen_#{i}\n  #{i}\nend", "gen_#{i}.rb", 40 + i) }
$file = File.open(__FILE__)
$closed = File.open(__FILE__).tap(&:close)
$syms = Array.new(100) { |i| "fid_sym_#{i}".to_sym }
$floats = Array.new(100) { |i| i * 1.0e300 }
$bigs = Array.new(50) { |i| 2**80 + i }
$frozen = Array.new(100) { |i| "frozen #{i}".freeze }
$utf8 = Array.new(20) { |i| "héllo wörld #{i} ✓" }

# ---- the two dumps ----

ext_path = tmp("ext.dump")
json_path = tmp("heap.json")
imp_path = tmp("imp.dump")
GC.start
GC.disable
HeapFmt.dump(ext_path, gc: false)
File.open(json_path, "w") { |f| ObjectSpace.dump_all(output: f) }
GC.enable
ObjectSpace.trace_object_allocations_clear
Check.ok(system(IMPORT, "-o", imp_path, json_path), "heapfmt-import succeeds")
Check.ok(system(File.join(ENV.fetch("BIN"), "heapfmt-info"), "--verify", imp_path,
                out: File::NULL), "its output verifies")

a = Dump.new(ext_path, refs: true)
b = Dump.new(imp_path, refs: true)
Check.ok(a.objects.size > 20_000, "a heap of #{a.objects.size} objects")

def tally(dump)
  dump.objects.each_value.with_object(Hash.new(0)) { |o, h| h[yield(o)] += 1 }
end

# Each key: 0 <= b - a <= TOLERANCE; the sum within TOTAL_TOLERANCE.
def compare_counts(what, ca, cb)
  keys = ca.keys | cb.keys
  bad = keys.reject { |k| (0..TOLERANCE).cover?(cb[k] - ca[k]) }
  Check.ok(bad.empty?, "#{what}: heapfmt/dump_all differ for " +
           bad.first(8).map { |k| "#{k.inspect} #{ca[k]}/#{cb[k]}" }.join(", "))
  total = keys.sum { |k| (cb[k] - ca[k]).abs }
  puts "#{what}: #{keys.size} keys, #{total} objects apart"
  Check.ok(total <= TOTAL_TOLERANCE, "#{what}: #{total} objects apart in all")
end

# ---- per type, per class ----

compare_counts("per type", tally(a, &:type), tally(b, &:type))
public_only = ->(o) { Dump::INTERNAL.include?(o.type) ? nil : o.class_id }
ca = tally(a, &public_only).tap { |h| h.delete(nil) }
cb = tally(b, &public_only).tap { |h| h.delete(nil) }
compare_counts("per class", ca, cb)
named = lambda do |d|
  d.objects.each_value.with_object(Hash.new(0)) do |o, h|
    next if Dump::INTERNAL.include?(o.type)

    name = b.name_of(o.class_id) # dump_all's names: named classes only
    h[name] += 1 if name && name != "-"
  end
end
compare_counts("per class name", named.(a), named.(b))
Check.ok(cb.size > 100, "#{cb.size} classes compared")
Check.eq(ca[hex(Order)], 2000, "Order instances")
Check.eq(ca[hex($anon)], 300, "instances of an anonymous class")

# ---- histo of both, row for row ----
# What a user compares: `histo -a` of the two dumps, every class by
# name. A row may differ only by what dump_all itself allocated after
# HeapFmt.dump (0 <= more in the import <= TOLERANCE; its File, strings,
# a mutex, internal objects), and a class's bytes by the call caches and
# method entries that calling dump_all added to it (a few hundred bytes,
# in at most TOLERANCE rows).
rows = IO.popen([HISTO, "-a", "-f", "tsv", ext_path, imp_path], &:readlines)
Check.ok($?.success?, "histo of both dumps")
rows = rows.drop(1).map { |l| l.chomp.split("\t") }
            .reject { |r| r[0] == "total" || r[0].start_with?("total (") }
Check.ok(rows.size > 300, "histo compares #{rows.size} rows")
counts_off = rows.reject { |r| (0..TOLERANCE).cover?(r[2].to_i - r[1].to_i) }
Check.ok(counts_off.empty?, "histo rows whose counts differ: " +
         counts_off.first(8).map { |r| r.first(3).join(" ") }.join(", "))
extra = rows.sum { |r| r[2].to_i - r[1].to_i }
Check.ok(extra <= TOTAL_TOLERANCE, "histo: #{extra} objects apart in all")
grown = rows.select { |r| r[1] == r[2] && r[4] != r[5] }
Check.ok(grown.size <= TOLERANCE &&
         grown.all? { |r| (0..512).cover?(r[5].to_i - r[4].to_i) },
         "histo rows of equal counts whose bytes differ: " +
         grown.first(8).map { |r| "#{r[0]} #{r[4]}/#{r[5]}" }.join(", "))
singletons = rows.count { |r| r[0].start_with?("#<Class:#<", "#<Class:") && r[0] !~ /\A#<Class:0x\h+>\z/ }
Check.ok(singletons >= 100, "singleton classes named alike: #{singletons}")
puts "histo: #{rows.size} rows, #{counts_off.size + grown.size} apart"

names_differ = b.classes.values.count do |c|
  c.name != "-" && a.classes[c.id] && a.classes[c.id].name != c.name
end
Check.eq(names_differ, 0, "class names agree where dump_all has one")

# ---- object by object ----

only_a = a.objects.keys - b.objects.keys
only_b = b.objects.keys - a.objects.keys
Check.eq(only_a.size, 0, "objects only in HeapFmt.dump's dump")
Check.ok(only_b.size <= TOTAL_TOLERANCE, "objects only in dump_all's: #{only_b.size}")

diff = Hash.new { |h, k| h[k] = [] }
a.objects.each_value do |x|
  y = b.objects[x.id] or next
  diff[:type] << x.id if x.type != y.type
  # the imemo subtype: dump_all's "imemo_type", the importer's value
  # (an iseq's value goes on with its label and location)
  diff[:imemo] << x.id if x.type == "T_IMEMO" && x.value&.split(" ")&.first != y.value
  next if Dump::INTERNAL.include?(x.type)

  diff[:class] << x.id if x.class_id != y.class_id
  diff[:size] << x.id if x.size != y.size
  diff[:refs] << x.id if (x.refs || []).sort != (y.refs || []).uniq.sort
  if x.type == "T_STRING" && y.value && x.value != y.value
    diff[:value] << x.id
  end
  diff[:site] << x.id if [x.file, x.line] != [y.file, y.line]
  # embedded and shared (runtime bits 34, 35), as dump_all says them
  layout = (1 << 34) | (1 << 35)
  diff[:layout] << x.id if (x.flags.to_i & layout) != (y.flags.to_i & layout)
end
puts "objects: #{a.objects.size} vs #{b.objects.size}; differing: " +
     diff.map { |k, v| "#{k} #{v.size}" }.join(", ")
%i[type imemo class size refs value site layout].each do |k|
  Check.ok(diff[k].size <= TOLERANCE,
           "#{k} differs for #{diff[k].size} objects: #{diff[k].first(5).join(' ')}")
end
embedded = a.objects.each_value.count { |o| o.flags.to_i & (1 << 34) != 0 }
shared = a.objects.each_value.count { |o| o.flags.to_i & (1 << 35) != 0 }
Check.ok(embedded >= 1000 && shared >= 10,
         "embedded and shared compared: #{embedded}, #{shared}")
named_imemo = a.objects.each_value.count { |o| o.type == "T_IMEMO" && o.value }
Check.ok(named_imemo >= 1000, "imemo subtypes compared: #{named_imemo}")
# instruction sequences and procs say where their code is
values = a.objects.each_value.map(&:value)
gen = values.grep(/\Aiseq gen_\d+@gen_\d+\.rb:\d+\z/)
Check.eq(gen.uniq.size, 30, "eval'd methods' iseqs with label and location")
Check.ok(gen.include?("iseq gen_7@gen_7.rb:47"), "an iseq's label, path and line")
procs = $procs.map { |pr| a.objects[hex(pr)]&.value }.uniq
Check.eq(procs, ["proc block (2 levels) in <main>@#{__FILE__}:#{PROC_LINE}"],
         "a proc's block label and location")
Check.eq(a.objects[hex($file)]&.value, "#{__FILE__} (fd #{$file.fileno})",
         "a File's path and fd")
Check.eq(a.objects[hex($closed)]&.value, "#{__FILE__} (closed)", "a closed File")
y = b.objects[hex($file)]
Check.ok(y && y.type == "T_FILE", "the File is in dump_all's dump too")
with_site = a.objects.each_value.count(&:file)
Check.ok(with_site >= 2000 * 5, "allocation sites compared: #{with_site}")
Check.eq(a.objects[hex($orders.first)]&.file, __FILE__, "allocation file")

Check.eq(a.roots.keys.sort, b.roots.keys.sort, "root kinds")
Check.ok(a.roots["global_tbl"].include?(hex($orders)), "global in roots")
Check.ok(b.roots["global_tbl"].include?(hex($orders)), "global in dump_all roots")

Check.finish
