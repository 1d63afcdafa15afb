import CStorage
import Foundation

// QueryPlan: what a queried Results evaluates — a base (all objects of a
// class, or the objects of a List / MutableSet / LinkingObjects), a
// predicate, then sorts and distincts in the order they were applied. The
// matching object keys are computed on access and cached per Realm
// `generation` (which changes with every write, commit and refresh), so a
// Results stays live and repeated reads of one snapshot evaluate once.

enum QueryBase {
    /// Every object of the class (key order), or candidates from an index.
    case all
    /// The object keys of a collection, in its order, at evaluation time.
    case keys(KeySource)
}

/// Where a collection-based query gets its keys, and how to find the same
/// collection through another core (freeze, thaw, ThreadSafeReference).
struct KeySource {
    let read: (RealmCore) -> [UInt64]
    /// The same source read through `core`; nil if it is gone there (its
    /// owner object was deleted).
    let moved: (RealmCore) -> KeySource?
}

enum QueryOrdering {
    case sort([SortDescriptor], [CompiledSortKey])
    case distinct([String], [ResolvedPath])
    /// LIMIT(n) of a predicate string: the first n.
    case limit(Int)
}

struct CompiledSortKey {
    let path: ResolvedPath
    let ascending: Bool
}

/// A sort criterion (RealmSwift's SortDescriptor).
public struct SortDescriptor: Sendable, Hashable {
    /// The property to sort on, by name; a dotted path follows to-one links
    /// (`"owner.name"`). A collection property cannot be sorted on.
    public let keyPath: String
    /// True for smallest first. nil sorts before every value, then NaN, then
    /// numbers and dates in order; strings and data sort by their bytes.
    public let ascending: Bool

    /// Sorts on the property named `keyPath` (see ``keyPath``). The name is
    /// checked when the sort is applied: ``Results/checkedSorted(by:)`` throws
    /// ``Realm/Error/Code/invalidValue`` for an unknown property, `sorted(by:)`
    /// stops with it.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// `SortDescriptor(keyPath: \Person.name)`; stops if the key path does not name a persisted property.
    public init<Root: ObjectBase>(keyPath: PartialKeyPath<Root>, ascending: Bool = true) {
        self.keyPath = orStop { try KeyPathRecorder.name(of: keyPath, root: Root.self) }
        self.ascending = ascending
    }

    /// The same key path in the opposite direction.
    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }
}

extension SortDescriptor: ExpressibleByStringLiteral, CustomStringConvertible {
    /// `"name"` is `SortDescriptor(keyPath: "name")`, ascending, as in
    /// RealmSwift: `sorted(by: ["age", "name"])`.
    public init(stringLiteral keyPath: String) { self.init(keyPath: keyPath) }

    public var description: String { "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))" }
}

final class QueryPlan {
    let info: ClassInfo
    let base: QueryBase
    /// The predicate so far (chained filters are ANDed), nil = all.
    let predicate: QueryPredicate?
    let compiled: CompiledQuery?
    let orderings: [QueryOrdering]

    private var cachedGeneration: UInt64 = 0
    private var cachedKeys: [UInt64] = []
    /// The matching records, parallel to cachedKeys: pointers into the
    /// snapshot, valid while the Realm's generation is unchanged (as the
    /// record pointers cached by managed objects).
    private var cachedRecords: [RecordView] = []
    /// Frozen plans take turns through one of a few process-wide locks: a
    /// plan is made per query and only frozen ones lock, so a lock per plan
    /// would be an allocation for every `where { }`. NSLock, not
    /// Synchronization.Mutex, whose futex ThreadSanitizer does not see.
    private static let frozenLocks: [NSLock] = (0..<16).map { _ in NSLock() }
    private var frozenLock: NSLock { Self.frozenLocks[ObjectIdentifier(self).hashValue & 15] }
    /// The record test per record generation, when the class has several
    /// (QueryPlan+Generations.swift).
    private let generationTests: GenerationTests?

