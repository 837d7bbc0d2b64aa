# extconf.rb -- builds the heapfmt extension from the sources in the gem:
# the library (libheapfmt/, libheapfmt/common/) and the binding (bindings/ruby/), compiled
# together into heapfmt.so. No system libheapfmt is needed; zlib is, and
# libzstd when present (without it, Zstandard dumps are refused by name).
require "mkmf"

root = File.expand_path("../..", __dir__)
dirs = [File.join(root, "libheapfmt"), File.join(root, "libheapfmt", "common"),
        File.join(root, "bindings", "ruby")]
dirs.each { |d| abort "heapfmt: #{d} is missing" unless File.directory?(d) }

$VPATH.concat(dirs)
$INCFLAGS << dirs.map { |d| " -I#{d}" }.join
$srcs = dirs.flat_map { |d| Dir[File.join(d, "*.c")].map { |f| File.basename(f) } }
$CFLAGS << " -std=gnu11 -fvisibility=hidden"

have_library("z", "crc32") or
  abort "heapfmt: zlib is needed (Debian: apt-get install zlib1g-dev)"
unless have_library("zstd", "ZSTD_compress")
  warn "heapfmt: libzstd not found: building without Zstandard " \
       "(Debian: apt-get install libzstd-dev)"
  $defs << "-DHEAPFMT_NO_ZSTD"
end
have_library("pthread", "pthread_create")

create_makefile("heapfmt")
