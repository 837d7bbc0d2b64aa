#!/usr/bin/env python3
"""check_mongo.py -- heapfmt-export's MongoDB output, checked with MongoDB's
own Python library (Debian python3-pymongo), and the aggregation pipelines
of docs/mongodb.md checked against histo.

    check_mongo.py --bin build/bin --docs docs/mongodb.md --tmp DIR

Checks:
  1. Every document of every mongo export (objects, edges, classes, roots,
     meta of several dumps) goes through bson.json_util.loads and
     bson.encode: valid Extended JSON, at most 16 MiB as BSON, and it
     decodes back to the same document. Integers are Int64, ids strings.
  2. _id values are unique in each collection, across dumps exported with
     --dump-tag (including one dump exported under two tags).
  3. The pipelines of docs/mongodb.md, evaluated over the documents by
     aggregate.py, give the numbers of histo (when build/bin/histo exists)
     and of counts computed directly from the ndjson export: the
     histogram, the two-dump diff, the three-dump survivors, the roots
     that reach an object.
  4. A dump written by heapdump.py with an object of 600,000 references
     and megabytes of invalid UTF-8 in every text: every document stays
     under 16 MiB, refs are cut with refs_count/refs_truncated, and the
     edges carry every reference.
  5. Text: every exported string equals Python's
     bytes.decode("utf-8", "replace") of the dump's bytes.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys

from bson import decode, encode, json_util
from bson.int64 import Int64

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aggregate  # noqa: E402
from heapdump import DumpWriter  # noqa: E402

BSON_MAX = 16 * 1024 * 1024
KINDS = ["objects", "edges", "classes", "roots", "meta"]


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def say(msg):
    print("ok: " + msg, flush=True)


class Tools:
    def __init__(self, bindir, tmp):
        self.bin = bindir
        self.tmp = tmp

    def run(self, name, *args, ok=(0,)):
        p = subprocess.run([os.path.join(self.bin, name)] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        check(p.returncode in ok, "%s %s: exit %d: %s" % (
            name, " ".join(args), p.returncode, p.stderr.decode()[-500:]))
        return p.stdout

    def gen(self, objects, seed, name):
        path = os.path.join(self.tmp, name)
        self.run("heapfmt-gen", "--objects", str(objects), "--seed",
                 str(seed), "-o", path)
        return path

    def export(self, dump, *args):
        return self.run("heapfmt-export", *args, dump).splitlines()


# ---- 1, 2: Extended JSON through bson -------------------------------------

def load_mongo(lines, what):
    """Parses every line with json_util, encodes it as BSON, checks size
    and round trip; returns the documents."""
    docs = []
    for i, line in enumerate(lines):
        doc = json_util.loads(line)
        raw = encode(doc)
        check(len(raw) <= BSON_MAX, "%s line %d: %d bytes of BSON" % (
            what, i + 1, len(raw)))
        check(decode(raw) == doc, "%s line %d: BSON round trip" % (what,
                                                                    i + 1))
        check(isinstance(doc.get("_id"), str), "%s line %d: _id" % (what,
                                                                   i + 1))
        docs.append(doc)
    return docs


def check_types(docs, what):
    for d in docs:
        for k, v in d.items():
            if k in ("bytes", "line", "generation", "flags", "refs_count",
                     "index", "count"):
                check(isinstance(v, Int64), "%s: %s is %s, not Int64" % (
                    what, k, type(v).__name__))
            if k in ("id", "super") and d.get("name") is not None and \
                    v is None:
                continue  # a class whose id is unknown
            if k in ("id", "from", "to", "super"):
                check(isinstance(v, str) and re.fullmatch(
                    "0x[0-9a-f]{16}", v), "%s: %s %r" % (what, k, v))


def check_unique(docs, what):
    seen = set()
    for d in docs:
        check(d["_id"] not in seen, "%s: duplicate _id %s" % (what, d["_id"]))
        seen.add(d["_id"])


# ---- 3: pipelines -------------------------------------------------------------

def pipelines(docs_path):
    """The pipelines of README.md: name -> (collection, stages)."""
    text = open(docs_path, encoding="utf-8").read()
    found = {}
    for m in re.finditer(r"<!-- pipeline: (\w+) -->\s*```js\s*(.*?)```",
                         text, re.S):
        name, code = m.group(1), m.group(2)
        call = re.match(r"db\.(\w+)\.aggregate\(", code)
        check(call, "pipeline %s: no db.X.aggregate(" % name)
        stages, _ = json.JSONDecoder().raw_decode(code[call.end():])
        found[name] = (call.group(1), stages)
    for name in ("histogram", "diff", "survivors", "roots"):
        check(name in found, "docs: pipeline %s not found" % name)
    return found


def ndjson_objects(tools, dump):
    return [json.loads(line) for line in tools.export(dump)]


def histo_counts(objs):
    h = {}
    for o in objs:
        c = h.setdefault(o["class"], [0, 0])
        c[0] += 1
        c[1] += o["bytes"]
    return h


def histo_tool(tools, *dumps):
    """histo --format=tsv rows, or None when histo is not built."""
    if not os.path.exists(os.path.join(tools.bin, "histo")):
        return None
    out = tools.run("histo", "--format=tsv", "--all", *dumps)
    rows = out.decode("utf-8").splitlines()
    header = rows[0].split("\t")
    return [dict(zip(header, r.split("\t"))) for r in rows[1:]]


def check_histogram(pl, objects, ndjson, tools, dump, classes):
    coll, stages = pl["histogram"]
    got = aggregate.run(stages, objects[coll] if coll in objects else [])
    want = histo_counts(ndjson)
    check(len(got) == len(want), "histogram: %d rows, %d classes" % (
        len(got), len(want)))
    for row in got:
        check([row["count"], row["bytes"]] == want[row["_id"]],
              "histogram %s: %r vs %r" % (row["_id"], row, want[row["_id"]]))
    bytes_seq = [r["bytes"] for r in got]
    check(bytes_seq == sorted(bytes_seq, reverse=True),
          "histogram not sorted by bytes")
    # the exporter's own per-class counts agree
    per_class = {}
    for c in classes:
        if c["count"]:
            per_class.setdefault(c["name"], [0, 0])
            per_class[c["name"]][0] += c["count"]
            per_class[c["name"]][1] += c["bytes"]
    check(per_class == want, "class documents' counts differ")
    rows = histo_tool(tools, dump)
    if rows is None:
        say("histogram pipeline = ndjson counts (histo not built)")
        return
    h = {r["class"]: [int(r["count"]), int(r["bytes"])] for r in rows}
    check(h == want, "histogram differs from histo --format=tsv")
    say("histogram pipeline = histo --format=tsv = ndjson counts "
        "(%d classes)" % len(h))


def check_diff(pl, objects, nd_before, nd_after, tools, before, after):
    coll, stages = pl["diff"]
    got = aggregate.run(stages, objects[coll])
    a, b = histo_counts(nd_before), histo_counts(nd_after)
    want = {}
    for c in set(a) | set(b):
        ca, cb = a.get(c, [0, 0]), b.get(c, [0, 0])
        if ca != cb:
            want[c] = (ca[0], cb[0], cb[0] - ca[0], ca[1], cb[1], cb[1] - ca[1])
    gotd = {r["_id"]: (r["count_before"], r["count_after"], r["count_delta"],
                       r["bytes_before"], r["bytes_after"], r["bytes_delta"])
            for r in got}
    check(gotd == want, "diff pipeline differs from the ndjson counts")
    deltas = [r["bytes_delta"] for r in got]
    check(deltas == sorted(deltas, reverse=True), "diff not sorted")
    rows = histo_tool(tools, before, after)
    if rows is None:
        say("diff pipeline = ndjson counts (histo not built)")
        return
    h = {}
    for r in rows:
        t = tuple(int(r[k]) for k in ("count_a", "count_b", "delta_count",
                                      "bytes_a", "bytes_b", "delta_bytes"))
        if t[2] != 0 or t[5] != 0:
            h[r["class"]] = t
    check(h == want, "diff pipeline differs from histo OLD NEW")
    say("diff pipeline = histo --format=tsv OLD NEW = ndjson counts "
        "(%d changed classes)" % len(h))


def check_survivors(pl, objects, nd):
    coll, stages = pl["survivors"]
    got = aggregate.run(stages, objects[coll])
    ids = [{o["id"]: o for o in n} for n in nd]
    survivors = [ids[2][i] for i in ids[1] if i in ids[2] and i not in ids[0]]
    want = histo_counts(survivors)
    gotd = {r["_id"]: [r["count"], r["bytes"]] for r in got}
    check(gotd == want, "survivors pipeline differs from the id sets")
    check(sum(v[0] for v in want.values()) > 0, "no survivors to compare")
    say("survivors pipeline = id sets of three dumps (%d objects)" %
        sum(v[0] for v in want.values()))


def check_roots(pl, edges_docs, nd_edges, tag):
    """nd_edges: the ndjson edges of the dump exported as `tag`."""
    coll, stages = pl["roots"]
    holders, root_of = {}, {}
    for e in nd_edges:
        if "from" in e:
            holders.setdefault(e["to"], set()).add(e["from"])
        else:
            root_of.setdefault(e["to"], set()).add(e["root"])
    stage_text = json.dumps(stages)
    max_depth = stages[1]["$graphLookup"]["maxDepth"]
    tried = 0
    for target in sorted(holders)[::37][:8]:
        # the shortest distance from the target's holders to each root kind
        want = {}
        level, seen, depth = set(holders[target]), set(), 0
        while level and depth <= max_depth:
            seen |= level
            for n in level:
                for k in root_of.get(n, ()):
                    want.setdefault(k, depth)
            level = {h for n in level for h in holders.get(n, ())} - seen
            depth += 1
        st = json.loads(stage_text.replace("0x00007f3a8c0d1e28", target)
                        .replace('"after"', json.dumps(tag)))
        got = aggregate.run(st, edges_docs, {"edges": edges_docs})
        check(got or not want, "roots pipeline found nothing")
        gotd = {r["_id"]: r["distance"] for r in got}
        check(gotd == want, "roots pipeline for %s: %r, expected %r" % (
            target, gotd, want))
        tried += bool(want)
    check(tried > 0, "no target reached a root")
    say("roots pipeline = breadth-first search over the edges "
        "(%d objects)" % tried)


# ---- 4, 5: huge and odd documents -------------------------------------------

HUGE = 600000  # 18 MB of BSON if they were all kept


def huge_refs():
    return [0x7F0000000000 + 40 * ((i * 7919) % HUGE) for i in range(HUGE)]


def huge_dump(path):
    """An object with 600,000 references; texts of 1 MiB and more of
    invalid bytes everywhere; a root with 200,000 references."""
    w = DumpWriter(block_size=1 << 22)
    mib = 1 << 20
    w.meta(b"producer", b"\xff" * (mib + 10))
    bad = b"\xff" * (mib + 3)
    t = w.string(bad + b"t")
    f = w.string(bad + b"f")
    c = w.klass(0x1000, bad + b"c")
    refs = huge_refs()
    w.obj(0x7EFFFFFFFFD8, klass=c, type=t, size=8 * HUGE + 40, refs=refs,
          # every flag bit but the reserved 5-31 (spec 6.4: zero)
          flags=((1 << 64) - 1) & ~0xFFFFFFE0, value=bad + b"v",
          site=(f, (1 << 64) - 1),
          generation=(1 << 63) + 5)
    w.obj(0x10, klass=c, type=t, size=40, refs=refs[:100001])
    w.root(w.string(b"vm"), refs[:200000])
    open(path, "wb").write(w.finish())
    return HUGE + 100001 + 200000


def check_huge(tools, path, nedges):
    lines = tools.export(path, "--format=mongo", "--dump-tag=huge",
                         "--records=objects,roots,classes,meta")
    docs = load_mongo(lines, "huge")
    check_unique(docs, "huge")
    objs = [d for d in docs if d["record"] == "object"]
    big = objs[0]
    check(len(big["refs"]) == 100000 and big["refs_count"] == HUGE
          and big["refs_truncated"] is True, "huge refs not cut")
    check(len(objs[1]["refs"]) == 100000 and objs[1]["refs_count"] == 100001,
          "100,001 refs not cut")
    check(big["value_truncated"] is True, "1 MiB value not cut")
    # bits 0-4 and 32-63 as a signed Int64
    check(big["flags"] == (((1 << 64) - 1) & ~0xFFFFFFE0) - (1 << 64),
          "flags bits as Int64")
    check(str(big["generation"]) == str((1 << 63) + 5),
          "generation above 2^63 as Decimal128")
    root = [d for d in docs if d["record"] == "root"][0]
    check(root["refs_count"] == 200000 and len(root["refs"]) == 100000,
          "root refs not cut")
    size = len(encode(big))
    check(size <= BSON_MAX, "worst-case document is %d bytes" % size)
    # every reference, in order: the two objects', then the root's
    refs = huge_refs()
    want = [("0x00007effffffffd8", r) for r in refs]
    want += [("0x0000000000000010", r) for r in refs[:100001]]
    want += [(None, r) for r in refs[:200000]]
    pat = re.compile(rb'"(from|root)":("0x[0-9a-f]{16}"|"vm"),"to":"(0x[0-9a-f]{16})"}$')
    n = 0
    for line in tools.export(path, "--format=mongo", "--records=edges"):
        check(n < len(want), "too many edges")
        m = pat.search(line)
        check(m, "edge line %d: %r" % (n + 1, line[:200]))
        frm, to = want[n]
        got_from = m.group(2).decode().strip('"') if m.group(1) == b"from" \
            else None
        check(got_from == frm and m.group(3).decode() == "0x%016x" % to,
              "edge %d: %r" % (n + 1, line))
        if n % 50000 == 0:
            load_mongo([line], "huge edges")
        n += 1
    check(n == nedges, "%d edge documents, expected %d" % (n, nedges))
    say("huge object: %d bytes of BSON (limit %d), refs cut at 100,000, "
        "all %d references as edges" % (size, BSON_MAX, n))


def check_text(tools, tmp):
    """Exported strings against Python's own UTF-8 decoder."""
    rng = random.Random(3)
    pool = bytes(range(256))
    w = DumpWriter()
    values = []
    names = [b"Bad\xffName", b"X\x00Y", b"\xe2\x82", b"\xed\xa0\x80ok",
             b"\xf4\x90\x80\x80", b"\xc3\xa9t\xc3\xa9", b"\"\\\n"]
    classes = [w.klass(0x100 + 8 * i, n) for i, n in enumerate(names)]
    for i in range(3000):
        n = rng.randrange(0, 40)
        if i % 3 == 0:
            v = bytes(rng.choice(pool) for _ in range(n))
        else:
            v = bytes(rng.choice(b"a\x80\xbf\xc2\xe0\xed\xef\xf0\xf4\xff\"")
                      for _ in range(n))
        values.append(v)
        w.obj(0x1000 + 8 * i, klass=classes[i % len(classes)], value=v)
    path = os.path.join(tmp, "text.dump")
    open(path, "wb").write(w.finish())
    for fmt in ("ndjson", "mongo"):
        lines = tools.export(path, "--format=" + fmt)
        check(len(lines) == len(values), "text: line count")
        for i, line in enumerate(lines):
            d = json_util.loads(line) if fmt == "mongo" else json.loads(line)
            check(d["value"] == values[i].decode("utf-8", "replace"),
                  "value %d: %r -> %r" % (i, values[i], d["value"]))
            want = names[i % len(names)].decode("utf-8", "replace")
            check(d["class"] == want, "class %r -> %r" % (want, d["class"]))
    say("text of 3000 values = bytes.decode('utf-8', 'replace')")


