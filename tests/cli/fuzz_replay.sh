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
finish
