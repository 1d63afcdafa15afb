import CStorage
import Foundation
@testable import RealmLite
import XCTest

final class TreeListOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: List<Int>
    @Persisted var names: List<String?>
    @Persisted var pets: List<TreeListPet>
    @Persisted var parts: List<TreeListPart>
}

final class TreeListPet: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "pets") var owners: LinkingObjects<TreeListOwner>
}

final class TreeListPart: EmbeddedObject {
    @Persisted var label = ""
}

/// The classes of Tests/Fixtures/pre-listtree.realm (written before the lists tree).
final class PreTreeOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: List<Int>
    @Persisted var names: List<String?>
    @Persisted var pets: List<PreTreePet>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Double>
}

final class PreTreePet: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "pets") var owners: LinkingObjects<PreTreeOwner>
}

/// Tests of collections in the collections tree: every collection over
/// `spillThreshold` elements spills there while a test runs.
class CollectionsTreeTestCase: RealmTestCase {
    var spillThreshold: Int { 4 }
    private var savedThreshold = 0

    override func setUp() {
        super.setUp()
        savedThreshold = ListTree.setThreshold(spillThreshold)
    }

    override func tearDown() {
        ListTree.setThreshold(savedThreshold)
        super.tearDown()
    }

    /// Entries in the collections tree (0 while the file has none).
    func treeEntries(_ realm: Realm) -> Int {
        let tree = realm.core.listsTree()
        return tree == absentTree ? 0 : realm.core.txn.count(tree, "test")
    }
}

/// Lists stored in the lists tree (Storage/ListTree.swift).
final class ListTreeTests: CollectionsTreeTestCase {
    let types: [ObjectBase.Type] = [TreeListOwner.self, TreeListPet.self, TreeListPart.self]

    func testOrderKeysStayOrderedAndShort() {
        var generator = SystemRandomNumberGenerator()
        var keys: [[UInt8]] = [OrderKey.counter(OrderKey.firstCounter)]
        for _ in 0..<3000 {
            let i = Int.random(in: 0...keys.count, using: &generator)
            let key: [UInt8]?
            if i == keys.count {
                key = keys[i - 1].withUnsafeBytes { OrderKey.after($0) }
            } else if i == 0 {
                key = keys[0].withUnsafeBytes { OrderKey.before($0) }
            } else {
                key = keys[i - 1].withUnsafeBytes { low in keys[i].withUnsafeBytes { OrderKey.between(low, $0) } }
            }
            guard let key else { continue } // no room: the list renumbers
            keys.insert(key, at: i)
        }
        for (a, b) in zip(keys, keys.dropFirst()) { XCTAssertTrue(a.lexicographicallyPrecedes(b), "\(a) < \(b)") }
        var appended = [OrderKey.counter(OrderKey.firstCounter)]
        for _ in 0..<100_000 { appended.append(appended.last!.withUnsafeBytes { OrderKey.after($0) }) }
        XCTAssertLessThanOrEqual(appended.last!.count, 4, "appends keep counters short")
    }

