/* core.h -- reading an ELF64 x86-64 core file (gcore's or the kernel's)
 * into an image. */
#ifndef CORE_CORE_H
#define CORE_CORE_H

#include <stddef.h>

#include "image.h"

/* Maps the core at path and fills im (img_free frees it in every case).
 * Returns 0, or -1 with a one-line reason in err: not a file, not ELF,
 * not a core, another architecture, no segments. A core whose data ends
 * early opens, with im->truncated set and im->missing the bytes lacked. */
int core_open(image *im, const char *path, char *err, size_t errlen);

/* The same over size bytes already in memory (they must outlive im; the
 * fuzz harness). im must be empty (img_init). */
int core_parse(image *im, const void *data, size_t size, char *err,
               size_t errlen);

#endif /* CORE_CORE_H */
