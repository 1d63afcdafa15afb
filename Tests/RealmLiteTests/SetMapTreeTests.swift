import CStorage
import Foundation
@testable import RealmLite
import XCTest

final class TreeSetOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: MutableSet<Int>
    @Persisted var names: MutableSet<String?>
    @Persisted var pets: MutableSet<TreeSetPet>
    @Persisted var scores: Map<String, Int?>
    @Persisted var petsByName: Map<String, TreeSetPet?>
}

final class TreeSetPet: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted(originProperty: "pets") var owners: LinkingObjects<TreeSetOwner>
}

/// The classes of Tests/Fixtures/pre-settree.realm (format 5: big sets and
/// maps in their records; Tests/Fixtures/make-pre-settree.swift.txt).
final class PreSetTreeOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: List<Int>
    @Persisted var tags: MutableSet<String>
    @Persisted var ints: MutableSet<Int?>
    @Persisted var pets: MutableSet<PreSetTreePet>
    @Persisted var scores: Map<String, Double>
    @Persisted var petsByName: Map<String, PreSetTreePet?>
}

final class PreSetTreePet: Object {
    @Persisted var name = ""
}

/// A set and a map, then the same renamed (migrations).
final class TreeRenameOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: MutableSet<Int>
    @Persisted var scores: Map<String, Int?>
}

final class TreeRenameOwnerRenamed: Object {
    override class func className() -> String { "TreeRenameOwner" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: MutableSet<Int>
    @Persisted var points: Map<String, Int?>
}

/// The state of a TreeSetOwner as Swift collections.
struct SetMapModel: Equatable {
    var ints = Set<Int>()
    var names = Set<String?>()
    var pets = Set<String>()
    var scores: [String: Int?] = [:]
    var petsByName: [String: String?] = [:]

    init() {}

    init(_ owner: TreeSetOwner) {
        ints = Set(owner.ints)
        names = Set(owner.names)
        pets = Set(owner.pets.map(\.name))
        scores = Dictionary(uniqueKeysWithValues: owner.scores.asKeyValueSequence().map { ($0.key, $0.value) })
        petsByName = Dictionary(uniqueKeysWithValues: owner.petsByName.asKeyValueSequence().map { ($0.key, $0.value?.name) })
    }
}

/// MutableSets and Maps stored in the collections tree (Storage/SetMapTree.swift).
final class SetMapTreeTests: CollectionsTreeTestCase {
    let types: [ObjectBase.Type] = [TreeSetOwner.self, TreeSetPet.self]

    func marker(_ object: ObjectBase, _ property: String) -> SpilledList? {
        guard let c = object._info!.columns.firstIndex(where: { $0.name == property }) else { return nil }
        return SpilledList(object._currentRecord().field(object._info!.slots[c], object._info!.layout), type: TreeElementEncoding(object._info!.columns[c]))
    }

    /// A string, sometimes longer than EntryKey.directLength (keyed by a prefix and a hash).
    static func text(_ n: Int) -> String {
        n % 9 == 0 ? String(repeating: "x", count: 1200) + "\(n)" : "s\(n)"
    }

