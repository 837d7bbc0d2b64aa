/* ext.c -- heapfmt-ruby: finding an extension built for the target's Ruby. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_elf.h"
#include "cli_installed.h"
#include "ext.h"

#ifndef HEAPFMT_RUBY_SITEARCHDIR /* the Makefile gives Ruby's sitearchdir */
#define HEAPFMT_RUBY_SITEARCHDIR "/usr/local/lib/site_ruby"
#endif

/* Why path does not fit t: "" when it does. */
static void check(const target *t, const char *path, char *why, size_t len)
{
    cli_elf *e;
    char reason[128];
    why[0] = '\0';
    if (cli_elf_open(&e, path, reason, sizeof reason) != 0) {
        snprintf(why, len, "%.4000s: %s", path, reason);
        return;
    }
    uint64_t v, size;
    int api[3];
    if (cli_elf_symbol(e, "heapfmt_ruby_api_version", &v, &size) != 0 ||
        size != sizeof api || cli_elf_read(e, v, api, sizeof api) != 0) {
        snprintf(why, len, "%.4000s is not a heapfmt extension of this version "
                           "(no heapfmt_ruby_api_version)",
                 path);
    } else if (api[0] != t->api[0] || api[1] != t->api[1]) {
        snprintf(why, len, "unsupported Ruby version: the process runs Ruby "
                           "%s, the extension %.4000s is built for Ruby %d.%d "
                           "(build one for this Ruby: make ruby RUBY=..., "
                           "and give it with --ext)",
                 t->ruby_version, path, api[0], api[1]);
    } else {
        for (size_t i = 0; cli_elf_needed(e, i) != NULL; i++) {
            const char *need = cli_elf_needed(e, i);
            if (strncmp(need, "libruby", 7) != 0 ||
                strcmp(need, t->libruby) == 0)
                continue;
            snprintf(why, len, "%.4000s is linked with %s, the process %s",
                     path, need,
                     t->libruby[0] ? t->libruby : "has a static Ruby");
            break;
        }
    }
    cli_elf_close(e);
}

int ext_find(const target *t, const char *given, char *path, char *err,
             size_t errlen)
{
    char cand[4][PATH_MAX];
    size_t n = 0;
    const char *env = getenv("HEAPFMT_RUBY_EXT");
    if (given != NULL) {
        snprintf(cand[n++], PATH_MAX, "%s", given);
    } else {
        if (env != NULL && env[0] != '\0')
            snprintf(cand[n++], PATH_MAX, "%s", env);
        if (cli_installed_path(NULL, "../ruby/heapfmt/heapfmt.so", cand[n],
                               PATH_MAX) == 0)
            n++;
        snprintf(cand[n++], PATH_MAX, "%s/heapfmt/heapfmt.so",
                 HEAPFMT_RUBY_SITEARCHDIR);
    }
    char first_why[PATH_MAX + 256] = "";
    for (size_t i = 0; i < n; i++) {
        if (given == NULL && access(cand[i], F_OK) != 0)
            continue;
        char why[PATH_MAX + 256];
        check(t, cand[i], why, sizeof why);
        if (why[0] == '\0') {
            if (realpath(cand[i], path) == NULL) {
                snprintf(err, errlen, "%s: %s", cand[i], strerror(errno));
                return 1;
            }
            return 0;
        }
        if (first_why[0] == '\0')
            snprintf(first_why, sizeof first_why, "%s", why);
    }
    if (first_why[0] != '\0')
        snprintf(err, errlen, "%s", first_why);
    else
        snprintf(err, errlen, "the heapfmt Ruby extension is not installed "
                              "(make install-ruby, or give it with --ext)");
    return 1;
}
