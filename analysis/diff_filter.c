/* diff_filter.c -- which classes to report: --class NAME and --match REGEX. */
#include <stdio.h>
#include <string.h>

#include "cli_names.h"
#include "diff_filter.h"

void diff_filter_init(filter *f)
{
    memset(f, 0, sizeof *f);
}

void diff_filter_free(filter *f)
{
    for (size_t i = 0; i < f->nres; i++)
        regfree(&f->res[i]);
    f->nres = 0;
    f->nnames = 0;
}

int diff_filter_active(const filter *f)
{
    return f != NULL && (f->nnames > 0 || f->nres > 0);
}

int diff_filter_add_name(filter *f, const char *name)
{
    if (f->nnames >= FILTER_MAX)
        return -1;
    f->names[f->nnames++] = name;
    return 0;
}

int diff_filter_add_regex(filter *f, const char *pattern, char *err,
                     size_t errlen)
{
    if (f->nres >= FILTER_MAX) {
        snprintf(err, errlen, "at most %d expressions", FILTER_MAX);
        return -1;
    }
    int rc = regcomp(&f->res[f->nres], pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        regerror(rc, &f->res[f->nres], err, errlen);
        return -1;
    }
    f->nres++;
    return 0;
}

int diff_filter_pass(const filter *f, const char *name, size_t len)
{
    if (!diff_filter_active(f))
        return 1;
    for (size_t i = 0; i < f->nnames; i++) {
        /* names are shown cut (cli_name_cut): so is a long NAME */
        cli_name cut;
        size_t n;
        const char *want =
            cli_name_cut(f->names[i], strlen(f->names[i]), &cut, &n);
        if (n == len && memcmp(want, name, len) == 0)
            return 1;
    }
    for (size_t i = 0; i < f->nres; i++)
        if (regexec(&f->res[i], name, 0, NULL, 0) == 0)
            return 1;
    return 0;
}
