/* writer_direct.h -- the OBJECT record of a trusted producer (not
 * installed; library-internal).
 *
 * heapfmt_write_object checks every field of every object it is given:
 * the field bits, the lengths, each string id, every label's kind, weak
 * bit, index range and string id, and then whether the record fits. A
 * producer built from this tree that makes those fields itself (the Ruby
 * gem's heap walk: bindings/ruby/heapfmt_walk.c) knows them valid, and
 * pays for the checks once per object by the million. This entry writes
 * the same bytes without them: on the app-record heap of
 * bench/ruby_walk_profile.rb (337k objects) heapfmt_write_object and
 * heapfmt_object_refs_fit took 478 instructions an object (callgrind),
 * this path 342 (the walk's whole dump: 451M instructions to 405M).
 *
 * The public entry stays heapfmt_write_object: any other producer uses
 * it. */
#ifndef HEAPFMT_WRITER_DIRECT_H
#define HEAPFMT_WRITER_DIRECT_H

#include "heapfmt.h"

/* Writes o as heapfmt_write_object would, byte for byte, when o is one
 * heapfmt_write_object accepts and heapfmt_object_refs_fit(o) ==
 * o->nrefs; the caller vouches for both: nothing of o is checked (field
 * bits, value and reference counts, string ids, labels, stack id). An
 * error of the writer's own (a write, memory, a record larger than a
 * block) is returned and recorded as the public entry does. */
int hf_write_object_direct(heapfmt_writer *w, const heapfmt_object *o);

#endif
