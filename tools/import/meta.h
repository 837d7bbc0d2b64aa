/* meta.h -- the META records every import begins with. */
#ifndef META_H
#define META_H

#include "heapfmt.h"

/* Writes producer (heapfmt-import and its version), vm.name, import.format
 * and, when source is a usable name, import.source. Returns HEAPFMT_OK or
 * the writer's error. */
int meta_write(heapfmt_writer *w, const char *vm, const char *format,
               const char *source);

#endif /* META_H */
