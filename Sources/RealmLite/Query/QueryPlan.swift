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
    case keys((Realm) -> [UInt64])
}

enum QueryOrdering {
    case sort([SortDescriptor], [CompiledSortKey])
    case distinct([String], [ResolvedPath])
}

struct CompiledSortKey {
    let path: ResolvedPath
    let ascending: Bool
}

/// A sort criterion (RealmSwift's SortDescriptor).
public struct SortDescriptor: Sendable, Hashable {
    public let keyPath: String
    public let ascending: Bool

    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// `SortDescriptor(keyPath: \Person.name)`; stops if the key path does not name a persisted property.
    public init<Root: ObjectBase>(keyPath: PartialKeyPath<Root>, ascending: Bool = true) {
        self.keyPath = orStop { try KeyPathRecorder.name(of: keyPath, root: Root.self) }
        self.ascending = ascending
    }

    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }
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

    init(info: ClassInfo, base: QueryBase, predicate: QueryPredicate?, compiled: CompiledQuery?, orderings: [QueryOrdering]) {
        self.info = info
        self.base = base
        self.predicate = predicate
        self.compiled = compiled
        self.orderings = orderings
    }

    /// The matching object keys in the Realm's current snapshot.
    func keys(_ realm: Realm) -> [UInt64] {
        if cachedGeneration == realm.generation && cachedGeneration != 0 { return cachedKeys }
        let keys = evaluate(realm)
        cachedKeys = keys
        cachedGeneration = realm.generation
        return keys
    }

    private func evaluate(_ realm: Realm) -> [UInt64] {
        var keys: [UInt64] = []
        let filter = compiled?.filter
        switch base {
        case .all:
            if let probe = compiled?.probe {
                for key in probe.candidates(realm, info) {
                    guard let value = realm.loadRecord(info, key) else { continue }
                    if filter!(realm, RecordView(base: UnsafeRawPointer(value.data!), size: value.size), key) { keys.append(key) }
                }
            } else if info.objectsTree != absentTree {
                var cursor: OpaquePointer?
                guard cs_cursor_open(realm.txn, info.objectsTree, &cursor) == csOK, let cursor else { return [] }
                defer { cs_cursor_close(cursor) }
                var k = cs_val(), v = cs_val()
                var rc = cs_cursor_get(cursor, &k, &v, CS_FIRST)
                while rc == csOK {
                    let key = keyValue(k)
                    if let filter {
                        if filter(realm, RecordView(base: UnsafeRawPointer(v.data!), size: v.size), key) { keys.append(key) }
                    } else {
                        keys.append(key)
                    }
                    rc = cs_cursor_get(cursor, &k, &v, CS_NEXT)
                }
                if rc != csNotFound { mustSucceed(rc, "Evaluating a query on '\(info.name)'") }
            }
        case .keys(let source):
            for key in source(realm) {
                guard let filter else { keys.append(key); continue }
                guard let value = realm.loadRecord(info, key) else { continue }
                if filter(realm, RecordView(base: UnsafeRawPointer(value.data!), size: value.size), key) { keys.append(key) }
            }
        }
        for ordering in orderings {
            switch ordering {
            case .sort(_, let sortKeys): keys = sort(keys, sortKeys, realm)
            case .distinct(_, let paths): keys = distinct(keys, paths, realm)
            }
        }
        return keys
    }

    /// One value per key path for each row (sort keys / distinct tuples).
    private func values(_ keys: [UInt64], _ paths: [ResolvedPath], _ realm: Realm) -> [[SortValue]] {
        keys.map { key in
            guard let value = realm.loadRecord(info, key) else { return paths.map { _ in .null } }
            let record = RecordView(base: UnsafeRawPointer(value.data!), size: value.size)
            return paths.map { path in
                var result = SortValue.null
                _ = path.source(realm, record, key) { operand in
                    result = SortValue(operand, path.type)
                    return false
                }
                return result
            }
        }
    }

    private func sort(_ keys: [UInt64], _ sortKeys: [CompiledSortKey], _ realm: Realm) -> [UInt64] {
        let rows = values(keys, sortKeys.map(\.path), realm)
        let ascending = sortKeys.map(\.ascending)
        let order = keys.indices.sorted { a, b in
            for i in ascending.indices {
                let c = rows[a][i].compare(rows[b][i])
                if c != 0 { return ascending[i] ? c < 0 : c > 0 }
            }
            return a < b // stable: earlier order breaks ties
        }
        return order.map { keys[$0] }
    }

    private func distinct(_ keys: [UInt64], _ paths: [ResolvedPath], _ realm: Realm) -> [UInt64] {
        let rows = values(keys, paths, realm)
        var seen = Set<[SortValue]>()
        return keys.indices.filter { seen.insert(rows[$0]).inserted }.map { keys[$0] }
    }
}

extension IndexProbe {
    /// Object keys whose indexed value is one of `keys`, ascending, deduplicated.
    func candidates(_ realm: Realm, _ info: ClassInfo) -> [UInt64] {
        var found = Set<UInt64>()
        guard tree != absentTree else { return [] }
        if isPrimaryKey {
            for entry in keys {
                if let key = realm.primaryKeyLookup(info, entry: entry) { found.insert(key) }
            }
        } else {
            var cursor: OpaquePointer?
            guard cs_cursor_open(realm.txn, tree, &cursor) == csOK, let cursor else { return [] }
            defer { cs_cursor_close(cursor) }
            for prefix in keys {
                prefix.withUnsafeBytes { p in
                    var k = cs_val(data: p.baseAddress, size: p.count)
                    var rc = cs_cursor_get(cursor, &k, nil, CS_SEEK)
                    while rc == csOK, k.size == p.count + 8,
                          memcmp(k.data, p.baseAddress!, p.count) == 0 {
                        found.insert(keyValue(k, at: p.count))
                        rc = cs_cursor_get(cursor, &k, nil, CS_NEXT)
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
            case .int, .object: self = .int(Int64(littleEndian: bytes.loadUnaligned(as: Int64.self)))
            case .bool: self = .int(bytes[0] != 0 ? 1 : 0)
            case .float, .double, .date:
                let d = operandDouble(operand, type) ?? .nan
                self = d.isNaN ? .nan : .double(d)
            case .decimal128:
                let d = Decimal128._rlmLoad(bytes)
                self = d.isNaN ? .nan : .decimal(d)
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
