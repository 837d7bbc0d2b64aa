# native_leak.rb -- the second half of the leak story: memory the VM
# cannot see. A parser takes a native buffer per message (Fiddle.malloc,
# as a C extension or an FFI binding would) and frees it only for even
# message ids. Ruby's heap stays flat while the process grows.
#
# Run it under the malloc tracker, which also hands the program its C API:
#   heapfmt-malloc --mode=exact -- ruby -I build/ruby examples/native_leak.rb DIR
# It writes DIR/native-1.hfd and native-2.hfd (the malloc heap, before and
# after 20,000 messages) and, when the heapfmt extension is loaded,
# DIR/ruby-1.hfd and ruby-2.hfd (the Ruby heap at the same moments).
require "fiddle"
begin
  require "heapfmt"
rescue LoadError
end

dir = ARGV[0] || "."

# heapfmt_malloc_dump(path, written, len), from the tracker preloaded by
# heapfmt-malloc; nil when the program runs without it.
NATIVE_DUMP = begin
  Fiddle::Function.new(Fiddle::Handle::DEFAULT["heapfmt_malloc_dump"],
                       [Fiddle::TYPE_VOIDP, Fiddle::TYPE_VOIDP, Fiddle::TYPE_SIZE_T],
                       Fiddle::TYPE_INT)
rescue Fiddle::DLError
  nil
end

def dump_both(dir, n)
  if NATIVE_DUMP
    rc = NATIVE_DUMP.call(File.join(dir, "native-#{n}.hfd"), nil, 0)
    raise "heapfmt_malloc_dump failed" unless rc == 0
  end
  HeapFmt.dump(File.join(dir, "ruby-#{n}.hfd")) if defined?(HeapFmt)
end

class Parser
  def initialize
    @parsed = 0
  end

  def parse(id, text)
    buffer = Fiddle.malloc(1024)
    Fiddle::Pointer.new(buffer)[0, text.bytesize] = text
    @parsed += 1
    Fiddle.free(buffer) if id.even? # the bug: odd ids keep their buffer
  end
end

parser = Parser.new
dump_both(dir, 1)
20_000.times { |id| parser.parse(id, "message #{id}") }
GC.start
dump_both(dir, 2)
warn "native_leak.rb: not under heapfmt-malloc: no native dumps" unless NATIVE_DUMP
