#!/usr/bin/env python3
"""check_sql.py -- heapfmt-export --format=rows loaded into real engines,
and the queries of docs/fleet.md checked against histo and heapfmt-diff.

    check_sql.py --bin build/bin --docs docs/fleet.md --tmp DIR
                 [--clickhouse] [--duckdb DIR]

Three dumps of each of two processes (heapfmt-gen: the same seed with more
objects is the same heap grown) are exported, one file per table, with
--host, --time and --release given and the pid taken from META. Then, for
each engine given (ClickHouse: a server started here on loopback, chserver.py, with a
cluster "heapfmt_test" of two shards whose default databases are shard1
and shard2; DuckDB: the directory holding node_modules/@duckdb/node-api):
  1. the tables and loads of docs/fleet.md, as written there (ClickHouse:
     the CREATE TABLE statements and INSERT ... FORMAT JSONEachRow; also a
     Distributed table over the two shards; DuckDB: CREATE TABLE and COPY);
  2. every row loaded: counts per dump against the export's lines, the
     edges against heapfmt-export's ndjson edges, classes against histo;
  3. every documented query, compared number for number with histo and
     heapfmt-diff on the same dumps (and in ClickHouse also through the
     Distributed table).
With python3-pymongo, rows also go through bson.json_util.loads and
bson.encode, as mongoimport --type=json takes them.
"""

import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chserver import ClickHouseServer  # noqa: E402

T0 = 1795255200  # 2026-11-21T10:00:00Z
RELEASE = "2026.11.1"
TABLES = ["objects", "edges", "roots", "classes", "meta"]
# process: host, seed, objects in its three dumps, heapfmt-gen options
PROCESSES = [
    ("web-1", 11, [20000, 22000, 24000], []),
    ("web-2", 12, [15000, 17000, 19000], ["--stacks"]),
]

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL: " + msg, flush=True)
    return cond


def say(msg):
    print("ok: " + msg, flush=True)


def sh(args, **kw):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       **kw)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), r.returncode,
                                                r.stderr.decode()[:500]))
    return r.stdout.decode()


def tsv(text, skip_header=True):
    lines = [l for l in text.split("\n") if l != ""]
    if skip_header:
        lines = lines[1:]
    return [l.split("\t") for l in lines]


def docs_sql(path):
    """The ```sql blocks after <!-- sql: NAME --> markers."""
    text = open(path, encoding="utf-8").read()
    blocks = {}
    for m in re.finditer(r"<!-- sql: ([a-z-]+) -->\s*```sql\n(.*?)```", text,
                         re.S):
        blocks[m.group(1)] = m.group(2)
    return blocks


class Dump:
    def __init__(self, path, host, time):
        self.path, self.host, self.time = path, host, time
        self.pid = None


def make_dumps(bindir, tmp):
    procs = []
    for p, (host, seed, sizes, opts) in enumerate(PROCESSES):
        dumps = []
        for k, n in enumerate(sizes):
            path = os.path.join(tmp, "%s-%d.hfd" % (host, k))
            sh([os.path.join(bindir, "heapfmt-gen"), "-n", str(n), "-s",
                str(seed), "-o", path] + opts)
            d = Dump(path, host, T0 + 600 * k + 60 * p)
            info = sh([os.path.join(bindir, "heapfmt-info"), "-p", path])
            d.pid = int(re.search(r"^meta\.pid +(\d+)$", info, re.M).group(1))
            dumps.append(d)
        procs.append(dumps)
    return procs


def export_all(bindir, tmp, procs):
    """One file per table, every dump appended; and the line count of each
    dump in each table."""
    lines = {}
    for t in TABLES:
        with open(os.path.join(tmp, t + ".ndjson"), "wb") as out:
            for dumps in procs:
                for d in dumps:
                    rows = subprocess.run(
                        [os.path.join(bindir, "heapfmt-export"), "-f", "rows",
                         "-r", t, "--host", d.host, "--time", str(d.time),
                         "--release", RELEASE, d.path],
                        stdout=subprocess.PIPE, check=True).stdout
                    out.write(rows)
                    lines[(t, d.host, d.pid, d.time)] = rows.count(b"\n")
    return lines


