#!/usr/bin/env python3
"""Leaf bytes per entry of a CStorage file, as stored and re-encoded.

    python3 benchmarks/scripts/leaf_layout.py FILE [TREE...]

Walks the trees reachable from the newest meta (all named trees, or those
given) and, for every leaf cell (either leaf type), adds up its bytes
(slot included) in the type-3 layout (format.h: u16 klen, u32 vlen, whole
key) and in candidate compact layouts: varint klen and vlen (the overflow
flag in vlen's low bit), then the key stored after a one-byte length of the
prefix it shares with the page's first key, or with the previous key; and
`stored`, the bytes the leaves hold as written (cells, prefix, slots). A
projection for the file-size analysis in RESULTS.md, not a reader: it
trusts the file.
"""
import struct
import sys


def varint_len(n):
    c = 1
    while n >= 128:
        n >>= 7
        c += 1
    return c


def common(a, b):
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    data = open(argv[1], 'rb').read()
    ps = struct.unpack_from('<I', data, 44)[0]
    meta = max((0, ps), key=lambda m: struct.unpack_from('<Q', data, m + 48)[0])

    def leaves(root, depth):
        stack = [(root, 1)]
        while stack:
            pg, level = stack.pop()
            b = pg * ps
            n = struct.unpack_from('<H', data, b + 6)[0]
            slots = [struct.unpack_from('<H', data, b + 32 + 2 * i)[0] for i in range(n)]
            if level == depth:
                yield b, slots
            else:
                stack.extend((struct.unpack_from('<Q', data, b + o)[0], level + 1) for o in reversed(slots))

    def varint(at):
        v = s = 0
        while True:
            c = data[at]
            at += 1
            v |= (c & 0x7f) << s
            s += 7
            if c < 0x80:
                return v, at

    def compact_cell(b, off):
        """Suffix length, value word and where the suffix starts: a uniform
        leaf (npages' second byte U > 0) leaves U - 1 out of its cells, a
        fixed-value leaf (upper 16 bits V > 0) the value word (V - 1) << 1."""
        word = struct.unpack_from('<I', data, b + 28)[0]
        ul, fv = (word >> 8) & 0xff, word >> 16
        sl, at = (ul - 1, b + off) if ul else varint(b + off)
        vw, at = ((fv - 1) << 1, at) if fv else varint(at)
        return sl, vw, at

    def cells(b, slots):
        if struct.unpack_from('<H', data, b + 4)[0] == 6:  # compact leaf: prefix at the page end
            plen = struct.unpack_from('<I', data, b + 28)[0] & 0xff
            prefix = data[b + ps - plen:b + ps]
            for off in slots:
                sl, vw, at = compact_cell(b, off)
                yield prefix + data[at:at + sl], vw >> 1, bool(vw & 1)
            return
        for off in slots:
            kl, vl = struct.unpack_from('<HI', data, b + off)
            yield data[b + off + 6:b + off + 6 + kl], vl & 0x7fffffff, bool(vl & 0x80000000)

    croot, cdepth = struct.unpack_from('<Q8xI', data, meta + 80)
    trees = {}
    for b, slots in leaves(croot, cdepth) if croot else []:
        for off, (k, _, _) in zip(slots, cells(b, slots)):
            kl, vl = struct.unpack_from('<HI', data, b + off)
            name = k.decode('utf-8', 'replace')
            if struct.unpack_from('<H', data, b + 4)[0] == 6:
                sl, _, at = compact_cell(b, off)
                vat = at + sl
            else:
                vat = b + off + 6 + kl
            root, _, depth = struct.unpack_from('<QQI', data, vat)
            trees[name] = (root, depth)
    wanted = argv[2:] or sorted(trees)
    print(f"{'tree':<28} {'entries':>9} {'leaves':>7} {'type 3':>7} {'varint':>7} {'+pfx first':>10} {'+pfx prev':>9} {'stored':>7}")
    for name in wanted:
        root, depth = trees[name]
        if not root:
            continue
        sums = [0, 0, 0, 0]
        entries = nleaves = stored = 0
        for b, slots in leaves(root, depth):
            nleaves += 1
            upper = struct.unpack_from('<H', data, b + 24)[0]
            frag = struct.unpack_from('<H', data, b + 26)[0]
            stored += ps - upper - frag + 2 * len(slots)  # cells, prefix and slots as written
            first = prev = None
            for k, vl, ovf in cells(b, slots):
                vbytes = 8 if ovf else vl
                hdr = varint_len(len(k)) + varint_len(vl << 1 | ovf)
                pf = common(k, first) if first is not None else 0
                pp = common(k, prev) if prev is not None else 0
                sums[0] += 2 + 6 + len(k) + vbytes
                sums[1] += 2 + hdr + len(k) + vbytes
                sums[2] += 2 + hdr + 1 + len(k) - pf + vbytes
                sums[3] += 2 + hdr + 1 + len(k) - pp + vbytes
                first = k if first is None else first
                prev = k
                entries += 1
        per = [f"{s / entries:.2f}" for s in sums]
        print(f"{name:<28} {entries:>9} {nleaves:>7} {per[0]:>7} {per[1]:>7} {per[2]:>10} {per[3]:>9} {stored / entries:>7.2f}")
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
