import Foundation
import XCTest
@testable import RealmLite

// RealmSwift's spellings RealmLite gained late: each test uses the call as
// a RealmSwift app would and checks what it does.

final class IdentifiedDog: Object, ObjectKeyIdentifiable {
    @Persisted var name = ""
}

/// Left out of the default schema by RealmSwift's hook.
final class HiddenFromDefaultSchema: Object {
    @Persisted var name = ""
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
}

func requireOptional<T: OptionalProtocol>(_ value: T) -> String { "\(T.Wrapped.self)" }

final class CompatibilityAPITests: RealmTestCase {
    func testPersistableEnumsCompareByRawValueAndDefaultToTheFirstCase() {
        XCTAssertEqual(Color(), .red)
        XCTAssertEqual(Mood(), .happy)
        XCTAssertLessThan(Color.red, Color.blue)
        XCTAssertEqual([Mood.sleepy, .happy, .sad].sorted(), [.happy, .sad, .sleepy], "by raw value: h < sa < sl")
        XCTAssertEqual([Color.blue, .red].max(), .blue)
    }

    func testObjectKeyIdentifiableIdIsTheSameForOneObjectAndDiffersBetweenObjects() throws {
        let realm = try openRealm([IdentifiedDog.self])
        let unmanaged = IdentifiedDog()
        XCTAssertEqual(unmanaged.id, unmanaged.id)
        XCTAssertNotEqual(unmanaged.id, IdentifiedDog().id)
        try realm.write {
            realm.add(unmanaged)
            realm.add(IdentifiedDog())
        }
        let all = realm.objects(IdentifiedDog.self)
        XCTAssertEqual(all[0].id, unmanaged.id, "two accessors of one object")
        XCTAssertEqual(all[0].id, realm.objects(IdentifiedDog.self).first!.id)
        XCTAssertNotEqual(all[0].id, all[1].id)
        XCTAssertEqual(Set(all.map(\.id)).count, 2)
    }

    func testShouldIncludeInDefaultSchemaLeavesAClassOut() throws {
        var config = configuration(nil)
        config.objectTypes = nil
        let realm = try Realm(configuration: config)
        XCTAssertNil(realm.schema["HiddenFromDefaultSchema"])
        XCTAssertNotNil(realm.schema["Dog"])
        XCTAssertTrue(Address.isEmbedded())
        XCTAssertFalse(Dog.isEmbedded())
    }

    func testOptionalProtocolAndSortDescriptorLiterals() throws {
        XCTAssertEqual(requireOptional(Optional(3)), "Int")
        let descriptors: [RealmLite.SortDescriptor] = ["age", "name"]
        XCTAssertEqual(descriptors, [RealmLite.SortDescriptor(keyPath: "age"), RealmLite.SortDescriptor(keyPath: "name")])
        XCTAssertEqual(RealmLite.SortDescriptor(keyPath: "age", ascending: false).description,
                       "SortDescriptor(keyPath: age, direction: descending)")
        let realm = try openRealm()
        try realm.write {
            realm.create(Dog.self, value: ["name": "b", "age": 2])
            realm.create(Dog.self, value: ["name": "a", "age": 2])
            realm.create(Dog.self, value: ["name": "c", "age": 1])
        }
        XCTAssertEqual(realm.objects(Dog.self).sorted(by: ["age", "name"]).map(\.name), ["c", "a", "b"])
    }

    func testDecimal128AndObjectIdComparisonMethods() throws {
        let one = Decimal128(1), two = Decimal128(2)
        XCTAssertEqual(one.decimalNumber(byAdding: two), Decimal128(3))
        XCTAssertEqual(two.decimalNumber(bySubtracting: one), one)
        XCTAssertEqual(two.decimalNumber(byMultiplyingBy: two), Decimal128(4))
        XCTAssertEqual(one.decimalNumber(byDividingBy: two), Decimal128(0.5))
        XCTAssertTrue(two.isGreaterThan(one))
        XCTAssertTrue(two.isGreaterThanOrEqual(to: two))
        XCTAssertTrue(one.isLessThan(two))
        XCTAssertTrue(one.isLessThanOrEqual(to: one))
        XCTAssertFalse(one.isLessThan(nil))
        XCTAssertTrue(Decimal128.nan.isLessThan(one), "NaN orders first, as in realm-core")
        let a = try ObjectId(string: "000000000000000000000001"), b = try ObjectId(string: "000000000000000000000002")
        XCTAssertTrue(b.isGreaterThan(a))
        XCTAssertTrue(a.isLessThanOrEqual(to: a))
        XCTAssertFalse(a.isGreaterThanOrEqual(to: nil))
    }

