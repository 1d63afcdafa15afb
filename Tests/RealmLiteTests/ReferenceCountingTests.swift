import Foundation
import XCTest
@testable import RealmLite

/// Reading objects retains and releases the class's ClassInfo. Once anything
/// holds a weak reference to a ClassInfo, the Swift runtime moves its counts
/// into a side table and every retain and release of it takes the slow path:
/// iterating a List of objects ran three times slower that way. These tests
/// pin that no ClassInfo is ever weakly referenced.
final class ReferenceCountingTests: RealmTestCase {
    private final class Probe {}

    /// True when the runtime keeps `object`'s counts in a side table. On
    /// 64-bit platforms the inline count word follows the metadata pointer;
    /// its top two bits (UseSlowRC, SideTableMark) are both set then.
    private func hasSideTable(_ object: AnyObject) -> Bool {
        let word = Unmanaged.passUnretained(object).toOpaque()
            .load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: UInt64.self)
        return word >> 62 == 0b11
    }

    func testTheProbeSeesASideTable() {
        let plain = Probe()
        XCTAssertFalse(hasSideTable(plain))
        let referenced = Probe()
        weak let weakReference = referenced
        XCTAssertTrue(hasSideTable(referenced), "a weak reference makes a side table")
        withExtendedLifetime(weakReference) {}
    }

    func testClassInfosOfLinkedClassesHaveNoSideTable() throws {
        let realm = try openRealm()
        try realm.write {
            let person = Person()
            person.name = "Ann"
            let dog = Dog()
            dog.name = "Rex"
            person.dogs.append(dog)
            realm.add(person)
        }
        // Links, linking objects, queries through both, list iteration,
        // observation and the dynamic schema all read the columns' targets.
        XCTAssertEqual(realm.objects(Dog.self).filter("ANY owners.name == 'Ann'").count, 1)
        XCTAssertEqual(realm.objects(Person.self).filter("ANY dogs.name == 'Rex'").count, 1)
        XCTAssertEqual(realm.objects(Person.self).first?.dogs.map(\.name), ["Rex"])
        XCTAssertEqual(realm.objects(Dog.self).first?.owners.count, 1)
        let token = realm.objects(Person.self).observe { _ in }
        defer { token.invalidate() }
        XCTAssertEqual(realm.dynamicObjects("Dog").count, 1)

        let classes = realm.core.env.schema.withLock { $0.classes }
        let dynamic = try realm.core.dynamicSchemaState().classes
        XCTAssertTrue(classes.contains { $0.columns.contains { $0.target != nil } }, "the schema has links")
        for info in classes + dynamic {
            XCTAssertFalse(hasSideTable(info), "ClassInfo '\(info.name)' has a side table: something holds it weakly")
        }
    }
}
