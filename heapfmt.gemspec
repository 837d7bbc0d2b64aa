# heapfmt.gemspec -- the Ruby extension as a gem, built from the sources of
# this repository (library and binding) by ext/heapfmt/extconf.rb.
version = File.read(File.join(__dir__, "libheapfmt", "heapfmt.h"))[
  /HEAPFMT_LIB_VERSION_STRING "([^"]+)"/, 1
]

Gem::Specification.new do |s|
  s.name = "heapfmt"
  s.version = version
  s.summary = "Fast, compact heap dumps of a live Ruby process"
  s.description = "HeapFmt.dump writes the Ruby heap as a heapfmt dump " \
                  "(objects, references with labels, roots, allocation " \
                  "sites), several times faster and far smaller than " \
                  "ObjectSpace.dump_all, for the heapfmt tools: histo, " \
                  "heapfmt-diff, heapfmt-graph."
  s.authors = ["heapfmt developers"]
  s.required_ruby_version = ">= 2.6"
  s.files = Dir.chdir(__dir__) do
    Dir["libheapfmt/*.{c,h}", "libheapfmt/common/*.{c,h}", "bindings/ruby/*.{c,h,md}",
        "ext/heapfmt/extconf.rb", "heapfmt.gemspec", "README.md"]
  end
  s.extensions = ["ext/heapfmt/extconf.rb"]
  s.require_paths = ["lib"]
end
