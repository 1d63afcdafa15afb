/// A table keyed by object or type identity, for the schema's per-class
/// tables on the open path. Not a Dictionary or Set: the first of those
/// keyed by a given type in a process makes the runtime look up the key's
/// Hashable conformance, a scan of every conformance record of the program
/// (about 0.1 ms here, with Foundation linked in), and ObjectIdentifier's
/// would be looked up by nothing else while opening. Open addressing over
/// one array; entries are never removed.
struct IdentityTable<Value> {
    private var slots: [(key: UInt, value: Value?)] = []
    private(set) var count = 0

    init() {}

    subscript(key: ObjectIdentifier) -> Value? {
        get {
            guard !slots.isEmpty else { return nil }
            let raw = UInt(bitPattern: key)
            var index = home(raw)
            while true {
                let slot = slots[index]
                if slot.key == raw { return slot.value }
                if slot.key == 0 { return nil }
                index = (index + 1) & (slots.count - 1)
            }
        }
        set {
            guard let newValue else { preconditionFailure("IdentityTable entries are never removed") }
            reserve(count + 1)
            let raw = UInt(bitPattern: key)
            var index = home(raw)
            while slots[index].key != 0 && slots[index].key != raw { index = (index + 1) & (slots.count - 1) }
            if slots[index].key == 0 { count += 1 }
            slots[index] = (raw, newValue)
        }
    }

    /// Inserts `key` with `value` unless present; true if it was inserted
    /// (as Set.insert's `inserted`).
    mutating func insert(_ key: ObjectIdentifier, _ value: Value) -> Bool {
        guard self[key] == nil else { return false }
        self[key] = value
        return true
    }

    /// Fibonacci hashing: identities are aligned addresses, whose low bits
    /// are all zero; the product's high bits are well spread.
    private func home(_ raw: UInt) -> Int {
        let bits = slots.count.trailingZeroBitCount
        return Int(truncatingIfNeeded: (raw &* 0x9E37_79B9_7F4A_7C15) >> UInt(UInt.bitWidth - bits)) & (slots.count - 1)
    }

    /// Room for `needed` entries at a load of at most one half.
    private mutating func reserve(_ needed: Int) {
        guard needed * 2 > slots.count else { return }
        var capacity = max(8, slots.count)
        while needed * 2 > capacity { capacity *= 2 }
        let old = slots
        slots = Array(repeating: (0, nil), count: capacity)
        count = 0
        for slot in old where slot.key != 0 { self[ObjectIdentifier(bitPattern: slot.key)] = slot.value }
    }
}

extension ObjectIdentifier {
    /// The identity whose bit pattern is `raw` (a key an IdentityTable stored).
    fileprivate init(bitPattern raw: UInt) {
        self = unsafeBitCast(raw, to: ObjectIdentifier.self)
    }
}