    /// Every List operation against a Swift array, across commits, cancels and reopening.
    func testRandomListOperationsMatchAnArray() throws {
        var generator = SystemRandomNumberGenerator()
        var model: [Int] = []
        var next = 0
        for round in 0..<6 {
            try { () throws -> Void in
                let realm = try openRealm(types)
                let owner = try XCTUnwrap(realm.object(ofType: TreeListOwner.self, forPrimaryKey: 0) ?? {
                    try realm.write { realm.create(TreeListOwner.self, value: ["id": 0]) }
                }())
                XCTAssertEqual(Array(owner.numbers), model, "round \(round) after reopening")
                for step in 0..<8 {
                    let cancel = step % 4 == 3
                    var working = model
                    realm.beginWrite()
                    for _ in 0..<40 {
                        let list = owner.numbers
                        switch Int.random(in: 0..<9, using: &generator) {
                        case 0, 1:
                            next += 1
                            list.append(next); working.append(next)
                        case 2:
                            next += 1
                            let i = Int.random(in: 0...working.count, using: &generator)
                            list.insert(next, at: i); working.insert(next, at: i)
                        case 3 where !working.isEmpty:
                            let i = Int.random(in: 0..<working.count, using: &generator)
                            list.remove(at: i); working.remove(at: i)
                        case 4 where !working.isEmpty:
                            let from = Int.random(in: 0..<working.count, using: &generator), to = Int.random(in: 0..<working.count, using: &generator)
                            list.move(from: from, to: to); working.insert(working.remove(at: from), at: to)
                        case 5 where !working.isEmpty:
                            let a = Int.random(in: 0..<working.count, using: &generator), b = Int.random(in: 0..<working.count, using: &generator)
                            list.swapAt(a, b); working.swapAt(a, b)
                        case 6 where !working.isEmpty:
                            next += 1
                            let i = Int.random(in: 0..<working.count, using: &generator)
                            list[i] = next; working[i] = next
                        case 7:
                            let low = Int.random(in: 0...working.count, using: &generator)
                            let high = Int.random(in: low...working.count, using: &generator)
                            let new = (0..<Int.random(in: 0..<6, using: &generator)).map { _ in next += 1; return next }
                            list.replaceSubrange(low..<high, with: new); working.replaceSubrange(low..<high, with: new)
                        case 8 where working.count > 30 && Int.random(in: 0..<4, using: &generator) == 0:
                            list.removeAll(); working.removeAll()
                        default:
                            break
                        }
                        XCTAssertEqual(list.count, working.count)
                    }
                    XCTAssertEqual(Array(owner.numbers), working)
                    if !working.isEmpty {
                        let i = Int.random(in: 0..<working.count, using: &generator)
                        XCTAssertEqual(owner.numbers[i], working[i])
                        XCTAssertEqual(owner.numbers.index(of: working[i]), working.firstIndex(of: working[i]))
                    }
                    if cancel {
                        realm.cancelWrite()
                    } else {
                        try realm.commitWrite()
                        model = working
                    }
                    XCTAssertEqual(Array(owner.numbers), model)
                    XCTAssertEqual(owner.numbers.filter { $0 % 2 == 0 }, model.filter { $0 % 2 == 0 })
                }
                XCTAssertEqual(realm.objects(TreeListOwner.self).filter("ANY numbers == %@", model.last ?? -1).count, model.isEmpty ? 0 : 1)
                try assertConsistent(realm, "round \(round)")
            }()
        }
    }

