#!/usr/bin/env bash
# malloc_ruby.sh -- the native half of a Ruby leak: Fiddle.malloc blocks
# that a HeapFmt.dump cannot see, found by heapfmt-malloc at the Ruby line
# that made them (attribution) and in Fiddle's frames (without it).
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
if ! ruby -rfiddle -e 1 >/dev/null 2>&1; then
    echo "SKIP: ruby with fiddle is not installed"
    exit 0
fi
. "$root/tests/malloc/native.bash"

# The Ruby extension, for the VM's own dump of the same process; not in a
# sanitizer build, whose extension needs the sanitizer's malloc first.
ext=()
if [ -f "$BIN/../ruby/heapfmt/heapfmt.so" ] && ! nm "$BIN/../lib/libheapfmt.a" 2>/dev/null | grep -q ' __asan_'; then
    ext=(-I "$BIN/../ruby" -rheapfmt)
fi
cd "$TMPDIR"
cp "$root/tests/malloc/fiddle_leak.rb" .

mkdir with && cd with
run "$BIN/heapfmt-malloc" --mode=exact -- ruby "${ext[@]}" ../fiddle_leak.rb "$PWD/ruby.hfd"
expect_success "fiddle: runs under the tracker"
dump=$(ls heapfmt-malloc-*-1.hfd)
got=$(groups "$dump" site 1024 | count_of "../fiddle_leak.rb:6")
[ "$got" = "50000 51200000" ] && pass || fail "fiddle: 1 KiB blocks at fiddle_leak.rb:6: want '50000 51200000', got '$got'"
if [ ${#ext[@]} -gt 0 ]; then
    run "$BIN/histo" -f tsv ruby.hfd
    expect_rc 0 "fiddle: the VM's own dump reads"
    total=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 {b += $2} END {print b + 0}')
    [ "$total" -gt 0 ] && [ "$total" -lt 12800000 ] && pass \
        || fail "fiddle: HeapFmt.dump holds $total bytes, not a quarter of the 51.2 MB"
else
    echo "note: HeapFmt.dump part skipped (no extension, or a sanitizer build)"
fi
cd ..

mkdir without && cd without
run "$BIN/heapfmt-malloc" --mode=exact --no-ruby -- ruby ../fiddle_leak.rb
expect_success "fiddle: runs without attribution"
dump=$(ls heapfmt-malloc-*-1.hfd)
n=$(groups "$dump" site | wc -l)
[ "$n" = 0 ] && pass || fail "fiddle: --no-ruby still gave $n sites"
# the largest group of 1 KiB blocks by their frame in fiddle.so
got=$(groups "$dump" in:fiddle.so 1024 | head -1)
[ "${got% *}" = "50000 51200000" ] && [[ "$got" == *" fiddle.so+0x"* ]] && pass \
    || fail "fiddle: 1 KiB blocks by their fiddle.so frame: want '50000 51200000 fiddle.so+0x...', got '$got'"
cd ..

# Regression: exit handlers that run after the VM is destroyed (OpenSSL's)
# still call malloc; asking the dead VM for a line crashed (SIGSEGV in
# rb_iseq_path, 2 runs in 3).
for i in 1 2 3 4 5; do
    run "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump -- ruby -ropenssl -rfiddle \
        -e 'a = Array.new(1000) { Fiddle.malloc(100) }'
    expect_success "fiddle: malloc after the VM's end, run $i"
done

# Sampled (the default): the estimate is close to 51.2 MB at that line.
mkdir sampled && cd sampled
run "$BIN/heapfmt-malloc" --sample=16384 -- ruby ../fiddle_leak.rb
expect_success "fiddle: sampled"
dump=$(ls heapfmt-malloc-*-1.hfd)
est=$(groups "$dump" site | count_of "../fiddle_leak.rb:6")
est=${est#* }
[ "${est:-0}" -gt 46080000 ] && [ "${est:-0}" -lt 57344000 ] && pass \
    || fail "fiddle: sampled estimate $est at line 6 (51.2 MB live, plus the array; about 3,200 samples: 10% is 5 sigma)"
cd ..
finish
