#!/usr/bin/env bash
# ruby_fidelity.sh -- on one heap, HeapFmt.dump and ObjectSpace.dump_all +
# heapfmt-import give the same objects, per type, per class and one by one
# (tests/ruby/test_fidelity.rb).
. tests/ruby/common.sh
if [ ! -x "$BIN/heapfmt-import" ]; then
    echo "SKIP: $BIN/heapfmt-import is not built"
    exit 0
fi
exec ruby -I "$RUBY_EXT_DIR" tests/ruby/test_fidelity.rb
