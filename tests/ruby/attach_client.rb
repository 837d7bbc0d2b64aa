# attach_client.rb -- keeps calling tests/ruby/attach_server.rb from four
# connections and measures every request, for tests/cli/ruby_attach.sh.
# Usage: ruby attach_client.rb SOCKET REPORT
# On SIGUSR1 it writes REPORT: "requests failures max_ms" since the last
# report (written to REPORT.tmp, then renamed), and starts a new window.
# On SIGTERM it stops. A failure is an error or a wrong answer.
require "socket"

path, report = ARGV
$lock = Mutex.new
$n = 0
$fail = 0
$max = 0.0
$want = 0
$stop = false
trap("USR1") { $want += 1 }
trap("TERM") { $stop = true }

def record(ms, ok)
  $lock.synchronize do
    $n += 1
    $fail += 1 unless ok
    $max = ms if ms > $max
  end
end

clients = Array.new(4) do |c|
  Thread.new do
    sock = UNIXSocket.new(path)
    i = 0
    until $stop
      t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      ok = begin
        sock.write("GET c#{c}-#{i += 1}\n")
        sock.gets.to_s.start_with?("OK ")
      rescue IOError, SystemCallError
        sock = (UNIXSocket.new(path) rescue sock)
        false
      end
      record((Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0) * 1000.0, ok)
      sleep 0.002
    end
  end
end

done = 0
until $stop
  sleep 0.01
  next if done == $want
  done = $want
  line = $lock.synchronize do
    l = format("%d %d %.1f\n", $n, $fail, $max)
    $n = $fail = 0
    $max = 0.0
    l
  end
  File.write("#{report}.tmp", line)
  File.rename("#{report}.tmp", report)
end
clients.each { |t| t.join(1) }
