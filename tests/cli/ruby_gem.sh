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

# ---- Bundler (Debian: ruby-bundler), offline ----
if ! command -v bundle >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
        fail "no bundle command (ruby-bundler); scripts/install-deps.sh installs it"
    else
        echo "note: no bundle command (ruby-bundler): the Bundler checks are skipped"
    fi
    finish
fi
# A checkout of the gem's files as they are in this tree.
src=$TMPDIR/src
ruby -e 'puts Gem::Specification.load(ARGV[0]).files' "$root/heapfmt.gemspec" |
    while read -r f; do
        mkdir -p "$src/$(dirname "$f")" && cp "$root/$f" "$src/$f"
    done
bundled() { # DIR GEMFILE-LINE: bundle install, then a dump through bundle exec
    local app=$TMPDIR/$1
    mkdir -p "$app"
    printf '%s\n' "$2" >"$app/Gemfile"
    run env -C "$app" BUNDLE_PATH="$TMPDIR/bundle-$1" bundle install --local
    expect_rc 0 "$1: bundle install"
    run env -C "$app" BUNDLE_PATH="$TMPDIR/bundle-$1" bundle exec ruby -e '
      require "heapfmt"
      abort "not the bundled gem" unless $LOADED_FEATURES.grep(/heapfmt\.so/).first.start_with?(ARGV[1])
      puts HeapFmt.dump(ARGV[0])' "$TMPDIR/$1.hfd" "$3"
    expect_rc 0 "$1: require \"heapfmt\" through bundle exec"
    run "$BIN/heapfmt-info" --verify "$TMPDIR/$1.hfd"
    expect_success "$1: its dump is complete"
}
# git: Bundler checks the repository out and compiles the extension.
run sh -c "cd '$src' && git init -q && git add -A &&
    git -c user.name=t -c user.email=t@t commit -qm gem"
expect_rc 0 "a git repository of the gem's files"
bundled git "gem \"heapfmt\", git: \"file://$src\"" "$TMPDIR/bundle-git"
# path: Bundler does not compile; make ruby-lib puts the extension in lib/
# (built in a scratch directory: not with this run's BUILD, which make
# exports, and which is a sanitizer build under make asan).
run make -s -C "$root" ruby-lib BUILD="$TMPDIR/build" RUBY_LIB_DIR="$src/lib"
expect_rc 0 "make ruby-lib"
bundled path "gem \"heapfmt\", path: \"$src\"" "$src/lib"
finish
