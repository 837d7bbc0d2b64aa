# malloc_bench.rb -- a Ruby program whose native allocations dominate
# (strings and hashes, as a web request builds them), for the malloc
# tracker's overhead (issue 16). ruby malloc_bench.rb [ROUNDS]
rounds = (ARGV[0] || 30).to_i
kept = []
rounds.times do |r|
  20_000.times do |i|
    h = { "id" => i, "name" => "user-#{r}-#{i}" * 3, "tags" => Array.new(4) { |k| "t#{k}" * 8 } }
    h["body"] = h["name"] + ("x" * (i % 200))
    kept << h if i % 50 == 0
  end
end
puts kept.size
