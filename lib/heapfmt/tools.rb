# frozen_string_literal: true

# heapfmt/tools.rb -- the heapfmt tools a gem carries (histo, heapfmt-diff,
# heapfmt-graph...): native programs built from the gem's sources when it
# was installed (ext/heapfmt/extconf.rb), kept beside the extension as
# heapfmt/bin/NAME, and run through the gem's executables (exe/NAME), so
# that `bundle exec heapfmt-diff ...` works in an application. Loading this
# file does not load the extension.
module HeapFmt
  module Tools
    # The full path of the tool NAME of this gem, or nil when it was not
    # built (heapfmt-export and heapfmt-import need libjansson).
    def self.path(name)
      $LOAD_PATH.each do |dir|
        file = File.join(File.expand_path(dir.to_s), "heapfmt", "bin", name)
        return file if File.file?(file) && File.executable?(file)
      end
      nil
    end

    # Replaces this process with the tool NAME given args; exits with status
    # 1 and a message when the gem has no such tool. Never searches PATH:
    # the gem's own executable of that name is there.
    def self.exec(name, args)
      file = path(name)
      unless file
        warn "#{name}: this heapfmt gem has no #{name}: it was not built " \
             "when the gem was installed (heapfmt-export and " \
             "heapfmt-import need libjansson, Debian: libjansson-dev; " \
             "`gem pristine heapfmt` builds the gem again, `gem install " \
             "--verbose` shows why)"
        exit 1
      end
      Kernel.exec([file, name], *args)
    end
  end
end