    func testBigListsLiveInTheTreeAndLeaveWithTheirOwner() throws {
        let realm = try openRealm(types)
        try realm.write {
            let owner = realm.create(TreeListOwner.self, value: ["id": 1])
            owner.numbers.append(objectsIn: 0..<100)
            owner.names.append(objectsIn: (0..<50).map { $0 % 3 == 0 ? nil : "n\($0)" })
        }
        let owner = try XCTUnwrap(realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1))
        XCTAssertEqual(treeEntries(realm), 150)
        XCTAssertEqual(Array(owner.names), (0..<50).map { $0 % 3 == 0 ? nil : "n\($0)" })
        let frozen = owner.numbers.freeze()
        try realm.write { owner.numbers.insert(-1, at: 50) }
        XCTAssertEqual(frozen.count, 100)
        XCTAssertEqual(Array(frozen), Array(0..<100), "a frozen list reads its version's entries")
        XCTAssertEqual(owner.numbers[50], -1)
        try realm.write { realm.delete(owner) }
        XCTAssertEqual(treeEntries(realm), 0, "deleting the owner removes its lists' entries")
        try realm.write {
            realm.create(TreeListOwner.self, value: ["id": 2]).numbers.append(objectsIn: 0..<20)
            realm.create(TreeListOwner.self, value: ["id": 3]).numbers.append(objectsIn: 0..<20)
        }
        XCTAssertEqual(treeEntries(realm), 40)
        try realm.write { realm.deleteAll() }
        XCTAssertEqual(treeEntries(realm), 0, "deleteAll removes them too")
        try assertConsistent(realm, "after deletes")
    }

    /// The write that first spills a list creates the lists tree; when it is
    /// cancelled, the next spill must create the tree again (found by the
    /// object fuzzer: the cached handle named the cancelled tree).
    func testACancelledFirstSpillLeavesNoStaleTree() throws {
        let realm = try openRealm(types)
        realm.beginWrite()
        realm.create(TreeListOwner.self, value: ["id": 1]).numbers.append(objectsIn: 0..<10)
        realm.cancelWrite()
        XCTAssertEqual(treeEntries(realm), 0)
        try realm.write { realm.create(TreeListOwner.self, value: ["id": 1]).numbers.append(objectsIn: 0..<10) }
        XCTAssertEqual(Array(try XCTUnwrap(realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1)).numbers), Array(0..<10))
        XCTAssertEqual(treeEntries(realm), 10)
        try assertConsistent(realm, "after the cancelled spill")
    }

    func testLinksInTreeListsKeepBacklinksAndEmbeddedOwnership() throws {
        let realm = try openRealm(types)
        try realm.write {
            let owner = realm.create(TreeListOwner.self, value: ["id": 1])
            for i in 0..<10 { owner.pets.append(realm.create(TreeListPet.self, value: ["name": "p\(i)"])) }
            owner.pets.append(owner.pets[0])
            for i in 0..<10 { owner.parts.append(TreeListPart(value: ["label": "part\(i)"])) }
        }
        let owner = try XCTUnwrap(realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1))
        let first = owner.pets[0]
        XCTAssertEqual(first.owners.count, 2, "once per link")
        try realm.write { owner.pets.move(from: 0, to: 5) }
        XCTAssertEqual(owner.pets[5].name, "p0")
        try realm.write { realm.delete(first) }
        XCTAssertEqual(owner.pets.count, 9, "deleting an object removes it from lists, each time it appears")
        XCTAssertFalse(owner.pets.contains { $0.name == "p0" })
        try realm.write { owner.parts.swapAt(0, 9) }
        XCTAssertEqual(realm.core.count(of: realm.core.schemaState.byName["TreeListPart"]!), 10, "a swap keeps the embedded objects")
        try realm.write { owner.parts.remove(at: 3) }
        XCTAssertEqual(realm.core.count(of: realm.core.schemaState.byName["TreeListPart"]!), 9, "removing an embedded object from a list deletes it")
        XCTAssertEqual(owner.parts.map(\.label), ["part9", "part1", "part2", "part4", "part5", "part6", "part7", "part8", "part0"])
        try assertConsistent(realm, "links")
    }

    /// As RealmSwift: iterating a live List sees the elements present when
    /// iteration started, even while the loop appends to it.
    func testIteratingWhileAppendingEnds() throws {
        let realm = try openRealm(types)
        for size in [2, 40] {
            try realm.write {
                let owner = realm.create(TreeListOwner.self, value: ["id": size])
                owner.numbers.append(objectsIn: 0..<size)
                var seen: [Int] = []
                for n in owner.numbers {
                    seen.append(n)
                    owner.numbers.append(n + 1000)
                    if seen.count > 3 * size { break } // without the fix the loop never ends
                }
                XCTAssertEqual(seen, Array(0..<size))
                XCTAssertEqual(owner.numbers.count, 2 * size)
            }
        }
    }

    /// Index reads go by rank without the Realm's shared cursor, so an
    /// iteration must put that cursor on its first element itself: a loop
    /// that stopped halfway leaves the cursor inside the same list.
    func testIterationAfterAStoppedOneAndIndexReadsStartsAtTheFirstElement() throws {
        let realm = try openRealm(types)
        let owner = try realm.write {
            let owner = realm.create(TreeListOwner.self, value: ["id": 1])
            owner.numbers.append(objectsIn: 0..<300)
            return owner
        }
        XCTAssertNotNil(owner.numbers.field?.spilledList)
        XCTAssertEqual(owner.numbers[0], 0)
        for n in owner.numbers where n == 150 { break }
        XCTAssertEqual(owner.numbers[200], 200)
        var seen: [Int] = []
        for n in owner.numbers {
            seen.append(n)
            if seen.count % 7 == 0 { XCTAssertEqual(owner.numbers[299 - seen.count], 299 - seen.count) }
        }
        XCTAssertEqual(seen, Array(0..<300))
    }

    /// Tests/Fixtures/pre-listtree.realm was written by RealmLite before the
    /// lists tree (object format 3; Tests/Fixtures/make-pre-listtree.swift.txt).
    func testAFileWrittenBeforeTheListsTreeIsReadAndMarked() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/pre-listtree.realm")
        try FileManager.default.copyItem(at: fixture, to: fileURL)
        let old: [ObjectBase.Type] = [PreTreeOwner.self, PreTreePet.self]
        func check(_ realm: Realm, extra: Int) {
            let owners = realm.objects(PreTreeOwner.self).sorted(byKeyPath: "id")
            XCTAssertEqual(owners.count, 3)
            for (i, owner) in owners.enumerated() {
                let n = [0, 10, 300][i]
                XCTAssertEqual(Array(owner.numbers), (0..<n).map { $0 * 7 + i } + (i == 2 ? Array(0..<extra) : []))
                XCTAssertEqual(Array(owner.names), (0..<n).map { $0 % 5 == 0 ? nil : "n\($0)" })
                XCTAssertEqual(owner.pets.map(\.name), (0..<[0, 3, 100][i]).map { "pet\(i).\($0)" })
                XCTAssertEqual(owner.tags.count, n)
                XCTAssertEqual(owner.scores.count, n)
                if n > 0 { XCTAssertEqual(owner.scores["k\(n - 1)"], Double(n - 1) / 2) }
            }
            XCTAssertEqual(realm.objects(PreTreePet.self).filter("name == 'pet2.99'").first?.owners.first?.id, 2)
        }
        try withRealm(old) { realm in
            XCTAssertEqual(realm.core.schemaState.stored?.format, StoredSchema.currentFormat, "marked as the current format on open")
            check(realm, extra: 0)
            let owner = try XCTUnwrap(realm.object(ofType: PreTreeOwner.self, forPrimaryKey: 2))
            try realm.write { owner.numbers.append(objectsIn: 0..<5) }
            let c = try XCTUnwrap(owner._info!.columns.firstIndex { $0.name == "numbers" })
            XCTAssertNotNil(SpilledList(owner._currentRecord().field(owner._info!.slots[c], owner._info!.layout), type: .plain), "a change moves the long list to the tree")
            check(realm, extra: 5)
            try assertConsistent(realm, "fixture")
        }
        try withRealm(old) { check($0, extra: 5) }
    }

    // MARK: - kill -9

    /// The list after `commits` commits of `killStep`, from empty.
    static func killModel(_ commits: Int) -> [Int] {
        var model: [Int] = []
        for i in 0..<commits { killStep(i, &model) }
        return model
    }

    /// One commit's changes: appends, inserts, removes and moves.
    static func killStep<L: RangeReplaceableCollection & MutableCollection>(_ i: Int, _ list: inout L) where L.Element == Int, L.Index == Int {
        list.append(i)
        if i % 3 == 0 { list.insert(-i, at: (i * 7) % list.count) }
        if i % 5 == 0, list.count > 1 { list.remove(at: (i * 11) % list.count) }
        if i % 7 == 0, list.count > 2 { list.swapAt(i % list.count, (i * 3) % list.count) }
    }

    /// How many commits of killStep the stored list is, or nil if it is none.
    static func killCommits(_ list: [Int]) -> Int? {
        var model: [Int] = []
        for i in 0..<100_000 {
            if model == list { return i }
            killStep(i, &model)
        }
        return nil
    }

    static let killFileVariable = "REALMLITE_LIST_KILL_FILE"

    /// The child-process entry point: commits killStep changes until killed.
    func testChangeTheListUntilKilled() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.killFileVariable] else {
            throw XCTSkip("the child-process entry point of ListTreeTests: runs only with \(Self.killFileVariable) set")
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: types))
        let owner = try realm.object(ofType: TreeListOwner.self, forPrimaryKey: 0)
            ?? realm.write { realm.create(TreeListOwner.self, value: ["id": 0]) }
        guard var i = Self.killCommits(Array(owner.numbers)) else { exit(2) }
        while true {
            try realm.write {
                var list = ListEditor(list: owner.numbers)
                Self.killStep(i, &list)
            }
            i += 1
        }
    }

    /// A child changing a tree list is killed (SIGKILL) at random moments:
    /// each time the file holds the list of some whole number of commits,
    /// and the checker and the secondary trees are clean.
    func testKilledWritersLeaveWholeCommits() throws {
        var generator = SystemRandomNumberGenerator()
        var last = 0
        for round in 0..<4 {
            let child = childTestProcess("RealmLiteTests.ListTreeTests/testChangeTheListUntilKilled", [Self.killFileVariable: fileURL.path])
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            usleep(UInt32.random(in: 300_000...900_000, using: &generator))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            let realm = try openRealm(types)
            let list = Array(realm.object(ofType: TreeListOwner.self, forPrimaryKey: 0)?.numbers ?? List())
            let commits = Self.killCommits(list)
            XCTAssertNotNil(commits, "round \(round): the list is no whole number of commits")
            XCTAssertGreaterThanOrEqual(commits ?? 0, last, "round \(round): committed changes stay")
            last = commits ?? last
            try assertConsistent(realm, "round \(round)")
        }
        XCTAssertGreaterThan(last, 4, "the child got far enough to store its list in the tree")
    }
}

/// A managed List as a RangeReplaceableCollection value, for killStep.
struct ListEditor: RangeReplaceableCollection, MutableCollection {
    var list: List<Int>
    init() { list = List() }
    init(list: List<Int>) { self.list = list }
    var startIndex: Int { 0 }
    var endIndex: Int { list.count }
    func index(after i: Int) -> Int { i + 1 }
    subscript(position: Int) -> Int {
        get { list[position] }
        set { list[position] = newValue }
    }
    mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Int {
        list.replaceSubrange(subrange, with: newElements)
    }
    mutating func swapAt(_ i: Int, _ j: Int) { list.swapAt(i, j) }
}
