/* hm_symbols.h -- names and source lines for instruction addresses
 * (hm_symbols.c), looked up when a dump is written. */
#ifndef HM_SYMBOLS_H
#define HM_SYMBOLS_H

#include "hm.h"

typedef struct hm_symbol {
    const char *function; /* NULL when unknown */
    const char *library;  /* the object's path, NULL when unknown */
    uint64_t offset;      /* the address as in the library's file (what
                           * addr2line -e LIBRARY takes) */
    const char *file;     /* source file, NULL without debug information */
    unsigned line;
} hm_symbol;

typedef struct hm_symbolizer hm_symbolizer;

/* A view of the process's modules as mapped now, for one dump. NULL only
 * without memory; the strings it gives stay valid until it is closed.
 * Without files (a thread that shares the program's descriptor table:
 * libdwfl opens objects without close-on-exec and reads them by number),
 * names come from the loader alone (dladdr) and there are no lines. */
hm_symbolizer *hm_symbols_open(int files);
void hm_symbols_close(hm_symbolizer *s);

/* Names ip (a return address). s may be NULL (then dladdr alone). */
void hm_symbolize(hm_symbolizer *s, uintptr_t ip, hm_symbol *out);

#endif