    init(info: ClassInfo, base: QueryBase, predicate: QueryPredicate?, compiled: CompiledQuery?, orderings: [QueryOrdering]) {
        self.info = info
        self.base = base
        self.predicate = predicate
        self.compiled = compiled
        self.orderings = orderings
        generationTests = compiled?.test.flatMap { test in info.generations.map { GenerationTests(test, $0) } }
    }

    /// The matching object keys in the Realm's current snapshot.
    func keys(_ realm: RealmCore) -> [UInt64] {
        current(realm).keys
    }

    /// How many objects match in the current snapshot. A plain scan of the
    /// class with a RecordTest (or no predicate) is counted without
    /// collecting rows; anything else evaluates the plan (and caches it).
    func count(_ realm: RealmCore) -> Int {
        if !realm.isFrozen, cachedGeneration == realm.generation, cachedGeneration != 0 { return cachedKeys.count }
        if !realm.isFrozen, case .all = base, let lookup = compiled?.lookup, orderings.isEmpty { return lookup.count(realm, info) }
        // An index that answers the whole predicate (full-text search) counts without reading records.
        if case .all = base, let probe = compiled?.probe, probe.exact, orderings.isEmpty { return probe.candidates(realm, info).count }
        guard case .all = base, compiled?.probe == nil,
              orderings.allSatisfy({ if case .sort = $0 { true } else { false } }) else {
            return keys(realm).count
        }
        guard let compiled else { return realm.count(of: info) }
        guard let test = compiled.test else { return keys(realm).count }
        // A record the filter cannot read (damaged): the general filter decides.
        if let generationTests { return countMatching(realm, generationTests) ?? keys(realm).count }
        return test.withFilter { realm.txn.countMatching(info.objectsTree, $0) } ?? keys(realm).count
    }

    /// Keys and records of the matching objects in the current snapshot.
    func rows(_ realm: RealmCore) -> (keys: [UInt64], records: [RecordView]) {
        current(realm)
    }

    /// An accessor for the first match. When nothing reorders the matches
    /// and this snapshot is not evaluated yet, the evaluation stops at the
    /// first match (`where { $0.name == x }.first` reads one row of an
    /// index, or scans only up to the match) and caches nothing.
    func firstObject(_ realm: RealmCore) -> ObjectBase? {
        // A frozen plan is shared by threads: its cache is read only under
        // the lock (current), so check frozen before reading the cache.
        guard !realm.isFrozen, orderings.isEmpty,
              !(cachedGeneration == realm.generation && cachedGeneration != 0) else { return object(at: 0, realm) }
        if case .all = base, let lookup = compiled?.lookup { return lookup.first(realm, info) }
        var first: (key: UInt64, record: cs_val)?
        if forEachInOrder(realm, { key, record in first = (key, record); return false }) {
            // One index value, read in key order: no rows to collect.
            return first.map { realm.materialize(info, key: $0.key, record: $0.record) }
        }
        var rows = Rows(limit: 1)
        evaluate(realm, into: &rows)
        guard let key = rows.keys.first else { return nil }
        let record = rows.records[0]
        return realm.materialize(info, key: key, record: cs_val(data: record.base, size: record.size))
    }

    /// An accessor for match `index`, built from its cached record (no lookup).
    func object(at index: Int, _ realm: RealmCore) -> ObjectBase? {
        let (keys, records) = current(realm)
        guard keys.indices.contains(index) else { return nil }
        let record = records[index]
        return realm.materialize(info, key: keys[index], record: cs_val(data: record.base, size: record.size))
    }

    /// The cached rows, evaluated first if the snapshot changed. A frozen
    /// Results may be read by several threads at once: they take turns here.
    private func current(_ realm: RealmCore) -> (keys: [UInt64], records: [RecordView]) {
        guard realm.isFrozen else {
            refresh(realm)
            return (cachedKeys, cachedRecords)
        }
        var rows: (keys: [UInt64], records: [RecordView]) = ([], [])
        frozenLock.withLock {
            refresh(realm)
            rows = (cachedKeys, cachedRecords)
        }
        return rows
    }

