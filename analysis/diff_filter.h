/* diff_filter.h -- which classes to report: --class NAME and --match REGEX.
 *
 * With no filter every class passes. Otherwise a class passes when its
 * display name (cli_names.h) equals one of the NAMEs or matches one of the
 * REGEXes (POSIX extended, as grep -E, unanchored). A name with a NUL byte
 * is matched by a REGEX up to that byte. */
#ifndef DIFF_FILTER_H
#define DIFF_FILTER_H

#include <regex.h>
#include <stddef.h>

#define FILTER_MAX 64 /* of each kind */

typedef struct filter {
    const char *names[FILTER_MAX];
    size_t nnames;
    regex_t res[FILTER_MAX];
    size_t nres;
} filter;

void diff_filter_init(filter *f);
void diff_filter_free(filter *f);

/* Whether any --class or --match was given. */
int diff_filter_active(const filter *f);

/* Adds an exact class name (kept by pointer: it must outlive f). Returns
 * 0, or -1 when FILTER_MAX are already there. */
int diff_filter_add_name(filter *f, const char *name);

/* Compiles and adds a regular expression. Returns 0, or -1 with the
 * reason in err (too many, or regcomp's message). */
int diff_filter_add_regex(filter *f, const char *pattern, char *err,
                     size_t errlen);

/* Whether the class named by the len bytes at name (NUL-terminated)
 * passes; f may be NULL (everything passes). */
int diff_filter_pass(const filter *f, const char *name, size_t len);

#endif /* DIFF_FILTER_H */