# ---------------------------------------------------------------------
# What the tools say
# ---------------------------------------------------------------------

class Expected:
    def __init__(self, bindir, procs):
        self.bin = bindir
        self.procs = procs

    def tool(self, name, *args):
        return sh([os.path.join(self.bin, name)] + list(args))

    def histogram(self):
        rows = []
        for dumps in self.procs:
            for d in dumps:
                for count, nbytes, cls in tsv(self.tool("histo", "-f", "tsv",
                                                        d.path)):
                    rows.append((d.host, d.pid, d.time, cls, int(count),
                                 int(nbytes)))
        return rows

    def growth(self):
        rows = []
        for dumps in self.procs:
            a, b = dumps[0], dumps[-1]
            for r in tsv(self.tool("histo", "-f", "tsv", "-a", a.path,
                                   b.path)):
                rows.append((a.host, a.pid, r[0], int(r[1]), int(r[2]),
                             int(r[4]), int(r[5])))
        return rows

    def grows_everywhere(self):
        per = {}
        for host, pid, cls, c1, c2, b1, b2 in self.growth():
            if c2 > c1:
                per.setdefault(cls, []).append((c2 - c1, b2 - b1))
        n = len(self.procs)
        return [(cls, n, sum(x[0] for x in v), sum(x[1] for x in v))
                for cls, v in per.items() if len(v) == n]

    def top_sites(self):
        sums = {}
        for dumps in self.procs:
            d = dumps[-1]
            for count, nbytes, site in tsv(self.tool("histo", "-f", "tsv",
                                                     "--by=site", d.path)):
                if site == "(no site)":
                    continue
                c, b = sums.get(site, (0, 0))
                sums[site] = (c + int(count), b + int(nbytes))
        rows = [(RELEASE, s, c, b) for s, (c, b) in sums.items()]
        rows.sort(key=lambda r: (r[0].encode(), -r[3], r[1].encode()))
        return rows[:20]

    def retained(self):
        rows = []
        for dumps in self.procs:
            d = dumps[0]
            for cls, count, nbytes in tsv(self.tool(
                    "heapfmt-diff", "-f", "tsv", *[x.path for x in dumps])):
                rows.append((d.host, d.pid, cls, int(count), int(nbytes)))
        return rows


def as_rows(result, types):
    """Engine output (lists of strings) typed like the expected rows."""
    out = []
    for r in result:
        out.append(tuple(int(v) if t is int else v for v, t in zip(r, types)))
    return out


def compare(engine, name, got, want, ordered=False):
    if not ordered:
        got, want = sorted(got), sorted(want)
    if check(got == want and len(want) > 0,
             "%s: %s: %d rows, the tools %d; first differences: %s" % (
                 engine, name, len(got), len(want),
                 [(g, w) for g, w in zip(got, want) if g != w][:3] or
                 (got[len(want):] or want[len(got):])[:3])):
        say("%s: %s: %d rows as histo/heapfmt-diff" % (engine, name,
                                                        len(want)))


# ---------------------------------------------------------------------
# Engines
# ---------------------------------------------------------------------

class ClickHouse:
    def __init__(self, server, database, settings=()):
        self.server, self.db, self.settings = server, database, list(settings)
        self.name = "clickhouse" + ("" if database == "heap" else
                                    " (%s)" % database)

    def client(self, *args, stdin=None):
        return self.server.client(*(self.settings + list(args)),
                                  database=self.db, stdin=stdin)

    def query(self, sql):
        return tsv(self.client("--format", "TSV", "--query", sql),
                   skip_header=False)


