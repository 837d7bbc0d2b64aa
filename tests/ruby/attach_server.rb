# attach_server.rb -- a server that never loads heapfmt, for
# tests/cli/ruby_attach.sh: four threads serve requests over a UNIX socket
# and every request leaks a Session into a cache that nothing empties.
# Usage: ruby attach_server.rb SOCKET PIDFILE
# A request is one line ("GET key"); the answer one line ("OK size").
require "socket"

class Session
  def initialize(key, body)
    @key = key
    @body = body
    @created = Time.now
  end
end

module Store
  CACHE = {}      # the leak: one Session per request, never removed
  LOCK = Mutex.new
end

def handle(line)
  key = line.split(" ", 2).last.to_s.chomp
  words = Array.new(20) { |i| "#{key}-#{i}" } # garbage of every request
  page = words.join(",") * 4
  Store::LOCK.synchronize { Store::CACHE["#{key}-#{Store::CACHE.size}"] = Session.new(key, page[0, 256]) }
  "OK #{page.bytesize}\n"
end

path, pidfile = ARGV
File.unlink(path) if File.exist?(path)
server = UNIXServer.new(path)
workers = Array.new(4) do
  Thread.new do
    loop do
      conn = server.accept
      begin
        while (line = conn.gets)
          conn.write(handle(line))
        end
      rescue IOError, SystemCallError
        nil
      ensure
        conn.close
      end
    end
  end
end
File.write(pidfile, Process.pid.to_s)
workers.each(&:join)
