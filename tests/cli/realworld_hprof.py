#!/usr/bin/env python3
"""realworld_hprof.py -- objects per class of one heap dump of an HPROF
file, read straight from the bytes (the independent model of
tests/cli/realworld.sh).

    realworld_hprof.py FILE N      -> "count<TAB>class" lines, dump N (1-based)
    realworld_hprof.py FILE dumps  -> the byte offset of each heap dump

Class names as jmap prints them (java.lang.String, [I, [Ljava.lang.Object;);
every CLASS DUMP counts one java.lang.Class (the first of a class in the
dump); a dump is a HEAP DUMP record or the SEGMENTs up to a HEAP DUMP END.
"""
import collections
import struct
import sys

PRIM = {4: '[Z', 5: '[C', 6: '[F', 7: '[D', 8: '[B', 9: '[S', 10: '[I', 11: '[J'}
SIZE = {4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}


def main():
    path, what = sys.argv[1], sys.argv[2]
    d = open(path, 'rb').read()
    i = d.index(b'\0') + 1
    idsz = struct.unpack('>I', d[i:i + 4])[0]
    i += 12
    rid = lambda o: int.from_bytes(d[o:o + idsz], 'big')
    vs = lambda t: idsz if t == 2 else SIZE[t]
    utf8, name = {}, {}
    dumps, seg_open = [], False
    count = collections.Counter()
    seen_classes = set()
    while i < len(d):
        tag, ln = d[i], struct.unpack('>I', d[i + 5:i + 9])[0]
        b = i + 9
        if tag == 1:
            utf8[rid(b)] = d[b + idsz:b + ln].decode('utf-8', 'replace')
        elif tag == 2:
            name[rid(b + 4)] = utf8.get(rid(b + 8 + idsz), '').replace('/', '.')
        elif tag in (0x0c, 0x1c):
            if tag == 0x0c or not seg_open:
                dumps.append(i)
            seg_open = tag == 0x1c
            if what != 'dumps' and len(dumps) == int(what):
                s, e = b, b + ln
                while s < e:
                    t, o = d[s], s + 1
                    if t in (0xff, 5, 7):
                        s = o + idsz
                    elif t == 1:
                        s = o + 2 * idsz
                    elif t in (2, 3, 8):
                        s = o + idsz + 8
                    elif t in (4, 6):
                        s = o + idsz + 4
                    elif t == 0x20:
                        cid = rid(o)
                        if cid not in seen_classes:
                            seen_classes.add(cid)
                            count['java.lang.Class'] += 1
                        p = o + 7 * idsz + 8
                        n = struct.unpack('>H', d[p:p + 2])[0]
                        p += 2
                        for _ in range(n):
                            p += 3 + vs(d[p + 2])
                        n = struct.unpack('>H', d[p:p + 2])[0]
                        p += 2
                        for _ in range(n):
                            p += idsz + 1 + vs(d[p + idsz])
                        n = struct.unpack('>H', d[p:p + 2])[0]
                        s = p + 2 + n * (idsz + 1)
                    elif t == 0x21:
                        count[name.get(rid(o + idsz + 4), '?')] += 1
                        n = struct.unpack('>I', d[o + 2 * idsz + 4:o + 2 * idsz + 8])[0]
                        s = o + 2 * idsz + 8 + n
                    elif t == 0x22:
                        n = struct.unpack('>I', d[o + idsz + 4:o + idsz + 8])[0]
                        count[name.get(rid(o + idsz + 8), '?')] += 1
                        s = o + 2 * idsz + 8 + n * idsz
                    elif t == 0x23:
                        n = struct.unpack('>I', d[o + idsz + 4:o + idsz + 8])[0]
                        ty = d[o + idsz + 8]
                        count[PRIM[ty]] += 1
                        s = o + idsz + 9 + n * SIZE[ty]
                    else:
                        sys.exit('unknown sub-record 0x%02x at %d' % (t, s))
        elif tag == 0x2c:
            seg_open = False
        i += 9 + ln
    if what == 'dumps':
        print(' '.join(str(x) for x in dumps))
    else:
        for cls, n in sorted(count.items()):
            print('%d\t%s' % (n, cls))


main()
