"""heapdump.py -- a small writer of heapfmt dumps, written from
spec/FORMAT.md alone (not from libheapfmt), for the export tests.

It writes what the C writer makes awkward to reach from a test script:
objects with a million references, megabytes of invalid UTF-8 in names,
values and META text. Every record goes into stored (codec 0) data
blocks; the footer (totals, block index, per-class summary) and the
trailer make the dump complete.

    w = DumpWriter()
    s = w.string(b"T_ARRAY")
    c = w.klass(0x1000, b"Array")
    w.obj(0x2000, klass=c, type=s, size=40, refs=[0x3000])
    w.root(w.string(b"vm"), [0x2000])
    data = w.finish()
"""

import struct
import zlib

MAGIC = b"\x89HFMT\r\n\x1a"
END_MAGIC = b"\x89HFMTEND"

TAG_META, TAG_STRING, TAG_CLASS, TAG_OBJECT, TAG_ROOT, TAG_END = 1, 2, 3, 4, 5, 6
TAG_TOTALS, TAG_BLOCKS, TAG_SUMMARY = 0x40, 0x41, 0x42

F_FLAGS, F_VALUE, F_SITE, F_GENERATION = 1, 2, 4, 8
MASK64 = (1 << 64) - 1


def varint(v):
    """LEB128, shortest form (spec section 2)."""
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(n):
    """n read as a signed 64-bit value, zigzag-encoded."""
    n &= MASK64
    if n >= 1 << 63:
        n -= 1 << 64
    return ((n << 1) ^ (n >> 63)) & MASK64


def zdelta(x, base):
    return varint(zigzag((x - base) & MASK64))


class DumpWriter:
    def __init__(self, block_size=1 << 20):
        self.block_size = block_size
        self.out = bytearray()
        header = MAGIC + bytes([1, 0]) + b"\0\0"
        self.out += header + struct.pack("<I", zlib.crc32(header))
        self.blk = bytearray()
        self.blk_records = self.blk_objects = 0
        self.prev_id = 0
        self.blocks = []  # (offset, records, objects)
        self.records = self.objects = self.nbytes = 0
        self.nstrings = self.nroots = 0
        self.raw_bytes = 0  # sum of the data blocks' raw_len
        self.strings = {}
        self.classes = {}  # index -> [id, flags, name, count, bytes]
        self.no_class = [0, 0]

    # -- records ---------------------------------------------------------

    def _record(self, tag, body):
        rec = bytes([tag]) + varint(len(body)) + body
        if self.blk and len(self.blk) + len(rec) > self.block_size:
            self._flush()
        self.blk += rec
        self.blk_records += 1
        self.records += 1

    def meta(self, key, value):
        """value: bytes (text), or an int (unsigned if >= 0, else signed)."""
        if isinstance(value, bytes):
            body = b"\0" + varint(len(key)) + key + value
        elif value >= 0:
            body = b"\1" + varint(len(key)) + key + varint(value)
        else:
            body = b"\2" + varint(len(key)) + key + varint(zigzag(value))
        self._record(TAG_META, body)

    def string(self, text):
        """Interns text (bytes); returns its string id."""
        if text in self.strings:
            return self.strings[text]
        sid = len(self.strings) + 1
        self.strings[text] = sid
        self.nstrings += 1
        self._record(TAG_STRING, varint(sid) + text)
        return sid

    def klass(self, cid, name=None, super_id=0, flags=0):
        """Defines a class (name bytes, or None for anonymous); returns its
        index."""
        index = len(self.classes) + 1
        name_sid = self.string(name) if name is not None else 0
        self.classes[index] = [cid, flags, name or b"", 0, 0]
        self._record(TAG_CLASS, varint(index) + varint(cid) + varint(name_sid)
                     + varint(super_id) + varint(flags))
        return index

    def obj(self, oid, klass=0, type=0, size=40, refs=(), flags=None,
            value=None, site=None, generation=None):
        fields = 0
        tail = bytearray()
        if flags is not None:
            fields |= F_FLAGS
            tail += varint(flags)
        if value is not None:
            fields |= F_VALUE
            tail += varint(len(value)) + value
        if site is not None:
            fields |= F_SITE
            tail += varint(site[0]) + varint(site[1])
        if generation is not None:
            fields |= F_GENERATION
            tail += varint(generation)
        rest = bytearray(varint(klass) + varint(type) + varint(size)
                         + bytes([fields]))
        rest += tail
        rest += varint(len(refs))
        base = oid
        for r in refs:
            rest += zdelta(r, base)
            base = r
        # The id is a delta from the previous object of the same block:
        # start a new block first if this record will not fit.
        if self.blk and len(self.blk) + len(rest) + 22 > self.block_size:
            self._flush()
        self._record(TAG_OBJECT, zdelta(oid, self.prev_id) + bytes(rest))
        self.prev_id = oid
        self.blk_objects += 1
        self.objects += 1
        self.nbytes = (self.nbytes + size) & MASK64
        c = self.classes[klass] if klass else self.no_class
        if klass:
            c[3] += 1
            c[4] += size
        else:
            c[0] += 1
            c[1] += size

    def root(self, kind, refs):
        body = bytearray(varint(kind) + varint(len(refs)))
        base = 0
        for r in refs:
            body += zdelta(r, base)
            base = r
        self.nroots += 1
        self._record(TAG_ROOT, bytes(body))

    # -- blocks ------------------------------------------------------------

    def _block(self, kind, payload):
        head = struct.pack("<BBHIII", kind, 0, 0, len(payload), len(payload),
                           zlib.crc32(payload))
        self.out += head + struct.pack("<I", zlib.crc32(head)) + payload

    def _flush(self):
        if not self.blk:
            return
        self.blocks.append((len(self.out), self.blk_records, self.blk_objects))
        self.raw_bytes += len(self.blk)
        self._block(0x44, bytes(self.blk))
        self.blk = bytearray()
        self.blk_records = self.blk_objects = 0
        self.prev_id = 0

    def finish(self, truncate_footer=False):
        """Writes END, the footer and the trailer; returns the dump."""
        end = varint(self.objects) + varint(self.nbytes) + varint(self.records)
        self.blk += bytes([TAG_END]) + varint(len(end)) + end
        self.blk_records += 1
        self.records_with_end = self.records + 1
        self._flush()
        footer = bytearray()

        def rec(tag, body):
            footer.extend(bytes([tag]) + varint(len(body)) + body)

        used = [i for i, c in self.classes.items()]
        rec(TAG_TOTALS, b"".join(varint(v) for v in (
            self.objects, self.nbytes, self.records, len(used),
            self.nstrings, self.nroots, len(self.blocks), self.raw_bytes)))
        body = bytearray(varint(len(self.blocks)))
        prev = 0
        for off, nrec, nobj in self.blocks:
            body += varint(off - prev) + varint(nrec) + varint(nobj)
            prev = off
        rec(TAG_BLOCKS, bytes(body))
        if self.no_class[0]:
            rec(TAG_SUMMARY, varint(0) + varint(0) + varint(0)
                + varint(self.no_class[0]) + varint(self.no_class[1])
                + varint(0))
        for index, (cid, flags, name, count, nbytes) in sorted(
                self.classes.items()):
            rec(TAG_SUMMARY, varint(index) + varint(cid) + varint(flags)
                + varint(count) + varint(nbytes & MASK64) + varint(len(name))
                + name)
        footer_at = len(self.out)
        self._block(0x46, bytes(footer))
        trailer = struct.pack("<QI", footer_at, 0)
        self.out += trailer + struct.pack("<I", zlib.crc32(trailer)) + END_MAGIC
        return bytes(self.out)
