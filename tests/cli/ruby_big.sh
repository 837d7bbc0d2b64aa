#!/usr/bin/env bash
# ruby_big.sh -- HeapFmt.dump on a large, app-like heap of about two million
# objects (tests/ruby/test_big.rb): no crash, every object dumped.
. tests/ruby/common.sh
exec ruby -I "$RUBY_EXT_DIR" tests/ruby/test_big.rb
