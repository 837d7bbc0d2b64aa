/* cli_code.c -- Ruby's internal objects as the tools group them. */
#include <string.h>

#include "cli_code.h"

static int is(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n == l && memcmp(s, lit, l) == 0;
}

/* "KIND PATH:LINE" from a value "KIND LABEL@PATH:LINE" of the kind (its
 * first 5 bytes, "iseq " or "proc "); 0 when the value is not one. */
static int location(const heapfmt_robject *o, const char *kind, char *buf,
                    const char **key, size_t *len)
{
    const char *v = o->value;
    size_t n = o->value_len;
    if (!(o->fields & HEAPFMT_F_VALUE) || n < 6 || memcmp(v, kind, 5) != 0)
        return 0;
    const char *at = memchr(v + 5, '@', n - 5);
    if (at == NULL)
        return 0;
    size_t rest = n - (size_t)(at + 1 - v);
    if (rest > CLI_CODE_MAX - 5)
        rest = CLI_CODE_MAX - 5;
    memcpy(buf, kind, 5);
    memcpy(buf + 5, at + 1, rest);
    *key = buf;
    *len = 5 + rest;
    return 1;
}

int cli_code_key(enum cli_code_by by, const heapfmt_robject *o, char *buf,
                 const char **key, size_t *len)
{
    const heapfmt_rstring *t = o->type;
    int imemo = t != NULL && is(t->ptr ? t->ptr : "", t->len, "T_IMEMO");
    if (by == CLI_CODE_IMEMO) {
        if (!imemo) {
            *key = CLI_NOT_IMEMO;
            *len = strlen(CLI_NOT_IMEMO);
            return 0;
        }
        const char *v = o->value;
        size_t n = (o->fields & HEAPFMT_F_VALUE) ? o->value_len : 0;
        const char *sp = n ? memchr(v, ' ', n) : NULL;
        if (sp != NULL)
            n = (size_t)(sp - v);
        if (n == 0) {
            *key = "(no subtype)";
            *len = strlen(*key);
        } else {
            *key = v;
            *len = n < CLI_CODE_MAX ? n : CLI_CODE_MAX;
        }
        return 1;
    }
    if (imemo ? location(o, "iseq ", buf, key, len)
              : t != NULL && is(t->ptr ? t->ptr : "", t->len, "T_DATA") &&
                    location(o, "proc ", buf, key, len))
        return 1;
    *key = CLI_NO_ISEQ;
    *len = strlen(CLI_NO_ISEQ);
    return 0;
}
