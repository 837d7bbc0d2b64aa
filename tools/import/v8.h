/* v8.h -- heapfmt-import of V8 heap snapshots (.heapsnapshot).
 *
 * v8_run() reads a snapshot written by v8.writeHeapSnapshot(), node
 * --heapsnapshot-signal or Chrome DevTools through a read callback and
 * writes the heap to a heapfmt writer. Every node is an OBJECT:
 *   id -> id (V8 keeps a node's id for the object's life: ids_stable=1)
 *   node type -> type ("object", "closure", "string", "hidden"...)
 *   DevTools' class name -> class: the node's name for "object" and
 *     "native" nodes (the constructor), "(system)" for "hidden",
 *     "(compiled code)" for "code", else the type in parentheses
 *   self_size -> size
 *   the name of string, number, closure, regexp, symbol and bigint nodes
 *     (their text or source name) -> value preview (opt->preview bytes)
 *   edges -> references, in order, labelled: "element" and "hidden" edges
 *     by their index, every other edge by its name (a field name), "weak"
 *     edges also marked weak.
 * Roots: the synthetic root node (node 0) as ROOT "v8:root", and the
 * members of each category under "(GC roots)" as a ROOT whose kind is the
 * category's name ("(Stack roots)", "(Global handles)"...).
 *
 * Streaming: the file is read once and never whole. The snapshot's layout
 * decides what must be kept: edges name their target by its position in
 * the nodes array and labels and classes are names in "strings", which
 * comes last. So the nodes (25 bytes each) and edges (9 bytes each) are
 * kept in compact arrays that grow with what was read, and the records are
 * written once the strings are there; only the strings used as class names
 * or labels are kept (by the writer's string table). The members must come
 * in V8's order: "snapshot", "nodes", "edges", "strings" (others are
 * skipped wherever they are). */
#ifndef V8_H
#define V8_H

#include "heapfmt.h"
#include "import.h"
#include "lines.h"

/* import_run for a V8 heap snapshot: the same results, options (strict,
 * buffer, source, report; a diagnostic's line is 0 and the text names the
 * byte offset) and statistics (lines stays 0). opt and st are not NULL,
 * and st is zeroed (import_run sees to both). */
int v8_run(heapfmt_writer *w, lr_read_fn read, void *opaque,
           const import_options *opt, import_stats *st);

#endif /* V8_H */
