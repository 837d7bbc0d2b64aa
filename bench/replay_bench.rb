# replay_bench.rb -- a JSON-heavy Ruby workload for heapfmt-replay (issue
# 37): THREADS threads (default 4) each build documents, generate and
# parse them, and keep one result in 20 in a cache that is trimmed from
# the front, as a service's request loop with a cache does; recorded with
# heapfmt-malloc --record and replayed under each allocator.
# ruby replay_bench.rb [ROUNDS] [THREADS]
require "json"

rounds = (ARGV[0] || 20).to_i
nthreads = (ARGV[1] || 4).to_i
cache = Queue.new
workers = Array.new(nthreads) do |t|
  Thread.new do
    kept = []
    rounds.times do |r|
      500.times do |i|
        doc = { "id" => i, "thread" => t, "round" => r,
                "name" => "user-#{t}-#{r}-#{i}",
                "tags" => Array.new(1 + i % 6) { |k| "tag#{k}" * (1 + k) },
                "body" => "x" * (50 + (i * 37) % 2000),
                "scores" => Array.new(8) { |k| (i * k) / 7.0 } }
        back = JSON.parse(JSON.generate(doc))
        kept << back if i % 20 == 0
      end
      kept.shift(kept.size / 2) if kept.size > 400
    end
    cache << kept.size
  end
end
workers.each(&:join)
puts Array.new(nthreads) { cache.pop }.sum