class DuckDB:
    name = "duckdb"

    def __init__(self, moddir, db, tmp):
        self.moddir, self.db, self.tmp = moddir, db, tmp
        self.script = os.path.join(os.path.dirname(os.path.abspath(
            __file__)), "duckdb_sql.cjs")

    def run(self, sql):
        path = os.path.join(self.tmp, "duckdb-query.sql")
        with open(path, "w", encoding="utf-8") as f:
            f.write(sql)
        # cwd: the documented COPY statements name the files relatively
        r = subprocess.run(["node", self.script, self.moddir, self.db, path],
                           cwd=self.tmp, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError("duckdb: %s" % r.stderr.decode()[:600])
        return tsv(r.stdout.decode(), skip_header=False)

    def query(self, sql):
        return self.run(sql)


def check_loaded(engine, procs, lines, bindir):
    """Every row of every table, per dump."""
    for t in TABLES:
        got = {(h, int(p), int(tm)): int(n) for h, p, tm, n in engine.query(
            "SELECT host, pid, time, count(*) FROM %s GROUP BY host, pid, time"
            % t)}
        want = {(h, p, tm): n for (tt, h, p, tm), n in lines.items()
                if tt == t and n > 0}
        if check(got == want, "%s: %s: rows per dump %s, exported %s" % (
                engine.name, t, got, want)):
            say("%s: %s: every row of every dump (%d)" % (
                engine.name, t, sum(want.values())))
    # edges: the ndjson export's edges, per dump (another writer, doc.c)
    got = {(h, int(p), int(tm)): (int(a), int(b)) for h, p, tm, a, b in
           engine.query("SELECT host, pid, time, "
                        "sum(CASE WHEN root = '' THEN 1 ELSE 0 END), "
                        "sum(CASE WHEN root != '' THEN 1 ELSE 0 END) "
                        "FROM edges GROUP BY host, pid, time")}
    want = {}
    for dumps in procs:
        for d in dumps:
            out = subprocess.run([os.path.join(bindir, "heapfmt-export"),
                                  "-r", "edges", d.path],
                                 stdout=subprocess.PIPE, check=True).stdout
            held = out.count(b'{"from":')
            want[(d.host, d.pid, d.time)] = (held, out.count(b"\n") - held)
    if check(got == want, "%s: edges per dump %s, ndjson %s" % (
            engine.name, got, want)):
        say("%s: edges held by objects and by roots as the ndjson export"
            % engine.name)
    got = engine.query("SELECT value FROM meta WHERE key = 'producer' "
                       "GROUP BY value")
    check(got == [["heapfmt-gen 0.1.0"]], "%s: meta producer %s" % (
        engine.name, got))


def check_queries(engine, sql, want):
    compare(engine.name, "histogram",
            as_rows(engine.query(sql["histogram"]),
                    [str, int, int, str, int, int]), want.histogram())
    compare(engine.name, "growth",
            as_rows(engine.query(sql["growth"]),
                    [str, int, str, int, int, int, int]), want.growth())
    compare(engine.name, "grows-everywhere",
            as_rows(engine.query(sql["grows-everywhere"]),
                    [str, int, int, int]), want.grows_everywhere())
    compare(engine.name, "top-sites",
            as_rows(engine.query(sql["top-sites"]), [str, str, int, int]),
            want.top_sites(), ordered=True)
    compare(engine.name, "retained",
            as_rows(engine.query(sql["retained"]), [str, int, str, int, int]),
            want.retained())
    # classes: the exporter's own counts per class, as histo
    got = as_rows(engine.query(
        "SELECT host, pid, time, name, count, bytes FROM classes "
        "WHERE count > 0"), [str, int, int, str, int, int])
    compare(engine.name, "classes table", got, want.histogram())


def statements(block):
    return [s.strip() for s in block.split(";") if s.strip()]


def run_clickhouse(server, sql, tmp, procs, lines, want, bindir):
    """server: a running ClickHouseServer."""
    # the local tables of the two shards, and the documented ones in heap
    admin = ClickHouse(server, "default")
    for db in ["heap", "shard1", "shard2", "fleet"]:
        admin.client("--query", "DROP DATABASE IF EXISTS " + db)
        admin.client("--query", "CREATE DATABASE " + db)
        if db != "fleet":
            ClickHouse(server, db).client("--multiquery", "--query",
                                        sql["clickhouse-tables"])
    for t in TABLES:
        ClickHouse(server, "fleet").client(
            "--query", "CREATE TABLE %s AS shard1.%s ENGINE = "
            "Distributed(heapfmt_test, '', %s, cityHash64(host, pid))"
            % (t, t, t))
    heap = ClickHouse(server, "heap")
    fleet = ClickHouse(server, "fleet", ["--insert_distributed_sync=1",
                                       "--distributed_product_mode=local"])
    for t in TABLES:
        for e in (heap, fleet):
            with open(os.path.join(tmp, t + ".ndjson"), "rb") as f:
                e.client("--query", "INSERT INTO %s FORMAT JSONEachRow" % t,
                         stdin=f)
    say("clickhouse: loaded every table with INSERT ... FORMAT JSONEachRow")
    n1 = int(ClickHouse(server, "shard1").query(
        "SELECT count(*) FROM objects")[0][0])
    n2 = int(ClickHouse(server, "shard2").query(
        "SELECT count(*) FROM objects")[0][0])
    check(n1 > 0 and n2 > 0, "the Distributed table used both shards "
          "(%d and %d objects)" % (n1, n2))
    for e in (heap, fleet):
        check_loaded(e, procs, lines, bindir)
        check_queries(e, sql, want)


def run_duckdb(moddir, sql, tmp, procs, lines, want, bindir):
    db = os.path.join(tmp, "fleet.duckdb")
    if os.path.exists(db):
        os.unlink(db)
    e = DuckDB(moddir, db, tmp)
    e.run(sql["duckdb-tables"])
    e.run(sql["duckdb-load"])
    say("duckdb: loaded every table with COPY ... (FORMAT json)")
    check_loaded(e, procs, lines, bindir)
    check_queries(e, sql, want)


def check_mongoimport(tmp):
    try:
        from bson import decode, encode, json_util
        from bson.int64 import Int64
    except ImportError:
        print("skip: no bson module (python3-pymongo): rows not checked "
              "as mongoimport reads them")
        return
    n = 0
    for t in TABLES:
        with open(os.path.join(tmp, t + ".ndjson"), encoding="utf-8") as f:
            for k, line in enumerate(f):
                if k == 20000:  # enough of each table (python's bson is slow)
                    break
                doc = json_util.loads(line)
                back = decode(encode(doc))
                if not check(back == doc, "bson round trip of %s" % line[:200]):
                    return
                if t == "objects" and doc["id"] >= 2**31:
                    if not check(isinstance(back["id"], Int64),
                                 "an id above 2^31 is an Int64: %r" %
                                 type(back["id"])):
                        return
                n += 1
    say("rows (%d, up to 20,000 per table) are documents as mongoimport "
        "reads them" % n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--clickhouse", action="store_true")
    ap.add_argument("--duckdb")
    a = ap.parse_args()
    sql = docs_sql(a.docs)
    need = ["clickhouse-tables", "duckdb-tables", "duckdb-load", "histogram",
            "growth", "grows-everywhere", "top-sites", "retained"]
    missing = [k for k in need if k not in sql]
    if missing:
        print("FAIL: %s lacks the SQL blocks %s" % (a.docs, missing))
        return 1
    procs = make_dumps(a.bin, a.tmp)
    check(len({d.pid for d in procs[0]} | {d.pid for d in procs[1]}) == 2,
          "two processes, one pid each (META)")
    lines = export_all(a.bin, a.tmp, procs)
    want = Expected(a.bin, procs)
    check_mongoimport(a.tmp)
    if a.clickhouse:
        with ClickHouseServer(os.path.join(a.tmp, "clickhouse")) as server:
            say("clickhouse-server %s on 127.0.0.1:%d" % (
                server.client("--query", "SELECT version()").strip(),
                server.port))
            run_clickhouse(server, sql, a.tmp, procs, lines, want, a.bin)
    if a.duckdb:
        run_duckdb(a.duckdb, sql, a.tmp, procs, lines, want, a.bin)
    if failures:
        print("%d failures" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
