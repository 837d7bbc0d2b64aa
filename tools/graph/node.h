/* node.h -- the cells that describe a node and an edge in every answer.
 *
 * A node is five cells: id, class, type, bytes, site. An object gives its
 * own; a ROOT record gives no id, the class "(root)" and its kind as type;
 * the virtual root (all roots together) the class "(roots)". An edge is
 * one cell, "via": its label as text (see graph_label_text). */
#ifndef GRAPH_NODE_H
#define GRAPH_NODE_H

#include "graph.h"
#include "out.h"

#define NODE_COLUMNS "id", "class", "type", "bytes", "site"
#define NODE_NCOLUMNS 5

void node_cells(cli_rows *o, const graph *g, uint32_t v);

/* The cells of a group of objects (dominators, leaked): its class and/or
 * its site, as by has DIFF_BY_CLASS and DIFF_BY_SITE; a site without a
 * file is null. */
void node_group_cells(cli_rows *o, const graph *g, const tuple *k, unsigned by);

/* The column names of those rows: "class" and/or "site", as by has them,
 * then the n names of tail, into cols (room for n + 2). Returns the
 * count. */
size_t node_group_columns(unsigned by, const char *const *tail, size_t n,
                          const char **cols);

/* The "via" cell of an edge: its label, or null. GRAPH_NONE: null. */
void node_via_cell(cli_rows *o, const graph *g, size_t edge);

#endif /* GRAPH_NODE_H */
