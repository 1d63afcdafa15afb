// Int elements of collections in the collections tree whose id is 2^63 or
// more are stored as varints, a map entry's value so after its key
// (Sources/RealmLite/Storage/TreeElementEncoding.swift): ids below
// 2^63 + 2^62 (object format 8) as canonical zigzag varints, an optional's
// nil as the byte 0x80; ids from it (object format 9) as order-preserving
// ones (OrderedVarint.swift), nil as 0x00. This reader is the tool's own,
// as for records: it checks what the library wrote instead of trusting the
// library's code.

enum TreeInts {
    static let zigzagIDBase: UInt64 = 1 << 63
    static let orderedIDBase: UInt64 = 1 << 63 | 1 << 62
    /// Set elements up to this long are keyed by their stored bytes (EntryKey.directLength).
    static let setKeyDirectLength = 1000

    static func apply(_ id: UInt64, _ property: FileProperty) -> Bool {
        id >= zigzagIDBase && property.type == .int && property.collection != .none
    }

    /// The element (or map entry) of collection `id` as a field holds it;
    /// nil if it is not one canonical varint of the id's form.
    static func field(_ stored: [UInt8], id: UInt64, _ property: FileProperty) -> [UInt8]? {
        var head: [UInt8] = []
        var tail = stored[...]
        if property.collection == .map {
            guard stored.count >= 4 else { return nil }
            let keyLength = Int(stored[0]) | Int(stored[1]) << 8 | Int(stored[2]) << 16 | Int(stored[3]) << 24
            guard keyLength <= stored.count - 4 else { return nil }
            head = Array(stored[..<(4 + keyLength)])
            tail = stored[(4 + keyLength)...]
        }
        let ordered = id >= orderedIDBase
        if property.optional, tail.count == 1, tail.first == (ordered ? 0x00 : 0x80) { return head + [0] }
        guard let value = ordered ? orderedVarint(tail) : varint(tail) else { return nil }
        return head + (property.optional ? [1] : []) + (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// The value of exactly one canonical zigzag varint.
    static func varint(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        let bytes = Array(bytes)
        guard let last = bytes.last, bytes.count <= 10, last & 0x80 == 0, bytes.count == 1 || last != 0 else { return nil }
        if bytes.count == 10, last > 1 { return nil }
        var zigzag: UInt64 = 0
        for (i, byte) in bytes.enumerated() {
            if i < bytes.count - 1, byte & 0x80 == 0 { return nil }
            zigzag |= UInt64(byte & 0x7F) << (7 * UInt64(i))
        }
        return (zigzag >> 1) ^ (0 &- (zigzag & 1))
    }

    /// The value (two's complement bits) of exactly one order-preserving
    /// varint: a first byte 0x09...0xF7 is -32...206 itself; 0xF8 + k is
    /// followed by k + 1 big-endian bytes counting up from where k bytes
    /// stop, 0x08 - k by k + 1 bytes whose complement counts down.
    static func orderedVarint(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        let bytes = Array(bytes)
        guard let tag = bytes.first, tag != 0 else { return nil }
        if (0x09...0xF7).contains(tag) { return bytes.count == 1 ? UInt64(bitPattern: Int64(tag) - 0x09 - 32) : nil }
        let positive = tag >= 0xF8
        let n = positive ? Int(tag) - 0xF7 : 0x09 - Int(tag)
        guard bytes.count == n + 1 else { return nil }
        // Distances past the 1-byte range, in 128-bit arithmetic (the 9-byte forms reach past Int64).
        var distance = (high: UInt64(0), low: UInt64(0))
        for byte in bytes[1...] {
            let b = positive ? byte : ~byte
            distance = (distance.high << 8 | distance.low >> 56, distance.low << 8 | UInt64(b))
        }
        for k in 1..<n {
            let (sum, carry) = distance.low.addingReportingOverflow(1 << (8 * UInt64(k)))
            distance = (distance.high + (carry ? 1 : 0), sum)
        }
        guard distance.high == 0 else { return nil }
        if positive {
            guard distance.low <= UInt64(Int64.max - 207) else { return nil }
            return UInt64(bitPattern: 207 + Int64(distance.low))
        }
        guard distance.low <= UInt64(Int64.max) - 32 else { return nil }
        return UInt64(bitPattern: -33 - Int64(distance.low))
    }
}
