"""hprof_subrecords.py -- where each sub-record of an HPROF heap dump
ends, read from the bytes by the HPROF specification: the one walker of
tests/java/mini_hprof.py and tests/cli/realworld_hprof.py.
"""
import struct

# bytes of a value of each basic type (2, an object: the identifier size)
SIZE = {4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}


def sub_record_end(d, s, idsz):
    """The offset just past the sub-record that starts at d[s], or None
    when its tag is not one the specification lists."""
    t, o = d[s], s + 1
    u2 = lambda p: struct.unpack('>H', d[p:p + 2])[0]
    u4 = lambda p: struct.unpack('>I', d[p:p + 4])[0]
    vsize = lambda ty: idsz if ty == 2 else SIZE[ty]
    if t in (0xff, 5, 7):
        return o + idsz
    if t == 1:
        return o + 2 * idsz
    if t in (2, 3, 8):
        return o + idsz + 8
    if t in (4, 6):
        return o + idsz + 4
    if t == 0x20:  # CLASS DUMP: constants, statics, instance fields
        p = o + 7 * idsz + 10
        for _ in range(u2(p - 2)):
            p += 3 + vsize(d[p + 2])
        p += 2
        for _ in range(u2(p - 2)):
            p += idsz + 1 + vsize(d[p + idsz])
        return p + 2 + u2(p) * (idsz + 1)
    if t == 0x21:
        return o + 2 * idsz + 8 + u4(o + 2 * idsz + 4)
    if t == 0x22:
        return o + 2 * idsz + 8 + idsz * u4(o + idsz + 4)
    if t == 0x23:
        return o + idsz + 9 + SIZE[d[o + idsz + 8]] * u4(o + idsz + 4)
    return None
