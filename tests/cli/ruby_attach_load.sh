#!/usr/bin/env bash
# ruby_attach_load.sh -- heapfmt-ruby's acceptance: a server started with
# plain `ruby` (tests/ruby/attach_server.rb: four threads serving a UNIX
# socket, every request leaking a Session into Store::CACHE) is dumped 50
# times in a loop while a client (tests/ruby/attach_client.rb, four
# connections) keeps calling it. Checked: every dump verifies; no request
# fails; no request waits longer than 200 ms more than the slowest one of
# a window as long without dumps (this machine is shared: its own stalls
# are measured, not assumed away); the server keeps running; idle again,
# twenty more dumps leave its RSS, threads and mappings where they were;
# three of the dumps name the leak with heapfmt-diff and heapfmt-graph
# owners. The figures are printed (make test keeps them in its log).
. tests/ruby/common.sh
. "$(dirname "$0")/lib.bash"
set +e

R=$BIN/heapfmt-ruby
DUMPS=50
BOUND_MS=200
. tests/ruby/procs.sh

sock=$TMPDIR/server.sock
ruby tests/ruby/attach_server.rb "$sock" "$TMPDIR/server.pid" &
track $!
server=$(wait_pidfile "$TMPDIR/server.pid")
ruby tests/ruby/attach_client.rb "$sock" "$TMPDIR/report" &
client=$!
track "$client"

# window: the client's figures since the last call: requests failures max_ms
window() {
    rm -f "$TMPDIR/report"
    kill -USR1 "$client"
    for _ in $(seq 500); do [ -s "$TMPDIR/report" ] && break; sleep 0.01; done
    cat "$TMPDIR/report"
}
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$server/status"; }
threads() { ls "/proc/$server/task" | wc -l; }

sleep 2 # warm up
window >/dev/null
start=$(date +%s%N)
mkdir -p "$TMPDIR/d"
failed=0
for i in $(seq $DUMPS); do
    if ! "$R" -p "$server" -o "$TMPDIR/d/$i.hfd" -v 2>>"$TMPDIR/verbose.log"; then
        failed=$((failed + 1))
        tail -1 "$TMPDIR/verbose.log" >&2
    fi
done
dumps_ns=$(($(date +%s%N) - start))
read -r dn dfail dmax < <(window)
# a window as long without dumps: the host's own stalls
sleep "$((dumps_ns / 1000000000)).$(printf '%09d' $((dumps_ns % 1000000000)))"
read -r cn cfail cmax < <(window)

[ "$failed" -eq 0 ] && pass || fail "$failed of $DUMPS dumps failed"
bad=0
for i in $(seq $DUMPS); do
    "$BIN/heapfmt-info" --verify "$TMPDIR/d/$i.hfd" >/dev/null 2>&1 || bad=$((bad + 1))
done
[ "$bad" -eq 0 ] && pass || fail "$bad of $DUMPS dumps do not verify"
[ "${dn:-0}" -gt 0 ] && [ "${dfail:-1}" -eq 0 ] && pass ||
    fail "requests during the dumps: $dn, $dfail failed"
[ "${cfail:-1}" -eq 0 ] && pass || fail "requests without dumps: $cfail failed"
limit=$(awk -v c="$cmax" -v b="$BOUND_MS" 'BEGIN { print c + b }')
awk -v d="$dmax" -v l="$limit" 'BEGIN { exit !(d <= l) }' && pass ||
    fail "slowest request during the dumps $dmax ms > $limit ms ($BOUND_MS + the $cmax ms of a window without dumps)"
stops=$(sed -n 's/.*longest stop of a thread \([0-9]*\) us.*/\1/p' "$TMPDIR/verbose.log" | sort -n | tail -1)
safe=$(sed -n 's/.*safe point after \([0-9.]*\) ms.*/\1/p' "$TMPDIR/verbose.log" | sort -n | tail -1)
echo "figures: $DUMPS dumps in $((dumps_ns / 1000000)) ms;" \
    "during them $dn requests, $dfail failed, slowest $dmax ms;" \
    "without dumps $cn requests, $cfail failed, slowest $cmax ms;" \
    "longest stop of a thread ${stops:-?} us, slowest safe point ${safe:-?} ms"

# the server runs on, and answers
[ -d "/proc/$server" ] && [ "$(cut -d' ' -f3 "/proc/$server/stat")" != Z ] && pass ||
    fail "the server still runs"

# Idle again: what the dumps cost the process once the extension is in.
kill "$client"
wait "$client" 2>/dev/null
sleep 0.5
"$R" -p "$server" -o "$TMPDIR/idle.hfd" || fail "a dump of the idle server"
sleep 0.5
rss0=$(rss) threads0=$(threads) maps0=$(wc -l <"/proc/$server/maps")
for i in $(seq 20); do
    "$R" -p "$server" -o "$TMPDIR/idle.hfd" || fail "idle dump $i"
done
sleep 0.5
rss1=$(rss) threads1=$(threads) maps1=$(wc -l <"/proc/$server/maps")
echo "figures: idle RSS $rss0 -> $rss1 KiB after 20 dumps;" \
    "threads $threads0 -> $threads1; mappings $maps0 -> $maps1"
# 1 MiB of slack: malloc's arenas and the heap's free pages move a little.
# Under AddressSanitizer (common.sh preloads it into ruby) freed memory
# waits in its quarantine, so RSS only says something in a plain build.
if [[ $san_cflags == *address* ]]; then
    echo "note: RSS not compared under AddressSanitizer (its quarantine)"
    pass
else
    [ "$rss1" -le $((rss0 + 1024)) ] && pass ||
        fail "RSS grew from $rss0 to $rss1 KiB over 20 idle dumps"
fi
[ "$threads1" -eq "$threads0" ] && pass || fail "threads $threads0 -> $threads1"
[ "$maps1" -le $((maps0 + 2)) ] && pass || fail "mappings $maps0 -> $maps1"

# Three of the dumps name the leak.
d1=$TMPDIR/d/10.hfd d2=$TMPDIR/d/30.hfd d3=$TMPDIR/d/50.hfd
run "$BIN/heapfmt-diff" -f tsv "$d1" "$d2" "$d3"
expect_rc 0 "heapfmt-diff of dumps 10, 30 and 50"
printf '%s\n' "$out" | awk -F '\t' '$1 == "Session" && $2 > 100 { f = 1 } END { exit !f }' &&
    pass || fail "heapfmt-diff: retained Sessions: $out"
run "$BIN/heapfmt-graph" owners -f tsv -n 1 "$d1" "$d2" "$d3"
expect_rc 0 "heapfmt-graph owners"
printf '%s\n' "$out" | awk -F '\t' '$5 == "Store" && $7 == "Module" { m = 1 }
    $5 == "CACHE" && $7 == "Hash" { h = 1 } END { exit !(m && h) }' &&
    pass || fail "owners: Store::CACHE holds the leak: $out"
finish