    /// Every MutableSet and Map operation against Swift sets and
    /// dictionaries, across commits, cancels and reopening; the checker stays clean.
    func testRandomSetAndMapOperationsMatchSwiftCollections() throws {
        var generator = SystemRandomNumberGenerator()
        var model = SetMapModel()
        var sawTree = false
        for round in 0..<5 {
            try { () throws -> Void in
                let realm = try openRealm(types)
                let owner = try XCTUnwrap(realm.object(ofType: TreeSetOwner.self, forPrimaryKey: 0) ?? {
                    try realm.write { realm.create(TreeSetOwner.self, value: ["id": 0]) }
                }())
                XCTAssertEqual(SetMapModel(owner), model, "round \(round) after reopening")
                for step in 0..<8 {
                    let cancel = step % 4 == 3
                    var working = model
                    realm.beginWrite()
                    for _ in 0..<40 {
                        let n = Int.random(in: 0..<60, using: &generator)
                        let some = (0..<Int.random(in: 0..<8, using: &generator)).map { _ in Int.random(in: 0..<60, using: &generator) }
                        switch Int.random(in: 0..<16, using: &generator) {
                        case 0, 1:
                            owner.ints.insert(n); working.ints.insert(n)
                        case 2:
                            owner.ints.insert(objectsIn: some); working.ints.formUnion(some)
                        case 3:
                            owner.ints.remove(n); working.ints.remove(n)
                        case 4:
                            owner.ints.formUnion(some); working.ints.formUnion(some)
                        case 5:
                            let keep = some + Array(working.ints.prefix(40))
                            owner.ints.formIntersection(keep); working.ints.formIntersection(keep)
                        case 6:
                            owner.ints.subtract(some); working.ints.subtract(some)
                        case 7 where Int.random(in: 0..<6, using: &generator) == 0:
                            owner.ints.removeAll(); working.ints.removeAll()
                            owner.names.removeAll(); working.names.removeAll()
                        case 8:
                            let name: String? = n % 11 == 0 ? nil : Self.text(n)
                            if n % 3 == 0 {
                                owner.names.remove(name); working.names.remove(name)
                            } else {
                                owner.names.insert(name); working.names.insert(name)
                            }
                        case 9:
                            let key = Self.text(n)
                            let value: Int? = n % 5 == 0 ? nil : n * 10 + step
                            owner.scores[key] = value; working.scores[key] = .some(value)
                        case 10:
                            owner.scores.updateValue(n, forKey: Self.text(n)); working.scores[Self.text(n)] = n
                        case 11:
                            owner.scores.removeObject(for: Self.text(n)); working.scores[Self.text(n)] = nil
                            owner.scores[Self.text(n + 1)] = nil; working.scores[Self.text(n + 1)] = nil
                        case 12:
                            owner.scores.setValue(n, forKey: "kv\(n % 20)"); working.scores["kv\(n % 20)"] = n
                            owner.scores.merge(some.map { (key: "m\($0)", value: Optional($0)) }) { a, b in (a ?? 0) + (b ?? 0) }
                            for m in some { working.scores["m\(m)"] = .some((working.scores["m\(m)"].flatMap { $0 } ?? 0) + m) }
                        case 13 where Int.random(in: 0..<8, using: &generator) == 0:
                            owner.scores.removeAll(); working.scores.removeAll()
                        case 14:
                            let name = "pet\(n % 30)"
                            let pet = realm.object(ofType: TreeSetPet.self, forPrimaryKey: name) ?? realm.create(TreeSetPet.self, value: [name])
                            owner.pets.insert(pet); working.pets.insert(name)
                            owner.petsByName["by\(n % 25)"] = pet; working.petsByName["by\(n % 25)"] = .some(name)
                        case 15:
                            let name = "pet\(n % 30)"
                            guard let pet = realm.object(ofType: TreeSetPet.self, forPrimaryKey: name) else { break }
                            if n % 2 == 0 {
                                owner.pets.remove(pet); working.pets.remove(name)
                            } else {
                                // Deleting the object removes it from sets and nils map values.
                                realm.delete(pet)
                                working.pets.remove(name)
                                for (key, value) in working.petsByName where value == name { working.petsByName[key] = .some(nil) }
                            }
                        default:
                            break
                        }
                        XCTAssertEqual(owner.ints.count, working.ints.count)
                        XCTAssertEqual(owner.scores.count, working.scores.count)
                        XCTAssertEqual(owner.ints.contains(n), working.ints.contains(n))
                        XCTAssertEqual(owner.scores[Self.text(n)], working.scores[Self.text(n)])
                        if marker(owner, "ints") != nil && marker(owner, "scores") != nil && marker(owner, "names") != nil { sawTree = true }
                    }
                    XCTAssertEqual(SetMapModel(owner), working, "round \(round) step \(step) inside the write")
                    if cancel {
                        realm.cancelWrite()
                    } else {
                        try realm.commitWrite()
                        model = working
                    }
                    XCTAssertEqual(SetMapModel(owner), model, "round \(round) step \(step) after \(cancel ? "cancel" : "commit")")
                    XCTAssertEqual(owner.pets.map { $0.owners.count }, owner.pets.map { _ in 1 }, "backlinks of the pets")
                }
                try assertConsistent(realm, "round \(round)")
            }()
        }
        XCTAssertTrue(sawTree, "the sets and maps moved to the tree")
    }

