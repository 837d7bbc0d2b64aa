#!/usr/bin/env python3
"""gen_dump_all.py -- write a large, realistic ObjectSpace.dump_all file.

The output imitates what Ruby 3.1's ObjectSpace.dump_all writes for a web
application process: the same line layout (", " separators, keys in Ruby's
order), ROOT lines first, then the heap in address order: class and module
objects (named, singleton, anonymous), include classes, strings with values
(some with escapes and non-ASCII text), arrays (a few with thousands of
references), hashes, plain objects with instance variables, IMEMO and DATA
objects, allocation sites on about 15% of objects, GC flags. Lines average
about 290 bytes (real Ruby 3.1 dumps: 230 to 260), with more references and
string values than a real heap: a slightly harder input to scan.

--shape=app (the default) makes the heap compress as a real one does:
objects come in runs of groups drawn alike (as a constructor called in a
loop makes them: same classes, sizes, values; one group in ODD_ONES drawn
afresh), and three references in four of those to recent objects go to the
last few made. heapfmt-import's records of it compress 4.7x with zstd
level 1 (a Ruby 3.1 dump_all of bench/ruby_bench.rb's heap: 6.7x;
heapfmt-gen's app profile: 8.6-9.3x). --shape=random draws every object
afresh, with references anywhere in the last 512 objects: its records
compress 1.8x, which no real heap does, and make the codec look slower
than it is; it writes the same bytes as this generator did before shapes.

The same --seed and --size always give the same bytes (Python 3.6+).

Usage: bench/gen_dump_all.py [--size MB] [--seed N] [--shape app|random]
                             [-o FILE]
"""
import argparse
import random
import sys

SLOT = 40
RUN_MAX = 256  # --shape=app: groups made from one template, at most
GROUP_MAX = 8  # objects in a group, at most
ODD_ONES = 8   # one group in ODD_ONES is drawn afresh


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=float, default=200.0,
                    help="approximate output size in MB (default 200)")
    ap.add_argument("--seed", type=int, default=1, help="random seed")
    ap.add_argument("--shape", choices=("app", "random"), default="app",
                    help="app (default): objects come in runs of groups "
                    "alike, referring mostly to the objects made just "
                    "before, so that the heap compresses as a real one "
                    "does; random: every object drawn afresh (harder "
                    "for the codec; the only shape before 2026-11-26)")
    ap.add_argument("-o", "--output", default="-",
                    help="output file (default: standard output)")
    args = ap.parse_args()
    out = sys.stdout if args.output == "-" else open(args.output, "w",
                                                     encoding="utf-8",
                                                     newline="\n")
    Gen(random.Random(args.seed), int(args.size * 1e6), out,
        args.shape == "app").run()
    if out is not sys.stdout:
        out.close()


