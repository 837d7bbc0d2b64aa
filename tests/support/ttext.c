/*
 * ttext.c -- see ttext.h.
 */
#include "ttext.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>
#include <string.h>

FILE *tcap_open(tcap *c)
{
    c->text = NULL;
    c->len = 0;
    c->f = open_memstream(&c->text, &c->len);
    cr_assert_not_null(c->f);
    return c->f;
}

char *tcap_close(tcap *c)
{
    cr_assert_eq(fclose(c->f), 0);
    c->f = NULL;
    return c->text;
}

size_t tlines(char *text, char **v, size_t max)
{
    size_t n = 0;
    for (char *p = text; *p != '\0';) {
        char *nl = strchr(p, '\n');
        cr_assert_not_null(nl, "last line lacks its newline");
        *nl = '\0';
        cr_assert_lt(n, max, "more than %zu lines", max);
        v[n++] = p;
        p = nl + 1;
    }
    return n;
}

size_t tfields(const char *line, char sep)
{
    size_t n = 1;
    for (const char *p = line; *p; p++)
        n += *p == sep;
    return n;
}

size_t tcolumn(const char *line, const char *p)
{
    cr_assert_not_null(p);
    size_t c = 0;
    for (const char *q = line; q < p; q++)
        c += ((unsigned char)*q & 0xc0) != 0x80;
    return c;
}

enum { TX_MAX_LINES = 256 };

void texpect_check(const char *name, const char *text, size_t nlines,
                   const texpect *want)
{
    char *copy = strdup(text), *v[TX_MAX_LINES];
    cr_assert_not_null(copy);
    size_t n = tlines(copy, v, TX_MAX_LINES);
    if (nlines != TX_ANY)
        cr_assert_eq(n, nlines, "%s: %zu lines, want %zu:\n%s", name, n,
                     nlines, text);
    for (const texpect *w = want; w->how != 0; w++) {
        const char *line = text;
        if (w->line == TX_WHOLE) {
            cr_assert(w->how == TX_EQ || w->how == TX_HAS ||
                          w->how == TX_PREFIX,
                      "%s: TX_WHOLE goes with TX_EQ, TX_HAS or TX_PREFIX",
                      name);
        } else if (w->how != TX_FIELDS) {
            cr_assert_lt((size_t)w->line, n, "%s: no line %d:\n%s", name,
                         w->line, text);
            line = v[w->line];
        }
        switch (w->how) {
        case TX_EQ:
            cr_assert_str_eq(line, w->text, "%s: line %d", name, w->line);
            break;
        case TX_PREFIX:
            cr_assert(strncmp(line, w->text, strlen(w->text)) == 0,
                      "%s: line %d '%s' does not start with '%s'", name,
                      w->line, line, w->text);
            break;
        case TX_HAS:
            cr_assert_not_null(strstr(line, w->text),
                               "%s: line %d lacks '%s':\n%s", name, w->line,
                               w->text, line);
            break;
        case TX_RULE:
            cr_assert_eq(strspn(line, "- "), strlen(line),
                         "%s: line %d is not a rule: '%s'", name, w->line,
                         line);
            break;
        case TX_ALIGNED: {
            const char *head = strstr(v[0], w->under);
            const char *at = strstr(line, w->text);
            cr_assert_not_null(head, "%s: header lacks '%s'", name, w->under);
            cr_assert_not_null(at, "%s: line %d lacks '%s'", name, w->line,
                               w->text);
            cr_assert_eq(tcolumn(line, at), tcolumn(v[0], head),
                         "%s: '%s' is not under '%s': '%s'", name, w->text,
                         w->under, line);
            break;
        }
        case TX_FIELDS:
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(tfields(v[i], w->sep), w->count,
                             "%s: line %zu: %s", name, i, v[i]);
            break;
        default: cr_assert_fail("%s: bad expectation %d", name, w->how);
        }
    }
    free(copy);
}

static const char *tcase_current;

void tcase_enter(const char *name)
{
    tcase_current = name;
}

void tcase_leave(void)
{
    tcase_current = NULL;
}

void tcase_fini(void)
{
    if (tcase_current != NULL)
        cr_log_error("failed in case %s", tcase_current);
}
