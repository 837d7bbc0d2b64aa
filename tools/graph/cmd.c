/* cmd.c -- what the subcommands of heapfmt-graph share. */
#include <errno.h>
#include <stdlib.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cmd.h"

int cmd_load_for_ids(graph *g, char *const *args, int nargs,
                     const graph_query *opt, unsigned keep)
{
    for (int i = 1; i < nargs; i++) { /* usage errors before the work */
        uint64_t id;
        if (cmd_parse_id(args[i], &id) != 0)
            return CLI_EXIT_USAGE;
    }
    int rc = cli_an_exit(opt->ctx, graph_query_load(g, args[0], opt,
                                                     LOAD_LABELS |
                                                         LOAD_OBJECTS | keep));
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_INCOMPLETE)
        graph_free(g);
    return rc;
}

int graph_worse(int a, int b)
{
    if (a == CLI_EXIT_ERROR || b == CLI_EXIT_ERROR)
        return CLI_EXIT_ERROR;
    if (a == CLI_EXIT_INCOMPLETE || b == CLI_EXIT_INCOMPLETE)
        return CLI_EXIT_INCOMPLETE;
    return a != CLI_EXIT_OK ? a : b;
}

int cmd_parse_id(const char *s, uint64_t *id)
{
    char *end;
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    if (*digits == '\0' || *digits == '-' || *digits == '+' ||
        *digits == ' ') {
        cli_usage_error("invalid object id '%s': expected a number such as "
                        "0x00007f3a8c0d1e28 or 140000000",
                        s);
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
    if (*end != '\0' || errno != 0) {
        cli_usage_error("invalid object id '%s': expected a number such as "
                        "0x00007f3a8c0d1e28 or 140000000",
                        s);
        return -1;
    }
    *id = (uint64_t)v;
    return 0;
}

int cmd_one_dump_by_class_or_site(const char *name, const graph_query *opt,
                                  int nargs)
{
    if (nargs != 1) {
        cli_usage_error("%s: expected one dump", name);
        return -1;
    }
    /* The graph keeps each object's class and site, not its stack: a
     * stack or frame grouping would print rows without their key. */
    if (opt->by & ~(unsigned)(GROUP_CLASS | GROUP_SITE)) {
        cli_usage_error("%s: --by takes class, site or class,site", name);
        return -1;
    }
    return 0;
}
