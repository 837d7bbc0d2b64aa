#!/usr/bin/env python3
"""check_report.py -- the numbers of a heapfmt-report page equal those the
tools print for the same dumps.

Usage: check_report.py PAGE KIND TOOL_OUTPUT
  PAGE         the HTML page; its data blob is the JSON inside
               <script type="application/json" id="data">
  KIND         which part to check, against which tool output:
    histo      histo -f json (by class, or by frame for a native heap;
               every dump): dumps, trend
    owners     heapfmt-graph owners -f json
    diffsite   heapfmt-diff --by=site (or frame, class) -f json (three
               dumps): the leak's table
    frames     histo --by=frame -f json (the last dump)
    dominators heapfmt-graph dominators --by=class -f json
    domsites   heapfmt-graph dominators --by=class,site -f json (all rows)
    sites      histo --by=site -f json (the last dump)
    folded     histo --by=stack -f folded (the last dump)
Prints what differs and exits 1, or exits 0."""
import json
import re
import sys


def blob(page):
    html = open(page, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>',
                  html, re.S)
    if m is None:
        sys.exit("no data blob in " + page)
    return json.loads(m.group(1))


# The lifespans histo and heapfmt-diff add to a row of a native heap
# (format 1.2's LIFESPAN records): the page does not show them.
LIFESPAN_KEYS = ("allocs", "frees", "lifetime_us", "oldest_us")


def without_lifespans(rows):
    """rows without the lifespan fields the page leaves out"""
    return [{k: v for k, v in r.items() if k not in LIFESPAN_KEYS}
            for r in rows]


def same(what, got, want):
    if got != want:
        print("%s: page has %r, the tool %r" % (what, got, want))
        return False
    return True


def main():
    data = blob(sys.argv[1])
    kind = sys.argv[2]
    text = open(sys.argv[3], encoding="utf-8").read()
    ok = True
    if kind == "folded":
        want = [line.rsplit(" ", 1) for line in text.splitlines()]
        got = [[r["stack"], str(r["bytes"])] for r in data["stacks"]["rows"]]
        ok = same("stacks", got, want)
        sys.exit(0 if ok else 1)
    tool = json.loads(text)
    if kind == "histo":
        totals = tool["totals"]
        n = len(tool["dumps"])
        if n == 1:
            counts, nbytes = [totals["count"]], [totals["bytes"]]
        elif n == 2:
            counts = [totals["count_a"], totals["count_b"]]
            nbytes = [totals["bytes_a"], totals["bytes_b"]]
        else:
            counts, nbytes = totals["counts"], totals["bytes"]
        ok &= same("objects", [d["objects"] for d in data["dumps"]], counts)
        ok &= same("bytes", [d["bytes"] for d in data["dumps"]], nbytes)
        ok &= same("complete", [d["complete"] for d in data["dumps"]],
                   [d["complete"] for d in tool["dumps"]])
        if n > 1:
            by = tool.get("by", "class")
            want = [{by: r[by],
                     "counts": r["counts"] if n > 2 else
                     [r["count_a"], r["count_b"]],
                     "bytes": r["bytes"] if n > 2 else
                     [r["bytes_a"], r["bytes_b"]],
                     "delta_count": r["delta_count"],
                     "delta_bytes": r["delta_bytes"]} for r in tool["rows"]]
            ok &= same("trend rows", data["trend"]["rows"], want)
    elif kind == "owners":
        got = []
        for o in data["owners"]:
            for hop, node in enumerate(o["path"]):
                row = {"owner": o["owner"],
                       "leaked_objects": o["leaked_objects"],
                       "leaked_bytes": o["leaked_bytes"], "hop": hop}
                row.update(node)
                got.append(row)
        ok &= same("owners", got, tool)
    elif kind == "diffsite":
        by = tool.get("by", "site")
        part = data["retained_" + {"site": "sites", "frame": "frames",
                                   "class": "classes"}[by]]
        ok &= same("retained sites", part["rows"],
                   without_lifespans(tool["rows"]))
        ok &= same("retained rows in all", part["total_rows"],
                   tool["totals"]["rows"])
        total = data["retained_total"]
        ok &= same("retained count", total["retained_count"],
                   tool["totals"]["retained_count"])
        ok &= same("retained bytes", total["retained_bytes"],
                   tool["totals"]["retained_bytes"])
    elif kind == "dominators":
        ok &= same("dominators", data["dominators"]["rows"], tool)
    elif kind == "domsites":
        # the first sites of each class the page shows, in the tool's order
        shown = {r["class"] for r in data["dominators"]["rows"]}
        kept, want = {}, []
        for r in tool:
            if r["class"] in shown and kept.get(r["class"], 0) < 10:
                kept[r["class"]] = kept.get(r["class"], 0) + 1
                want.append(r)
        ok &= same("dominators by class and site",
                   data["dominator_sites"]["rows"], want)
    elif kind == "sites":
        ok &= same("sites", data["sites"]["rows"],
                   without_lifespans(tool["rows"]))
        ok &= same("sites in all", data["sites"]["total_rows"],
                   tool["totals"]["rows"])
    elif kind == "frames":
        ok &= same("frames", data["frames"]["rows"],
                   without_lifespans(tool["rows"]))
        ok &= same("frames in all", data["frames"]["total_rows"],
                   tool["totals"]["rows"])
    else:
        sys.exit("unknown kind " + kind)
    sys.exit(0 if ok else 1)


main()
