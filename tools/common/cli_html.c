/* cli_html.c -- escaped text and plain tables. */
#include <inttypes.h>
#include <string.h>

#include "cli_escape.h"
#include "cli_num.h"
#include "cli_html.h"

void html_text(FILE *f, const char *s, size_t len)
{
    char buf[HTML_MAX_NAME];
    cli_text_format(buf, sizeof buf, s, len);
    for (const char *p = buf; *p != '\0'; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*p, f);
        }
    }
}

void html_table_begin(FILE *f, const char *id, const char *caption,
                      const html_col *cols, size_t ncols, int sortable)
{
    fprintf(f, "<table id=\"%s\"%s>\n<caption>", id,
            sortable ? " class=\"sortable\"" : "");
    html_text(f, caption, strlen(caption));
    fputs("</caption>\n<thead><tr>", f);
    for (size_t i = 0; i < ncols; i++)
        fprintf(f, "<th scope=\"col\"%s>%s</th>",
                cols[i].number ? " class=\"num\"" : "", cols[i].name);
    fputs("</tr></thead>\n<tbody>\n", f);
}

void html_table_end(FILE *f)
{
    fputs("</tbody>\n</table>\n", f);
}

void html_row_begin(FILE *f)
{
    fputs("<tr>", f);
}

void html_row_end(FILE *f)
{
    fputs("</tr>\n", f);
}

void html_cell_text(FILE *f, const char *s, size_t len)
{
    fputs("<td>", f);
    html_text(f, s, len);
    fputs("</td>", f);
}

void html_cell_u64(FILE *f, uint64_t v)
{
    fprintf(f, "<td class=\"num\" data-v=\"%" PRIu64 "\">%s</td>", v,
            cli_fmt_count(v).s);
}

void html_cell_none(FILE *f)
{
    fputs("<td></td>", f);
}