# ---- main -----------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--tmp", required=True)
    args = ap.parse_args()
    tools = Tools(args.bin, args.tmp)
    pl = pipelines(args.docs)

    # Three dumps of one growing process: the same seed gives the same
    # first objects (the same ids).
    d1 = tools.gen(5000, 5, "d1.dump")
    d2 = tools.gen(7500, 5, "d2.dump")
    d3 = tools.gen(10000, 5, "d3.dump")
    exports = [(d1, "before", KINDS), (d2, "after", KINDS),
               (d1, "d1", ["objects"]), (d2, "d2", ["objects"]),
               (d3, "d3", ["objects"])]
    coll = {k: [] for k in KINDS}
    for dump, tag, kinds in exports:
        for kind in kinds:
            lines = tools.export(dump, "--format=mongo", "--dump-tag=" + tag,
                                 "--records=" + kind)
            docs = load_mongo(lines, "%s %s" % (tag, kind))
            check(all(d["dump"] == tag for d in docs), "dump field")
            check_types(docs, "%s %s" % (tag, kind))
            coll[kind] += docs
    for kind in KINDS:
        check_unique(coll[kind], kind)
    everything = [d for k in KINDS for d in coll[k]]
    check_unique(everything, "all collections")
    say("%d documents through bson.json_util.loads and bson.encode, "
        "_id unique across %d tagged exports" % (len(everything),
                                                 len(exports)))
    # without a tag, _id is still unique within one dump
    docs = load_mongo(tools.export(d2, "--format=mongo", "--records=all"),
                      "untagged")
    check_unique(docs, "untagged")

    nd = [ndjson_objects(tools, d) for d in (d1, d2, d3)]
    objects = {"objects": coll["objects"]}
    classes_before = [c for c in coll["classes"] if c["dump"] == "before"]
    check_histogram(pl, objects, nd[0], tools, d1, classes_before)
    check_diff(pl, objects, nd[0], nd[1], tools, d1, d2)
    check_survivors(pl, objects, nd)
    # the graph walk on a smaller heap (the evaluator is plain Python)
    small = tools.gen(2000, 9, "small.dump")
    nd_edges = [json.loads(x) for x in tools.export(small, "--records=edges")]
    small_edges = load_mongo(tools.export(small, "--format=mongo",
                                          "--records=edges",
                                          "--dump-tag=after"), "small edges")
    check_roots(pl, small_edges, nd_edges, "after")

    huge = os.path.join(args.tmp, "huge.dump")
    nedges = huge_dump(huge)
    tools.run("heapfmt-info", "--verify", huge)  # the test's own writer
    check_huge(tools, huge, nedges)
    check_text(tools, args.tmp)
    print("check_mongo: all checks passed")


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
