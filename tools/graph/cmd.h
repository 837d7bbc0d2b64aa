/* cmd.h -- the subcommands of heapfmt-graph and the options they share. */
#ifndef GRAPH_CMD_H
#define GRAPH_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "summary.h"

/* dominators --by: heapfmt-diff's --by values. */
enum { GROUP_CLASS = DIFF_BY_CLASS, GROUP_SITE = DIFF_BY_SITE };

typedef struct cmd_options {
    int format;             /* enum out_format */
    uint64_t top;           /* most rows (objects, groups, owners); 0 all */
    int top_given;          /* -n was given */
    uint64_t npaths;        /* path: distinct paths per object */
    int weak;               /* weak references hold their targets too */
    int no_weak;            /* referrers: leave weak references out */
    int no_class_refs;      /* leave out each object's reference to its
                               class */
    unsigned by;            /* dominators: 0 objects, else GROUP_* bits */
    const char *const *classes; /* referrers --class names */
    size_t nclasses;
    int objects;            /* leaked: one row per object */
    const diff_mem *mem;    /* NULL: malloc */
} cmd_options;

/* Each returns the exit code (CLI_EXIT_*) after printing its answer or
 * its error. args are the operands after the subcommand's name. */
int cmd_referrers(const cmd_options *opt, char *const *args, int nargs);
int cmd_path(const cmd_options *opt, char *const *args, int nargs);
int cmd_dominators(const cmd_options *opt, char *const *args, int nargs);
int cmd_owners(const cmd_options *opt, char *const *args, int nargs);
int cmd_leaked(const cmd_options *opt, char *const *args, int nargs);

/* What cmd_load keeps (graph_options). */
enum {
    LOAD_WEAK = 1u,    /* weak references */
    LOAD_LABELS = 2u,  /* labels of the references */
    LOAD_INDEX = 4u,   /* the id index */
    LOAD_OBJECTS = 8u, /* ids, sizes and kinds */
    LOAD_TARGET_IDS = 16u /* references as their targets' ids, unresolved */
};

/* Loads a dump for a subcommand, with a progress line on a terminal;
 * weak references are kept with --weak (or LOAD_WEAK), each object's
 * reference to its class unless --no-class-refs. Returns the load's exit
 * code (graph_load). */
int cmd_load(graph *g, const char *path, const cmd_options *opt,
             unsigned keep);

/* For the subcommands on one dump and object ids (args[1..]): checks the
 * ids, then loads args[0] keeping labels, objects, and what keep adds. Returns the exit code: CLI_EXIT_OK or
 * CLI_EXIT_INCOMPLETE with g loaded, else g is freed. */
int cmd_load_for_ids(graph *g, char *const *args, int nargs,
                     const cmd_options *opt, unsigned keep);

/* Parses an object id as given on the command line: 0x-prefixed
 * hexadecimal or decimal. Returns 0, or -1 after a usage message. */
int cmd_parse_id(const char *s, uint64_t *id);

/* The arguments of a subcommand that reads one dump and groups by class
 * or site (dominators, leaked): one dump, --by class, site or both.
 * Returns 0, or -1 after a usage message naming the subcommand. */
int cmd_one_dump_by_class_or_site(const char *name, const cmd_options *opt,
                                  int nargs);

/* Warnings about what the graph left out (dangling references,
 * duplicate ids), on stderr. */
void cmd_warn_graph(const graph *g);

/* The worse of two exit codes: error over incomplete over success. */
int cmd_worse(int a, int b);

#endif /* GRAPH_CMD_H */
