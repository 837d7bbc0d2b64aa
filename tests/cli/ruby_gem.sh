#!/usr/bin/env bash
# ruby_gem.sh -- the gem: `gem build heapfmt.gemspec` (no warning) and `gem
# install --local` into a scratch GEM_HOME (no root, no network, no system
# libheapfmt); then `require "heapfmt"` from it dumps a heap that reads
# back complete, and every tool the gem carries runs from the gem's
# executables on those dumps. Bundler: tests/cli/ruby_bundler.sh. Skipped
# without ruby-dev (tests/ruby/common.sh).
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
case $err in
*WARNING*) fail "gem build warns" ;;
*) pass ;;
esac
tools=$(ruby -e 'puts Gem::Specification.load(ARGV[0]).executables' "$root/heapfmt.gemspec")
for t in histo heapfmt-diff heapfmt-graph heapfmt-report heapfmt-info heapfmt-export heapfmt-import; do
    case " $(echo $tools) " in
    *" $t "*) pass ;;
    *) fail "the gem's executables lack $t" ;;
    esac
done
[ ! -e "$root/heapfmt-0.1.0.gem" ] && pass || fail "no gem left in the tree"

run env GEM_HOME="$gems" gem install --local --install-dir "$gems" \
    --no-document "$TMPDIR/heapfmt.gem"
expect_rc 0 "gem install --local into a scratch GEM_HOME"
gemenv=(env GEM_HOME="$gems" GEM_PATH="$gems" PATH="$gems/bin:$PATH")

# Three dumps of a heap that keeps what each round makes: the leak.
run "${gemenv[@]}" ruby -e '
  require "heapfmt"
  require "objspace"
  path = $LOADED_FEATURES.grep(/heapfmt\.so/).first
  abort "not from the gem: #{path}" unless path.start_with?(ENV["GEM_HOME"])
  class GemLeak; end
  KEEP = []
  3.times do |i|
    HeapFmt.dump("#{ARGV[0]}/d#{i + 1}.hfd")
    2000.times { KEEP << GemLeak.new }
  end
  File.open("#{ARGV[0]}/all.json", "w") { |f| ObjectSpace.dump_all(output: f) }' "$TMPDIR"
expect_rc 0 "require \"heapfmt\" from the installed gem"
run "$BIN/heapfmt-info" --verify "$TMPDIR/d1.hfd"
expect_success "its dump is complete"
d=("$TMPDIR/d1.hfd" "$TMPDIR/d2.hfd" "$TMPDIR/d3.hfd")

# ---- the tools, from the gem ----
for t in $tools; do
    run "${gemenv[@]}" "$t" --version
    expect_success "$t --version from the gem"
    want=$("$BIN/$t" --version)
    [ "$out" = "$want" ] && pass || fail "$t from the gem: '$out', not '$want'"
done
for t in $tools; do
    [ "$(env PATH="$gems/bin:$PATH" sh -c "command -v $t")" = "$gems/bin/$t" ] &&
        pass || fail "$t is not the gem's executable in PATH"
done
run "${gemenv[@]}" histo "${d[0]}" "${d[2]}"
expect_success "histo from the gem"
expect_out_has "GemLeak" "histo: the leaking class"
run "${gemenv[@]}" heapfmt-diff "${d[@]}"
expect_success "heapfmt-diff from the gem"
expect_out_has "GemLeak" "heapfmt-diff: the leak"
run "${gemenv[@]}" heapfmt-graph owners "${d[@]}"
expect_success "heapfmt-graph from the gem"
expect_out_has "KEEP" "heapfmt-graph owners: the array that holds the leak"
run "${gemenv[@]}" heapfmt-report -o "$TMPDIR/report.html" "${d[@]}"
expect_rc 0 "heapfmt-report from the gem" # (warns of unreachable objects)
grep -q GemLeak "$TMPDIR/report.html" && pass || fail "heapfmt-report: no GemLeak"
run "${gemenv[@]}" heapfmt-info "${d[2]}"
expect_success "heapfmt-info from the gem"
expect_out_has "heapfmt-ruby" "heapfmt-info: the producer"
run "${gemenv[@]}" heapfmt-export "${d[0]}"
expect_success "heapfmt-export from the gem"
expect_out_has '"type":' "heapfmt-export: documents"
run "${gemenv[@]}" heapfmt-import -o "$TMPDIR/imported.hfd" "$TMPDIR/all.json"
expect_success "heapfmt-import from the gem"
run "$BIN/heapfmt-info" --verify "$TMPDIR/imported.hfd"
expect_success "heapfmt-import's dump is complete"
# A tool says its own name, not the wrapper's path or ruby's.
run "${gemenv[@]}" histo "$TMPDIR/missing.hfd"
expect_failure 1 "histo from the gem on a missing file"
expect_err_has "histo: $TMPDIR/missing.hfd:" "the message names histo"

# ---- a tool the gem could not build (no libjansson at install) ----
for f in $(find "$gems" -path '*/heapfmt/bin/heapfmt-export'); do rm -f "$f"; done
run "${gemenv[@]}" heapfmt-export "${d[0]}"
expect_failure 1 "a tool the gem lacks"
expect_err_has "heapfmt-export: this heapfmt gem has no heapfmt-export" \
    "its message"
expect_err_has "libjansson" "its message names what it needs"
finish
