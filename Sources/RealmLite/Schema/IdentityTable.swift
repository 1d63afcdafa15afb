/// A table keyed by object or type identity, for the schema's per-class
/// tables on the open path. Not a Dictionary or Set: the first of those
/// keyed by a given type in a process makes the runtime look up the key's
/// Hashable conformance, a scan of every conformance record of the program
/// (about 0.1 ms here, with Foundation linked in), and ObjectIdentifier's
/// would be looked up by nothing else while opening. Open addressing over
/// an array of positions into dense key and value arrays; entries are never
/// removed. Dense `[Value]` rather than `[(key, Value?)]` slots: the
/// runtime builds each generic type once per process, and `[ClassInfo]` or
/// `[ClassDescriptor]` are built by the open anyway, a pair type per Value
/// would be built for the table alone.
struct IdentityTable<Value> {
    /// 0: empty; else 1 + the entry's index in keys and values.
    private var slots: [Int] = []
    private var keys: [Int] = []
    private var values: [Value] = []

    init() {}

    var count: Int { values.count }

    subscript(key: ObjectIdentifier) -> Value? {
        get {
            guard !slots.isEmpty else { return nil }
            let raw = Int(bitPattern: UInt(bitPattern: key))
            var index = home(raw)
            while true {
                let slot = slots[index]
                if slot == 0 { return nil }
                if keys[slot - 1] == raw { return values[slot - 1] }
                index = (index + 1) & (slots.count - 1)
            }
        }
        set {
            guard let newValue else { preconditionFailure("IdentityTable entries are never removed") }
            reserve(count + 1)
            let raw = Int(bitPattern: UInt(bitPattern: key))
            var index = home(raw)
            while slots[index] != 0 {
                if keys[slots[index] - 1] == raw {
                    values[slots[index] - 1] = newValue
                    return
                }
                index = (index + 1) & (slots.count - 1)
            }
            keys.append(raw)
            values.append(newValue)
            slots[index] = values.count
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
    private func home(_ raw: Int) -> Int {
        let bits = slots.count.trailingZeroBitCount
        return Int(truncatingIfNeeded: (UInt(bitPattern: raw) &* 0x9E37_79B9_7F4A_7C15) >> UInt(UInt.bitWidth - bits)) & (slots.count - 1)
    }

    /// Room for `needed` entries at a load of at most one half.
    private mutating func reserve(_ needed: Int) {
        guard needed * 2 > slots.count else { return }
        var capacity = max(8, slots.count)
        while needed * 2 > capacity { capacity *= 2 }
        slots = Array(repeating: 0, count: capacity)
        for position in keys.indices {
            var index = home(keys[position])
            while slots[index] != 0 { index = (index + 1) & (slots.count - 1) }
            slots[index] = position + 1
        }
    }
}
