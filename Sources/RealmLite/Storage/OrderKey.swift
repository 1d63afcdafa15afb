// Order keys of a List stored in the lists tree (ListTree.swift): byte
// strings in memcmp order, read as base-256 fractions, so that there is
// always a key between two others and an insert never renumbers its
// neighbours.
//
// A key made by an append or a renumbering is a counter: one length byte
// L (1...8), then the number in L big-endian bytes, minimal (so longer
// means larger and memcmp is numeric order). Appending takes the last
// key's counter plus one; inserting before the first takes its counter
// minus one: both stay short however many there are. An insert between
// two keys takes the shortest fraction between them (one more byte per
// eight inserts at the same gap); when a key would pass `maxLength` the
// caller renumbers the list instead, so keys stay far below the engine's
// key limit.

enum OrderKey {
    /// The counter of a new list's first key: room for a million inserts
    /// before it with three-byte counters.
    static let firstCounter: UInt64 = 1 << 20
    /// Longer keys make the caller renumber the list.
    static let maxLength = 64

    static func counter(_ value: UInt64) -> [UInt8] {
        let length = max(1, (64 - value.leadingZeroBitCount + 7) / 8)
        var key = [UInt8(length)]
        for i in stride(from: length - 1, through: 0, by: -1) { key.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
        return key
    }

    /// The counter a key starts with, if it starts with one.
    static func counterValue(_ key: UnsafeRawBufferPointer) -> UInt64? {
        guard let length = key.first, (1...8).contains(length), key.count > Int(length) else { return nil }
        var value: UInt64 = 0
        for i in 1...Int(length) { value = value << 8 | UInt64(key[i]) }
        return value
    }

    /// A key after `last` (an append).
    static func after(_ last: UnsafeRawBufferPointer) -> [UInt8] {
        if let value = counterValue(last), value < .max {
            let key = counter(value + 1)
            if key.withUnsafeBytes({ compareBytes(last, $0) }) < 0 { return key }
        }
        // Below every counter (inserts before counter 0): the first counter above.
        if last.first == 0 { return counter(0) }
        return between(last, nil) ?? Array(last) + [0x80]
    }

    /// A key before `first` (an insert at the front).
    static func before(_ first: UnsafeRawBufferPointer) -> [UInt8]? {
        if let value = counterValue(first), value > 0 {
            let key = counter(value - 1)
            if key.withUnsafeBytes({ compareBytes($0, first) }) < 0 { return key }
        }
        return between(nil, first)
    }

    /// The shortest key strictly between `low` and `high` (nil: no bound),
    /// ending in a non-zero byte; nil if there is none (`high` is `low`
    /// followed by zero bytes) or it would be longer than `maxLength`.
    static func between(_ low: UnsafeRawBufferPointer?, _ high: UnsafeRawBufferPointer?) -> [UInt8]? {
        var out: [UInt8] = []
        var i = 0
        var highBounded = high != nil
        while out.count < maxLength {
            let a = Int(low.flatMap { i < $0.count ? $0[i] : nil } ?? 0)
            // Past the end of `high`, or once the key is below it, only `low` bounds.
            let b = highBounded ? Int(high.flatMap { i < $0.count ? $0[i] : nil } ?? 0) : 256
            if highBounded, let high, i >= high.count, b == 0, a == 0 { return nil }
            if b - a > 1 {
                out.append(UInt8((a + b) / 2))
                return out
            }
            out.append(UInt8(a))
            if b - a == 1 { highBounded = false }
            i += 1
        }
        return nil
    }
}
