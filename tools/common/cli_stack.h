/* cli_stack.h -- allocation call stacks (format 1.1) as the tools show
 * them, so that histo and heapfmt-diff print and group the same text.
 *
 * The top frame of a stack is the frame a reader of a native heap wants:
 * the innermost frame of the program itself, past the allocator and the
 * tracker (libheapfmt-malloc) that every stack of a malloc tracker starts
 * with. A frame is an allocator frame when
 *   - its library's basename starts with "libc.so", "libc-", "ld-linux"
 *     or "libheapfmt-malloc", or
 *   - its function is an allocation function: malloc, calloc, realloc,
 *     reallocarray, free, posix_memalign, aligned_alloc, memalign, valloc,
 *     pvalloc, or a C++ operator new or delete (mangled _Znw*, _Zna*,
 *     _Zdl*, _Zda*, or demangled "operator new..."/"operator delete..."),
 *     in whatever library (libstdc++'s operator new calls malloc).
 * When every frame is an allocator frame, the top frame is the outermost
 * one: the nearest to the program that the stack shows.
 *
 * A frame's name:
 *   function (library+0xOFFSET) FILE:LINE
 * where library is the basename of the shared object; without a library
 * the offset is an address: function (0xADDR); without a function only
 * the part in parentheses is written, without them: library+0xOFFSET or
 * 0xADDR. " FILE:LINE" is added when the frame has a source file (" FILE"
 * when its line is 0). A frame whose FRAME record was lost is
 * "#<undefined frame N>", a string whose STRING record was lost
 * "#<undefined string N>".
 *
 * A stack's name is its frames' names: innermost first joined by " < "
 * (CLI_STACK_TEXT: tables and every delimited format), or outermost
 * first joined by ";" with each ';' in a name written ',' and each byte
 * below 0x20 or 0x7f written '?' (CLI_STACK_FOLDED: the folded stacks of
 * flamegraph.pl and speedscope, one stack per line). Objects without a
 * stack are CLI_NO_STACK; those whose stack was referenced but never
 * defined (its STACK record was in a lost block) CLI_UNKNOWN_STACK. */
#ifndef CLI_STACK_H
#define CLI_STACK_H

#include <stddef.h>

#include "heapfmt.h"

#define CLI_NO_STACK "(no stack)"
#define CLI_UNKNOWN_STACK "(unknown stack)"

enum cli_stack_style {
    CLI_STACK_TEXT = 0, /* innermost first, " < " */
    CLI_STACK_FOLDED    /* outermost first, ";", no ';' or control bytes */
};

/* A growing text buffer (free with cli_buf_free; {0} is empty). */
typedef struct cli_buf {
    char *s;   /* NUL-terminated once anything was written */
    size_t len, cap;
} cli_buf;

void cli_buf_free(cli_buf *b);

/* Whether f is an allocator or tracker frame (see above). An undefined
 * frame is not: nothing says it is. */
int cli_frame_is_allocator(const heapfmt_rframe *f);

/* The index of the top frame of s (see above), or -1 when s has no
 * frames (undefined). */
long cli_stack_top(const heapfmt_rstack *s);

/* Replaces b's text with the name of frame f in style. Returns 0, or -1
 * when out of memory (b then holds a shorter text). */
int cli_frame_name(cli_buf *b, const heapfmt_rframe *f,
                   enum cli_stack_style style);

/* Replaces b's text with the name of stack s in style: CLI_NO_STACK for
 * NULL, CLI_UNKNOWN_STACK for an undefined stack. Returns 0 or -1 (out of
 * memory). */
int cli_stack_name(cli_buf *b, const heapfmt_rstack *s,
                   enum cli_stack_style style);

/* The same for the top frame of s: its frame's name. */
int cli_stack_top_name(cli_buf *b, const heapfmt_rstack *s,
                       enum cli_stack_style style);

#endif /* CLI_STACK_H */
