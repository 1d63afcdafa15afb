import CStorage
import Foundation

// A lookup (`where { $0.name == x }`, `filter("name == %@", x)`) is the
// query an app runs most, once per value: the general compiler's closures,
// normalizations and path checks were a quarter of its cost. The shape
// "indexed String or Int property of the class == constant of its type"
// compiles here to an IndexedLookup: the column's facts and the constant,
// nothing allocated. Its filter and index probe are built only if a
// general evaluation asks for them; `first` and `count` read the index
// directly (QueryPlan.swift). Every other predicate, and every other shape
// of this one (nil, [c], a primary key, a mixed or optional-typed
// constant), goes through the general compiler, whose results these must
// equal (QueryLookupTests compares the two).

/// `property == constant` on an indexed String or Int column of the class.
/// The shape (column, slot, index tree) is the ClassInfo's, so a plan made
/// for one file or schema is never used with another; the constant is
/// bound per query. A class: `first` and `count` capture it in nested
/// closures, which copied a struct (and retained its references) at each
/// level.
final class IndexedLookup {
    /// The class whose records it reads, and the predicate it was compiled
    /// from (a pending Results builds its plan from them): kept here, so a
    /// pending Results holds one reference, copied and released once.
    let info: ClassInfo
    /// The predicate as given; nil for a `where` lookup, whose predicate is
    /// built only if a plan needs it (`predicate`).
    private let given: QueryPredicate?
    let column: Column
    let slot: ColumnSlot
    let layout: RecordLayout
    /// The constant: a String column's in `string`, an Int column's in `int`.
    let isString: Bool
    let string: String
    let int: Int64

    init(_ info: ClassInfo, _ predicate: QueryPredicate?, column: Column, string: String) {
        (self.info, given, self.column, slot, layout) = (info, predicate, column, info.slots[column.index], info.layout)
        (isString, self.string, int) = (true, string, 0)
    }

    init(_ info: ClassInfo, _ predicate: QueryPredicate?, column: Column, int: Int64) {
        (self.info, given, self.column, slot, layout) = (info, predicate, column, info.slots[column.index], info.layout)
        (isString, string, self.int) = (false, "", int)
    }

    /// True if made from a predicate (`filter`), false for a `where` lookup.
    var holdsPredicate: Bool { given != nil }

    /// `column == constant`, as the builder would have made it.
    var predicate: QueryPredicate {
        if let given { return given }
        return .comparison(QueryComparison(left: .keyPath([column.name], position: -1), op: .equal,
                                           right: .value(isString ? .string(string) : .int(int), position: -1)))
    }

    /// The lookup of `name == constant` on `info`, or nil if `name` is not
    /// an indexed String or Int column of the constant's type.
    static func make(_ info: ClassInfo, _ name: String, _ constant: LookupConstant) -> IndexedLookup? {
        guard let column = info.lookupColumn(named: name) else { return nil }
        switch (column.type, constant) {
        case (.string, .string(let s)): return IndexedLookup(info, nil, column: column, string: s)
        case (.int, .int(let v)): return IndexedLookup(info, nil, column: column, int: v)
        default: return nil
        }
    }

