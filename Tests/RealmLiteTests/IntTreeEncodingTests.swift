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

/// Int elements of tree collections stored as zigzag varints
/// (Storage/TreeElementEncoding.swift).
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
            try realm.write { for owner in owners(realm) { IntTreeModel.change(owner, 5) } }
            check(realm, changes: [5])
            try assertConsistent(realm, "fixture after a write")
        }
        try withRealm([IntTreeOwner.self]) { realm in
            check(realm, changes: [5])
            try realm.write { for owner in owners(realm) { IntTreeModel.change(owner, -300) } }
            check(realm, changes: [5, -300])
        }
        try withRealm([IntTreeOwner.self]) { check($0, changes: [5, -300]) }
    }
}
