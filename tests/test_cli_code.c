/*
 * test_cli_code.c -- the rows of Ruby's internal objects (histo and
 * heapfmt-diff --by=imemo and --by=iseq): which objects have one, and its
 * name, on objects built by hand as a reader delivers them.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "cli_code.h"

static heapfmt_rstring type_of(const char *s)
{
    return (heapfmt_rstring){s, strlen(s), 1, 1, 0, 0};
}

/* The key of an object of type type with value value (NULL: none). */
static int key(enum cli_code_by by, const char *type, const char *value,
               char *out)
{
    heapfmt_rstring t = type_of(type);
    heapfmt_robject o;
    memset(&o, 0, sizeof o);
    o.type = &t;
    if (value != NULL) {
        o.fields = HEAPFMT_F_VALUE;
        o.value = value;
        o.value_len = strlen(value);
    }
    char buf[CLI_CODE_MAX];
    const char *k;
    size_t len;
    int has = cli_code_key(by, &o, buf, &k, &len);
    memcpy(out, k, len);
    out[len] = '\0';
    return has;
}

typedef struct code_case {
    enum cli_code_by by;
    const char *type, *value;
    int has;
    const char *want;
} code_case;

static const code_case cases[] = {
    /* the subtype: the value's first word */
    {CLI_CODE_IMEMO, "T_IMEMO", "env", 1, "env"},
    {CLI_CODE_IMEMO, "T_IMEMO", "iseq foo@a.rb:3", 1, "iseq"},
    {CLI_CODE_IMEMO, "T_IMEMO", NULL, 1, "(no subtype)"},
    {CLI_CODE_IMEMO, "T_IMEMO", "", 1, "(no subtype)"},
    {CLI_CODE_IMEMO, "T_STRING", "iseq", 0, CLI_NOT_IMEMO},
    {CLI_CODE_IMEMO, "T_DATA", "proc block in x@a.rb:1", 0, CLI_NOT_IMEMO},
    /* the place of the code: the label left out */
    {CLI_CODE_ISEQ, "T_IMEMO", "iseq _a1b2@(eval):1", 1, "iseq (eval):1"},
    {CLI_CODE_ISEQ, "T_IMEMO", "iseq _c3@(eval at app/x.rb:7):1", 1,
     "iseq (eval at app/x.rb:7):1"},
    {CLI_CODE_ISEQ, "T_DATA", "proc block in call@app/jobs/sync.rb:12", 1,
     "proc app/jobs/sync.rb:12"},
    /* a path with '@' (rvm gemsets): the location starts at the first */
    {CLI_CODE_ISEQ, "T_IMEMO", "iseq get@/home/u/.rvm/gems/ruby-3.1@app/x.rb:9",
     1, "iseq /home/u/.rvm/gems/ruby-3.1@app/x.rb:9"},
    {CLI_CODE_ISEQ, "T_IMEMO", "iseq @a.rb:1", 1, "iseq a.rb:1"},
    /* not code, or code without a place */
    {CLI_CODE_ISEQ, "T_DATA", "proc", 0, CLI_NO_ISEQ},
    {CLI_CODE_ISEQ, "T_DATA", "VM/thread", 0, CLI_NO_ISEQ},
    {CLI_CODE_ISEQ, "T_IMEMO", "env", 0, CLI_NO_ISEQ},
    {CLI_CODE_ISEQ, "T_IMEMO", "iseq", 0, CLI_NO_ISEQ},
    {CLI_CODE_ISEQ, "T_IMEMO", "iseq without a place", 0, CLI_NO_ISEQ},
    {CLI_CODE_ISEQ, "T_IMEMO", NULL, 0, CLI_NO_ISEQ},
    {CLI_CODE_ISEQ, "T_STRING", "iseq x@a.rb:1", 0, CLI_NO_ISEQ},
    {CLI_CODE_ISEQ, "T_OBJECT", "proc x@a.rb:1", 0, CLI_NO_ISEQ},
    {CLI_CODE_ISEQ, "T_DATA", "iseq x@a.rb:1", 0, CLI_NO_ISEQ},
};

Test(cli_code, keys)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const code_case *c = &cases[i];
        char got[CLI_CODE_MAX + 1];
        int has = key(c->by, c->type, c->value, got);
        cr_expect_eq(has, c->has, "case %zu (%s %s): has %d", i, c->type,
                     c->value ? c->value : "(none)", has);
        cr_expect_str_eq(got, c->want, "case %zu (%s %s)", i, c->type,
                         c->value ? c->value : "(none)");
    }
}

Test(cli_code, long_places_are_cut)
{
    char value[3 * CLI_CODE_MAX];
    memcpy(value, "iseq m@", 7);
    memset(value + 7, 'p', sizeof value - 8);
    value[sizeof value - 1] = '\0';
    char got[CLI_CODE_MAX + 1];
    cr_assert_eq(key(CLI_CODE_ISEQ, "T_IMEMO", value, got), 1);
    cr_expect_eq(strlen(got), CLI_CODE_MAX);
    cr_expect_eq(strncmp(got, "iseq ppp", 8), 0);
    memset(value, 'x', sizeof value - 1);
    cr_assert_eq(key(CLI_CODE_IMEMO, "T_IMEMO", value, got), 1);
    cr_expect_eq(strlen(got), CLI_CODE_MAX);
}

Test(cli_code, no_type)
{
    heapfmt_rstring t = {"", 0, 0, 0, 0, 0};
    heapfmt_robject o;
    memset(&o, 0, sizeof o);
    o.type = &t;
    char buf[CLI_CODE_MAX];
    const char *k;
    size_t len;
    cr_expect_eq(cli_code_key(CLI_CODE_IMEMO, &o, buf, &k, &len), 0);
    cr_expect_eq(cli_code_key(CLI_CODE_ISEQ, &o, buf, &k, &len), 0);
}
