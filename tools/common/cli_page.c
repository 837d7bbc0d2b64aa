/* cli_page.c -- the page around the sections. Nothing is fetched: the style,
 * the data and the script are all inline, so the file opens from disk
 * anywhere. */
#include "cli_page.h"

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;"
    "border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "caption{text-align:left;font-weight:bold;padding:.3em 0}"
    "th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;"
    "vertical-align:top}"
    "th{background:#f4f4f4}.num{text-align:right;"
    "font-variant-numeric:tabular-nums}"
    "table.sortable th{cursor:pointer}"
    "table.sortable th[aria-sort]::after{content:' \\2195'}"
    ".warn{background:#fde2e1;border:1px solid #d33;padding:.5em}"
    ".cut{color:#666;font-style:italic}"
    "#errors:empty{display:none}"
    "#errors{background:#fde2e1;color:#900;padding:.5em}"
    ".chain{display:flex;flex-wrap:wrap;align-items:center;margin:.3em 0}"
    ".box{border:1px solid #888;border-radius:4px;padding:2px 6px;"
    "background:#f7f7ff;font-size:12px}"
    ".edge{color:#555;font-size:12px;padding:0 4px}"
    "svg text{font:11px system-ui,sans-serif}"
    "g.drill{cursor:pointer}";

/* The blob inside <script>: "</script>" or "<!--" in a name must not end
 * or change the element. '<' only occurs inside JSON strings, where
 * \u003c means the same character. */
static void put_blob(FILE *out, const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '<')
            fputs("\\u003c", out);
        else
            fputc(data[i], out);
    }
}

void page_write(FILE *out, const char *body, size_t body_len,
                const char *data, size_t data_len)
{
    page_write_titled(out, "heapfmt report", body, body_len, data, data_len);
}

void page_write_titled(FILE *out, const char *title, const char *body,
                       size_t body_len, const char *data, size_t data_len)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width\">\n"
          "<title>",
          out);
    fputs(title, out);
    fputs("</title>\n<style>", out);
    fputs(style, out);
    fputs("</style>\n</head>\n<body>\n<h1>", out);
    fputs(title, out);
    fputs("</h1>\n<pre id=\"errors\" role=\"alert\"></pre>\n", out);
    fwrite(body, 1, body_len, out);
    fputs("<script type=\"application/json\" id=\"data\">", out);
    put_blob(out, data, data_len);
    fputs("</script>\n<script>\n", out);
    fputs(page_script, out);
    fputs("</script>\n</body>\n</html>\n", out);
}
