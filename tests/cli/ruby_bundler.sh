#!/usr/bin/env bash
# ruby_bundler.sh -- the gem through Bundler, offline: a git source (Bundler
# checks it out and builds the extension and the tools) and a path source
# (Bundler builds nothing: `make ruby-lib` does). In each, `bundle exec`
# dumps a heap with the bundled extension and runs the bundled tools on
# it (`bundle exec heapfmt-diff ...`). Skipped without ruby-dev
# (tests/ruby/common.sh); without Bundler (ruby-bundler) too, except in CI.
. tests/ruby/common.sh
. "$(dirname "$0")/lib.bash"
set +e

root=$(pwd)
if ! command -v bundle >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
        fail "no bundle command (ruby-bundler); scripts/install-deps.sh installs it"
        finish
    fi
    echo "SKIP: no bundle command (ruby-bundler)"
    exit 0
fi
# Built as a user would build it: not with this build's flags nor with
# the sanitizer runtime preloaded (see ruby_gem.sh). The sanitizer build's
# objects are kept for make ruby-lib below.
san=$(nm "$BIN/../lib/libheapfmt.a" 2>/dev/null | grep -c ' __[au]b\?san_')
unset LD_PRELOAD CFLAGS LDFLAGS CPPFLAGS MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

# A checkout of the gem's files as they are in this tree.
src=$TMPDIR/src
ruby -e 'puts Gem::Specification.load(ARGV[0]).files' "$root/heapfmt.gemspec" |
    while read -r f; do
        mkdir -p "$src/$(dirname "$f")" && cp -p "$root/$f" "$src/$f"
    done

bundled() { # NAME GEMFILE-LINE DIR: the extension must come from DIR
    local app=$TMPDIR/$1
    local benv=(env -C "$app" BUNDLE_PATH="$TMPDIR/bundle-$1")
    mkdir -p "$app"
    printf '%s\n' "$2" >"$app/Gemfile"
    run "${benv[@]}" bundle install --local
    expect_rc 0 "$1: bundle install"
    run "${benv[@]}" bundle exec ruby -e '
      require "heapfmt"
      abort "not the bundled gem" unless $LOADED_FEATURES.grep(/heapfmt\.so/).first.start_with?(ARGV[1])
      class BundledLeak; end
      KEEP = []
      3.times do |i|
        HeapFmt.dump("#{ARGV[0]}/d#{i + 1}.hfd")
        1000.times { KEEP << BundledLeak.new }
      end' "$app" "$3"
    expect_rc 0 "$1: require \"heapfmt\" through bundle exec"
    run "$BIN/heapfmt-info" --verify "$app/d1.hfd"
    expect_success "$1: its dump is complete"
    run "${benv[@]}" bundle exec heapfmt-diff "$app/d1.hfd" "$app/d2.hfd" "$app/d3.hfd"
    expect_success "$1: bundle exec heapfmt-diff"
    expect_out_has "BundledLeak" "$1: heapfmt-diff finds the leak"
    run "${benv[@]}" bundle exec histo --version
    expect_success "$1: bundle exec histo"
    [ "$out" = "$("$BIN/histo" --version)" ] && pass ||
        fail "$1: bundle exec histo --version: $out"
}

# git: Bundler checks the repository out and compiles the gem.
run sh -c "cd '$src' && git init -q && git add -A &&
    git -c user.name=t -c user.email=t@t commit -qm gem"
expect_rc 0 "a git repository of the gem's files"
bundled git "gem \"heapfmt\", git: \"file://$src\"" "$TMPDIR/bundle-git"

# path: Bundler does not compile; make ruby-lib puts the extension and the
# tools in lib/heapfmt/, from this build (from a scratch build under a
# sanitizer, whose runtime Ruby would need preloaded).
build=$(cd "$BIN/.." && pwd)
[ "$san" -gt 0 ] && build=$TMPDIR/build
run make -s -C "$root" ruby-lib BUILD="$build" RUBY_LIB_DIR="$src/lib"
expect_rc 0 "make ruby-lib"
bundled path "gem \"heapfmt\", path: \"$src\"" "$src/lib"
finish
