/* radix.h -- in-place radix sort of objects by id.
 *
 * Ids are mostly addresses: 8-byte keys whose top bytes are shared. An
 * American flag sort (most significant byte first, permuting in place)
 * starts at the highest byte where the ids differ, splits into 256
 * buckets per byte, and finishes small buckets with insertion sort. It
 * needs no second array, so sorting 10 million objects costs no memory
 * beyond the 160 MB they already take. Not stable. */
#ifndef DIFF_RADIX_H
#define DIFF_RADIX_H

#include <stddef.h>

#include "objset.h"

void radix_sort(dobj *v, size_t n);

#endif /* DIFF_RADIX_H */
