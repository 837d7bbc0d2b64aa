/* cmd.h -- the subcommands of heapfmt-graph and what their command lines
 * share; the options are a graph_query (analysis/graph_query.h). */
#ifndef GRAPH_CMD_H
#define GRAPH_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "cli_ctx.h"
#include "graph.h"
#include "graph_query.h"

/* Each returns the exit code (CLI_EXIT_*) after printing its answer or
 * its error. args are the operands after the subcommand's name. */
int cmd_referrers(const graph_query *opt, char *const *args, int nargs);
int cmd_path(const graph_query *opt, char *const *args, int nargs);
int cmd_dominators(const graph_query *opt, char *const *args, int nargs);
int cmd_owners(const graph_query *opt, char *const *args, int nargs);
int cmd_leaked(const graph_query *opt, char *const *args, int nargs);

/* For the subcommands on one dump and object ids (args[1..]): checks the
 * ids, then loads args[0] keeping labels, objects, and what keep adds.
 * Returns the exit code: CLI_EXIT_OK or CLI_EXIT_INCOMPLETE with g
 * loaded, else g is freed (and the failure said). The subcommands call
 * the engines with opt->ctx (main.c's) and turn each status into an
 * exit code with cli_an_exit, which prints the failure. */
int cmd_load_for_ids(graph *g, char *const *args, int nargs,
                     const graph_query *opt, unsigned keep);

/* The worse of two exit codes: error over incomplete over success. */
int graph_worse(int a, int b);

/* Parses an object id as given on the command line: 0x-prefixed
 * hexadecimal or decimal. Returns 0, or -1 after a usage message. */
int cmd_parse_id(const char *s, uint64_t *id);

/* The arguments of a subcommand that reads one dump and groups by class
 * or site (dominators, leaked): one dump, --by class, site or both.
 * Returns 0, or -1 after a usage message naming the subcommand. */
int cmd_one_dump_by_class_or_site(const char *name, const graph_query *opt,
                                  int nargs);

#endif /* GRAPH_CMD_H */
