/* radix.h -- in-place radix sort of objects by id.
 *
 * Ids are mostly addresses: 8-byte keys whose top bytes are shared. An
 * American flag sort (most significant byte first, permuting in place)
 * starts at the highest byte where the ids differ, splits into 256
 * buckets per byte, and finishes small buckets with insertion sort. It
 * needs no second array, so sorting 10 million objects costs no memory
 * beyond the 100 MB they already take: only the objects on the side (see
 * objset.h) are copied once, to be merged. Not stable. */
#ifndef DIFF_RADIX_H
#define DIFF_RADIX_H

#include <stddef.h>

#include "objset.h"

/* Sorts the objects of s by id; renumbers its regions in the order of
 * their high words. */
void radix_sort(objset *s);

#endif /* DIFF_RADIX_H */