    /// Takes rows another thread evaluated on a frozen core at the version
    /// `realm` (live) reads now: the notifier hands a Results its new rows
    /// with its change, so the observer's thread does not evaluate the query
    /// again. The record pointers are into that version's pages, which the
    /// live core pins too.
    func adopt(keys: [UInt64], records: [RecordView], in realm: RealmCore) {
        guard !realm.isFrozen else { return }
        cachedKeys = keys
        cachedRecords = records
        cachedGeneration = realm.generation
    }

    private func refresh(_ realm: RealmCore) {
        if cachedGeneration == realm.generation && cachedGeneration != 0 { return }
        var rows = Rows()
        evaluate(realm, into: &rows)
        cachedKeys = rows.keys
        cachedRecords = rows.records
        cachedGeneration = realm.generation
    }

    struct Rows {
        var keys: [UInt64] = []
        var records: [RecordView] = []
        /// Evaluation may stop once this many rows matched (only without
        /// orderings, which need every match).
        var limit = Int.max

        var isFull: Bool { keys.count >= limit }

        mutating func append(_ key: UInt64, _ record: RecordView) {
            keys.append(key)
            records.append(record)
        }

        mutating func reorder(_ order: [Int]) {
            keys = order.map { keys[$0] }
            records = order.map { records[$0] }
        }
    }

    private func evaluate(_ realm: RealmCore, into rows: inout Rows) {
        let filter = compiled?.filter
        switch base {
        case .all:
            if rows.limit < Int.max, forEachInOrder(realm, { key, value in
                rows.append(key, RecordView(base: UnsafeRawPointer(value.data!), size: value.size))
                return !rows.isFull
            }) {
                // A limited evaluation read the candidates in order, up to the limit.
            } else if let probe = compiled?.probe {
                let filter = filter!
                for key in probe.candidates(realm, info) {
                    guard let value = realm.loadRecord(info, key) else { continue }
                    let record = RecordView(base: UnsafeRawPointer(value.data!), size: value.size)
                    if probe.exact || filter(realm, record, key) { rows.append(key, record) }
                    if rows.isFull { break }
                }
            } else if let test = compiled?.test, scanMatching(realm, test, into: &rows) {
                // Done by the engine's filter.
            } else {
                rows = Rows(limit: rows.limit)
                scan(realm, ids: true) { ids, values, count in
                    for i in 0..<count {
                        let key = ids[i]
                        let value = realm.currentRecord(info, key, values[i])
                        let record = RecordView(base: UnsafeRawPointer(value.data!), size: value.size)
                        if filter?(realm, record, key) ?? true { rows.append(key, record) }
                        if rows.isFull { return false }
                    }
                    return true
                }
            }
        case .keys(let source):
            for key in source.read(realm) {
                guard let value = realm.loadRecord(info, key) else { continue }
                let record = RecordView(base: UnsafeRawPointer(value.data!), size: value.size)
                if filter?(realm, record, key) ?? true { rows.append(key, record) }
                if rows.isFull { break }
            }
        }
        for ordering in orderings {
            switch ordering {
            case .sort(_, let sortKeys): sort(&rows, sortKeys, realm)
            case .distinct(_, let paths): distinct(&rows, paths, realm)
            case .limit(let n): if rows.keys.count > n { rows.reorder(Array(0..<n)) }
            }
        }
    }