    func testFreezeAndThawThroughTheRealm() throws {
        let realm = try openRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
        let frozen = realm.freeze(dog)
        XCTAssertTrue(frozen.isFrozen)
        let frozenDogs = realm.freeze(realm.objects(Dog.self))
        XCTAssertTrue(frozenDogs.isFrozen)
        try realm.write { dog.name = "Max"; realm.create(Dog.self, value: ["name": "Ace"]) }
        XCTAssertEqual(frozen.name, "Rex")
        XCTAssertEqual(frozenDogs.count, 1)
        XCTAssertEqual(realm.thaw(frozen)?.name, "Max")
        try realm.write { realm.delete(dog) }
        XCTAssertNil(realm.thaw(frozen))
    }

    func testDeletingTheObjectsOfAMap() throws {
        let realm = try openRealm()
        try realm.write {
            let owner = realm.create(Owner.self, value: ["id": 1])
            owner.petMap["a"] = Pet(value: ["name": "a"])
            owner.petMap["b"] = Pet(value: ["name": "b"])
            owner.petMap["none"] = nil as Pet?
            realm.create(Pet.self, value: ["name": "kept"])
        }
        let owner = realm.objects(Owner.self).first!
        try realm.write { realm.delete(owner.petMap) }
        XCTAssertEqual(realm.objects(Pet.self).map(\.name), ["kept"])
        XCTAssertEqual(owner.petMap.count, 3, "the keys stay, their values become nil")
        XCTAssertTrue(owner.petMap.values.allSatisfy { $0 == nil })
    }

    func testWriteCopyToAConfigurationAndPerformMigration() throws {
        let realm = try openRealm()
        try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
        let copy = configuration(file: "copy.realm")
        try realm.writeCopy(configuration: copy)
        XCTAssertThrowsRealmError(.fileExists) { try realm.writeCopy(configuration: copy) }
        var memory = Realm.Configuration(inMemoryIdentifier: "x")
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["fileURL"]) { try realm.writeCopy(configuration: memory) }
        memory = copy
        memory.schemaVersion = 3
        let migrated = LockedLog<UInt64>()
        memory.migrationBlock = { _, old in migrated.add(old) }
        try Realm.performMigration(for: memory)
        XCTAssertEqual(migrated.entries, [0])
        XCTAssertEqual(try Realm(configuration: memory).objects(Dog.self).map(\.name), ["Rex"])
        XCTAssertEqual(try schemaVersionAtURL(copy.fileURL!), 3)
    }

    func testOpenErrorsCarryTheFileURL() throws {
        let url = directory.appendingPathComponent("missing/x.realm")
        var config = Realm.Configuration(fileURL: url)
        config.readOnly = true
        do {
            _ = try Realm(configuration: config)
            XCTFail("opened a missing file")
        } catch let error as Realm.Error {
            XCTAssertEqual(error.fileURL, url)
        }
        XCTAssertNil(Realm.Error(.fail, "x").fileURL)
    }

    func testListRemoveAndMoveByOffsets() throws {
        func check(_ start: [Int], move offsets: IndexSet, to destination: Int, file: StaticString = #filePath, line: UInt = #line) throws {
            var expected = start
            let moved = offsets.map { expected[$0] }
            let before = (0..<destination).filter { !offsets.contains($0) }.count
            for index in offsets.reversed() { expected.remove(at: index) }
            expected.insert(contentsOf: moved, at: before)
            let unmanaged = List<Int>()
            unmanaged.append(objectsIn: start)
            unmanaged.move(fromOffsets: offsets, toOffset: destination)
            XCTAssertEqual(Array(unmanaged), expected, "unmanaged", file: file, line: line)
            let realm = try openRealm()
            try realm.write {
                let bag = realm.create(Bag.self)
                bag.ints.append(objectsIn: start)
                bag.ints.move(fromOffsets: offsets, toOffset: destination)
                XCTAssertEqual(Array(bag.ints), expected, "managed", file: file, line: line)
                realm.delete(bag)
            }
        }
        try check([0, 1, 2, 3, 4], move: [1, 3], to: 0)
        try check([0, 1, 2, 3, 4], move: [0, 1], to: 5)
        try check([0, 1, 2, 3, 4], move: [4], to: 2)
        try check([0, 1, 2, 3, 4], move: [0, 2, 4], to: 3)
        try check([7, 7, 1, 7], move: [2], to: 0)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<30 {
            let count = Int.random(in: 1...9, using: &rng)
            let offsets = IndexSet((0..<count).filter { _ in Bool.random(using: &rng) })
            try check(Array(0..<count), move: offsets, to: Int.random(in: 0...count, using: &rng))
        }

        let list = List<Int>()
        list.append(objectsIn: [0, 1, 2, 3, 4, 5])
        list.remove(atOffsets: [0, 2, 5])
        XCTAssertEqual(Array(list), [1, 3, 4])
    }
}
