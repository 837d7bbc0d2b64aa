/* cli_page.c -- the HTML page: escaped text, plain tables, and the page
 * around the sections. Nothing is fetched: the style, the data and the
 * script are all inline, so the file opens from disk anywhere. */
#include <inttypes.h>
#include <string.h>

#include "cli_escape.h"
#include "cli_num.h"
#include "cli_page.h"

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

/* The inline script. It draws from the data blob what the plain tables
 * cannot show: the overview bars, sparklines of counts and bytes, the
 * owners' paths as chains of boxes, the treemap of retained sizes and the
 * flame graph; and it sorts the sortable tables. Each drawing is guarded:
 * an error is written into #errors (which the browser test checks is
 * empty) and the other drawings still happen. */
static const char script[] =
    "(function () {\n"
    "  'use strict';\n"
    "  var errors = document.getElementById('errors');\n"
    "  function fail(m) { errors.textContent += m + '\\n'; }\n"
    "  window.addEventListener('error', function (e) { fail('error: ' + e.message); });\n"
    "  var NS = 'http://www.w3.org/2000/svg';\n"
    "  function svg(tag, a, p, t) {\n"
    "    var e = document.createElementNS(NS, tag);\n"
    "    for (var k in a) e.setAttribute(k, a[k]);\n"
    "    if (t != null) e.textContent = t;\n"
    "    if (p) p.appendChild(e);\n"
    "    return e;\n"
    "  }\n"
    "  function h(tag, a, p, t) {\n"
    "    var e = document.createElement(tag);\n"
    "    for (var k in a) e.setAttribute(k, a[k]);\n"
    "    if (t != null) e.textContent = t;\n"
    "    if (p) p.appendChild(e);\n"
    "    return e;\n"
    "  }\n"
    "  function fmt(n) { return Number(n).toLocaleString('en-US'); }\n"
    "  function size(n) {\n"
    "    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;\n"
    "    while (n >= 1024 && i < 4) { n /= 1024; i++; }\n"
    "    return (i ? n.toFixed(1) : n) + ' ' + u[i];\n"
    "  }\n"
    "  /* A stable colour per name, so a class keeps its colour everywhere. */\n"
    "  function colour(s) {\n"
    "    var x = 0;\n"
    "    for (var i = 0; i < s.length; i++) x = (x * 31 + s.charCodeAt(i)) | 0;\n"
    "    return 'hsl(' + (Math.abs(x) % 360) + ',55%,70%)';\n"
    "  }\n"
    "\n"
    "  /* Bars of one number per dump, with the values as the text label. */\n"
    "  function bars(parent, title, values, unit) {\n"
    "    var w = 320, bh = 120, top = 20, n = values.length;\n"
    "    var max = Math.max.apply(null, values.concat([1]));\n"
    "    var label = title + ': ' + values.map(function (v, i) {\n"
    "      return 'dump ' + (i + 1) + ' ' + unit(v);\n"
    "    }).join(', ');\n"
    "    var s = svg('svg', {width: w, height: bh + top + 20, role: 'img',\n"
    "                        'aria-label': label, 'class': 'bars'}, parent);\n"
    "    svg('title', {}, s, label);\n"
    "    svg('text', {x: 0, y: 12}, s, title);\n"
    "    var bw = Math.min(60, (w - 10) / n - 8);\n"
    "    values.forEach(function (v, i) {\n"
    "      var hh = Math.round(bh * v / max), x = 5 + i * (bw + 8);\n"
    "      svg('rect', {x: x, y: top + bh - hh, width: bw, height: hh,\n"
    "                   fill: i ? '#6a8fd0' : '#9fb6e0'}, s);\n"
    "      svg('text', {x: x, y: top + bh + 14}, s, '#' + (i + 1) + ' ' + unit(v));\n"
    "    });\n"
    "  }\n"
    "\n"
    "  function overview(D) {\n"
    "    var c = document.getElementById('overview-chart');\n"
    "    if (!c || !D.dumps) return;\n"
    "    bars(c, 'Objects', D.dumps.map(function (d) { return d.objects; }), fmt);\n"
    "    bars(c, 'Bytes', D.dumps.map(function (d) { return d.bytes; }), size);\n"
    "  }\n"
    "\n"
    "  function sparkline(td, values, what) {\n"
    "    var w = 80, hh = 18, n = values.length;\n"
    "    var max = Math.max.apply(null, values), min = Math.min.apply(null, values);\n"
    "    var pts = values.map(function (v, i) {\n"
    "      var y = max === min ? hh / 2 : hh - 2 - (hh - 4) * (v - min) / (max - min);\n"
    "      return (n > 1 ? i * (w - 4) / (n - 1) + 2 : w / 2) + ',' + y.toFixed(1);\n"
    "    }).join(' ');\n"
    "    var s = svg('svg', {width: w, height: hh, role: 'img', 'class': 'spark',\n"
    "                        'aria-label': what + ': ' + values.map(fmt).join(', ')}, td);\n"
    "    svg('polyline', {points: pts, fill: 'none', stroke: '#2a5db0',\n"
    "                     'stroke-width': 1.5}, s);\n"
    "  }\n"
    "\n"
    "  function trend(D) {\n"
    "    var t = document.getElementById('trend-table');\n"
    "    if (!t || !D.trend) return;\n"
    "    var rows = t.tBodies[0].rows;\n"
    "    for (var i = 0; i < rows.length; i++) {\n"
    "      var r = D.trend.rows[+rows[i].getAttribute('data-row')];\n"
    "      if (!r) continue;\n"
    "      sparkline(rows[i].querySelector('td.spark-count'), r.counts, 'counts');\n"
    "      sparkline(rows[i].querySelector('td.spark-bytes'), r.bytes, 'bytes');\n"
    "    }\n"
    "  }\n"
    "\n"
    "  function owners(D) {\n"
    "    var c = document.getElementById('owners-chains');\n"
    "    if (!c || !D.owners) return;\n"
    "    D.owners.forEach(function (o) {\n"
    "      var div = h('div', {'class': 'owner'}, c);\n"
    "      h('p', {}, div, '#' + o.owner + ': holds ' + fmt(o.leaked_objects) +\n"
    "        ' leaked objects, ' + size(o.leaked_bytes));\n"
    "      var chain = h('div', {'class': 'chain', role: 'list'}, div);\n"
    "      o.path.forEach(function (n, i) {\n"
    "        if (i > 0)\n"
    "          h('span', {'class': 'edge', 'aria-hidden': 'true'}, chain,\n"
    "            n.via == null ? '\\u2192' : '\\u2192 ' + n.via + ' \\u2192');\n"
    "        var text = n['class'] + (n.type ? ' ' + n.type : '') +\n"
    "          (n.id ? ' ' + n.id : '') + (n.bytes != null ? ' (' + size(n.bytes) + ')' : '');\n"
    "        h('span', {'class': 'box', role: 'listitem', title: n.site || ''}, chain, text);\n"
    "      });\n"
    "    });\n"
    "  }\n"
    "\n"
    "  /* Squarified treemap (Bruls, Huizing, van Wijk 2000). */\n"
    "  function squarify(items, x, y, w, hh, out) {\n"
    "    var total = items.reduce(function (s, it) { return s + it.v; }, 0);\n"
    "    if (!items.length || total <= 0) return;\n"
    "    var scale = w * hh / total, row = [], rest = items.slice();\n"
    "    function worst(r, side) {\n"
    "      var s = 0, mx = 0, mn = Infinity;\n"
    "      r.forEach(function (it) { var a = it.v * scale; s += a; mx = Math.max(mx, a); mn = Math.min(mn, a); });\n"
    "      return Math.max(side * side * mx / (s * s), s * s / (side * side * mn));\n"
    "    }\n"
    "    function lay(r) {\n"
    "      var s = r.reduce(function (a, it) { return a + it.v * scale; }, 0);\n"
    "      if (w >= hh) {\n"
    "        var cw = s / hh, cy = y;\n"
    "        r.forEach(function (it) { var ch = it.v * scale / cw; out.push({it: it, x: x, y: cy, w: cw, h: ch}); cy += ch; });\n"
    "        x += cw; w -= cw;\n"
    "      } else {\n"
    "        var rh = s / w, cx = x;\n"
    "        r.forEach(function (it) { var ww = it.v * scale / rh; out.push({it: it, x: cx, y: y, w: ww, h: rh}); cx += ww; });\n"
    "        y += rh; hh -= rh;\n"
    "      }\n"
    "    }\n"
    "    while (rest.length) {\n"
    "      var side = Math.min(w, hh), next = rest[0];\n"
    "      if (!row.length || worst(row.concat([next]), side) <= worst(row, side)) {\n"
    "        row.push(rest.shift());\n"
    "      } else {\n"
    "        lay(row); row = [];\n"
    "      }\n"
    "    }\n"
    "    if (row.length) lay(row);\n"
    "  }\n"
    "\n"
    "  /* The treemap of retained sizes by class; a click (or Enter) on a class\n"
    "   * shows its allocation sites, from the class,site rollup. */\n"
    "  function treemap(D) {\n"
    "    var c = document.getElementById('treemap');\n"
    "    if (!c || !D.dominators) return;\n"
    "    var sites = D.dominator_sites ? D.dominator_sites.rows : [];\n"
    "    var title = h('p', {id: 'treemap-title'}, c);\n"
    "    var back = h('button', {type: 'button', id: 'treemap-back', hidden: ''}, c,\n"
    "                 '\\u2190 all classes');\n"
    "    var holder = h('div', {}, c);\n"
    "    function draw(rows, label, drill) {\n"
    "      holder.textContent = '';\n"
    "      title.textContent = label;\n"
    "      var items = rows.filter(function (r) { return r.retained_size > 0; })\n"
    "        .map(function (r) { return {name: r.name, v: r.retained_size, drill: drill}; });\n"
    "      var W = 960, H = 360, cells = [];\n"
    "      squarify(items, 0, 0, W, H, cells);\n"
    "      var s = svg('svg', {width: W, height: H, role: 'img', id: 'treemap-svg',\n"
    "        'aria-label': label + ': ' + items.slice(0, 10).map(function (i) {\n"
    "          return i.name + ' ' + size(i.v); }).join(', ')}, holder);\n"
    "      cells.forEach(function (cl) {\n"
    "        var g = svg('g', drill ? {tabindex: 0, 'class': 'drill'} : {}, s);\n"
    "        svg('rect', {x: cl.x, y: cl.y, width: Math.max(cl.w - 1, 0), height: Math.max(cl.h - 1, 0),\n"
    "                     fill: colour(cl.it.name)}, g);\n"
    "        svg('title', {}, g, cl.it.name + ': ' + size(cl.it.v) + ' retained' +\n"
    "            (drill ? ' (click for its sites)' : ''));\n"
    "        if (cl.w > 60 && cl.h > 16)\n"
    "          svg('text', {x: cl.x + 3, y: cl.y + 12}, g,\n"
    "              cl.it.name.slice(0, Math.floor(cl.w / 7)));\n"
    "        if (drill) {\n"
    "          var open = function () { bySite(cl.it.name); };\n"
    "          g.addEventListener('click', open);\n"
    "          g.addEventListener('keydown', function (e) { if (e.key === 'Enter') open(); });\n"
    "        }\n"
    "      });\n"
    "    }\n"
    "    function byClass() {\n"
    "      back.hidden = true;\n"
    "      draw(D.dominators.rows.map(function (r) {\n"
    "        return {name: r['class'], retained_size: r.retained_size}; }),\n"
    "        'Retained size by class', sites.length > 0);\n"
    "    }\n"
    "    function bySite(name) {\n"
    "      back.hidden = false;\n"
    "      draw(sites.filter(function (r) { return r['class'] === name; }).map(function (r) {\n"
    "        return {name: r.site == null ? '(no site)' : r.site, retained_size: r.retained_size}; }),\n"
    "        'Retained size of ' + name + ' by allocation site', false);\n"
    "    }\n"
    "    back.addEventListener('click', byClass);\n"
    "    byClass();\n"
    "    /* #treemap=CLASS opens on that class's sites: a link to it */\n"
    "    var m = /^#treemap=(.+)$/.exec(location.hash);\n"
    "    if (m) bySite(decodeURIComponent(m[1]));\n"
    "  }\n"
    "\n"
    "  /* Icicle of folded stacks (outermost frame on top), widths by bytes. */\n"
    "  function flame(D) {\n"
    "    var c = document.getElementById('flame');\n"
    "    if (!c || !D.stacks) return;\n"
    "    var root = {name: 'all', v: 0, kids: {}};\n"
    "    D.stacks.rows.forEach(function (r) {\n"
    "      var n = root;\n"
    "      root.v += r.bytes;\n"
    "      r.stack.split(';').slice(0, 60).forEach(function (f) {\n"
    "        if (!n.kids[f]) n.kids[f] = {name: f, v: 0, kids: {}};\n"
    "        n = n.kids[f];\n"
    "        n.v += r.bytes;\n"
    "      });\n"
    "    });\n"
    "    var W = 960, RH = 17, cells = [], depth = 0;\n"
    "    (function walk(n, x, d) {\n"
    "      var w = root.v ? W * n.v / root.v : 0;\n"
    "      if (w < 0.5) return;\n"
    "      cells.push({n: n, x: x, y: d * RH, w: w});\n"
    "      depth = Math.max(depth, d + 1);\n"
    "      Object.keys(n.kids).map(function (k) { return n.kids[k]; })\n"
    "        .sort(function (a, b) { return b.v - a.v; })\n"
    "        .forEach(function (k) { walk(k, x, d + 1); x += W * k.v / root.v; });\n"
    "    })(root, 0, 0);\n"
    "    var s = svg('svg', {width: W, height: depth * RH, role: 'img', id: 'flame-svg',\n"
    "                        'aria-label': 'Flame graph of the allocation stacks by bytes; the table above gives the numbers'}, c);\n"
    "    cells.forEach(function (cl) {\n"
    "      var g = svg('g', {}, s);\n"
    "      svg('rect', {x: cl.x, y: cl.y, width: Math.max(cl.w - 0.5, 0), height: RH - 1,\n"
    "                   fill: colour(cl.n.name)}, g);\n"
    "      svg('title', {}, g, cl.n.name + ': ' + size(cl.n.v));\n"
    "      if (cl.w > 40)\n"
    "        svg('text', {x: cl.x + 2, y: cl.y + 12}, g, cl.n.name.slice(0, Math.floor(cl.w / 6.5)));\n"
    "    });\n"
    "  }\n"
    "\n"
    "  /* Click (or Enter on) a header of a table.sortable: sort by it, numbers\n"
    "   * by their data-v value, again to reverse. */\n"
    "  function sortable() {\n"
    "    var tables = document.querySelectorAll('table.sortable');\n"
    "    Array.prototype.forEach.call(tables, function (t) {\n"
    "      var ths = t.tHead.rows[0].cells;\n"
    "      Array.prototype.forEach.call(ths, function (th, col) {\n"
    "        th.setAttribute('tabindex', '0');\n"
    "        th.setAttribute('aria-sort', 'none');\n"
    "        function sort() {\n"
    "          var desc = th.getAttribute('aria-sort') !== 'descending';\n"
    "          Array.prototype.forEach.call(ths, function (o) { o.setAttribute('aria-sort', 'none'); });\n"
    "          th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');\n"
    "          var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);\n"
    "          rows.sort(function (a, b) {\n"
    "            var x = a.cells[col], y = b.cells[col], r;\n"
    "            if (x.hasAttribute('data-v')) r = Number(x.getAttribute('data-v')) - Number(y.getAttribute('data-v'));\n"
    "            else r = x.textContent < y.textContent ? -1 : x.textContent > y.textContent ? 1 : 0;\n"
    "            return desc ? -r : r;\n"
    "          });\n"
    "          rows.forEach(function (r) { body.appendChild(r); });\n"
    "        }\n"
    "        th.addEventListener('click', sort);\n"
    "        th.addEventListener('keydown', function (e) { if (e.key === 'Enter') sort(); });\n"
    "      });\n"
    "    });\n"
    "  }\n"
    "\n"
    "  try {\n"
    "    var D = JSON.parse(document.getElementById('data').textContent);\n"
    "    [overview, trend, owners, treemap, flame].forEach(function (f) {\n"
    "      try { f(D); } catch (e) { fail(f.name + ': ' + e); }\n"
    "    });\n"
    "    sortable();\n"
    "    document.body.setAttribute('data-rendered', 'yes');\n"
    "  } catch (e) {\n"
    "    fail('report: ' + e);\n"
    "  }\n"
    "})();\n";

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
    fputs(script, out);
    fputs("</script>\n</body>\n</html>\n", out);
}
