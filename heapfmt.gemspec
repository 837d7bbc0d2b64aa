# heapfmt.gemspec -- the gem: HeapFmt.dump (the extension) and the heapfmt
# tools (histo, heapfmt-diff, heapfmt-graph, heapfmt-report...), both built
# at install time from the sources of this repository by
# ext/heapfmt/extconf.rb. The version is libheapfmt's.
version = File.read(File.join(__dir__, "libheapfmt", "heapfmt.h"))[
  /HEAPFMT_LIB_VERSION_STRING "([^"]+)"/, 1
]

Gem::Specification.new do |s|
  s.name = "heapfmt"
  s.version = version
  s.summary = "Fast, compact heap dumps of a live Ruby process, and the tools to read them"
  s.description = "HeapFmt.dump writes the Ruby heap as a heapfmt dump " \
                  "(objects, references with labels, roots, allocation " \
                  "sites), several times faster and far smaller than " \
                  "ObjectSpace.dump_all. The gem also builds the heapfmt " \
                  "tools: histo (what grew), heapfmt-diff (what leaked), " \
                  "heapfmt-graph (who holds it), heapfmt-report, " \
                  "heapfmt-info, heapfmt-export and heapfmt-import."
  s.authors = ["heapfmt developers"]
  s.license = "MIT"
  # The project has no public address yet: set it here when it has one.
  s.homepage = "https://example.org/heapfmt"
  s.required_ruby_version = ">= 2.6"
  s.files = Dir.chdir(__dir__) do
    Dir["libheapfmt/*.{c,h}", "libheapfmt/common/*.{c,h}", "bindings/ruby/*.{c,h,md,mk}",
        "analysis/*.{c,h}", "tools/*/*.{c,h}", "ext/heapfmt/extconf.rb", "lib/**/*.rb", "exe/*", "man/*.1",
        "Makefile", "heapfmt.gemspec", "README.md", "LICENSE"]
  end
  s.bindir = "exe"
  s.executables = Dir.chdir(__dir__) { Dir["exe/*"].map { |f| File.basename(f) } }
  s.extensions = ["ext/heapfmt/extconf.rb"]
  s.require_paths = ["lib"]
end
