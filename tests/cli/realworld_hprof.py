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
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'java'))
from hprof_subrecords import sub_record_end  # noqa: E402

PRIM = {4: '[Z', 5: '[C', 6: '[F', 7: '[D', 8: '[B', 9: '[S', 10: '[I', 11: '[J'}


def main():
    path, what = sys.argv[1], sys.argv[2]
    d = open(path, 'rb').read()
    i = d.index(b'\0') + 1
    idsz = struct.unpack('>I', d[i:i + 4])[0]
    i += 12
    rid = lambda o: int.from_bytes(d[o:o + idsz], 'big')
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
                    nxt = sub_record_end(d, s, idsz)
                    if nxt is None:
                        sys.exit('unknown sub-record 0x%02x at %d' % (t, s))
                    if t == 0x20:
                        cid = rid(o)
                        if cid not in seen_classes:
                            seen_classes.add(cid)
                            count['java.lang.Class'] += 1
                    elif t == 0x21:
                        count[name.get(rid(o + idsz + 4), '?')] += 1
                    elif t == 0x22:
                        count[name.get(rid(o + idsz + 8), '?')] += 1
                    elif t == 0x23:
                        count[PRIM[d[o + idsz + 8]]] += 1
                    s = nxt
        elif tag == 0x2c:
            seg_open = False
        i += 9 + ln
    if what == 'dumps':
        print(' '.join(str(x) for x in dumps))
    else:
        for cls, n in sorted(count.items()):
            print('%d\t%s' % (n, cls))


main()
