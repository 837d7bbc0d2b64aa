# frozen_string_literal: true

# heapfmt.rb -- `require "heapfmt"`: loads the extension heapfmt/heapfmt.so
# (bindings/ruby/) and checks that it comes from the same heapfmt as this
# file. An extension left by another build (an older `make install-ruby`, a
# `make ruby-lib` before a pull, a gem upgraded in place) would otherwise
# run silently with code it was not built with: require raises LoadError
# instead, naming both files. bindings/ruby/README.md is the manual.
module HeapFmt
  # What this file expects of the extension: the heapfmt release
  # (libheapfmt/heapfmt.h, HEAPFMT_LIB_VERSION_STRING; tests/cli/ruby_ext.sh
  # checks that they agree) and the interface between the two (HR_EXT_ABI in
  # bindings/ruby/heapfmt_ext.c: raised on both sides together whenever
  # either starts relying on something new).
  RUBY_CODE_VERSION = "0.1.0"
  RUBY_CODE_ABI = 1
  private_constant :RUBY_CODE_VERSION, :RUBY_CODE_ABI
end

require "heapfmt/heapfmt"

module HeapFmt
  ext_version = const_defined?(:VERSION, false) ? VERSION : "unknown"
  ext_abi = const_defined?(:EXT_ABI, false) ? EXT_ABI : "none"
  unless ext_version == RUBY_CODE_VERSION && ext_abi == RUBY_CODE_ABI
    dlext = RbConfig::CONFIG["DLEXT"]
    ext = $LOADED_FEATURES.reverse.find { |f| f.end_with?("/heapfmt/heapfmt.#{dlext}") }
    raise LoadError,
          "heapfmt: the extension #{ext || "heapfmt/heapfmt.#{dlext}"} " \
          "(heapfmt #{ext_version}, interface #{ext_abi}) does not match " \
          "the Ruby code #{__FILE__} (heapfmt #{RUBY_CODE_VERSION}, " \
          "interface #{RUBY_CODE_ABI}): they come from different builds. " \
          "Reinstall the gem (gem pristine heapfmt), or in a checkout run " \
          "make ruby-lib (Bundler path:) or make install-ruby again"
  end
end