    /// For a probe of one value in a secondary index (IndexProbe's
    /// forEachInOrder) on all objects of the class: calls `body` with each
    /// match (key, current record) in key order until it returns false,
    /// and returns true. False, calling nothing, for any other plan.
    private func forEachInOrder(_ realm: RealmCore, _ body: (UInt64, cs_val) -> Bool) -> Bool {
        guard case .all = base else { return false }
        if let lookup = compiled?.lookup {
            lookup.forEachMatch(realm, info, body)
            return true
        }
        guard let probe = compiled?.probe, let filter = compiled?.filter else { return false }
        return probe.forEachInOrder(realm) { key in
            guard let value = realm.loadRecord(info, key) else { return true }
            guard filter(realm, RecordView(base: UnsafeRawPointer(value.data!), size: value.size), key) else { return true }
            return body(key, value)
        }
    }

    /// The rows whose records pass `test`; false if the engine could not
    /// read some record (then the general filter decides).
    private func scanMatching(_ realm: RealmCore, _ test: RecordTest, into rows: inout Rows) -> Bool {
        var readable = true
        if let generationTests {
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.scanBatch) { matches in
                scan(realm, ids: true) { ids, values, count in
                    let matched = generationTests.match(values, count, into: matches.baseAddress!)
                    for m in matches.prefix(matched ?? 0) {
                        let i = Int(m), key = ids[i]
                        let value = realm.currentRecord(info, key, values[i])
                        rows.append(key, RecordView(base: UnsafeRawPointer(value.data!), size: value.size))
                    }
                    readable = matched != nil
                    return readable && !rows.isFull
                }
            }
            return readable
        }
        // One generation: the engine walks the leaves and hands back only
        // the matches, up to the rows' limit (`first` stops at one).
        test.withFilter { filter in
            realm.txn.withCursor(info.objectsTree) { cursor in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.scanBatch) { ids in
                    withUnsafeTemporaryAllocation(of: cs_val.self, capacity: Self.scanBatch) { values in
                        while !rows.isFull {
                            let room = min(Self.scanBatch, rows.limit - rows.keys.count)
                            guard let count = cursor.nextMatching(filter, ids: ids.baseAddress!, values: values.baseAddress!,
                                                                  capacity: room) else {
                                readable = false
                                return
                            }
                            if count == 0 { return }
                            for i in 0..<count {
                                rows.append(ids[i], RecordView(base: UnsafeRawPointer(values[i].data!), size: values[i].size))
                            }
                        }
                    }
                }
            }
        }
        return readable
    }

    private static let scanBatch = 256

    /// Records passing the tests of their generations, counted a batch at a time.
    private func countMatching(_ realm: RealmCore, _ tests: GenerationTests) -> Int? {
        var total: Int? = 0
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.scanBatch) { matches in
            scan(realm, ids: false) { _, values, count in
                guard let matched = tests.match(values, count, into: matches.baseAddress!) else {
                    total = nil
                    return false
                }
                total! += matched
                return true
            }
        }
        return total
    }

    /// Every record of the class in key order, a leaf's worth at a time:
    /// `body(ids, values, count)` (the object keys only when asked for)
    /// until it returns false.
    private func scan(_ realm: RealmCore, ids wantIDs: Bool,
                      _ body: (UnsafePointer<UInt64>, UnsafePointer<cs_val>, Int) -> Bool) {
        let capacity = Self.scanBatch
        realm.txn.withCursor(info.objectsTree) { cursor in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: capacity) { ids in
                withUnsafeTemporaryAllocation(of: cs_val.self, capacity: capacity) { values in
                    while true {
                        let count = wantIDs ? cursor.nextIDs(ids.baseAddress!, values: values.baseAddress!, capacity: capacity)
                                            : cursor.nextBatch(keys: nil, values: values.baseAddress!, capacity: capacity)
                        if count == 0 || !body(UnsafePointer(ids.baseAddress!), UnsafePointer(values.baseAddress!), count) { return }
                    }
                }
            }
        }
    }

    /// The value of a single-valued key path for one row.
    @inline(__always)
    private func value(_ path: ResolvedPath, _ realm: RealmCore, _ record: RecordView, _ key: UInt64) -> SortValue {
        var result = SortValue.null
        _ = path.source(realm, record, key) { operand in
            result = SortValue(operand, path.type)
            return false
        }
        return result
    }

    private func sort(_ rows: inout Rows, _ sortKeys: [CompiledSortKey], _ realm: RealmCore) {
        let order: [Int]
        if sortKeys.count == 1 {
            let path = sortKeys[0].path, ascending = sortKeys[0].ascending
            let values = rows.keys.indices.map { value(path, realm, rows.records[$0], rows.keys[$0]) }
            order = rows.keys.indices.sorted { a, b in
                let c = values[a].compare(values[b])
                if c != 0 { return ascending ? c < 0 : c > 0 }
                return a < b
            }
        } else {
            let values = rows.keys.indices.map { i in sortKeys.map { value($0.path, realm, rows.records[i], rows.keys[i]) } }
            order = rows.keys.indices.sorted { a, b in
                for k in sortKeys.indices {
                    let c = values[a][k].compare(values[b][k])
                    if c != 0 { return sortKeys[k].ascending ? c < 0 : c > 0 }
                }
                return a < b // stable: earlier order breaks ties
            }
        }
        rows.reorder(order)
    }

    private func distinct(_ rows: inout Rows, _ paths: [ResolvedPath], _ realm: RealmCore) {
        var seen = Set<[SortValue]>()
        let kept = rows.keys.indices.filter { i in
            seen.insert(paths.map { value($0, realm, rows.records[i], rows.keys[i]) }).inserted
        }
        rows.reorder(kept)
    }
}

