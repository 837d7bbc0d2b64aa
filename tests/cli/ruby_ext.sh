#!/usr/bin/env bash
# ruby_ext.sh -- HeapFmt.dump on small known heaps (tests/ruby/test_ext.rb):
# counts against ObjectSpace.each_object, class names, references, roots,
# META, allocation sites, IO targets, fork, errors.
. tests/ruby/common.sh
exec ruby -I "$RUBY_EXT_DIR" tests/ruby/test_ext.rb
