import Foundation
import XCTest
@testable import RealmLite

final class MixedHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyRealmValue
    @Persisted(indexed: true) var indexed: AnyRealmValue
    @Persisted var list: List<AnyRealmValue>
    @Persisted var set: MutableSet<AnyRealmValue>
    @Persisted var map: Map<String, AnyRealmValue>
}

final class MixedTarget: Object {
    @Persisted var name = ""
}

/// The classes of Tests/Fixtures/pre-anyvalue.realm (written before AnyRealmValue).
final class PreMixedOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var score: Double?
    @Persisted var tags: List<String>
    @Persisted var counts: Map<String, Int>
    @Persisted var pets: List<PreMixedPet>
    @Persisted var best: PreMixedPet?
}

final class PreMixedPet: Object {
    @Persisted var name = ""
    @Persisted var birthday = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted(originProperty: "pets") var owners: LinkingObjects<PreMixedOwner>
}

final class MixedNoteV0: Object {
    override class func className() -> String { "MixedNote" }
    @Persisted var value: AnyRealmValue
    @Persisted var other: AnyRealmValue
}

final class MixedNoteV1: Object {
    override class func className() -> String { "MixedNote" }
    @Persisted var payload: AnyRealmValue
    @Persisted var added = 0
}

/// AnyRealmValue as a property and in List / MutableSet / Map: storage
/// through a reopen, links, queries (numbers across cases, @type), sorting
/// and indexed lookups.
final class AnyRealmValueTests: RealmTestCase {
    let types: [ObjectBase.Type] = [MixedHolder.self, MixedTarget.self]
    let date = Date(timeIntervalSinceReferenceDate: 12345.5)
    let objectId = ObjectId.generate()
    let uuid = UUID()

    /// Every scalar case (and .none).
    var scalars: [AnyRealmValue] {
        [.none, .int(-42), .bool(true), .float(2.5), .double(-0.125), .string("héllo\u{0}"), .data(Data([0, 1, 255])),
         .date(date), .objectId(objectId), .decimal128(Decimal128(stringLiteral: "123.456")), .uuid(uuid)]
    }

