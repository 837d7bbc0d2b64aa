# common.sh -- setup shared by tests/cli/ruby_*.sh, which source it.
#
# Skips the test (exit 0, "SKIP: ..." on stdout) when ruby or its headers
# are not installed: the extension is then not built. Otherwise builds
# tests/ruby/readdump.c against the library of this build and exports
#   RUBY_EXT_DIR  the directory holding heapfmt.rb and heapfmt/heapfmt.so
#                 ($BIN/../ruby): ruby -I "$RUBY_EXT_DIR" -e 'require "heapfmt"'
#   READDUMP      the readdump program
# Run from the repository root, with BIN and TMPDIR set (make test does).
set -eu
: "${BIN:?set BIN to the directory of the built tools}"
: "${TMPDIR:?set TMPDIR to a scratch directory}"

if ! ruby -rrbconfig -e \
    'exit File.exist?(File.join(RbConfig::CONFIG["rubyhdrdir"], "ruby.h"))' \
    >/dev/null 2>&1; then
    echo "SKIP: ruby or its headers (ruby-dev) are not installed"
    exit 0
fi

RUBY_EXT_DIR=$(cd "$BIN/../ruby" 2>/dev/null && pwd) || {
    echo "FAIL: $BIN/../ruby/heapfmt.rb is not built (make ruby)" >&2
    exit 1
}
lib_a=$BIN/../lib/libheapfmt.a

# A sanitizer build: its runtime must be loaded before ruby starts.
san_cflags=
if nm "$lib_a" 2>/dev/null | grep -q ' __asan_'; then
    san_cflags="-fsanitize=address,undefined"
    LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:use_sigaltstack=0}
    export LD_PRELOAD ASAN_OPTIONS
elif nm "$lib_a" 2>/dev/null | grep -q ' __ubsan_'; then
    san_cflags="-fsanitize=undefined"
fi

READDUMP=$TMPDIR/readdump
# LD_PRELOAD is for ruby only, not for the compiler.
LD_PRELOAD= ${CC:-cc} -std=c11 -O1 -g $san_cflags -Ilibheapfmt \
    tests/ruby/readdump.c "$lib_a" -lzstd -lz -pthread -o "$READDUMP"
export RUBY_EXT_DIR READDUMP
