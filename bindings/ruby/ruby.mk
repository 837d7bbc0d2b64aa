# bindings/ruby/ruby.mk -- the Ruby extension, included by the top-level
# Makefile (which defines BUILD, LIB_A, CFLAGS, DEPFLAGS, DESTDIR...).
#
# The gem's layout: lib/heapfmt.rb (what `require "heapfmt"` loads: it
# loads the extension heapfmt/heapfmt.so and checks that both come from
# one build), lib/heapfmt/tools.rb and exe/* (the tools as the gem's
# executables), ext/heapfmt/extconf.rb (the gem's build).
#
#   make ruby            build $(BUILD)/ruby/heapfmt/heapfmt.so beside a
#                        copy of lib/: ruby -I build/ruby -e 'require "heapfmt"'
#   make ruby-lib        also copies the extension to lib/heapfmt/ and the
#                        gem's tools to lib/heapfmt/bin/ (RUBY_LIB_DIR=dir:
#                        elsewhere), where Bundler finds them for a
#                        `gem "heapfmt", path: "..."` source: Bundler does
#                        not compile the extensions of path sources
#   make install-ruby    installs lib/ and the extension into Ruby's
#                        sitearchdir (RUBY_SITEARCHDIR=dir: elsewhere), under
#                        DESTDIR, where a plain `require "heapfmt"` finds it
#                        before any gem: only when asked, never by `make
#                        install`
#   make uninstall-ruby  removes it, and the heapfmt.so older versions'
#                        `make install` put there (as `make uninstall` does)
#
# `all` builds the extension only when ruby and its headers (Debian:
# ruby-dev) are installed. RUBY names the ruby to build for (default: ruby).

RUBY ?= ruby

# The extension's file suffix (so, bundle), or empty when ruby or its
# headers are missing. The only ruby run at every make invocation.
RUBY_DLEXT := $(shell $(RUBY) -rrbconfig -e \
  'c = RbConfig::CONFIG; print c["DLEXT"] if File.exist?(File.join(c["rubyhdrdir"], "ruby.h"))' \
  2>/dev/null)

# Ruby's build settings, read only when a recipe uses them. Its headers
# are system headers (-isystem): their own warnings (unused parameters under
# -Wextra) stay out, ours are all shown.
rbconfig = $(shell $(RUBY) -rrbconfig -e 'print RbConfig::CONFIG["$(1)"]')
RUBY_CPPFLAGS = -isystem $(call rbconfig,rubyarchhdrdir) \
                -isystem $(call rbconfig,rubyhdrdir) \
                $(call rbconfig,CPPFLAGS)
# Ruby's own CFLAGS first (ABI and hardening), ours after them. Warnings
# are on but never errors: other Ruby versions may warn where 3.1 does not.
RUBY_EXT_CFLAGS = $(call rbconfig,CFLAGS) -std=gnu11 -Wall -Wextra -Wshadow -fPIC \
                  -fvisibility=hidden $(CFLAGS)
# -Wl,--exclude-libs keeps libheapfmt's symbols private to the extension.
RUBY_EXT_LDFLAGS = -shared $(call rbconfig,DLDFLAGS) -Wl,--exclude-libs,ALL \
                   -L$(call rbconfig,libdir) $(LDFLAGS)
RUBY_EXT_LIBS = $(call rbconfig,LIBRUBYARG_SHARED) $(LIB_LIBS) $(call rbconfig,LIBS)
RUBY_SITEARCHDIR ?= $(call rbconfig,sitearchdir)

