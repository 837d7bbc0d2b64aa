#!/usr/bin/env bash
# ruby_labels.sh -- HeapFmt.dump's reference labels, object by object,
# against Ruby's own view (tests/ruby/test_labels.rb), and labels: false.
. tests/ruby/common.sh
HEAPFMT_EXPORT=$BIN/heapfmt-export exec ruby -I "$RUBY_EXT_DIR" tests/ruby/test_labels.rb