    /// Reads, queries, freezing, copies and deletes see the same set or map
    /// whether it is in the record or in the tree.
    func bothLayouts(_ body: (Realm, String) throws -> Void) throws {
        for threshold in [Int.max, 0] {
            ListTree.setThreshold(threshold)
            let name = threshold == 0 ? "tree" : "record"
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "\(name)-\(UUID())", objectTypes: types))
            try body(realm, name)
        }
    }

    func makeOwners(_ realm: Realm) throws {
        try realm.write {
            for id in 0..<4 {
                let owner = realm.create(TreeSetOwner.self, value: ["id": id])
                owner.ints.insert(objectsIn: (0..<(id * 5)).map { $0 * 2 })
                owner.names.insert(objectsIn: (0..<id).map { "n\($0)" } + [nil])
                for k in 0..<(id * 3) { owner.scores["k\(k)"] = k }
                let pet = realm.create(TreeSetPet.self, value: ["pet\(id)"])
                owner.pets.insert(pet)
                owner.petsByName["mine"] = pet
            }
        }
    }

    /// Map reads by key in the record and in the tree: present and absent
    /// keys, long keys (keyed by prefix and hash), nil values, objects, and
    /// key-value coding.
    func testMapLookupsByKey() throws {
        try bothLayouts { realm, layout in
            try makeOwners(realm)
            let owner = try XCTUnwrap(realm.object(ofType: TreeSetOwner.self, forPrimaryKey: 3), layout)
            try realm.write {
                for n in 0..<40 { owner.scores[Self.text(n)] = n % 5 == 0 ? nil : n * 3 }
            }
            XCTAssertEqual(marker(owner, "scores") != nil, layout == "tree", layout)
            for n in 0..<40 {
                let want: Int?? = .some(n % 5 == 0 ? nil : n * 3)
                XCTAssertEqual(owner.scores[Self.text(n)], want, "\(layout) \(n)")
                XCTAssertEqual(owner.scores.value(forKey: Self.text(n)) as? Int, n % 5 == 0 ? nil : n * 3, "\(layout) \(n)")
                XCTAssertTrue(owner.scores[Self.text(n) + "!"] == nil, "\(layout) \(n)")
                XCTAssertFalse(owner.scores.contains(key: Self.text(n + 40)), "\(layout) \(n)")
            }
            XCTAssertEqual(owner.scores["k8"], .some(8), layout)
            XCTAssertNil(owner.scores.value(forKey: "k9"), layout)
            XCTAssertEqual(owner.petsByName["mine"]??.name, "pet3", layout)
            XCTAssertEqual((owner.petsByName.value(forKey: "mine") as? TreeSetPet)?.name, "pet3", layout)
            XCTAssertTrue(owner.petsByName["yours"] == nil, layout)
        }
    }

    func testQueriesReadSetsAndMapsInTheTree() throws {
        try bothLayouts { realm, layout in
            try makeOwners(realm)
            let owners = realm.objects(TreeSetOwner.self)
            func ids(_ query: String) -> [Int] { owners.filter(query).map(\.id).sorted() }
            XCTAssertEqual(ids("ANY ints == 8"), [1, 2, 3].filter { $0 * 5 > 4 }, layout)
            XCTAssertEqual(ids("ints.@count >= 10"), [2, 3], layout)
            XCTAssertEqual(ids("ints.@max == 28"), [3], layout)
            XCTAssertEqual(ids("ANY names == 'n2'"), [3], layout)
            XCTAssertEqual(ids("ANY names == nil"), [0, 1, 2, 3], layout)
            XCTAssertEqual(ids("scores['k4'] == 4"), [2, 3], layout)
            XCTAssertEqual(ids("scores.@count == 6"), [2], layout)
            XCTAssertEqual(ids("ANY scores.@keys == 'k7'"), [3], layout)
            XCTAssertEqual(ids("ANY scores.@values > 7"), [3], layout)
            XCTAssertEqual(ids("scores.@sum == 15"), [2], layout)
            XCTAssertEqual(ids("ANY pets.name == 'pet2'"), [2], layout)
            XCTAssertEqual(ids("petsByName['mine'].name == 'pet3'"), [3], layout)
            XCTAssertEqual(owners.filter("id == 3").first?.scores.max(), 8, layout)
        }
    }

    func testFreezeCopyAndDeleteSeeTheTree() throws {
        try bothLayouts { realm, layout in
            try makeOwners(realm)
            let owner = try XCTUnwrap(realm.object(ofType: TreeSetOwner.self, forPrimaryKey: 3))
            let frozen = owner.freeze()
            try realm.write {
                owner.ints.insert(1000)
                owner.scores["new"] = 1
            }
            XCTAssertFalse(frozen.ints.contains(1000), layout)
            XCTAssertTrue(owner.ints.contains(1000), layout)
            XCTAssertTrue(frozen.scores["new"] == nil, layout)
            XCTAssertEqual(frozen.scores["k8"], 8, layout)
            XCTAssertEqual(frozen.ints.count, 15, layout)

            let other = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "copy-\(UUID())", objectTypes: types))
            try other.write { other.create(TreeSetOwner.self, value: owner) }
            let copy = try XCTUnwrap(other.object(ofType: TreeSetOwner.self, forPrimaryKey: 3))
            XCTAssertEqual(SetMapModel(copy), SetMapModel(owner), layout)

            let data = try JSONEncoder().encode(owner.ints)
            XCTAssertEqual(Set(try JSONDecoder().decode([Int].self, from: data)), Set(owner.ints), layout)

            try realm.write { realm.delete(owner) }
            if layout == "tree" { XCTAssertGreaterThan(treeEntries(realm), 0, "the other owners' entries") }
            try realm.write { realm.deleteAll() }
            XCTAssertEqual(treeEntries(realm), 0, "\(layout): deleting the owners removes their entries")
        }
    }

    func testDeletingATargetUpdatesTreeSetsAndMaps() throws {
        ListTree.setThreshold(0)
        let realm = try openRealm(types)
        try realm.write {
            let owner = realm.create(TreeSetOwner.self, value: ["id": 1])
            for p in 0..<20 {
                let pet = realm.create(TreeSetPet.self, value: ["p\(p)"])
                owner.pets.insert(pet)
                owner.petsByName["k\(p)"] = pet
            }
        }
        let owner = try XCTUnwrap(realm.object(ofType: TreeSetOwner.self, forPrimaryKey: 1))
        XCTAssertNotNil(marker(owner, "pets"))
        XCTAssertNotNil(marker(owner, "petsByName"))
        try realm.write { realm.delete(realm.objects(TreeSetPet.self).filter("name IN {'p3', 'p7'}")) }
        XCTAssertEqual(owner.pets.count, 18)
        XCTAssertEqual(Set(owner.pets.map(\.name)), Set((0..<20).filter { $0 != 3 && $0 != 7 }.map { "p\($0)" }))
        XCTAssertEqual(owner.petsByName.count, 20)
        XCTAssertEqual(owner.petsByName["k3"].map { $0 == nil }, true, "a deleted target's key stays, with nil")
        XCTAssertEqual(owner.petsByName["k4"]??.name, "p4")
        try assertConsistent(realm, "after deleting targets")
        try realm.write { owner.pets.removeAll() }
        XCTAssertNil(marker(owner, "pets"), "an emptied set returns to its field")
        XCTAssertEqual(realm.objects(TreeSetPet.self).filter("owners.@count > 0").count, 0)
        try assertConsistent(realm, "after removeAll")
    }

    /// Tests/Fixtures/pre-settree.realm was written by format 5 (sets and
    /// maps in their records): read as it is, marked 6, and a change moves
    /// a big set or map to the tree.
    func testAFileWrittenBeforeTheSetsTreeIsReadAndMarked() throws {
        ListTree.setThreshold(64)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/pre-settree.realm")
        try FileManager.default.copyItem(at: fixture, to: fileURL)
        let old: [ObjectBase.Type] = [PreSetTreeOwner.self, PreSetTreePet.self]
        func check(_ realm: Realm, extra: Bool) {
            let owners = realm.objects(PreSetTreeOwner.self).sorted(byKeyPath: "id")
            XCTAssertEqual(owners.count, 3)
            for (i, owner) in owners.enumerated() {
                let n = [0, 10, 300][i]
                XCTAssertEqual(Array(owner.numbers), (0..<n).map { $0 * 7 + i })
                XCTAssertEqual(Set(owner.tags), Set((0..<n).map { "t\($0)" } + (extra && i == 2 ? ["new"] : [])))
                XCTAssertEqual(Set(owner.ints), Set((0..<n).map { $0 % 50 == 0 ? nil : $0 * 3 }))
                XCTAssertEqual(Set(owner.pets.map(\.name)), Set((0..<[0, 3, 100][i]).map { "pet\(i).\($0)" }))
                XCTAssertEqual(owner.scores.count, n + (extra && i == 2 ? 1 : 0))
                if n > 0 { XCTAssertEqual(owner.scores["k\(n - 1)"], Double(n - 1) / 2) }
                XCTAssertEqual(owner.petsByName["p2"]??.name, i == 0 ? nil : "pet\(i).2")
            }
            XCTAssertEqual(realm.objects(PreSetTreeOwner.self).filter("ANY tags == 't250'").first?.id, 2)
        }
        try withRealm(old) { realm in
            XCTAssertEqual(realm.core.schemaState.stored?.format, StoredSchema.currentFormat, "marked as the current format on open")
            check(realm, extra: false)
            let owner = try XCTUnwrap(realm.object(ofType: PreSetTreeOwner.self, forPrimaryKey: 2))
            XCTAssertNil(marker(owner, "tags"), "format 5 kept sets in the record")
            try realm.write {
                owner.tags.insert("new")
                owner.scores["new"] = 0
            }
            XCTAssertNotNil(marker(owner, "tags"), "a change moves the big set to the tree")
            XCTAssertNotNil(marker(owner, "scores"), "a change moves the big map to the tree")
            check(realm, extra: true)
            try assertConsistent(realm, "fixture")
        }
        try withRealm(old) { check($0, extra: true) }
    }

    /// A migration renaming a tree set and map: the markers move with the
    /// records, so the entries follow.
    func testRenamedTreeSetsAndMapsKeepTheirEntries() throws {
        try withRealm([TreeRenameOwner.self]) { realm in
            try realm.write {
                let owner = realm.create(TreeRenameOwner.self, value: ["id": 1])
                owner.ints.insert(objectsIn: 0..<50)
                for k in 0..<50 { owner.scores["k\(k)"] = k }
            }
            XCTAssertNotNil(marker(try XCTUnwrap(realm.object(ofType: TreeRenameOwner.self, forPrimaryKey: 1)), "ints"))
        }
        var config = Realm.Configuration(fileURL: fileURL, schemaVersion: 1, objectTypes: [TreeRenameOwnerRenamed.self])
        config.migrationBlock = { migration, _ in
            migration.renameProperty(onType: "TreeRenameOwner", from: "ints", to: "numbers")
            migration.renameProperty(onType: "TreeRenameOwner", from: "scores", to: "points")
        }
        let realm = try Realm(configuration: config)
        let owner = try XCTUnwrap(realm.object(ofType: TreeRenameOwnerRenamed.self, forPrimaryKey: 1))
        XCTAssertEqual(Set(owner.numbers), Set(0..<50))
        XCTAssertTrue(owner.numbers.contains(49))
        XCTAssertEqual(owner.points["k7"], 7)
        try realm.write {
            owner.numbers.remove(3)
            owner.points["k8"] = nil
        }
        XCTAssertEqual(owner.numbers.count, 49)
        XCTAssertEqual(owner.points.count, 49)
        try assertConsistent(realm, "after the rename")
    }

    // MARK: - kill -9

    /// One commit's changes to the set and the map.
    static func killStep(_ i: Int, _ set: inout Set<Int>, _ map: inout [String: Int]) {
        set.insert(i)
        if i % 3 == 0 { set.remove(i / 2) }
        map["k\(i % 97)"] = i
        if i % 7 == 0 { map["k\((i * 3) % 97)"] = nil }
    }

    static func killCommits(_ set: Set<Int>, _ map: [String: Int]) -> Int? {
        var (s, m) = (Set<Int>(), [String: Int]())
        for i in 0..<200_000 {
            if s.count == set.count, s == set, m == map { return i }
            killStep(i, &s, &m)
        }
        return nil
    }

    static let killFileVariable = "REALMLITE_SETMAP_KILL_FILE"

    /// The child-process entry point: commits killStep changes until killed.
    func testChangeTheSetAndMapUntilKilled() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.killFileVariable] else {
            throw XCTSkip("the child-process entry point of SetMapTreeTests: runs only with \(Self.killFileVariable) set")
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: types))
        let owner = try realm.object(ofType: TreeSetOwner.self, forPrimaryKey: 0)
            ?? realm.write { realm.create(TreeSetOwner.self, value: ["id": 0]) }
        var set = Set(owner.ints)
        var map = Dictionary(uniqueKeysWithValues: owner.scores.asKeyValueSequence().map { ($0.key, $0.value ?? 0) })
        guard var i = Self.killCommits(set, map) else { exit(2) }
        while true {
            let (oldSet, oldMap) = (set, map)
            Self.killStep(i, &set, &map)
            try realm.write {
                owner.ints.insert(objectsIn: set.subtracting(oldSet))
                owner.ints.subtract(oldSet.subtracting(set))
                for (key, value) in map where oldMap[key] != value { owner.scores[key] = value }
                for key in oldMap.keys where map[key] == nil { owner.scores[key] = nil }
            }
            i += 1
        }
    }

    /// A child changing a tree set and map is killed (SIGKILL) at random
    /// moments: each time the file holds the state after a whole number of
    /// commits, and the checker and the secondary trees are clean.
    func testKilledWritersLeaveWholeCommits() throws {
        var generator = SystemRandomNumberGenerator()
        var last = 0
        for round in 0..<3 {
            let child = childTestProcess("RealmLiteTests.SetMapTreeTests/testChangeTheSetAndMapUntilKilled",
                                         [Self.killFileVariable: fileURL.path, "REALMLITE_LIST_TREE_THRESHOLD": "4"])
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            usleep(UInt32.random(in: 300_000...900_000, using: &generator))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            let realm = try openRealm(types)
            let owner = realm.object(ofType: TreeSetOwner.self, forPrimaryKey: 0)
            let set = Set(owner?.ints ?? MutableSet())
            let map = Dictionary(uniqueKeysWithValues: (owner?.scores.asKeyValueSequence() ?? []).map { ($0.key, $0.value ?? 0) })
            let commits = Self.killCommits(set, map)
            XCTAssertNotNil(commits, "round \(round): the set and map are no whole number of commits")
            XCTAssertGreaterThanOrEqual(commits ?? 0, last, "round \(round): committed changes stay")
            last = commits ?? last
            try assertConsistent(realm, "round \(round)")
        }
        XCTAssertGreaterThan(last, 8, "the child got far enough to store its set and map in the tree")
    }
}