RUBY_EXT_SRCS := $(wildcard bindings/ruby/*.c)
RUBY_EXT_OBJS := $(RUBY_EXT_SRCS:%.c=$(BUILD)/obj/%.o)
RUBY_EXT      := $(BUILD)/ruby/heapfmt/heapfmt.$(or $(RUBY_DLEXT),so)
# The gem's Ruby code, and its copy beside the extension in $(BUILD)/ruby.
RUBY_CODE       := $(wildcard lib/*.rb lib/heapfmt/*.rb)
RUBY_CODE_BUILT := $(RUBY_CODE:lib/%=$(BUILD)/ruby/%)
# The tools the gem carries: one executable (exe/NAME) per tool.
RUBY_GEM_TOOLS ?= $(notdir $(wildcard exe/*))

.PHONY: ruby ruby-lib ruby-tools install-ruby uninstall-ruby uninstall-ruby-old

RUBY_LIB_DIR ?= lib

ifneq ($(RUBY_DLEXT),)
all: ruby
uninstall: uninstall-ruby-old

## ruby: build the Ruby extension in build/ruby (needs ruby-dev)
ruby: $(RUBY_EXT) $(RUBY_CODE_BUILT)
else
ruby:
	@echo 'make ruby: $(RUBY) or its headers are missing (Debian: apt-get install ruby-dev)' >&2
	@exit 1
endif

$(BUILD)/obj/bindings/ruby/%.o: bindings/ruby/%.c
	@mkdir -p $(@D)
	$(CC) $(RUBY_CPPFLAGS) -Ilibheapfmt -Ilibheapfmt/common $(CPPFLAGS) $(RUBY_EXT_CFLAGS) \
	  $(DEPFLAGS) -c $< -o $@

$(RUBY_EXT): $(RUBY_EXT_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(RUBY_EXT_CFLAGS) $(RUBY_EXT_LDFLAGS) -o $@ $(RUBY_EXT_OBJS) \
	  $(LIB_A) $(RUBY_EXT_LIBS)

$(BUILD)/ruby/%.rb: lib/%.rb
	@mkdir -p $(@D)
	cp $< $@

## ruby-tools: build the tools the gem carries (RUBY_GEM_TOOLS) in build/bin
ruby-tools: $(RUBY_GEM_TOOLS:%=$(BUILD)/bin/%)

## ruby-lib: the extension and tools in lib/heapfmt/, for Bundler's path: sources
ruby-lib: $(RUBY_EXT) ruby-tools
	@mkdir -p '$(RUBY_LIB_DIR)/heapfmt/bin'
	cp $(RUBY_EXT) '$(RUBY_LIB_DIR)/heapfmt/'
	cp $(RUBY_GEM_TOOLS:%=$(BUILD)/bin/%) '$(RUBY_LIB_DIR)/heapfmt/bin/'

## install-ruby: install the extension into Ruby's own directory (before any gem)
install-ruby: $(RUBY_EXT)
	install -d '$(DESTDIR)$(RUBY_SITEARCHDIR)/heapfmt'
	install -m 644 lib/heapfmt.rb '$(DESTDIR)$(RUBY_SITEARCHDIR)/'
	install -m 644 $(filter lib/heapfmt/%,$(RUBY_CODE)) '$(DESTDIR)$(RUBY_SITEARCHDIR)/heapfmt/'
	install -m 755 $(RUBY_EXT) '$(DESTDIR)$(RUBY_SITEARCHDIR)/heapfmt/'

uninstall-ruby: uninstall-ruby-old
	rm -f '$(DESTDIR)$(RUBY_SITEARCHDIR)/heapfmt.rb' \
	  $(foreach f,$(notdir $(filter lib/heapfmt/%,$(RUBY_CODE)) $(RUBY_EXT)),'$(DESTDIR)$(RUBY_SITEARCHDIR)/heapfmt/$(f)')
	rmdir '$(DESTDIR)$(RUBY_SITEARCHDIR)/heapfmt' 2>/dev/null || true

# What `make install` put into Ruby's directory before the extension had
# a target of its own: a heapfmt.so that a plain `require "heapfmt"` loads
# before any gem's.
uninstall-ruby-old:
	rm -f '$(DESTDIR)$(RUBY_SITEARCHDIR)/heapfmt.$(or $(RUBY_DLEXT),so)'

-include $(RUBY_EXT_OBJS:.o=.d)

# heapfmt-ruby (tools/ruby) looks for the extension where install-ruby
# puts it, among other places.
ifneq ($(RUBY_DLEXT),)
$(BUILD)/obj/tools/ruby/ext.o: TOOL_CPPFLAGS += \
  -DHEAPFMT_RUBY_SITEARCHDIR='"$(RUBY_SITEARCHDIR)"'
endif
