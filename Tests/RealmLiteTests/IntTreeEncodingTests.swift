import CStorage
import Foundation
@testable import RealmLite
import XCTest

/// Every kind of Int collection: the class of Tests/Fixtures/pre-intcompact.realm
/// (Tests/Fixtures/make-pre-intcompact.swift.txt), written while tree
/// collections stored every Int element as 8 bytes.
final class IntTreeOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: List<Int>
    @Persisted var small: List<Int8>
    @Persisted var optionals: List<Int?>
    @Persisted var set: MutableSet<Int>
    @Persisted var optionalSet: MutableSet<Int?>
    @Persisted var map: Map<String, Int>
    @Persisted var optionalMap: Map<String, Int?>
}

/// The values the fixture and the tests store.
enum IntEdges {
    /// Int.min/max, ±1, 0, and both sides of every zigzag varint length.
    static let values: [Int] = {
        var out: [Int] = [.min, .min + 1, .max, .max - 1, -1, 0, 1, 63, 64, -64, -65, 127, 128, -128, -129]
        for bytes in 1...9 {
            let edge = 1 << (7 * bytes - 1)
            out += [edge - 1, edge, -edge, -edge - 1]
        }
        return out
    }()
    static let small: [Int8] = [.min, -65, -64, -63, -1, 0, 1, 63, 64, .max]

    /// Object `id`'s collections: 0 and 2 hold more than the tree
    /// threshold (64), 1 is small (in its record).
    static func ints(_ id: Int) -> [Int] {
        id == 1 ? [.min, 0, .max] : values + (0..<(60 + id)).map { $0 * 1_000_003 - 30_000_000 }
    }
    static func smalls(_ id: Int) -> [Int8] {
        id == 1 ? [-1, 0] : (0..<(70 + id)).map { small[$0 % small.count] }
    }
    static func optionals(_ id: Int) -> [Int?] {
        ints(id).enumerated().map { $0.offset % 5 == 2 ? nil : $0.element }
    }
    static func set(_ id: Int) -> Set<Int> { Set(ints(id)) }
    static func optionalSet(_ id: Int) -> Set<Int?> { Set(optionals(id)) }
    static func map(_ id: Int) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: ints(id).enumerated().map { ("k\($0.offset)", $0.element) })
    }
    static func optionalMap(_ id: Int) -> [String: Int?] {
        Dictionary(uniqueKeysWithValues: optionals(id).enumerated().map { ("k\($0.offset)", $0.element) })
    }

    /// Fills a managed owner (changes move big collections to the tree).
    static func fill(_ owner: IntTreeOwner) {
        let id = owner.id
        owner.ints.append(objectsIn: ints(id))
        owner.small.append(objectsIn: smalls(id))
        owner.optionals.append(objectsIn: optionals(id))
        owner.set.insert(objectsIn: set(id))
        owner.optionalSet.insert(objectsIn: optionalSet(id))
        for (key, value) in map(id) { owner.map[key] = value }
        for (key, value) in optionalMap(id) { owner.optionalMap[key] = value }
    }
}

/// An IntTreeOwner as Swift collections.
struct IntTreeModel: Equatable {
    var ints: [Int] = []
    var small: [Int8] = []
    var optionals: [Int?] = []
    var set = Set<Int>()
    var optionalSet = Set<Int?>()
    var map: [String: Int] = [:]
    var optionalMap: [String: Int?] = [:]

    init(id: Int) {
        ints = IntEdges.ints(id)
        small = IntEdges.smalls(id)
        optionals = IntEdges.optionals(id)
        set = IntEdges.set(id)
        optionalSet = IntEdges.optionalSet(id)
        map = IntEdges.map(id)
        optionalMap = IntEdges.optionalMap(id)
    }

    init(_ owner: IntTreeOwner) {
        ints = Array(owner.ints)
        small = Array(owner.small)
        optionals = Array(owner.optionals)
        set = Set(owner.set)
        optionalSet = Set(owner.optionalSet)
        map = Dictionary(uniqueKeysWithValues: owner.map.asKeyValueSequence().map { ($0.key, $0.value) })
        optionalMap = Dictionary(uniqueKeysWithValues: owner.optionalMap.asKeyValueSequence().map { ($0.key, $0.value) })
    }