extension IndexProbe {
    /// For a probe of one value in a secondary index (whose entries are the
    /// value then the object key, so in object-key order): calls `body`
    /// with each object key in ascending order until it returns false, and
    /// returns true. Returns false, calling nothing, for other probes
    /// (several values, ranges, prefixes, primary keys).
    func forEachInOrder(_ realm: RealmCore, _ body: (UInt64) -> Bool) -> Bool {
        guard range == nil, !prefixScan, !isPrimaryKey, !objectKeys, keys.count == 1 else { return false }
        // The transaction's shared cursor on the index: a lookup per value
        // would otherwise open and close one (a third of its engine work).
        // The seek below positions it, whoever moved it last.
        guard let cursor = realm.cursor(tree) else { return true }
        keys[0].withUnsafeBytes { p in
            cursor.forEach(prefix: p, values: false) { k, _ in
                // A longer entry is another value (as in candidates).
                k.size == p.count + 8 && body(keyValue(k, at: k.size - 8))
            }
        }
        return true
    }

    /// Object keys whose indexed value is one of `keys`, ascending, deduplicated.
    func candidates(_ realm: RealmCore, _ info: ClassInfo) -> [UInt64] {
        var found = Set<UInt64>()
        guard tree != absentTree else { return [] }
        if let fullTextQuery { return realm.txn.fullTextSearch(tree, objects: info.objectsTree, fullTextQuery) }
        if let range {
            // Object keys are the encodings without their 0x01 (non-nil) tag.
            let low = objectKeys ? (range.low.count > 1 ? Array(range.low.dropFirst()) : [UInt8](repeating: 0, count: 8)) : range.low
            let high = objectKeys ? range.high.map { Array($0.dropFirst()) } : range.high
            realm.txn.withCursor(tree) { cursor in
                var next = withBytesKey(low) { cursor.seek($0) }
                while let (k, v) = next {
                    let entry = bytes(of: k)
                    let valueLength = isPrimaryKey ? entry.count : entry.count - 8
                    guard valueLength >= 1 else { break }
                    let value = UnsafeRawBufferPointer(rebasing: entry[0..<valueLength])
                    let excluded = !range.lowInclusive && low.withUnsafeBytes({ compareBytes(value, $0) }) == 0
                    if !excluded, let high {
                        let order = high.withUnsafeBytes { compareBytes(value, $0) }
                        if order > 0 || (order == 0 && !range.highInclusive) { break }
                    }
                    if !excluded { found.insert(objectKeys ? keyValue(k) : isPrimaryKey ? keyValue(v) : keyValue(k, at: valueLength)) }
                    next = cursor.next()
                }
            }
            return found.sorted()
        }
        if isPrimaryKey && !prefixScan {
            for entry in keys {
                if let key = realm.primaryKeyLookup(info, entry: entry) { found.insert(key) }
            }
            return found.sorted()
        }
        // Index entries are value ++ object key: a value's entries are one
        // prefix (for a prefix scan, every value starting with it). Primary
        // key entries map the value to the object key.
        realm.txn.withCursor(tree) { cursor in
            for prefix in keys {
                prefix.withUnsafeBytes { p in
                    cursor.forEach(prefix: p, values: isPrimaryKey) { k, v in
                        if isPrimaryKey {
                            found.insert(keyValue(v))
                        } else if prefixScan ? k.size >= p.count + 8 : k.size == p.count + 8 {
                            found.insert(keyValue(k, at: k.size - 8))
                        } else if !prefixScan {
                            return false
                        }
                        return true
                    }
                }
            }
        }
        return found.sorted()
    }
}

