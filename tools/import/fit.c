/* fit.c -- writing an object whose references may not fit the format. */
#include "cli_grow.h"
#include "fit.h"
#include "unique_ids.h"

int fit_write_object(heapfmt_writer *w, heapfmt_object *o, size_t nrefs,
                     import_stats *st)
{
    if (st->ids != NULL && unique_ids_check(st->ids, &o->id) != 0)
        return HEAPFMT_E_NOMEM;
    o->nrefs = nrefs;
    o->nrefs = heapfmt_object_refs_fit(o); /* a record fits in a block */
    int rc = heapfmt_write_object(w, o);
    if (rc != HEAPFMT_OK)
        return rc;
    st->objects++;
    st->refs += o->nrefs;
    st->refs_dropped += nrefs - o->nrefs;
    return HEAPFMT_OK;
}

int fit_refs_room(uint64_t **refs, heapfmt_label **labels, size_t *cap,
                  size_t need)
{
    size_t rcap = *cap, lcap = *cap;
    if (cli_grow((void **)refs, &rcap, need, sizeof **refs) != 0 ||
        cli_grow((void **)labels, &lcap, need, sizeof **labels) != 0)
        return HEAPFMT_E_NOMEM;
    *cap = rcap;
    return HEAPFMT_OK;
}
