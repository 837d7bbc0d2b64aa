# redcarpet.rb -- the seeds' redcarpet leak (mwrap's example) through
# Fiddle, as a C extension would allocate, for tests/cli/malloc_lifespan.sh.
# One line allocates five buffers per render and frees four (the leak
# beside churn at one site); another allocates six and frees them all.
# Usage: heapfmt-malloc --mode=exact -- ruby redcarpet.rb CALLS D1 D2
require "fiddle"

DUMP = Fiddle::Function.new(Fiddle::Handle::DEFAULT["heapfmt_malloc_dump"],
                            [Fiddle::TYPE_VOIDP, Fiddle::TYPE_VOIDP, Fiddle::TYPE_SIZE_T],
                            Fiddle::TYPE_INT)

class Markdown
  KEPT = []

  def render(text)
    bufs = Array.new(5) { Fiddle.malloc(96) } # LEAK-SITE: one in five stays
    bufs.drop(1).each { |b| Fiddle.free(b) }
    KEPT << bufs.first
    scratch = Array.new(6) { Fiddle.malloc(40) } # CHURN-SITE: all freed
    scratch.each { |b| Fiddle.free(b) }
    text
  end
end

calls, d1, d2 = Integer(ARGV[0]), ARGV[1], ARGV[2]
md = Markdown.new
(calls / 2).times { |i| md.render("hi #{i}") }
raise "dump failed" unless DUMP.call(d1, nil, 0).zero?
sleep 0.3
(calls / 2).times { |i| md.render("hi #{i}") }
sleep 0.7
raise "dump failed" unless DUMP.call(d2, nil, 0).zero?
puts "#{calls} renders"
