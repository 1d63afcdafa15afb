// Int elements of collections in the collections tree whose id is 2^63 or
// more (object format 8) are stored as canonical zigzag varints, an
// optional's nil as the byte 0x80, a map entry's value so after its key
// (Sources/RealmLite/Storage/TreeElementEncoding.swift). This reader is the
// tool's own, as for records: it checks what the library wrote instead of
// trusting the library's code.

enum TreeInts {
    static let idBase: UInt64 = 1 << 63

    static func apply(_ id: UInt64, _ property: FileProperty) -> Bool {
        id >= idBase && property.type == .int && property.collection != .none
    }

    /// The element (or map entry) as a field holds it; nil if it is not a
    /// canonical varint.
    static func field(_ stored: [UInt8], _ property: FileProperty) -> [UInt8]? {
        var head: [UInt8] = []
        var tail = stored[...]
        if property.collection == .map {
            guard stored.count >= 4 else { return nil }
            let keyLength = Int(stored[0]) | Int(stored[1]) << 8 | Int(stored[2]) << 16 | Int(stored[3]) << 24
            guard keyLength <= stored.count - 4 else { return nil }
            head = Array(stored[..<(4 + keyLength)])
            tail = stored[(4 + keyLength)...]
        }
        if property.optional, tail.count == 1, tail.first == 0x80 { return head + [0] }
        guard let value = varint(tail) else { return nil }
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
}
