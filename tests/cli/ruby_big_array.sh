#!/usr/bin/env bash
# ruby_big_array.sh -- HeapFmt.dump of a 7.5M-element Array with a gap
# keeps every reference (tests/ruby/test_big_array.rb).
. tests/ruby/common.sh
exec ruby -I "$RUBY_EXT_DIR" tests/ruby/test_big_array.rb
