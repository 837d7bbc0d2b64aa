#!/usr/bin/env python3
"""mini_hprof.py -- a small HPROF dump cut out of a real one, for seeds.

    mini_hprof.py IN.hprof OUT.hprof [CLASS...]

Keeps the header, the UTF8 and LOAD CLASS records the kept classes use,
the CLASS DUMPs of the named classes (default: tests/java/Leak.java's, and
the JDK classes they extend or hold), up to 8 instances and arrays of
each, some GC roots and HEAP DUMP END: a real JVM's bytes and layout in a
few KiB, for fuzz/corpus/fuzz_import (whose inputs stay under 16 KiB).
"""
import struct
import sys

from hprof_subrecords import SIZE, sub_record_end

DEFAULT = ['java/lang/Object', 'java/lang/Class', 'Leak', 'Leak$Node',
           'Leak$Base', 'Leak$Mid', 'Leak$Leaf', 'java/util/ArrayList',
           'java/util/AbstractList', 'java/util/AbstractCollection',
           '[I', '[Ljava/lang/Object;', '[B']


def main():
    src, dst = sys.argv[1], sys.argv[2]
    want = set(sys.argv[3:] or DEFAULT)
    d = open(src, 'rb').read()
    i = d.index(b'\0') + 1
    idsz = struct.unpack('>I', d[i:i + 4])[0]
    head = d[:i + 12]
    i += 12
    ident = lambda o: int.from_bytes(d[o:o + idsz], 'big')
    vsize = lambda t: idsz if t == 2 else SIZE[t]
    utf8, loads, subs = {}, [], []
    while i < len(d):
        tag, ln = d[i], struct.unpack('>I', d[i + 5:i + 9])[0]
        body = d[i + 9:i + 9 + ln]
        if tag == 1:
            utf8[int.from_bytes(body[:idsz], 'big')] = d[i:i + 9 + ln]
        elif tag == 2:
            loads.append(d[i:i + 9 + ln])
        elif tag in (0x0c, 0x1c):
            s, e = i + 9, i + 9 + ln
            while s < e:
                nxt = sub_record_end(d, s, idsz)
                if nxt is None:
                    raise SystemExit('unknown sub-record 0x%02x' % d[s])
                subs.append((d[s], s, nxt))
                s = nxt
        i += 9 + ln
    names = {}
    for rec in loads:
        cid = int.from_bytes(rec[13:13 + idsz], 'big')
        nid = int.from_bytes(rec[17 + idsz:17 + 2 * idsz], 'big')
        names[cid] = (utf8.get(nid, b'')[9 + idsz:].decode(), nid, rec)
    kept = {c for c, (n, _, _) in names.items() if n in want}
    prim = {'[I': 10, '[B': 8}
    prim_types = {prim[n] for n in want if n in prim}
    out_subs, per, used = [], {}, set()
    for t, s, e in subs:
        o = s + 1
        if t == 0x20 and ident(o) in kept:
            out_subs.append(d[s:e])
            p = o + 7 * idsz + 10
            for _ in range(struct.unpack('>H', d[p - 2:p])[0]):
                p += 3 + vsize(d[p + 2])
            ns = struct.unpack('>H', d[p:p + 2])[0]
            p += 2
            for _ in range(ns):
                used.add(ident(p))
                p += idsz + 1 + vsize(d[p + idsz])
            nf = struct.unpack('>H', d[p:p + 2])[0]
            p += 2
            for _ in range(nf):
                used.add(ident(p))
                p += idsz + 1
            continue
        key = None
        if t == 0x21 and ident(o + idsz + 4) in kept:
            key = ident(o + idsz + 4)
        elif t == 0x22 and ident(o + idsz + 8) in kept and e - s < 600:
            key = ident(o + idsz + 8)
        elif t == 0x23 and d[o + idsz + 8] in prim_types and e - s < 200:
            key = ('prim', d[o + idsz + 8])
        elif t in (0xff, 1, 2, 3, 4, 5, 6, 7, 8):
            key = ('root', t)
        if key is not None and per.get(key, 0) < 8:
            per[key] = per.get(key, 0) + 1
            out_subs.append(d[s:e])
    body = b''
    for c in kept:
        n, nid, rec = names[c]
        used.add(nid)
        body += rec
    strs = b''.join(utf8[u] for u in sorted(used) if u in utf8)
    seg = b''.join(out_subs)
    out = head + strs + body
    out += bytes([0x1c]) + b'\0\0\0\0' + struct.pack('>I', len(seg)) + seg
    out += bytes([0x2c]) + b'\0' * 8
    open(dst, 'wb').write(out)


main()
