/* ext.h -- heapfmt-ruby: the Ruby extension to load into the target.
 *
 * An extension loads only into the Ruby it was built for: its
 * heapfmt_ruby_api_version (read from the file, not by loading it) must
 * be the target's Ruby API version, and the libruby it was linked with
 * the one the target has mapped. Looked for, in order: --ext, the
 * HEAPFMT_RUBY_EXT environment variable, ../ruby/heapfmt/heapfmt.so beside
 * this program (a build tree), and sitearchdir/heapfmt/heapfmt.so, where
 * `make install-ruby` puts it. */
#ifndef RUBY_EXT_H
#define RUBY_EXT_H

#include <limits.h>
#include <stddef.h>

#include "target.h"

/* Finds the extension for t; given is --ext's argument or NULL. Stores
 * its absolute path in path (PATH_MAX bytes). Returns 0, or 1 with one
 * line in err. */
int ext_find(const target *t, const char *given, char *path, char *err,
             size_t errlen);

#endif /* RUBY_EXT_H */