    /// The same changes as `IntTreeEncodingTests.change`.
    mutating func change(_ n: Int) {
        ints.append(n); ints.insert(-n, at: 0); ints.remove(at: ints.count / 2)
        small.append(Int8(truncatingIfNeeded: n)); small.remove(at: 0)
        optionals.append(nil); optionals.insert(n, at: 1)
        set.insert(n); set.remove(0)
        optionalSet.insert(-n); optionalSet.remove(nil)
        map["new\(n)"] = n; map["k0"] = nil
        optionalMap["new\(n)"] = .some(nil); optionalMap["k1"] = .some(n)
    }

    /// The same changes made to a managed owner (in a write).
    static func change(_ owner: IntTreeOwner, _ n: Int) {
        owner.ints.append(n); owner.ints.insert(-n, at: 0); owner.ints.remove(at: owner.ints.count / 2)
        owner.small.append(Int8(truncatingIfNeeded: n)); owner.small.remove(at: 0)
        owner.optionals.append(nil); owner.optionals.insert(n, at: 1)
        owner.set.insert(n); owner.set.remove(0)
        owner.optionalSet.insert(-n); owner.optionalSet.remove(nil)
        owner.map["new\(n)"] = n; owner.map.removeObject(for: "k0")
        owner.optionalMap.updateValue(nil, forKey: "new\(n)"); owner.optionalMap["k1"] = n
    }
}

/// Int elements of tree collections stored as varints: ordered ones in new
/// collections, 8-byte ones in the fixture's (Storage/TreeElementEncoding.swift).
final class IntTreeEncodingTests: CollectionsTreeTestCase {
    override var spillThreshold: Int { 64 }

    func owners(_ realm: Realm) -> Results<IntTreeOwner> { realm.objects(IntTreeOwner.self).sorted(byKeyPath: "id") }

    func check(_ realm: Realm, changes: [Int], file: StaticString = #filePath, line: UInt = #line) {
        let owners = self.owners(realm)
        XCTAssertEqual(owners.count, 3, file: file, line: line)
        for owner in owners {
            var model = IntTreeModel(id: owner.id)
            for n in changes { model.change(n) }
            XCTAssertEqual(IntTreeModel(owner), model, "owner \(owner.id)", file: file, line: line)
        }
    }

