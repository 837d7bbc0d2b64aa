#!/usr/bin/env bash
# ruby_gem.sh -- the gem: `gem build heapfmt.gemspec` and
# `gem install --local` into a scratch GEM_HOME (no root, no system
# libheapfmt), then `require "heapfmt"` from it dumps a heap that reads
# back complete. Skipped without ruby-dev (tests/ruby/common.sh).
. tests/ruby/common.sh
. "$(dirname "$0")/lib.bash"
set +e

root=$(pwd)
gems=$TMPDIR/gems
# The gem is built as a user would build it: not with this build's
# compiler flags (make exports CFLAGS and LDFLAGS, sanitizers under make
# asan), nor with the sanitizer runtime preloaded.
unset LD_PRELOAD CFLAGS LDFLAGS CPPFLAGS MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
run gem build "$root/heapfmt.gemspec" -o "$TMPDIR/heapfmt.gem"
expect_rc 0 "gem build"
run env GEM_HOME="$gems" gem install --local --install-dir "$gems" \
    --no-document "$TMPDIR/heapfmt.gem"
expect_rc 0 "gem install --local into a scratch GEM_HOME"
run env GEM_HOME="$gems" GEM_PATH="$gems" ruby -e '
  require "heapfmt"
  path = $LOADED_FEATURES.grep(/heapfmt\.so/).first
  abort "not from the gem: #{path}" unless path.start_with?(ENV["GEM_HOME"])
  puts HeapFmt.dump(ARGV[0])' "$TMPDIR/gem.hfd"
expect_rc 0 "require \"heapfmt\" from the installed gem"
run "$BIN/heapfmt-info" --verify "$TMPDIR/gem.hfd"
expect_success "its dump is complete"
[ ! -e "$root/heapfmt-0.1.0.gem" ] && pass || fail "no gem left in the tree"
finish
