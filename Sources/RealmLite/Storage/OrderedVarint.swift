// An order-preserving, canonical, variable-length Int64: memcmp of two
// encodings orders them as the numbers, and each value has exactly one.
// Tree collections (TreeElementEncoding.swift) key set elements by it, so a
// set filled in increasing order appends at its tree's right edge and its
// lookups land where the previous ones did; a zigzag varint scatters the
// same values over the tree.
//
//   first byte    meaning                              length
//   0x00          nil (an optional's; before every number)  1
//   0x01...0x08   negative, 8...1 more bytes:          9...2
//                 ones' complement of the distance below the range under it
//   0x09...0xF7   the value directMin...directMax      1
//   0xF8...0xFF   positive, 1...8 more bytes:          2...9
//                 big-endian distance above the range under it
//
// Each length continues where the shorter one stops (2 bytes hold the 256
// values past the 1-byte range, 3 bytes the 65536 past those, ...), so
// every byte string of a valid length names a distinct value and the
// encoding is canonical without a minimality check; the 9-byte forms reach
// past Int64 and the decoder refuses what lies beyond.

enum OrderedVarint {
    /// An optional's nil.
    static let nilByte: UInt8 = 0x00
    /// The first byte that is a value by itself, and the values it starts at.
    static let firstDirect: UInt8 = 0x09
    static let lastDirect: UInt8 = 0xF7
    static let directMin: Int64 = -32
    static let directMax: Int64 = directMin + Int64(lastDirect - firstDirect)
    /// The longest encoding: a tag and 8 bytes.
    static let maxLength = 9

    static func append(_ value: Int64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(byteCount: maxLength, alignment: 1) { buffer in
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<store(value, into: buffer)]))
        }
    }

    /// Writes `value` at the start of `out` (9 bytes of room); returns its length.
    @inline(__always)
    static func store(_ value: Int64, into out: UnsafeMutableRawBufferPointer) -> Int {
        if value >= directMin, value <= directMax {
            out[0] = UInt8(truncatingIfNeeded: value &- directMin) &+ firstDirect
            return 1
        }
        let positive = value > directMax
        // The distance past the 1-byte range; neither subtraction overflows.
        var distance = positive ? UInt64(bitPattern: value &- (directMax + 1)) : UInt64(bitPattern: (directMin - 1) &- value)
        var n = 1
        while n < 8, distance >= 1 << (8 * UInt64(n)) {
            distance -= 1 << (8 * UInt64(n))
            n += 1
        }
        // Negatives store the complement: the farther below, the smaller the bytes.
        let body = positive ? distance : ~distance
        out[0] = positive ? lastDirect &+ UInt8(n) : firstDirect &- UInt8(n)
        for i in 0..<n { out[n - i] = UInt8(truncatingIfNeeded: body >> (8 * UInt64(i))) }
        return n + 1
    }

    /// The value of `bytes` if they are exactly one encoding of a number
    /// (not the nil byte).
    @inline(__always)
    static func decode(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard let tag = bytes.first else { return nil }
        if tag >= firstDirect, tag <= lastDirect {
            return bytes.count == 1 ? Int64(tag &- firstDirect) &+ directMin : nil
        }
        let positive = tag > lastDirect
        let n = positive ? Int(tag &- lastDirect) : Int(firstDirect &- tag)
        guard tag != nilByte, bytes.count == n + 1 else { return nil }
        var body: UInt64 = 0
        for i in 1...n { body = body << 8 | UInt64(bytes[i]) }
        if !positive { body = n == 8 ? ~body : ~body & ((1 << (8 * UInt64(n))) - 1) }
        // Add back the sizes of the shorter lengths' ranges: 256 + 65536 + ... + 256^(n-1).
        let (distance, overflow) = body.addingReportingOverflow((0x0101_0101_0101_0100 >> (8 * UInt64(8 - n))) & ~0xFF)
        if overflow { return nil }
        if positive {
            guard distance <= UInt64(Int64.max - (directMax + 1)) else { return nil }
            return directMax + 1 + Int64(distance)
        }
        guard distance <= UInt64(bitPattern: (directMin - 1) &- Int64.min) else { return nil }
        return (directMin - 1) &- Int64(bitPattern: distance)
    }
}