/// A value as sorted and compared for distinct: nil first, then NaN, then
/// numbers / dates; strings and binary values by their bytes.
enum SortValue: Hashable {
    case null
    case nan
    case int(Int64)
    case double(Double)
    case bytes([UInt8])
    case decimal(Decimal128)

    init(_ operand: QueryOperand, _ type: PropertyType) {
        switch operand {
        case .null: self = .null
        case .int(let v): self = .int(v)
        case .double(let v): self = v.isNaN ? .nan : .double(v)
        case .decimal(let v): self = v.isNaN ? .nan : .decimal(v)
        case .raw(let bytes):
            switch type {
            case .int, .object: self = .int(storedInt(bytes))
            case .bool: self = .int(bytes[0] != 0 ? 1 : 0)
            case .float, .double, .date:
                let d = operandDouble(operand, type) ?? .nan
                self = d.isNaN ? .nan : .double(d)
            case .decimal128:
                let d = Decimal128._rlmLoad(bytes)
                self = d.isNaN ? .nan : .decimal(d)
            case .any:
                // Realm's mixed order: by type class, then value (MixedCodec.swift).
                let key = mixedKey(bytes)
                self = key == [0] ? .null : .bytes(key)
            default: self = .bytes(Array(bytes))
            }
        }
    }

    private var rank: Int {
        switch self {
        case .null: 0
        case .nan: 1
        default: 2
        }
    }

    func compare(_ other: SortValue) -> Int {
        switch (self, other) {
        case (.int(let a), .int(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.double(let a), .double(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.int(let a), .double(let b)): return Double(a) < b ? -1 : (Double(a) == b ? 0 : 1)
        case (.double(let a), .int(let b)): return a < Double(b) ? -1 : (a == Double(b) ? 0 : 1)
        case (.decimal(let a), .decimal(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.bytes(let a), .bytes(let b)):
            return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in compareBytes(pa, pb) } }
        default: return rank < other.rank ? -1 : (rank == other.rank ? 0 : 1)
        }
    }
}

extension QueryPlan {
    /// This plan as a key source (LIMIT followed by a filter).
    var keySource: KeySource {
        KeySource(read: { self.keys($0) }, moved: { core in self.moved(to: core)?.keySource })
    }

    /// The same query over the same collection read through `core`.
    func moved(to core: RealmCore) -> QueryPlan? {
        switch base {
        case .all:
            return QueryPlan(info: info, base: .all, predicate: predicate, compiled: compiled, orderings: orderings)
        case .keys(let source):
            guard let moved = source.moved(core) else { return nil }
            return QueryPlan(info: info, base: .keys(moved), predicate: predicate, compiled: compiled, orderings: orderings)
        }
    }
}
