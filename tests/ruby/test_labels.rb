# test_labels.rb -- the labels of HeapFmt.dump's references, object by
# object, against what Ruby says each object holds: instance variables
# (the per-class index map of Ruby before 3.2 and its fallbacks), hash
# values by key, array elements by index, constants, globals; labels:
# false writes none. Reads the dumps through heapfmt-export
# (HEAPFMT_EXPORT).
require_relative "helper"
require "json"

EXPORT = ENV.fetch("HEAPFMT_EXPORT")

# Every object's labeled references: id => { ref id => [label, kind] }.
def labels_of(path)
  out = {}
  IO.popen([EXPORT, "-r", "objects", path]) do |io|
    io.each_line do |line|
      o = JSON.parse(line)
      next unless o["ref_labels"]

      out[o["id"]] = o["refs"].zip(o["ref_labels"]).each_with_object({}) do |(r, l), h|
        h[r] = [l["label"], l["label_kind"]] if l
      end
    end
  end
  Check.ok($?.success?, "heapfmt-export #{path}")
  out
end

def addr(obj)
  format("0x%016x", HeapFmt.address(obj))
end

class Plain # ivars always set in one order, distinct values
  def initialize(i)
    @a = "a#{i}"
    @b = [i]
    @c = { i => i }
  end
end

class Shared # two ivars always hold one object: the map never learns them
  def initialize(i)
    @x = @y = "shared#{i}"
    @z = "own#{i}"
  end
end

class Orders # ivars set in two orders: one index per name all the same
  def initialize(i, flip)
    if flip
      @q = "q#{i}"
      @p = "p#{i}"
    else
      @p = "p#{i}"
      @q = "q#{i}"
    end
  end
end

class Wide # more ivars than fit in the object's slot
  def initialize(i)
    10.times { |k| instance_variable_set("@v#{k}", "v#{k}-#{i}") }
  end
end

$plain = Array.new(200) { |i| Plain.new(i) }
$shared = Array.new(200) { |i| Shared.new(i) }
$orders = Array.new(200) { |i| Orders.new(i, i.odd?) }
$wide = Array.new(50) { |i| Wide.new(i) }
$removed = Array.new(50) { |i| Plain.new(i).tap { |o| o.remove_instance_variable(:@b) } }
$mixed = Plain.new(7) # an ivar set to an immediate, then back to an object
$mixed.instance_variable_set(:@b, 42)
$keys = Array.new(100) { |i| { "name" => "n#{i}", sym: "s#{i}", 7 => "i#{i}", [1] => "none#{i}" } }
LABELED_CONSTANT = "a constant's value"
# Arrays, whose labels are their indexes (format 1.3: implied by the
# positions when the references are listed in element order): immediates
# and the array's class among the elements (not references), elements
# held twice (a set: the first index wins), shared arrays (they reference
# their root, not their elements), instance variables, and big ones in
# address order and shuffled.
$gappy = [nil, "a", 1, "b", :sym, "c", Array, 2.5, "d"]
$twice = ["x", "y"].then { |x, y| [x, y, x, "z", y] }
$whole = Array.new(64) { |i| "w#{i}" }
$slice = $whole[1..]
$ivar = %w[p q].tap { |a| a.instance_variable_set(:@iv, "iv") }
$big = Array.new(5000) { |i| "e#{i}" }
$shuffled = $big.shuffle(random: Random.new(3))

# What each object should label: object => { referenced object => label }.
def want_ivars(o)
  o.instance_variables.each_with_object({}) do |name, h|
    v = o.instance_variable_get(name)
    next if HeapFmt.address(v).nil?

    h[addr(v)] ||= [name.to_s, "field"] # a set: the first name wins
  end
end

expect = {}
($plain + $shared + $orders + $wide + $removed + [$mixed]).each { |o| expect[addr(o)] = want_ivars(o) }
$keys.each do |h|
  expect[addr(h)] = { addr(h["name"]) => ['"name"', "key"], addr(h[:sym]) => [":sym", "key"],
                      addr(h[7]) => ["7", "key"] }
end
expect[addr($plain)] = $plain.each_with_index.to_h { |o, i| [addr(o), [i, "index"]] }
def want_indexes(a)
  a.each_with_index.each_with_object({}) do |(v, i), h|
    next if HeapFmt.address(v).nil? || v.equal?(Array)

    h[addr(v)] ||= [i, "index"]
  end
end
[$gappy, $twice, $ivar, $big, $shuffled].each { |a| expect[addr(a)] = want_indexes(a) }
# the slice made both arrays share a root, which each references instead
expect[addr($slice)] = expect[addr($whole)] = {}
Check.eq(expect[addr($gappy)].size, 4, "the gappy array's elements")
Check.eq(expect[addr($twice)].values.map(&:first), [0, 1, 3], "the first index wins")

path = tmp("labels.hfd")
HeapFmt.dump(path)
got = labels_of(path)
expect.each do |id, want|
  Check.eq(got[id] || {}, want, "labels of #{id}")
end
object_labels = got.values.flat_map(&:values)
Check.ok(object_labels.include?(%w[LABELED_CONSTANT constant]), "a constant's label")

# labels: false, with fork too: no label anywhere, roots included.
[false, true].each do |fork|
  path = tmp("nolabels-#{fork}.hfd")
  HeapFmt.dump(path, labels: false, fork: fork)
  Check.eq(labels_of(path), {}, "labels: false, fork: #{fork}")
  json = IO.popen([EXPORT, "-r", "roots", path], &:read)
  Check.ok(!json.include?("$plain") && !json.empty?, "labels: false: no global's name on the roots")
end
Check.finish