    /// Calls `body` with the constant's index key, encoded on the stack.
    @inline(__always)
    func withKey<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard isString else { return withInt64Bytes(int) { withIndexKey(.int, isNull: false, $0, body) } }
        var s = string
        return s.withUTF8 { withIndexKey(.string, isNull: false, UnsafeRawBufferPointer($0), body) }
    }

    /// True if `record`'s value equals the constant (the index narrows to a
    /// key, which long strings share: the record decides).
    @inline(__always)
    func matches(_ record: RecordView) -> Bool {
        guard !record.isNull(slot) else { return false }
        guard isString else { return storedInt(record.field(slot, layout)) == int }
        let field = record.field(slot, layout)
        // A native string's bytes are read in place; a bridged one is copied once.
        if let equal = string.utf8.withContiguousStorageIfAvailable({ bytes in sameBytes(field, UnsafeRawBufferPointer(bytes)) }) {
            return equal
        }
        var s = string
        return s.withUTF8 { sameBytes(field, UnsafeRawBufferPointer($0)) }
    }

    /// The general plan's filter (iteration, observation, chained queries).
    var filter: RowFilter {
        let lookup = self
        return { _, record, _ in lookup.matches(record) }
    }

    /// The general plan's probe: the entries of the constant's index key.
    var probe: IndexProbe {
        IndexProbe(column: column, tree: column.indexTree, isPrimaryKey: false, keys: [withKey { [UInt8]($0) }])
    }

    /// Calls `body` with each match (object key, current record) in object
    /// key order until it returns false. Seeks the transaction's shared
    /// cursor on the index (opening one per query was a third of the
    /// engine's work); whoever moved it last, the seek positions it.
    @inline(__always)
    func forEachMatch(_ realm: RealmCore, _ info: ClassInfo, _ body: (UInt64, cs_val) -> Bool) {
        guard let cursor = realm.cursor(column.indexTree) else { return }
        withKey { key in
            cursor.forEach(prefix: key, values: false) { entry, _ in
                // A longer entry is another value; one of the same length
                // is this value or, for a truncated key, a string sharing
                // its first bytes, which the record tells apart.
                guard entry.size == key.count + 8 else { return false }
                let objectKey = keyValue(entry, at: entry.size - 8)
                guard let value = realm.loadRecord(info, objectKey) else { return true }
                guard matches(RecordView(base: UnsafeRawPointer(value.data!), size: value.size)) else { return true }
                return body(objectKey, value)
            }
        }
    }

    /// The first match, in object key order.
    func first(_ realm: RealmCore, _ info: ClassInfo) -> ObjectBase? {
        var found: ObjectBase?
        forEachMatch(realm, info) { key, value in
            found = realm.materialize(info, key: key, record: value)
            return false
        }
        return found
    }

    /// The number of matches.
    func count(_ realm: RealmCore, _ info: ClassInfo) -> Int {
        var count = 0
        forEachMatch(realm, info) { _, _ in
            count += 1
            return true
        }
        return count
    }
}

extension ClassInfo {
    /// The indexed String or Int scalar column named `name`, or nil. A
    /// class has few such columns, and a name is compared before it is
    /// hashed: hashing the name was most of this compile.
    @inline(__always)
    func lookupColumn(named name: String) -> Column? {
        for column in lookupColumns where column.name == name { return column }
        return nil
    }
}

extension QueryCompiler {
    /// The compiled query of `property == constant` on an indexed String or
    /// Int property of the class itself, or nil for any other predicate.
    func indexedEquality(_ predicate: QueryPredicate) -> CompiledQuery? {
        guard useIndexes, selfPath == nil, case .comparison(let c) = predicate, c.op == .equal,
              c.quantifier == .implicit, c.listQuantifier == .implicit, !c.listUnquantified,
              !c.caseInsensitive, !c.diacriticInsensitive,
              case .keyPath(let components, _) = c.left, components.count == 1,
              case .value(let value, _) = c.right,
              let column = info.lookupColumn(named: components[0]) else { return nil }
        switch (column.type, value) {
        case (.string, .string(let s)): return CompiledQuery(lookup: IndexedLookup(info, predicate, column: column, string: s))
        case (.int, .int(let v)): return CompiledQuery(lookup: IndexedLookup(info, predicate, column: column, int: v))
        default: return nil
        }
    }
}

/// A Results' lookup whose QueryPlan is not built yet: `where { $0.name == x
/// }.first` in a loop reads the index and needs no plan, whose allocation
/// and release were a tenth of such a query. Only on a live Realm (a frozen
/// Results is shared by threads, so it must not build its plan lazily);
/// anything beyond `first` and `count` builds the plan (Results.source).
struct PendingLookup {
    let lookup: IndexedLookup

    var info: ClassInfo { lookup.info }
    var predicate: QueryPredicate { lookup.predicate }

    var plan: QueryPlan {
        QueryPlan(info: info, base: .all, predicate: predicate, compiled: CompiledQuery(lookup: lookup), orderings: [])
    }
}
