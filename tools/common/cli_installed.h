/* cli_installed.h -- the files a tool finds beside its own executable:
 * heapfmt-malloc's tracker (BINDIR/../lib/libheapfmt-malloc.so),
 * heapfmt-replay's child (BINDIR/../lib/heapfmt-replay-child),
 * heapfmt-ruby's extension (BINDIR/../ruby/heapfmt/heapfmt.so). Found
 * from /proc/self/exe, so an installed tree and the build tree both work
 * wherever they are moved. */
#ifndef CLI_INSTALLED_H
#define CLI_INSTALLED_H

#include <stddef.h>

/* The path of such a file, in out: the value of the environment variable
 * env when env is not NULL and the variable is set and not empty, else
 * DIR/rel where DIR is the directory of this program's executable.
 * Returns 0, or -1 with errno set (ENAMETOOLONG: it did not fit in len
 * bytes, and out holds it cut short; out is "" when the executable's
 * directory is unknown). Whether the file is there is the caller's to
 * check. */
int cli_installed_path(const char *env, const char *rel, char *out,
                       size_t len);

#endif /* CLI_INSTALLED_H */
