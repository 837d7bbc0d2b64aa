#!/usr/bin/env bash
# ruby_install.sh -- where the Ruby extension goes, and a mismatched pair:
#   make install puts nothing into Ruby's directories (an extension there
#   would be loaded before any gem's); make install-ruby does, and make
#   uninstall-ruby removes it, with the heapfmt.so older builds' make
#   install left there;
#   lib/heapfmt.rb refuses an extension of another heapfmt version or
#   interface (HR_EXT_ABI), and the extension refuses a Ruby other than the
#   one it was compiled for, each with a LoadError that names the files.
# Skipped without ruby-dev (tests/ruby/common.sh).
. tests/ruby/common.sh
. "$(dirname "$0")/lib.bash"
set +e

root=$(pwd)
dlext=$(ruby -rrbconfig -e 'print RbConfig::CONFIG["DLEXT"]')
ext=$RUBY_EXT_DIR/heapfmt/heapfmt.$dlext
version=$(sed -n 's/^.define HEAPFMT_LIB_VERSION_STRING "\(.*\)".*/\1/p' libheapfmt/heapfmt.h)
build=$(cd "$BIN/.." && pwd)

# ---- the Ruby code and the library agree on the version ----
grep -q "RUBY_CODE_VERSION = \"$version\"" lib/heapfmt.rb && pass ||
    fail "lib/heapfmt.rb's RUBY_CODE_VERSION is not heapfmt.h's $version"
run ruby -I "$RUBY_EXT_DIR" -e 'require "heapfmt"; print HeapFmt::VERSION'
expect_success "require \"heapfmt\" from the build"
[ "$out" = "$version" ] && pass || fail "HeapFmt::VERSION $out, not $version"

# ---- make install leaves Ruby's directories alone ----
dest=$TMPDIR/dest
run make -s -C "$root" BUILD="$build" DESTDIR="$dest" PREFIX=/usr/local \
    RUBY_SITEARCHDIR=/site install
expect_rc 0 "make install"
[ -x "$dest/usr/local/bin/histo" ] && pass || fail "make install: no histo"
found=$(find "$dest" -name "heapfmt*.$dlext" -o -name 'heapfmt.rb')
[ -z "$found" ] && pass || fail "make install installed the Ruby extension: $found"
[ ! -e "$dest/site" ] && pass || fail "make install wrote into Ruby's directory"

# ---- make install-ruby, then uninstall-ruby ----
run make -s -C "$root" BUILD="$build" DESTDIR="$dest" RUBY_SITEARCHDIR=/site install-ruby
expect_rc 0 "make install-ruby"
for f in heapfmt.rb heapfmt/heapfmt.$dlext heapfmt/tools.rb; do
    [ -f "$dest/site/$f" ] && pass || fail "make install-ruby: no $f"
done
run ruby -I "$dest/site" -e 'require "heapfmt"
  abort $LOADED_FEATURES.grep(/heapfmt/).inspect unless $LOADED_FEATURES.grep(/heapfmt/).all? { |f| f.start_with?(ARGV[0]) }
  print HeapFmt.dump(ARGV[1])' "$dest/site" "$TMPDIR/installed.hfd"
expect_success "require \"heapfmt\" from what make install-ruby installed"
: >"$dest/site/heapfmt.$dlext" # what an older make install left there
run make -s -C "$root" BUILD="$build" DESTDIR="$dest" RUBY_SITEARCHDIR=/site uninstall-ruby
expect_rc 0 "make uninstall-ruby"
left=$(find "$dest/site" -mindepth 1)
[ -z "$left" ] && pass || fail "make uninstall-ruby left: $left"
: >"$dest/site/heapfmt.$dlext"
run make -s -C "$root" BUILD="$build" DESTDIR="$dest" PREFIX=/usr/local \
    RUBY_SITEARCHDIR=/site uninstall
expect_rc 0 "make uninstall"
[ ! -e "$dest/site/heapfmt.$dlext" ] && pass ||
    fail "make uninstall left the heapfmt.so of an older make install"

# ---- mismatched pairs ----
pair=$TMPDIR/pair
mkdir -p "$pair/heapfmt"
# The Ruby code of another version beside this extension.
sed "s/RUBY_CODE_VERSION = \"$version\"/RUBY_CODE_VERSION = \"9.8.7\"/" \
    lib/heapfmt.rb >"$pair/heapfmt.rb"
cp "$ext" "$pair/heapfmt/"
run ruby -I "$pair" -e 'require "heapfmt"'
expect_failure 1 "Ruby code 9.8.7 with extension $version"
expect_err_has "(LoadError)" "a mismatched version: LoadError"
expect_err_has "the extension $pair/heapfmt/heapfmt.$dlext (heapfmt $version, interface 1) does not match the Ruby code $pair/heapfmt.rb (heapfmt 9.8.7, interface 1)" \
    "the message names both files and versions"
run ruby -I "$pair" -e 'begin; require "heapfmt"; rescue LoadError; end
  require "heapfmt"'
expect_failure 1 "a second require raises again"

# Extensions built with another interface number, and for another Ruby:
# only the binding's two objects are compiled again, in a scratch build
# (-o: this build's library is used as it is).
scratch=$TMPDIR/build
mkdir -p "$scratch/lib"
cp -p "$build/lib/libheapfmt.a" "$scratch/lib/"
mismatched() { # CPPFLAGS: builds $scratch's extension
    rm -rf "$scratch/obj/bindings" "$scratch/ruby"
    run make -s -C "$root" BUILD="$scratch" -o "$scratch/lib/libheapfmt.a" \
        CPPFLAGS="$1" "$scratch/ruby/heapfmt/heapfmt.$dlext"
    expect_rc 0 "an extension built with $1"
    cp "$scratch/ruby/heapfmt/heapfmt.$dlext" "$pair/heapfmt/"
}
cp lib/heapfmt.rb "$pair/heapfmt.rb"
mismatched -DHR_EXT_ABI=999
run ruby -I "$pair" -e 'require "heapfmt"'
expect_failure 1 "extension interface 999 with Ruby code interface 1"
expect_err_has "(heapfmt $version, interface 999) does not match the Ruby code $pair/heapfmt.rb (heapfmt $version, interface 1)" \
    "a mismatched interface: the message"
mismatched "-DHR_RUBY_API_MAJOR=2 -DHR_RUBY_API_MINOR=7"
run ruby -I "$pair" -e 'require "heapfmt"'
expect_failure 1 "an extension built for Ruby 2.7"
rv=$(ruby -e 'print RUBY_VERSION[/\A\d+\.\d+/]')
expect_err_has "heapfmt: $pair/heapfmt/heapfmt.$dlext was built for Ruby 2.7, not for this Ruby $rv" \
    "another Ruby: the message"
expect_err_has "(LoadError)" "another Ruby: LoadError"
finish
