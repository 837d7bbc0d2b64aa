# bindings/ruby/ruby.mk -- the Ruby extension, included by the top-level
# Makefile (which defines BUILD, LIB_A, CFLAGS, DEPFLAGS, DESTDIR...).
#
#   make ruby            build $(BUILD)/ruby/heapfmt.so: ruby -I build/ruby
#                        -e 'require "heapfmt"'
#   make ruby-lib        also copies it to lib/heapfmt.so (RUBY_LIB_DIR=dir:
#                        elsewhere), where Bundler finds it for a
#                        `gem "heapfmt", path: "..."` source: Bundler does
#                        not compile the extensions of path sources
#   make install         also installs it into Ruby's sitearchdir (where
#                        `require "heapfmt"` finds it), under DESTDIR;
#                        RUBY_SITEARCHDIR=dir installs it elsewhere.
#
# `all`, `install` and `uninstall` include the extension only when ruby and
# its headers (Debian: ruby-dev) are installed. RUBY names the ruby to build
# for (default: ruby).

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
RUBY_EXT      := $(BUILD)/ruby/heapfmt.$(or $(RUBY_DLEXT),so)

.PHONY: ruby ruby-lib install-ruby uninstall-ruby

RUBY_LIB_DIR ?= lib

ifneq ($(RUBY_DLEXT),)
all: ruby
install: install-ruby
uninstall: uninstall-ruby

## ruby: build the Ruby extension build/ruby/heapfmt.so (needs ruby-dev)
ruby: $(RUBY_EXT)
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

## ruby-lib: the extension in lib/heapfmt.so, for Bundler's path: sources
ruby-lib: $(RUBY_EXT)
	@mkdir -p '$(RUBY_LIB_DIR)'
	cp $(RUBY_EXT) '$(RUBY_LIB_DIR)/'

install-ruby: $(RUBY_EXT)
	install -d '$(DESTDIR)$(RUBY_SITEARCHDIR)'
	install -m 755 $(RUBY_EXT) '$(DESTDIR)$(RUBY_SITEARCHDIR)/'

uninstall-ruby:
	rm -f '$(DESTDIR)$(RUBY_SITEARCHDIR)/$(notdir $(RUBY_EXT))'

-include $(RUBY_EXT_OBJS:.o=.d)
