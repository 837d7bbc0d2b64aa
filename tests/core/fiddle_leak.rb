# fiddle_leak.rb -- the hidden native leak of Sam Saffron's "Debugging
# hidden memory leaks in Ruby" (2019), which chap found in a core:
# 100,000 blocks of 1 KiB taken with Fiddle.malloc, 50,000 of them freed,
# the addresses of the other 50,000 dropped (they were Integers in an
# Array that is garbage now). 1,000 more blocks stay held, through
# Fiddle::Pointer objects in a global Array. The program writes
#
#     leaked ADDRESS      (each dropped block)
#     held ADDRESS        (each held one)
#
# to ARGV[0], then stops itself (SIGSTOP) for heapfmt-core -p or gcore
# (tests/cli/core.sh).
require "fiddle"

out = ARGV.fetch(0)

def leak_memory(out)
  pointers = []
  100_000.times { pointers << Fiddle.malloc(1024) }
  50_000.times { Fiddle.free(pointers.pop) }
  out.write(pointers.map { |a| format("leaked 0x%x\n", a) }.join)
end

$held = Array.new(1000) { Fiddle::Pointer.malloc(1024) }
File.open(out, "w") do |f|
  leak_memory(f)
  f.write($held.map { |p| format("held 0x%x\n", p.to_i) }.join)
end
GC.start
Process.kill(:STOP, Process.pid)
