# extconf.rb -- the gem's build, from the sources the gem carries:
#
#   libheapfmt.a and the tools (histo, heapfmt-diff, heapfmt-graph...: one
#     per exe/NAME), built out of tree in tools-build/ by the repository's
#     own Makefile (its `ruby-tools` target), which the Makefile written here
#     runs, on every processor (RubyGems runs make without -j);
#   the extension heapfmt/heapfmt.so: the binding (bindings/ruby/) compiled
#     by mkmf's Makefile and linked with that libheapfmt.a, whose symbols
#     stay private to it.
#
# `make install` (RubyGems runs it) puts the tools beside the extension, as
# heapfmt/bin/NAME, where the gem's executables find them
# (lib/heapfmt/tools.rb). No system libheapfmt is needed; zlib is, and
# libzstd when present (without it, Zstandard dumps are refused by name).
# heapfmt-export and heapfmt-import need libjansson: without it they are
# left out, with a warning, and the rest is built.
require "mkmf"
require "etc"
require "shellwords"

root = File.expand_path("../..", __dir__)
binding_dir = File.join(root, "bindings", "ruby")
%w[libheapfmt analysis bindings/ruby Makefile].each do |f|
  abort "heapfmt: #{File.join(root, f)} is missing" unless File.exist?(File.join(root, f))
end

$VPATH << binding_dir
# libheapfmt/common: outfile.h, the temporary HeapFmt.dump(path) renames
$INCFLAGS << " -I#{binding_dir} -I#{File.join(root, "libheapfmt")}" \
             " -I#{File.join(root, "libheapfmt", "common")}"
$srcs = Dir[File.join(binding_dir, "*.c")].map { |f| File.basename(f) }
$CFLAGS << " -std=gnu11 -fvisibility=hidden"

have_library("z", "crc32") or
  abort "heapfmt: zlib is needed (Debian: apt-get install zlib1g-dev)"
zstd = have_library("zstd", "ZSTD_compress")
warn "heapfmt: libzstd not found: building without Zstandard " \
     "(Debian: apt-get install libzstd-dev)" unless zstd
have_library("pthread", "pthread_create")

tools = Dir[File.join(root, "exe", "*")].map { |f| File.basename(f) }.sort
jansson = checking_for("libjansson (heapfmt-export, heapfmt-import)") do
  try_link("#include <jansson.h>\nint main(void) { return json_loads(\"1\", 0, 0) == 0; }",
           "-ljansson")
end
unless jansson
  skipped = tools.grep(/\Aheapfmt-(export|import)\z/)
  warn "heapfmt: libjansson not found: #{skipped.join(" and ")} left out " \
       "(Debian: apt-get install libjansson-dev, then gem pristine heapfmt)"
  tools -= skipped
end

# The library's symbols are not the extension's to export.
exclude = "-Wl,--exclude-libs,ALL"
$DLDFLAGS << " #{exclude}" if try_ldflags(exclude)
build = File.join(Dir.pwd, "tools-build")
lib_a = File.join(build, "lib", "libheapfmt.a")
$LOCAL_LIBS << " #{lib_a.shellescape}"

create_makefile("heapfmt/heapfmt")

# The repository's Makefile, with the compiler mkmf found; warnings are not
# errors there (another compiler may warn where ours does not).
sub_make = ["$(MAKE)", "-C", root.shellescape, "-j#{Etc.nprocessors}",
            "BUILD=#{build}".shellescape, "WERROR=", "'CC=$(CC)'",
            "RUBY=#{RbConfig.ruby}".shellescape,
            "RUBY_GEM_TOOLS=#{tools.join(" ")}".shellescape,
            *(zstd ? [] : ["HEAPFMT_ZSTD=0"])]
File.open("Makefile", "a") do |mf|
  mf.puts <<~MAKE

    # ---- libheapfmt and the heapfmt tools (ext/heapfmt/extconf.rb) ----
    HEAPFMT_LIB = #{lib_a.shellescape}
    HEAPFMT_TOOLS = #{tools.map { |t| File.join(build, "bin", t).shellescape }.join(" ")}
    $(DLLIB): $(HEAPFMT_LIB)
    install: install-heapfmt-tools
    clean: clean-heapfmt-tools
    .PHONY: install-heapfmt-tools clean-heapfmt-tools
    $(HEAPFMT_LIB):
    \t#{sub_make.join(" ")} $(HEAPFMT_LIB) ruby-tools
    install-heapfmt-tools: $(HEAPFMT_LIB)
    \t$(Q) $(MAKEDIRS) $(RUBYARCHDIR)/bin
    \t$(INSTALL_PROG) $(HEAPFMT_TOOLS) $(RUBYARCHDIR)/bin
    clean-heapfmt-tools:
    \t-$(Q)$(RM_RF) #{build.shellescape}
  MAKE
end