    /// Tests/Fixtures/pre-intcompact.realm was written while tree
    /// collections held 8-byte Int elements: they are read as they are,
    /// and changed, across reopening.
    func testAFileWithEightByteTreeIntsIsReadAndChanged() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/pre-intcompact.realm")
        try FileManager.default.copyItem(at: fixture, to: fileURL)
        try withRealm([IntTreeOwner.self]) { realm in
            check(realm, changes: [])
            XCTAssertEqual(realm.objects(IntTreeOwner.self).filter("ANY ints == %@", Int.min).count, 3)
            XCTAssertEqual(realm.objects(IntTreeOwner.self).filter("ANY set == %@", 8192).count, 2)
            XCTAssertEqual(realm.objects(IntTreeOwner.self).filter("ANY optionalSet == nil").count, 3)
            XCTAssertEqual(realm.core.schemaState.stored?.format, StoredSchema.currentFormat, "marked as the current format on open")
            let owner = try XCTUnwrap(realm.object(ofType: IntTreeOwner.self, forPrimaryKey: 0))
            let old = try storedEntries(owner, "optionals")
            XCTAssertLessThan(old.list.id, ListTree.compactIDBase)
            XCTAssertEqual(old.list.encoding, .plain)
            XCTAssertEqual(Set(old.values.map(\.count)), [1, 9], "the fixture's elements: tag byte and 8 bytes")
            try realm.write { for owner in owners(realm) { IntTreeModel.change(owner, 5) } }
            check(realm, changes: [5])
            XCTAssertEqual(Set(try storedEntries(owner, "optionals").values.map(\.count)), [1, 9], "changes keep a collection's encoding")
            try assertConsistent(realm, "fixture after a write")
        }
        try withRealm([IntTreeOwner.self]) { realm in
            check(realm, changes: [5])
            try realm.write { for owner in owners(realm) { IntTreeModel.change(owner, -300) } }
            check(realm, changes: [5, -300])
        }
        try withRealm([IntTreeOwner.self]) { realm in
            check(realm, changes: [5, -300])
            // Emptied, a collection returns to its record; grown again, it takes an ordered id.
            let owner = try XCTUnwrap(realm.object(ofType: IntTreeOwner.self, forPrimaryKey: 2))
            let elements = Array(owner.optionals)
            try realm.write {
                owner.optionals.removeAll()
                owner.optionals.append(objectsIn: elements)
            }
            let renewed = try storedEntries(owner, "optionals")
            XCTAssertGreaterThanOrEqual(renewed.list.id, ListTree.orderedIDBase)
            XCTAssertEqual(renewed.values.first, ordered(Int.min), "Int.min as an ordered varint")
            XCTAssertEqual(renewed.values.first?.first, 0x01)
            XCTAssertEqual(renewed.values[try XCTUnwrap(elements.firstIndex(of: 0))], [0x29], "0 as an ordered varint")
            check(realm, changes: [5, -300])
            try assertConsistent(realm, "fixture, a collection renewed")
        }
    }
}

extension IntTreeEncodingTests {
    /// The stored values of a tree collection's entries, in tree order.
    func storedEntries(_ owner: IntTreeOwner, _ property: String) throws -> (list: SpilledList, values: [[UInt8]]) {
        let info = try XCTUnwrap(owner._info)
        let c = try XCTUnwrap(info.columns.firstIndex { $0.name == property })
        let core = owner.realm!.core
        let list = try XCTUnwrap(SpilledList(owner._currentRecord().field(info.slots[c], info.layout), type: TreeElementEncoding(info.columns[c])),
                                 "\(property) is in the tree")
        var values: [[UInt8]] = []
        let cursor = try XCTUnwrap(core.cursor(core.listsTree()))
        list.prefix.withUnsafeBytes { prefix in
            cursor.forEach(prefix: prefix) { _, value in
                values.append([UInt8](copying: bytes(of: value)))
                return true
            }
        }
        return (list, values)
    }

    /// OrderedVarint bytes of `value`.
    func ordered(_ value: Int) -> [UInt8] {
        var out: [UInt8] = []
        OrderedVarint.append(Int64(value), to: &out)
        return out
    }

    func testVarintsAreCanonicalAndRoundTrip() {
        for value in IntEdges.values.map(Int64.init) {
            var out: [UInt8] = []
            ZigzagVarint.append(value, to: &out)
            let zigzag = UInt64(bitPattern: (value << 1) ^ (value >> 63))
            XCTAssertEqual(out.count, max(1, (64 - zigzag.leadingZeroBitCount + 6) / 7), "length of \(value)")
            XCTAssertEqual(out.withUnsafeBytes { ZigzagVarint.decode($0) }, value)
        }
        XCTAssertEqual(([0x7F] as [UInt8]).withUnsafeBytes { ZigzagVarint.decode($0) }, -64)
        XCTAssertEqual(([0x80, 0x01] as [UInt8]).withUnsafeBytes { ZigzagVarint.decode($0) }, 64)
        // Not canonical, or not one varint: a high zero group, a trailing continuation, too long, a bit past 64.
        for bad: [UInt8] in [[], [0x80], [0x80, 0x00], [0x81, 0x80], [0x01, 0x01], Array(repeating: 0xFF, count: 10) + [0x01],
                             Array(repeating: 0xFF, count: 9) + [0x02]] {
            XCTAssertNil(bad.withUnsafeBytes { ZigzagVarint.decode($0) }, "\(bad)")
        }
    }