class Gen:
    def __init__(self, rng, target, out, app):
        self.r = rng       # the draws of the object being made
        self.main = rng    # runs, odd groups and slots: never a template's
        self.app = app
        self.target = target
        self.out = out
        self.written = 0
        self.buf = []
        self.addr = 0x7f3a80000000
        self.recent = []  # ring of recent addresses, for references
        self.files = (["/app/app/models/%s.rb" % w for w in WORDS[:40]] +
                      ["/usr/lib/ruby/3.1.0/%s.rb" % w for w in WORDS[40:70]] +
                      ["/var/lib/gems/3.1.0/gems/%s-1.%d/lib/%s.rb" %
                       (w, i % 9, w) for i, w in enumerate(WORDS[70:])])
        self.methods = ["new", "initialize", "call", "map", "each", "[]",
                        "dup", "to_s", "+", "<<", "merge", "render"]

    # -- output --------------------------------------------------------
    def emit(self, line):
        self.buf.append(line)
        self.written += len(line) + 1
        if len(self.buf) >= 4096:
            self.flush()

    def flush(self):
        if self.buf:
            self.out.write("\n".join(self.buf))
            self.out.write("\n")
            self.buf = []

    # -- helpers -------------------------------------------------------
    def below(self, n, rng=None):
        return int((rng or self.r).random() * n)

    def chance(self, p):
        return self.r.random() < p

    def next_addr(self):
        m = self.main
        self.addr += SLOT * (1 + (self.below(8, m) == 0))
        if self.below(4096, m) == 0:
            self.addr += 0x4000 * (1 + self.below(64, m))
        return self.addr

    def ref(self):
        if self.recent and self.chance(0.85):
            n = min(len(self.recent), 512)
            if self.app and self.chance(0.75):
                # mostly the objects made just before (a constructor's)
                return self.recent[-1 - min(n - 1, int(
                    self.r.expovariate(1 / 3.0)))]
            return self.recent[-1 - self.below(n)]
        if self.chance(0.5) and self.classes:
            return self.classes[self.below(len(self.classes))][0]
        return 0x7f3a80000000 + SLOT * self.below(
            max(1, (self.addr - 0x7f3a80000000) // SLOT))

    def refs(self, n):
        return ", ".join('"0x%x"' % self.ref() for _ in range(n))

    def site(self):
        if not self.chance(0.15):
            return ""
        f = self.files[min(len(self.files) - 1,
                           int(len(self.files) * self.r.random() ** 2))]
        return (', "file":"%s", "line":%d, "method":"%s", "generation":%d' %
                (f, 1 + self.below(400),
                 self.methods[self.below(len(self.methods))],
                 10 + self.below(90)))

    def flags(self, wb=True):
        if self.chance(0.7):
            return (', "flags":{%s"old":true, "uncollectible":true, '
                    '"marked":true}' % ('"wb_protected":true, ' if wb else ""))
        return ', "flags":{"wb_protected":true}' if wb else ""

    def text(self, n):
        words = []
        size = 0
        while size < n:
            w = WORDS[self.below(len(WORDS))]
            words.append(w)
            size += len(w) + 1
        s = " ".join(words)[:n]
        if self.chance(0.05):
            s = s[: n // 2] + '\\"quoted\\" \\n\\t' + s[n // 2:]
        if self.chance(0.02):
            s = s[: n // 2] + "caf\u00e9 \u65e5\u672c \\u00e9" + s[n // 2:]
        return s

    def push(self, a):
        self.recent.append(a)
        if len(self.recent) > 4096:
            del self.recent[:2048]

    # -- heap ----------------------------------------------------------
    def run(self):
        self.classes = []
        self.make_classes()
        self.write_roots()
        self.write_classes()
        kinds = ([self.string] * 40 + [self.imemo] * 25 + [self.array] * 14 +
                 [self.hash] * 5 + [self.obj] * 8 + [self.data] * 4 +
                 [self.misc] * 4)
        main = self.main
        while self.written < self.target:
            if not self.app:
                kinds[self.below(len(kinds))]()
                continue
            # a run of groups made alike (one template: a seed for the
            # group's draws), as a constructor called in a loop makes them
            template = main.getrandbits(32)
            for _ in range(1 + int(main.random() ** 2 * RUN_MAX)):
                odd = main.random() < 1 / ODD_ONES
                self.r = main if odd else random.Random(template)
                for _ in range(1 + self.below(GROUP_MAX)):
                    kinds[self.below(len(kinds))]()
                self.r = main
        self.flush()

    def make_classes(self):
        core = ["Object", "String", "Array", "Hash", "Symbol", "Float",
                "Proc", "Thread", "Time", "Regexp", "Struct", "Module",
                "Class", "Integer", "Range", "Encoding", "Mutex"]
        names = list(core)
        for i in range(3000):
            ns = CAMEL[i % len(CAMEL)]
            names.append("%s::%s%d" % (ns, CAMEL[(i * 7) % len(CAMEL)], i))
        for n in names:
            a = self.next_addr()
            meta = self.next_addr()
            self.classes.append((a, n, meta))
        self.by_name = {n: a for a, n, _ in self.classes}

    def cls(self, name=None):
        if name:
            return self.by_name[name]
        c = self.classes[17 + min(len(self.classes) - 18,
                                  int((len(self.classes) - 18) *
                                      self.r.random() ** 3))]
        return c[0]

    def write_roots(self):
        for kind, n in (("vm", 300), ("machine_context", 120),
                        ("global_list", 40), ("global_tbl", 90),
                        ("finalizer", 3), ("mark_object_ary", 20)):
            self.emit('{"type":"ROOT", "root":"%s", "references":[%s]}' %
                      (kind, self.refs(n)))

    def write_classes(self):
        obj = self.by_name["Object"]
        for a, n, meta in self.classes:
            self.emit('{"address":"0x%x", "type":"CLASS", "class":"0x%x", '
                      '"superclass":"0x%x", "real_class_name":"Class", '
                      '"singleton":true, "references":[%s], "memsize":%d%s}' %
                      (meta, self.by_name["Class"], obj, self.refs(2),
                       SLOT + 440, self.flags()))
            kind = "MODULE" if n.startswith("Kernel") else "CLASS"
            self.emit('{"address":"0x%x", "type":"%s", "class":"0x%x", '
                      '"superclass":"0x%x", "name":"%s", "references":[%s], '
                      '"memsize":%d%s}' %
                      (a, kind, meta, obj, n, self.refs(3 + self.below(10)),
                       SLOT + 144 + 24 * self.below(60), self.flags()))
            self.push(a)
        for _ in range(200):
            a = self.next_addr()
            self.emit('{"address":"0x%x", "type":"ICLASS", "class":"0x%x", '
                      '"superclass":"0x%x", "references":["0x%x"], '
                      '"memsize":40%s}' % (a, self.cls(), self.cls(),
                                           self.cls(), self.flags()))

    def string(self):
        a = self.next_addr()
        p = self.r.random()
        n = (self.below(24) if p < 0.55 else 24 + self.below(100) if p < 0.93
             else 124 + self.below(500))
        emb = n < 24
        fro = self.chance(0.3)
        parts = ['{"address":"0x%x", "type":"STRING", "class":"0x%x"' %
                 (a, self.cls("String"))]
        if fro:
            parts.append(', "frozen":true')
        if emb:
            parts.append(', "embedded":true')
        if fro and self.chance(0.5):
            parts.append(', "fstring":true')
        if self.chance(0.04):
            parts.append(', "shared":true, "encoding":"UTF-8", '
                         '"references":["0x%x"]' % self.ref())
            size = SLOT
        else:
            parts.append(', "bytesize":%d' % n)
            if not emb and self.chance(0.3):
                parts.append(', "capacity":%d' % (n + self.below(n)))
            if self.chance(0.9):
                parts.append(', "value":"%s"' % self.text(n))
            parts.append(', "encoding":"UTF-8"')
            size = SLOT if emb else SLOT + n + 1
        parts.append(self.site())
        parts.append(', "memsize":%d%s}' % (size, self.flags()))
        self.emit("".join(parts))
        self.push(a)

    def imemo(self):
        a = self.next_addr()
        t = IMEMO[self.below(len(IMEMO))]
        big = t == "iseq"
        self.emit('{"address":"0x%x", "type":"IMEMO", "class":"0x%x", '
                  '"imemo_type":"%s", "references":[%s]%s, "memsize":%d%s}' %
                  (a, self.cls(), t, self.refs(1 + self.below(12 if big else 3)),
                   self.site(), SLOT + (self.below(4000) if big else 8),
                   self.flags()))
        self.push(a)

    def array(self):
        a = self.next_addr()
        p = self.r.random()
        n = (0 if p < 0.3 else 1 + self.below(3) if p < 0.65
             else 4 + self.below(12) if p < 0.92 else 16 + self.below(100)
             if p < 0.999 else 1000 + self.below(9000))
        body = ""
        if n:
            body = ', "references":[%s]' % self.refs(n - n // 5)
        emb = ', "embedded":true' if 0 < n <= 3 else ""
        self.emit('{"address":"0x%x", "type":"ARRAY", "class":"0x%x", '
                  '"length":%d%s%s%s, "memsize":%d%s}' %
                  (a, self.cls("Array"), n, emb, body, self.site(),
                   SLOT if n <= 3 else SLOT + 8 * n, self.flags()))
        self.push(a)

    def hash(self):
        a = self.next_addr()
        n = 0 if self.chance(0.25) else 1 + self.below(8 if self.chance(0.85)
                                                       else 48)
        body = ', "references":[%s]' % self.refs(2 * n) if n else ""
        self.emit('{"address":"0x%x", "type":"HASH", "class":"0x%x", '
                  '"size":%d%s%s, "memsize":%d%s}' %
                  (a, self.cls("Hash"), n, body, self.site(),
                   SLOT + (0 if n == 0 else 136 if n <= 8 else 56 + 40 * n),
                   self.flags()))
        self.push(a)

    def obj(self):
        a = self.next_addr()
        n = self.below(12)
        body = ', "references":[%s]' % self.refs(n) if n else ""
        self.emit('{"address":"0x%x", "type":"OBJECT", "class":"0x%x", '
                  '"ivars":%d%s%s, "memsize":%d%s}' %
                  (a, self.cls(), n, body, self.site(),
                   SLOT if n <= 3 else SLOT + 8 * n, self.flags()))
        self.push(a)

    def data(self):
        a = self.next_addr()
        s = DATA[self.below(len(DATA))]
        self.emit('{"address":"0x%x", "type":"DATA", "class":"0x%x", '
                  '"struct":"%s", "references":[%s]%s, "memsize":%d%s}' %
                  (a, self.cls(s.capitalize() if s.capitalize() in
                               self.by_name else None), s,
                   self.refs(1 + self.below(4)), self.site(),
                   SLOT + 8 * self.below(80), self.flags(wb=False)))
        self.push(a)

    def misc(self):
        a = self.next_addr()
        k = self.below(4)
        if k == 0:
            self.emit('{"address":"0x%x", "type":"FLOAT", "class":"0x%x", '
                      '"frozen":true, "value":"%g", "memsize":40%s}' %
                      (a, self.cls("Float"), self.r.random() * 1000,
                       self.flags()))
        elif k == 1:
            self.emit('{"address":"0x%x", "type":"SYMBOL", "class":"0x%x", '
                      '"frozen":true, "bytesize":6, "value":"sym%03d", '
                      '"memsize":40%s}' % (a, self.cls("Symbol"),
                                           self.below(1000), self.flags()))
        elif k == 2:
            self.emit('{"address":"0x%x", "type":"STRUCT", "class":"0x%x", '
                      '"references":[%s], "memsize":40%s}' %
                      (a, self.cls(), self.refs(2), self.flags()))
        else:
            self.emit('{"address":"0x%x", "type":"REGEXP", "class":"0x%x", '
                      '"frozen":true, "references":["0x%x"], "memsize":%d%s}' %
                      (a, self.cls("Regexp"), self.ref(),
                       SLOT + 300 + self.below(2000), self.flags()))
        self.push(a)


WORDS = ("user account order item cart price session token cache request "
         "response header body params query record model view controller "
         "helper mailer job queue worker event store product invoice "
         "payment address country city street name email phone status "
         "created updated deleted active admin role permission group "
         "team project task comment post article tag category image "
         "file upload download report export import config setting "
         "feature flag metric counter timer logger buffer stream socket "
         "client server proxy router route path json yaml xml html csv "
         "rack rails activerecord activesupport actionpack sidekiq redis "
         "puma nokogiri faraday aws sdk stripe devise pundit rspec").split()
CAMEL = [w.capitalize() for w in WORDS]
IMEMO = ["callcache", "callinfo", "ment", "iseq", "env", "cref", "svar",
         "constcache", "throw_data", "ifunc", "memo", "parser_strterm"]
DATA = ["proc", "thread", "time", "mutex", "binding", "method", "enumerator",
        "iseq", "VM/thread", "monitor", "OpenSSL/Cipher", "Psych/parser"]

if __name__ == "__main__":
    main()
