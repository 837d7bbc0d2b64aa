/* fit.h -- writing an object whose references may not fit the format. */
#ifndef FIT_H
#define FIT_H

#include <stddef.h>

#include "heapfmt.h"
#include "import.h"

/* Writes o with its first nrefs references (o->refs, o->labels), or as
 * many as fit in a block (heapfmt_object_refs_fit). Counts the object
 * and the references written and dropped in st. An id met before
 * (st->ids) is replaced by a new one (unique_ids.h). Returns the
 * writer's result; o->nrefs tells how many were kept. */
int fit_write_object(heapfmt_writer *w, heapfmt_object *o, size_t nrefs,
                     import_stats *st);

/* Room for need references and their labels in *refs and *labels, two
 * arrays of one capacity *cap (an object's o->refs and o->labels).
 * Returns HEAPFMT_OK or HEAPFMT_E_NOMEM. */
int fit_refs_room(uint64_t **refs, heapfmt_label **labels, size_t *cap,
                  size_t need);

#endif /* FIT_H */