    /// Edge values in every kind of tree collection: stored as ordered
    /// varints of their length, read back, across reopening; lookups find
    /// each value and no neighbour; sets iterate in numeric order.
    func testEdgeValuesAreStoredAsVarintsAndRoundTrip() throws {
        try withRealm([IntTreeOwner.self]) { realm in
            try realm.write {
                for id in 0..<3 { IntEdges.fill(realm.create(IntTreeOwner.self, value: ["id": id])) }
            }
            check(realm, changes: [])
            let owner = try XCTUnwrap(realm.object(ofType: IntTreeOwner.self, forPrimaryKey: 0))
            let ints = try storedEntries(owner, "ints")
            XCTAssertGreaterThanOrEqual(ints.list.id, ListTree.orderedIDBase)
            XCTAssertEqual(ints.list.encoding.form, .ordered)
            XCTAssertEqual(ints.values, IntEdges.ints(0).map(ordered))
            // Int.min, Int.min + 1, Int.max: the longest forms, a tag and 8 bytes
            // (2^63 - 33 and 2^63 - 208 less 0x0101010101010100, complemented for Int.min).
            XCTAssertEqual(ints.values[0], [0x01, 0x81, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x20], "Int.min")
            XCTAssertEqual(ints.values[1], [0x01, 0x81, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x21], "Int.min + 1")
            XCTAssertEqual(ints.values[2], [0xFF, 0x7E, 0xFE, 0xFE, 0xFE, 0xFE, 0xFE, 0xFE, 0x30], "Int.max")
            XCTAssertEqual(try storedEntries(owner, "small").values.map(\.count).max(), 2)
            let optionals = try storedEntries(owner, "optionals").values
            XCTAssertEqual(optionals[2], [OrderedVarint.nilByte])
            XCTAssertEqual(optionals[5], [0x29], "0 is one byte, with no tag")
            let set = try storedEntries(owner, "set").values
            XCTAssertEqual(set.count, IntEdges.set(0).count)
            XCTAssertEqual(set, IntEdges.set(0).sorted().map(ordered), "entries in numeric order")
            XCTAssertEqual(Array(owner.set), IntEdges.set(0).sorted(), "a set iterates in numeric order")
            XCTAssertEqual(Array(owner.optionalSet).first, .some(nil), "nil before every number")
            XCTAssertEqual(try storedEntries(owner, "optionalSet").values.first, [OrderedVarint.nilByte])
            XCTAssertTrue(try storedEntries(owner, "map").values.allSatisfy { $0.count <= 4 + 4 + 9 }, "key length, key, varint")

            for value in IntEdges.values {
                XCTAssertTrue(owner.set.contains(value), "set contains \(value)")
                XCTAssertEqual(owner.optionalSet.contains(value), IntEdges.optionalSet(0).contains(value), "optional set: \(value)")
                XCTAssertEqual(owner.ints.index(of: value), IntEdges.ints(0).firstIndex(of: value))
            }
            XCTAssertTrue(owner.optionalSet.contains(nil))
            for absent in [2, -3, 62, 66, -66, 8190, -8194, Int.max - 2, Int.min + 2] {
                XCTAssertFalse(owner.set.contains(absent), "set holds no \(absent)")
                XCTAssertNil(owner.ints.index(of: absent))
            }
            for (i, value) in IntEdges.ints(0).enumerated() {
                XCTAssertEqual(owner.map["k\(i)"], value)
                XCTAssertEqual(owner.optionalMap["k\(i)"], IntEdges.optionals(0)[i])
                XCTAssertEqual(owner.ints[i], value)
            }
            XCTAssertNil(owner.map["missing"])
            // A key too long for an entry decoded on the stack.
            let long = String(repeating: "k", count: 300)
            try realm.write { owner.optionalMap[long] = Int.min }
            XCTAssertEqual(owner.optionalMap[long], Int.min)
            XCTAssertEqual(owner.optionalMap.asKeyValueSequence().first { $0.key == long }?.value, Int.min)
            try realm.write { owner.optionalMap.removeObject(for: long) }
            XCTAssertEqual(Array(owner.freeze().ints), IntEdges.ints(0))
        }
        try withRealm([IntTreeOwner.self]) { realm in
            check(realm, changes: [])
            try realm.write { for owner in owners(realm) { IntTreeModel.change(owner, 64) } }
            check(realm, changes: [64])
            try assertConsistent(realm, "after changes")
        }
    }