    func testEveryCaseRoundTripsAsAPropertyThroughAReopen() throws {
        var values = scalars
        values.append(.fromArray([.int(1), .string("two")]))
        values.append(.fromDictionary(["k": .bool(false)]))
        try withRealm(types) { realm in
            try realm.write {
                for (i, value) in values.enumerated() { realm.add(holder(i, value)) }
                let target = MixedTarget()
                target.name = "linked"
                realm.add(holder(100, .object(target)))
            }
        }
        try withRealm(types) { realm in
            for (i, expected) in values.enumerated() {
                let stored = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: i)).value
                switch (stored, expected) {
                case (.list(let a), .list(let b)): XCTAssertEqual(Array(a), Array(b))
                case (.dictionary(let a), .dictionary(let b)): XCTAssertEqual(a.asKeyValueSequence().map(\.key), b.asKeyValueSequence().map(\.key))
                    XCTAssertEqual(a["k"], .bool(false))
                default: XCTAssertEqual(stored, expected, "case \(i)")
                }
            }
            let linked = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 100)).value
            XCTAssertEqual(linked.object(MixedTarget.self)?.name, "linked")
            XCTAssertEqual(linked.dynamicObject?["name"] as? String, "linked")
            XCTAssertEqual(realm.objects(MixedTarget.self).count, 1, "the unmanaged target was added with its holder")
        }
    }

    func testAccessorsAndEquality() {
        XCTAssertEqual(AnyRealmValue.int(3).intValue, 3)
        XCTAssertNil(AnyRealmValue.int(3).doubleValue)
        XCTAssertEqual(AnyRealmValue.string("a").stringValue, "a")
        XCTAssertEqual(AnyRealmValue.uuid(uuid).uuidValue, uuid)
        XCTAssertEqual(AnyRealmValue(), .none)
        XCTAssertNotEqual(AnyRealmValue.int(1), .double(1), "cases differ, as in RealmSwift")
        XCTAssertEqual(AnyRealmValue.fromArray([.int(1)]), .fromArray([.int(1)]))
        XCTAssertEqual(Set([AnyRealmValue.int(1), .int(1), .string("x")]).count, 2)
        XCTAssertEqual(AnyRealmValue.fromArray([.int(1)]).listValue?.first, .int(1))
        XCTAssertEqual(AnyRealmValue.fromDictionary(["a": .int(1)]).dictionaryValue?["a"], .int(1))
    }

    func testEveryCaseInEachCollectionKindThroughAReopen() throws {
        let values = Array(scalars.dropFirst()) + [AnyRealmValue.none]
        try withRealm(types) { realm in
            try realm.write {
                let o = holder(1, .none)
                o.list.append(objectsIn: values)
                o.set.insert(objectsIn: values + values)
                for (i, value) in values.enumerated() { o.map["k\(i)"] = value }
                let target = MixedTarget()
                target.name = "t"
                o.list.append(.object(target))
                o.set.insert(.object(target))
                o.map["obj"] = .object(target)
                o.list.append(.fromArray([.int(7), .fromDictionary(["deep": .string("x")])]))
                realm.add(o)
            }
        }
        try withRealm(types) { realm in
            let o = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 1))
            XCTAssertEqual(Array(o.list.prefix(values.count)), values)
            XCTAssertEqual(o.list[values.count].object(MixedTarget.self)?.name, "t")
            let nested = try XCTUnwrap(o.list[values.count + 1].listValue)
            XCTAssertEqual(nested[0], .int(7))
            XCTAssertEqual(nested[1].dictionaryValue?["deep"], .string("x"))
            XCTAssertEqual(o.set.count, values.count + 1, "duplicates are stored once")
            for value in values { XCTAssertTrue(o.set.contains(value), "\(value)") }
            for (i, value) in values.enumerated() { XCTAssertEqual(o.map["k\(i)"], value) }
            XCTAssertEqual(o.map["obj"]?.object(MixedTarget.self)?.name, "t")
            XCTAssertEqual(o.list.index(of: .string("héllo\u{0}")), 4)
            // Numbers are one element whatever their type, as in Realm's Set<Mixed>.
            try realm.write { o.set.insert(objectsIn: [.double(-42), .decimal128(Decimal128(-42)), .int(7), .float(7)]) }
            XCTAssertEqual(o.set.count, values.count + 2)
            XCTAssertTrue(o.set.contains(.double(2.5)), "the float 2.5")
            XCTAssertEqual(o.list.index(of: .decimal128(Decimal128(-42))), 0)
            try realm.write { o.set.remove(.double(7)) }
            XCTAssertFalse(o.set.contains(.int(7)))
            XCTAssertThrowsError(try realm.write { o.set.insert(.fromArray([])) }, "sets hold no nested collections")
            func unmanaged(_ elements: [AnyRealmValue]) -> MixedHolder {
                let o = holder(2, .none)
                o.set.insert(objectsIn: elements)
                return o
            }
            XCTAssertThrowsError(try realm.write { realm.add(unmanaged([.int(1), .fromDictionary([:])])) })
            let added = unmanaged([.int(1), .double(1)])
            XCTAssertEqual(added.set.count, 2, "unmanaged: Swift's ==, where the cases differ")
            try realm.write { realm.add(added) }
            XCTAssertEqual(added.set.count, 1, "int 1 and double 1 are one element once stored")
        }
    }

    func testManagedChangesAndCreateFromValues() throws {
        let realm = try openRealm(types)
        try realm.write {
            realm.create(MixedHolder.self, value: ["id": 1, "value": 5, "list": [1, "a", nil] as [Any?], "map": ["x": 2.5]])
        }
        let o = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        XCTAssertEqual(o.value, .int(5))
        XCTAssertEqual(Array(o.list), [.int(1), .string("a"), .none])
        XCTAssertEqual(o.map["x"], .double(2.5))
        try realm.write {
            o.value = .string("now a string")
            o.list[0] = .fromArray([.bool(true)])
            o.map["x"] = AnyRealmValue.none
        }
        XCTAssertEqual(o.value, .string("now a string"))
        XCTAssertEqual(o.list[0].listValue?.first, .bool(true))
        XCTAssertEqual(o.map["x"], AnyRealmValue.none)
        try realm.write { o.value = .none }
        XCTAssertEqual(o.value, .none)
    }

    func testNestedCollectionsOfManagedObjectsAreLive() throws {
        try withRealm(types) { realm in
            let target = MixedTarget()
            target.name = "nested"
            try realm.write {
                let o = holder(1, .fromArray([.int(1), .fromDictionary(["k": .int(2)])]))
                o.list.append(.fromDictionary(["a": .fromArray([])]))
                realm.add(o)
            }
            let o = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 1))
            let outer = try XCTUnwrap(o.value.listValue)
            XCTAssertNotNil(outer.realm, "a nested list of a managed object is managed")
            try realm.write {
                outer.append(.string("x"))
                let inner = try XCTUnwrap(outer[1].dictionaryValue)
                inner["k"] = .int(3)
                inner["deeper"] = .fromArray([.bool(true)])
                inner["deeper"]?.listValue?.append(.object(target))
                o.list[0].dictionaryValue?["a"]?.listValue?.append(objectsIn: [.int(5), .int(6)])
                o.list[0].dictionaryValue?["a"]?.listValue?.remove(at: 0)
            }
            XCTAssertEqual(outer.count, 3)
            XCTAssertEqual(outer[2], .string("x"))
            XCTAssertEqual(o.value.listValue, outer, "the same nested field compares equal")
            XCTAssertThrowsError(try realm.write {
                o.value = .int(0)
                outer.append(.int(9))
            }, "the nested list is gone once its value is replaced")
        }
        try withRealm(types) { realm in
            let o = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 1))
            let outer = try XCTUnwrap(o.value.listValue)
            XCTAssertEqual(outer.count, 3)
            let inner = try XCTUnwrap(outer[1].dictionaryValue)
            XCTAssertEqual(inner["k"], .int(3))
            let deeper = try XCTUnwrap(inner["deeper"]?.listValue)
            XCTAssertEqual(deeper[0], .bool(true))
            XCTAssertEqual(deeper[1].object(MixedTarget.self)?.name, "nested")
            XCTAssertEqual(o.list[0].dictionaryValue?["a"]?.listValue.map(Array.init), [.int(6)])
            // A link added inside a nested collection is tracked like any other.
            try realm.write { realm.delete(realm.objects(MixedTarget.self)) }
            XCTAssertEqual(deeper.count, 2)
            XCTAssertEqual(deeper[1], .none)
            // A nested value appended to its own parent is copied (Realm core cannot yet: realm-core#7422).
            try realm.write { outer.append(outer[1]) }
            XCTAssertEqual(outer[3].dictionaryValue?["k"], .int(3))
            try realm.write { outer[3].dictionaryValue?["k"] = .int(4) }
            XCTAssertEqual(outer[1].dictionaryValue?["k"], .int(3), "the copy is its own dictionary")
        }
    }

    func testNestedCollectionsFreezeThawAndCrossThreads() throws {
        let realm = try openRealm(types)
        let o = holder(1, .fromDictionary(["list": .fromArray([.int(1)])]))
        try realm.write { realm.add(o) }
        let live = try XCTUnwrap(o.value.dictionaryValue?["list"]?.listValue)
        let frozen = live.freeze()
        XCTAssertTrue(frozen.isFrozen)
        try realm.write { live.append(.int(2)) }
        XCTAssertEqual(Array(frozen), [.int(1)], "the frozen nested list keeps its version")
        XCTAssertEqual(frozen.thaw().map(Array.init), [.int(1), .int(2)])
        let reference = ThreadSafeReference(to: live)
        onOtherThread { [configuration = realm.configuration] in
            let other = try Realm(configuration: configuration)
            let resolved = try XCTUnwrap(other.resolve(reference))
            XCTAssertEqual(Array(resolved), [.int(1), .int(2)])
        }
    }

    func testObjectObservationReportsMixedChanges() throws {
        let realm = try openRealm(types)
        let o = holder(1, .int(1))
        try realm.write { realm.add(o) }
        var reported: [(String, AnyRealmValue?, AnyRealmValue?)] = []
        let token = o.observe { change in
            if case .change(_, let properties) = change {
                reported += properties.map { ($0.name, $0.oldValue as? AnyRealmValue, $0.newValue as? AnyRealmValue) }
            }
        }
        nextTurn()
        try realm.write { o.value = .string("two") }
        nextTurn()
        XCTAssertEqual(reported.map(\.0), ["value"])
        XCTAssertEqual(reported.first?.2, .string("two"))
        XCTAssertEqual(reported.first?.1, .int(1))
        token.invalidate()
    }

    func testObservingANestedList() throws {
        let realm = try openRealm(types)
        let o = holder(1, .fromArray([.fromArray([.int(1), .int(2)]), .bool(false)]))
        try realm.write { realm.add(o) }
        let inner = try XCTUnwrap(o.value.listValue?[0].listValue)
        var changes: [String] = []
        let token = inner.observe { change in
            switch change {
            case .initial(let list): changes.append("initial \(list.count)")
            case .update(let list, let deletions, let insertions, _): changes.append("update \(list.count) -\(deletions) +\(insertions)")
            case .error: changes.append("error")
            }
        }
        nextTurn()
        try realm.write { inner.append(.string("x")) }
        nextTurn()
        try realm.write { o.value.listValue?[1] = .int(5) } // the outer list, not this one
        nextTurn()
        try realm.write { inner.remove(at: 0) }
        nextTurn()
        XCTAssertEqual(changes, ["initial 2", "update 3 -[] +[2]", "update 2 -[0] +[]"])
        token.invalidate()
    }

    func testDeletingALinkedObjectMakesEveryValueNone() throws {
        let realm = try openRealm(types)
        let target = MixedTarget(), other = MixedTarget()
        target.name = "gone"
        other.name = "kept"
        try realm.write {
            let o = holder(1, .object(target))
            o.indexed = .object(target)
            o.list.append(objectsIn: [.object(target), .int(1), .object(other)])
            o.map["a"] = .object(target)
            o.map["b"] = .fromArray([.object(target), .object(other)])
            o.set.insert(.object(target))
            realm.add(o)
            realm.add(holder(2, .object(target)))
        }
        XCTAssertEqual(realm.objects(MixedHolder.self).filter("value == %@", target).count, 2)
        XCTAssertEqual(realm.objects(MixedHolder.self).filter("indexed == %@", target).count, 1)
        try realm.write { realm.delete(target) }
        let o = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        XCTAssertEqual(o.value, .none)
        XCTAssertEqual(o.indexed, .none)
        XCTAssertEqual(realm.object(ofType: MixedHolder.self, forPrimaryKey: 2)?.value, AnyRealmValue.none)
        XCTAssertEqual(o.list.count, 3)
        XCTAssertEqual(o.list[0], .none)
        XCTAssertEqual(o.list[2].object(MixedTarget.self)?.name, "kept")
        XCTAssertEqual(o.map["a"], AnyRealmValue.none)
        XCTAssertEqual(o.map["b"]?.listValue.map(Array.init), [.none, .object(other)])
        XCTAssertEqual(Array(o.set), [.none])
        XCTAssertEqual(realm.objects(MixedHolder.self).filter("value == nil").count, 2)
        XCTAssertEqual(realm.objects(MixedHolder.self).filter("indexed == nil").count, 2, "the index entry was rewritten too")
        // The remaining link is still tracked: deleting it clears it too.
        try realm.write { realm.delete(other) }
        XCTAssertEqual(o.list[2], .none)
        XCTAssertEqual(o.map["b"]?.listValue.map(Array.init), [.none, .none])
        // A holder deleted first leaves no backlink behind.
        let third = MixedTarget()
        try realm.write { realm.add(holder(3, .object(third))) }
        try realm.write { realm.delete(realm.object(ofType: MixedHolder.self, forPrimaryKey: 3)!) }
        let column = try XCTUnwrap(realm.core.classInfoOrStop(MixedHolder.self).columns.first { $0.name == "value" })
        XCTAssertEqual(realm.core.mixedBacklinkSources(column, target: MixedLink(className: "MixedTarget", key: third._key)), [])
        try realm.write { realm.delete(third) }
        XCTAssertEqual(realm.objects(MixedHolder.self).count, 2)
    }

    func testQueriesCompareNumbersAcrossCases() throws {
        let realm = try openRealm(types)
        try realm.write {
            let values: [AnyRealmValue] = [.int(1), .double(1.0), .float(1), .decimal128(Decimal128(1)), .string("1"), .bool(true),
                                           .int(2), .double(0.5), .none, .string("abc"), .data(Data("abc".utf8))]
            for (i, value) in values.enumerated() { realm.add(holder(i, value)) }
        }
        let all = realm.objects(MixedHolder.self)
        func ids(_ format: String, _ args: Any...) -> [Int] {
            (try? all.checkedFilter(format, arguments: args).map(\.id).sorted()) ?? [-1]
        }
        XCTAssertEqual(ids("value == 1"), [0, 1, 2, 3])
        XCTAssertEqual(ids("value == 1.0"), [0, 1, 2, 3])
        XCTAssertEqual(ids("value == %@", Decimal128(1)), [0, 1, 2, 3])
        XCTAssertEqual(ids("value == %@", AnyRealmValue.double(1)), [0, 1, 2, 3])
        XCTAssertEqual(ids("value > 0.75"), [0, 1, 2, 3, 6])
        XCTAssertEqual(ids("value < 1"), [7])
        XCTAssertEqual(ids("value BETWEEN {1, 2}"), [0, 1, 2, 3, 6])
        XCTAssertEqual(ids("value == true"), [5], "bools are not numbers")
        XCTAssertEqual(ids("value == '1'"), [4], "strings are not numbers")
        XCTAssertEqual(ids("value == nil"), [8])
        XCTAssertEqual(ids("value != 1").count, 7)
        XCTAssertEqual(ids("value BEGINSWITH 'ab'"), [9, 10])
        XCTAssertEqual(ids("value ==[c] 'ABC'"), [9, 10])
        XCTAssertEqual(ids("value IN {2, 'abc'}"), [6, 9, 10])
        XCTAssertEqual(all.where { $0.value == .int(1) }.map(\.id).sorted(), [0, 1, 2, 3])
        XCTAssertEqual(all.where { $0.value > .int(1) }.map(\.id).sorted(), [6])
        XCTAssertThrowsError(try all.checkedFilter("value > nil"))
        // Aggregates take the numbers, of every numeric type, and skip the rest.
        XCTAssertEqual(all.sum(ofProperty: "value") as Double, 6.5)
        XCTAssertEqual(all.min(ofProperty: "value") as Double?, 0.5)
        XCTAssertEqual(all.max(ofProperty: "value") as Double?, 2)
        XCTAssertEqual(all.average(ofProperty: "value") as Double?, 6.5 / 6)
        try realm.write { realm.object(ofType: MixedHolder.self, forPrimaryKey: 0)!.list.append(objectsIn: [.int(1), .double(2.5), .string("x")]) }
        XCTAssertEqual(ids("list.@sum == 3.5"), [0])
        XCTAssertEqual(ids("list.@max == 2.5 AND list.@count == 3"), [0])
    }

    func testTypeOperator() throws {
        let realm = try openRealm(types)
        let values: [AnyRealmValue] = scalars + [.object(MixedTarget()), .fromArray([]), .fromDictionary([:])]
        try realm.write { for (i, value) in values.enumerated() { realm.add(holder(i, value)) } }
        let all = realm.objects(MixedHolder.self)
        func ids(_ format: String) -> [Int] { (try? all.checkedFilter(format).map(\.id).sorted()) ?? [-1] }
        let expected: [(String, [Int])] = [
            ("null", [0]), ("int", [1]), ("bool", [2]), ("float", [3]), ("double", [4]), ("string", [5]),
            ("binary", [6]), ("date", [7]), ("objectId", [8]), ("decimal", [9]), ("uuid", [10]), ("object", [11]),
            ("list", [12]), ("dictionary", [13]), ("numeric", [1, 3, 4, 9]),
        ]
        for (name, match) in expected { XCTAssertEqual(ids("value.@type == '\(name)'"), match, name) }
        XCTAssertEqual(ids("value.@type IN {'int', 'string'}"), [1, 5])
        XCTAssertEqual(ids("value.@type != 'numeric'").count, values.count - 4)
        XCTAssertThrowsError(try all.checkedFilter("value.@type == 'integer'"))
        try realm.write {
            realm.objects(MixedHolder.self).first!.list.append(objectsIn: [.int(1), .string("s")])
        }
        XCTAssertEqual(ids("ANY list.@type == 'string'"), [0])
        XCTAssertEqual(ids("ANY list == 1"), [0])
    }

    func testQueriesIntoNestedCollections() throws {
        let realm = try openRealm(types)
        try realm.write {
            realm.add(holder(0, .fromArray([.int(1), .string("a"), .fromDictionary(["k": .double(2)])])))
            realm.add(holder(1, .fromDictionary(["name": .string("x"), "list": .fromArray([.int(5), .int(6)])])))
            realm.add(holder(2, .fromArray([])))
            realm.add(holder(3, .int(1)))
        }
        let all = realm.objects(MixedHolder.self)
        func ids(_ format: String) -> [Int] { (try? all.checkedFilter(format).map(\.id).sorted()) ?? [-1] }
        XCTAssertEqual(ids("value[0] == 1"), [0])
        XCTAssertEqual(ids("value[FIRST] == 1.0 AND value[LAST].@type == 'dictionary'"), [0])
        XCTAssertEqual(ids("value[2]['k'] > 1"), [0])
        XCTAssertEqual(ids("value['name'] == 'x'"), [1])
        XCTAssertEqual(ids("value['list'][1] == 6"), [1])
        XCTAssertEqual(ids("value['list'][*] == 5"), [1])
        XCTAssertEqual(ids("ALL value['list'][*] > 5"), [0, 2, 3], "ALL holds where there is nothing to test")
        XCTAssertEqual(ids("ALL value['list'][*] > 4 AND value['list'].@size > 0"), [1])
        XCTAssertEqual(ids("value[*] == 'a'"), [0])
        XCTAssertEqual(ids("value[*] == 'x'"), [1], "[*] on a dictionary: its values")
        XCTAssertEqual(ids("value.@size == 3"), [0])
        XCTAssertEqual(ids("value.@count == 0"), [2])
        XCTAssertEqual(ids("value.@size == 2"), [1])
        XCTAssertEqual(ids("value[5] == nil"), [0, 1, 2, 3])
        XCTAssertEqual(all.where { $0.value[0] == .int(1) }.map(\.id), [0])
        XCTAssertEqual(all.where { $0.value["list"].any == .int(6) }.map(\.id), [1])
        XCTAssertThrowsError(try all.checkedFilter("value[x] == 1"))
        XCTAssertThrowsError(try all.checkedFilter("value.@avg == 1"))
    }

    func testSortFollowsRealmsMixedOrder() throws {
        let realm = try openRealm(types)
        let target = MixedTarget()
        let ordered: [AnyRealmValue] = [.none, .bool(false), .bool(true), .int(-5), .decimal128(Decimal128(-1)), .double(0.5),
                                        .int(1), .float(2.5), .string("a"), .string("b"), .date(date), .objectId(objectId),
                                        .uuid(uuid), .object(target)]
        try realm.write {
            for (i, value) in ordered.enumerated().reversed() { realm.add(holder(i, value)) }
        }
        XCTAssertEqual(realm.objects(MixedHolder.self).sorted(byKeyPath: "value").map(\.id), Array(0..<ordered.count))
        XCTAssertEqual(realm.objects(MixedHolder.self).sorted(byKeyPath: "value", ascending: false).map(\.id),
                       Array((0..<ordered.count).reversed()))
    }

    func testIndexedLookupUsesTheIndex() throws {
        let realm = try openRealm(types)
        let long = String(repeating: "long", count: 400) // past the index key limit: entries are cut
        try realm.write {
            let values: [AnyRealmValue] = [.int(1), .double(1), .decimal128(Decimal128(1)), .string("1"), .int(2), .none,
                                           .string("x"), .int(Int.max), .int(Int.max - 1), .string(long), .string(long + "!")]
            for (i, value) in values.enumerated() {
                let o = holder(i, value)
                o.indexed = value
                realm.add(o)
            }
        }
        let all = realm.objects(MixedHolder.self)
        for format in ["indexed == 1", "indexed == 'x'", "indexed IN {2, nil}", "indexed == %@"] {
            let args: [Any] = format.contains("%@") ? [Int.max] : []
            let results = try all.checkedFilter(format, arguments: args)
            guard case .query(let plan) = results.source else { return XCTFail(format) }
            XCTAssertEqual(plan.compiled?.probe?.column.name, "indexed", format)
            let unindexed = try all.checkedFilter(format.replacingOccurrences(of: "indexed", with: "value"), arguments: args)
            XCTAssertEqual(results.map(\.id).sorted(), unindexed.map(\.id).sorted(), format)
        }
        XCTAssertEqual(all.filter("indexed == 1").map(\.id).sorted(), [0, 1, 2])
        XCTAssertEqual(all.filter("indexed == %@", Int.max).map(\.id), [7], "ints one Double cannot tell apart are re-checked")
        XCTAssertEqual(all.filter("indexed == %@", long).map(\.id), [9], "cut entries are re-checked")
        try realm.write { realm.object(ofType: MixedHolder.self, forPrimaryKey: 0)!.indexed = .string("x") }
        XCTAssertEqual(all.filter("indexed == 'x'").map(\.id).sorted(), [0, 6])
        XCTAssertEqual(all.filter("indexed == 1").map(\.id).sorted(), [1, 2])
    }

    /// Tests/Fixtures/pre-anyvalue.realm was written by RealmLite before
    /// AnyRealmValue existed (Tests/Fixtures/make-pre-anyvalue.swift.txt).
    func testAFileWrittenBeforeAnyRealmValueReadsUnchanged() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/pre-anyvalue.realm")
        try FileManager.default.copyItem(at: fixture, to: fileURL)
        let old: [ObjectBase.Type] = [PreMixedOwner.self, PreMixedPet.self]
        func checkOldObjects(_ realm: Realm) throws {
            let owners = realm.objects(PreMixedOwner.self)
            XCTAssertEqual(owners.map(\.name), ["owner0", "owner1", "owner2"])
            XCTAssertEqual(owners.map(\.score), [0.5, nil, 2.5])
            XCTAssertEqual(owners.map { Array($0.tags) }, [[], ["t0"], ["t0", "t1"]])
            XCTAssertEqual(owners.map { $0.counts["n"] }, [0, 10, 20])
            XCTAssertEqual(owners.map { $0.best?.name }, ["pet0", "pet1", "pet2"])
            XCTAssertEqual(owners.map { $0.pets.first?.birthday }, (0..<3).map { Date(timeIntervalSinceReferenceDate: Double($0) * 86400) })
            XCTAssertEqual(owners.filter("name == 'owner1'").map(\.id), [1], "the old index answers")
            XCTAssertEqual(realm.objects(PreMixedPet.self).filter("name == 'pet2'").first?.owners.first?.id, 2)
        }
        try withRealm(old) { try checkOldObjects($0) }
        // Adding a class with AnyRealmValue properties leaves the old ones as they were.
        try withRealm(old + types) { realm in
            try checkOldObjects(realm)
            let pet = try XCTUnwrap(realm.objects(PreMixedPet.self).first)
            try realm.write { realm.add(holder(1, .string("new"))) }
            XCTAssertEqual(realm.objects(MixedHolder.self).first?.value, .string("new"))
            XCTAssertEqual(pet.name, "pet0")
        }
        try withRealm(old + types) { try checkOldObjects($0) }
    }

    func testMigrationsKeepMixedLinksTracked() throws {
        let v0 = Realm.Configuration(fileURL: fileURL, objectTypes: [MixedNoteV0.self, MixedTarget.self])
        try { () throws -> Void in
            let realm = try Realm(configuration: v0)
            try realm.write {
                let target = MixedTarget()
                target.name = "t"
                let note = MixedNoteV0()
                note.value = .fromArray([.object(target)])
                note.other = .object(target)
                realm.add(note)
            }
        }()
        var v1 = Realm.Configuration(fileURL: fileURL, objectTypes: [MixedNoteV1.self, MixedTarget.self])
        v1.schemaVersion = 1
        v1.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "MixedNote") { old, _ in
                XCTAssertEqual((old?["other"] as? AnyRealmValue)?.object(MixedTarget.self), nil, "old links are not followed")
                XCTAssertEqual((old?["value"] as? AnyRealmValue)?.listValue?.count, 1)
            }
            migration.renameProperty(onType: "MixedNote", from: "value", to: "payload")
        }
        let realm = try Realm(configuration: v1)
        let note = try XCTUnwrap(realm.objects(MixedNoteV1.self).first)
        XCTAssertEqual(note.payload.listValue?.first?.object(MixedTarget.self)?.name, "t")
        let info = realm.core.classInfoOrStop(MixedNoteV1.self)
        let column = try XCTUnwrap(info.columns.first { $0.name == "payload" })
        XCTAssertEqual(realm.core.txn.count(column.backlinkTree, "counting backlinks"), 1, "the renamed property's link is tracked")
        try realm.write { realm.delete(realm.objects(MixedTarget.self)) }
        XCTAssertEqual(note.payload.listValue.map(Array.init), [.none])
        XCTAssertEqual(realm.core.txn.count(column.backlinkTree, "counting backlinks"), 0)
    }

    func testSchemaDescribesMixed() throws {
        let realm = try openRealm(types)
        let property = try XCTUnwrap(realm.schema["MixedHolder"]?["value"])
        XCTAssertEqual(property.type, .any)
        XCTAssertEqual("\(property.type)", "mixed")
        XCTAssertEqual(realm.schema["MixedHolder"]?["indexed"]?.isIndexed, true)
        XCTAssertEqual(realm.schema["MixedHolder"]?["list"]?.isArray, true)
    }

    private func holder(_ id: Int, _ value: AnyRealmValue) -> MixedHolder {
        let o = MixedHolder()
        o.id = id
        o.value = value
        return o
    }
}
