# leak.rb -- a message server that leaks, dumped three times with HeapFmt.
#
# The story of the Rubinius memory analysis guide: a server receives
# messages, parses them, answers, and -- the bug -- keeps every message it
# ever received in an array. Its memory grows without bound.
#
# Usage: ruby -I build/ruby examples/leak.rb [DIR]
# Writes into DIR (default .):
#   leak-1-before.dump   after warming up
#   leak-2-after.dump    after 20,000 more messages
#   leak-3-later.dump    after 20,000 more again
# Then:
#   build/bin/histo DIR/leak-1-before.dump DIR/leak-2-after.dump
#     the classes that grew: Message, its Hash of headers, String on top
#   build/bin/heapfmt-diff DIR/leak-1-before.dump DIR/leak-2-after.dump \
#     DIR/leak-3-later.dump
#     the objects allocated between the first two dumps and still alive in
#     the third: what leaks. With --by=site, where they were allocated
#     (this program traces allocations, so the dumps know file and line).
#   build/bin/heapfmt-graph owners DIR/leak-1-before.dump \
#     DIR/leak-2-after.dump DIR/leak-3-later.dump
#     who holds the leaked objects (the Array of line 49) and the path from
#     a root to it.
# Tracing has a cost of its own: objspace keeps its records in one object of
# class Object, whose bytes grow with every traced object still alive.
require "heapfmt"
require "objspace"

# One message as it arrives on the wire: headers, a blank line, a body.
class Message
  attr_reader :headers, :body

  def initialize(raw)
    head, @body = raw.split("\n\n", 2)
    @headers = head.lines(chomp: true).to_h { |line| line.split(": ", 2) }
  end

  def sender
    @headers["From"]
  end
end

class MessageServer
  attr_reader :received

  def initialize
    @received = 0
    @senders = Hash.new(0)
    @history = [] # the leak: kept "for debugging", never trimmed
  end

  def receive(raw)
    message = Message.new(raw)
    @received += 1
    @senders[message.sender] += 1
    @history << message
    "ack #{@received} to #{message.sender}" # the reply: garbage once sent
  end
end

# A client sending count messages from a handful of senders.
def feed(server, count)
  count.times do |i|
    sender = "user#{i % 17}@example.com"
    raw = "From: #{sender}\nTo: server@example.com\nSubject: report #{i}\n" \
          "Date: #{Time.at(1_700_000_000 + i).utc}\n\n" \
          "Dear server, here is report number #{i}. " * 3
    server.receive(raw)
  end
end

dir = ARGV[0] || "."
ObjectSpace.trace_object_allocations_start # file and line in the dumps
server = MessageServer.new

feed(server, 2_000) # warm up
n1 = HeapFmt.dump(File.join(dir, "leak-1-before.dump"))
feed(server, 20_000)
n2 = HeapFmt.dump(File.join(dir, "leak-2-after.dump"))
feed(server, 20_000)
n3 = HeapFmt.dump(File.join(dir, "leak-3-later.dump"))

puts "#{server.received} messages received; live objects in the three dumps: " \
     "#{n1}, #{n2}, #{n3}"