    /// Queries, aggregates, sorting and distinct read the varints as numbers.
    func testQueriesAndAggregatesReadTreeInts() throws {
        try withRealm([IntTreeOwner.self]) { realm in
            try realm.write {
                for id in 0..<3 { IntEdges.fill(realm.create(IntTreeOwner.self, value: ["id": id])) }
            }
            let all = realm.objects(IntTreeOwner.self)
            let owner = try XCTUnwrap(realm.object(ofType: IntTreeOwner.self, forPrimaryKey: 2))
            let expected = IntEdges.ints(2)
            for value in [-65, 64, 8192, -8193, Int.max, Int.min] {
                let holders = (0..<3).filter { IntEdges.ints($0).contains(value) }
                XCTAssertEqual(all.filter("ANY ints == %@", value).map(\.id).sorted(), holders, "ANY ints == \(value)")
            }
            XCTAssertEqual(all.filter("ANY small == -64").count, 2)
            XCTAssertEqual(all.filter("ANY optionals == nil").count, 3)
            XCTAssertEqual(all.filter("ints.@count == %@", expected.count).map(\.id), [2])
            XCTAssertEqual(all.filter("set.@count > 10").count, 2)
            XCTAssertEqual(all.filter("ANY set IN %@", [-8193, 5]).count, 2)
            XCTAssertEqual(all.filter("ANY map.@values == %@", Int.min + 1).count, 2)
            XCTAssertEqual(all.filter("small.@min == -128 AND small.@max == 127").count, 2)
            let smallSum = IntEdges.smalls(2).reduce(0) { $0 + Int($1) }
            XCTAssertEqual(all.filter("small.@sum == %@", smallSum).map(\.id), [2])
            XCTAssertEqual(owner.ints.min(), Int.min)
            XCTAssertEqual(owner.ints.max(), Int.max)
            XCTAssertEqual(owner.map.max(), Int.max)
            XCTAssertEqual(owner.set.min(), Int.min)
            XCTAssertEqual(Array(owner.ints.sorted(ascending: true)), expected.sorted())
            XCTAssertEqual(Array(owner.ints.distinct()), expected.reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } })
            XCTAssertEqual(Array(owner.ints.filter("self > 8191")), expected.filter { $0 > 8191 })
            XCTAssertEqual(Set(owner.set.sorted(ascending: false)), IntEdges.set(2))
        }
    }

    /// A migration's old values read tree Ints as numbers.
    func testMigrationReadsOldTreeInts() throws {
        try withRealm([IntTreeOwner.self]) { realm in
            try realm.write { IntEdges.fill(realm.create(IntTreeOwner.self, value: ["id": 0])) }
        }
        nonisolated(unsafe) var ints: [Int] = [], optionals: [Int?] = [], map: [String: Int] = [:]
        let configuration = Realm.Configuration(fileURL: fileURL, schemaVersion: 1, migrationBlock: { migration, _ in
            migration.enumerateObjects(ofType: "IntTreeOwner") { old, _ in
                ints = (old!["ints"] as? [Any])?.compactMap { $0 as? Int } ?? []
                optionals = (old!["optionals"] as? [Any])?.map { $0 as? Int } ?? []
                map = ((old!["map"] as? [String: Any]) ?? [:]).compactMapValues { $0 as? Int }
            }
        }, objectTypes: [IntTreeOwner.self])
        _ = try Realm(configuration: configuration)
        XCTAssertEqual(ints, IntEdges.ints(0))
        XCTAssertEqual(optionals, IntEdges.optionals(0))
        XCTAssertEqual(map, IntEdges.map(0))
    }
}
