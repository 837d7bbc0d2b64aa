#!/usr/bin/env bash
# fuzz_replay.sh -- replays the fuzz harnesses over the seed corpus
# (fuzz/corpus), every past crash (fuzz/crashes) and the invalid fixtures,
# without libFuzzer or clang: `make fuzz-replay` builds fuzz/replay.c and
# the harnesses with the compiler and flags of this build (so under
# `make asan` the replay runs with the sanitizers) into $BUILD/fuzz-replay.
# A harness that finds a problem aborts; the replay then names the input.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(dirname "$BIN")
# The build directory as make knows it, relative to the root (build,
# build/asan): an absolute name would not match the dependency files of
# the objects make built with the relative one, and stale objects would
# be linked.
case $build in
"$root"/*) build=${build#"$root"/} ;;
esac

# CC, CFLAGS and LDFLAGS come from the environment (make passes its
# command-line variables on); MAKEFLAGS is dropped so that a parent's
# jobserver is not looked for.
run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    make -s --no-print-directory -C "$root" -f Makefile -f fuzz/fuzz.mk \
    BUILD="$build" fuzz-replay
expect_rc 0 "fuzz-replay"
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then
    printf '%s\n' "$err" >&2
fi
expect_out_has "fuzz_read" "fuzz-replay ran the harnesses"

# The gzip'd HPROF inputs again, 10 times: the importer reads one twice,
# and its gzip reading thread must be gone before the input is rewound
# (a read-ahead after the rewind left the second pass nothing: about one
# replay of these inputs in six failed under load before the fix).
replay="$root/$build/fuzz-replay/replay"
gz=()
for f in "$root"/fuzz/corpus/fuzz_import/*; do
    [ "$(head -c 2 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b ] && gz+=("$f")
done
if [ -x "$replay" ] && [ ${#gz[@]} -gt 0 ]; then
    bad=0
    for i in $(seq 1 10); do
        "$replay" -H fuzz_import "${gz[@]}" >/dev/null 2>&1 || bad=$((bad + 1))
    done
    [ "$bad" -eq 0 ] && pass ||
        fail "gzip HPROF two-pass replay failed $bad of 10 times"
fi
finish
