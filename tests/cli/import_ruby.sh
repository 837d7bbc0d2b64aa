#!/usr/bin/env bash
# import_ruby.sh -- heapfmt-import on real ObjectSpace.dump_all output of
# the installed Ruby (skipped when there is no ruby): known instance
# counts, and per-class counts equal to those Ruby itself computes from the
# same JSON.
. "$(dirname "$0")/lib.bash"

imp=$BIN/heapfmt-import
histo=$BIN/histo
cd "$TMPDIR" || exit 1

if ! command -v ruby >/dev/null 2>&1 || ! ruby -robjspace -e '' 2>/dev/null; then
    echo "ruby with objspace not installed: skipped"
    exit 0
fi
if [ ! -x "$histo" ]; then
    echo "histo not built: skipped"
    exit 0
fi

cat > heap.rb <<'RUBY'
require "objspace"
ObjectSpace.trace_object_allocations_start
class Leak
  def initialize(i)
    @i = i
    @msg = "message #{i}"
  end
end
module App
  Item = Struct.new(:a, :b)
end
$leaks = Array.new(1234) { |i| Leak.new(i) }
$items = Array.new(77) { |i| App::Item.new(i, "x") }
anon = Class.new
$anon = Array.new(5) { anon.new }
single = Object.new
def single.hello; end
$single = single
$big = Array.new(100_000) { |i| "s#{i}" } # one line of 100,000 references
GC.start
File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }
RUBY
run ruby heap.rb heap.json
expect_success "ruby dump_all"

run "$imp" -o heap.dump heap.json
expect_success "import real dump_all"

run "$histo" -f tsv -s name heap.dump
expect_success "histo"
histo_out=$out
count_of() { printf '%s\n' "$histo_out" | awk -F '\t' -v c="$1" '$3 == c { print $1 }'; }
[ "$(count_of Leak)" = 1234 ] && pass || fail "Leak: $(count_of Leak) objects, expected 1234"
[ "$(count_of App::Item)" = 77 ] && pass || fail "App::Item: $(count_of App::Item), expected 77"

# Ruby's own reading of the same JSON: objects per named class, and the
# class-less internal objects (include classes among them, as
# HeapFmt.dump writes them: their "class" is their module).
cat > count.rb <<'RUBY'
require "json"
names = {}
counts = Hash.new(0)
lines = File.readlines(ARGV[0]).map { |l| JSON.parse(l) }
lines.each do |o|
  next unless %w[CLASS MODULE].include?(o["type"])
  n = o["name"]
  names[o["address"].to_i(16)] = n if n && !n.empty? && !n.start_with?("#<")
end
lines.each do |o|
  next if %w[ROOT SHAPE NONE MOVED].include?(o["type"])
  k = %w[IMEMO NODE ICLASS].include?(o["type"]) ? nil : o["class"]
  if k.nil?
    counts["(no class)"] += 1
  elsif (n = names[k.to_i(16)])
    counts[n] += 1
  end
end
counts.sort.each { |n, c| puts "#{c}\t#{n}" }
RUBY
ruby count.rb heap.json > ruby_counts.txt
printf '%s\n' "$histo_out" | awk -F '\t' 'NR > 1 && $3 !~ /^#</ { print $1 "\t" $3 }' |
    sort -t "$(printf '\t')" -k2 > histo_counts.txt
sort -t "$(printf '\t')" -k2 ruby_counts.txt > ruby_sorted.txt
if cmp -s histo_counts.txt ruby_sorted.txt; then
    pass
else
    fail "per-class counts differ from Ruby's: $(diff ruby_sorted.txt histo_counts.txt | head -5)"
fi
[ "$(wc -l < ruby_sorted.txt)" -gt 30 ] && pass || fail "too few classes counted"

# Allocation sites were traced: they are in the dump.
run "$histo" -b site -f tsv heap.dump
expect_success "histo by site"
expect_out_has "heap.rb:" "allocation sites"

# The same dump gzipped, and through a pipe, gives the same histogram.
gzip -c heap.json > heap.json.gz
run bash -c "'$imp' < heap.json.gz > heapgz.dump"
expect_success "import gzip from a pipe"
run "$histo" -f tsv -s name heapgz.dump
[ "$out" = "$histo_out" ] && pass || fail "gzip pipe import differs"

finish
