# helper.rb -- checks and a dump reader for the extension's tests.
#
# Run by tests/cli/ruby_*.sh with the extension on the load path and
#   READDUMP  the tests/ruby/readdump program, built by the script
#   TMPDIR    a scratch directory
require "heapfmt"

module Check
  @checks = 0
  @failures = 0

  def self.ok(cond, what)
    if cond
      @checks += 1
    else
      @failures += 1
      warn "FAIL: #{what}"
    end
    cond
  end

  def self.eq(got, want, what)
    ok(got == want, "#{what}: got #{got.inspect}, want #{want.inspect}")
  end

  def self.raises(klass, what, pattern = nil)
    yield
    ok(false, "#{what}: nothing raised, want #{klass}")
  rescue klass => e
    ok(pattern.nil? || e.message.match?(pattern),
       "#{what}: message #{e.message.inspect} does not match #{pattern.inspect}")
  rescue Exception => e # rubocop:disable Lint/RescueException
    ok(false, "#{what}: raised #{e.class}: #{e.message}, want #{klass}")
  end

  def self.finish
    if @failures.positive?
      warn "#{@failures} of #{@checks + @failures} checks failed"
      exit 1
    end
    puts "all #{@checks} checks passed"
    exit 0
  end
end

TMP = ENV.fetch("TMPDIR")
READDUMP = ENV.fetch("READDUMP")

def tmp(name)
  File.join(TMP, name)
end

def hex(obj)
  HeapFmt.address(obj).to_s(16)
end

# A dump as readdump prints it.
class Dump
  Klass = Struct.new(:id, :flags, :super_id, :name)
  Obj = Struct.new(:id, :type, :class_id, :size, :flags, :file, :line,
                   :generation, :nrefs, :refs, :value)
  INTERNAL = %w[T_IMEMO T_ICLASS T_NODE T_ZOMBIE T_MOVED T_NONE].freeze

  attr_reader :meta, :classes, :objects, :roots

  # refs: also read the references of every object.
  def initialize(path, refs: false)
    @meta = {}
    @classes = {}
    @objects = {}
    @roots = Hash.new { |h, k| h[k] = [] }
    Dump.each_record(path, refs: refs) do |f|
      case f[0]
      when "M" then @meta[f[1]] = f[2].force_encoding(Encoding::UTF_8)
      when "C" then @classes[f[1]] = Klass.new(f[1], f[2].to_i, f[3], utf8(f[4]))
      when "O" then add_object(f)
      when "R" then @roots[f[1]].concat(f[3] == "-" ? [] : f[3].split(","))
      end
    end
  end

  # Yields the fields of each line readdump prints (binary strings: values
  # may be any bytes).
  def self.each_record(path, refs: false)
    args = [READDUMP] + (refs ? ["-r"] : []) + [path]
    IO.popen(args, "rb") do |io|
      io.each_line { |line| yield line.chomp.split("\t", -1) }
    end
    raise "readdump #{path} failed: #{$?.exitstatus}" unless $?.success?
  end

  # Objects in a dump, without parsing them.
  def self.count(path)
    n = IO.popen([READDUMP, path], "rb") { |io| io.each_line.count { |l| l.start_with?("O\t") } }
    raise "readdump #{path} failed: #{$?.exitstatus}" unless $?.success?

    n
  end

  def utf8(s)
    s.force_encoding(Encoding::UTF_8)
  end

  def add_object(f)
    refs = f[10] == "-" ? nil : f[10].split(",")
    @objects[f[1]] = Obj.new(f[1], f[2], f[3], f[4].to_i, f[5].to_i(16),
                             dash(f[6])&.then { |x| utf8(x) }, dash(f[7])&.to_i, dash(f[8])&.to_i,
                             f[9].to_i, refs, unescape(f[11]))
  end

  def dash(s)
    s == "-" ? nil : s
  end

  def unescape(s)
    return nil if s == "-"

    s.b.gsub(/\\(x[0-9a-f]{2}|[tn\\])/n) do
      c = Regexp.last_match(1)
      { "t" => "\t", "n" => "\n", "\\" => "\\" }[c] || c[1, 2].to_i(16).chr
    end.force_encoding(Encoding::UTF_8)
  end

  def name_of(class_id)
    @classes[class_id]&.name
  end

  # The class Kernel#class would give: singleton classes followed up to
  # the first ordinary class (as rb_class_real does).
  def real_class(class_id)
    c = @classes[class_id]
    16.times do
      break unless c && (c.flags & 2) != 0

      c = @classes[c.super_id]
    end
    c
  end

  # Objects per real class name, objects of internal types and hidden
  # objects (no class) left out.
  def real_counts
    counts = Hash.new(0)
    @objects.each_value do |o|
      next if INTERNAL.include?(o.type) || o.class_id == "0"

      c = real_class(o.class_id)
      counts[c ? c.name : "?#{o.class_id}"] += 1
    end
    counts
  end
end
