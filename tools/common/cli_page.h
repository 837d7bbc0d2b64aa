/* cli_page.h -- the HTML page around the sections: head, style, the error
 * box, the data blob and the script. */
#ifndef CLI_PAGE_H
#define CLI_PAGE_H

#include <stddef.h>
#include <stdio.h>

/* Writes the page: body (the sections' HTML) and data (the JSON blob). */
void page_write(FILE *out, const char *body, size_t body_len,
                const char *data, size_t data_len);

/* The same page with another title (and heading), for the other tools
 * that make one (heapfmt-replay). */
void page_write_titled(FILE *out, const char *title, const char *body,
                       size_t body_len, const char *data, size_t data_len);

/* The inline script (script.c). */
extern const char page_script[];

#endif /* CLI_PAGE_H */
