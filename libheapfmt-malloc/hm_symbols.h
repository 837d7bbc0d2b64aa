/* hm_symbols.h -- names for instruction addresses (hm_symbols.c). */
#ifndef HM_SYMBOLS_H
#define HM_SYMBOLS_H

#include "hm.h"

typedef struct hm_symbol {
    const char *function; /* NULL when unknown */
    const char *library;  /* the object's path, NULL when unknown */
    uint64_t offset;      /* the address as in the library's file (what
                           * addr2line -e LIBRARY takes) */
} hm_symbol;

/* Names ip. The strings stay valid for the life of the process (or until
 * the library is unloaded). Not thread-safe: the dumping thread only. */
void hm_symbolize(uintptr_t ip, hm_symbol *out);

#endif
