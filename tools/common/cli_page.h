/* cli_page.h -- the HTML page of heapfmt-report and heapfmt-replay: its
 * plain HTML (escaped text, and the tables that show the key numbers
 * without JavaScript), and the page around the sections: head, style, the
 * error box, the data blob and the script.
 *
 * Names come from the dump and are hostile input: every one goes through
 * html_text, which writes the text form of cli_escape.h (control bytes
 * and invalid UTF-8 made visible) with & < > " ' as entities. */
#ifndef CLI_PAGE_H
#define CLI_PAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The most bytes of the text form of a name shown in a cell: longer ones
 * are cut (at a character boundary). Names come cut (cli_name_cut: 256
 * bytes and a marker, whose text form fits); what is longer is a stack,
 * whose whole text is in the page's data for the flame graph. */
#define HTML_MAX_NAME 1280

void html_text(FILE *f, const char *s, size_t len);

/* A column of a table: its header and whether it holds numbers (right
 * aligned; the script sorts it by value). */
typedef struct html_col {
    const char *name;
    int number;
} html_col;

/* <table id=..> with a caption and a header row; sortable tables get a
 * class the script looks for. */
void html_table_begin(FILE *f, const char *id, const char *caption,
                      const html_col *cols, size_t ncols, int sortable);
void html_table_end(FILE *f);

void html_row_begin(FILE *f);
void html_row_end(FILE *f);
void html_cell_text(FILE *f, const char *s, size_t len);
/* A number, written with thousands separators; data-v holds the value
 * for sorting. */
void html_cell_u64(FILE *f, uint64_t v);
/* A cell for a value that is not known: empty. */
void html_cell_none(FILE *f);

/* Writes the page: body (the sections' HTML) and data (the JSON blob). */
void page_write(FILE *out, const char *body, size_t body_len,
                const char *data, size_t data_len);

/* The same page with another title (and heading), for the other tools
 * that make one (heapfmt-replay). */
void page_write_titled(FILE *out, const char *title, const char *body,
                       size_t body_len, const char *data, size_t data_len);

#endif /* CLI_PAGE_H */
