import XCTest
@testable import RealmLite

// How @Projected reads are resolved: once per key path, straight to the
// column for a key path that is one persisted property, through the key
// path for everything else, with the same values either way.

final class ProjectedAccessTests: RealmTestCase {
    func testOnePersistedPropertyReadsItsColumnOthersTheKeyPath() {
        XCTAssertTrue(ProjectedAccess.of(\ProjPerson.firstName).readsColumn)
        XCTAssertTrue(ProjectedAccess.of(\ProjPerson.age).readsColumn)
        // Computed from a property (same type), through a link, collections: the key path.
        XCTAssertFalse(ProjectedAccess.of(\ProjPerson.lastName.localizedUppercase).readsColumn)
        XCTAssertFalse(ProjectedAccess.of(\ProjPerson.age.magnitude).readsColumn)
        XCTAssertFalse(ProjectedAccess.of(\ProjPerson.address?.city).readsColumn)
        XCTAssertFalse(ProjectedAccess.of(\ProjPerson.friends).readsColumn)
        XCTAssertFalse(ProjectedAccess.of(\ProjPerson.notPersisted).readsColumn)
    }

    func testEachKeyPathIsResolvedOnce() {
        func access(_ projection: PersonProjection, _ label: String) -> AnyObject? {
            let child = Mirror(reflecting: projection).children.first { $0.label == label }
            return (child?.value as? Projected<ProjPerson, String>)?.access
        }
        let a = PersonProjection(projecting: ProjPerson()), b = PersonProjection(projecting: ProjPerson())
        XCTAssertNotNil(access(a, "_name"))
        XCTAssertTrue(access(a, "_name") === access(b, "_name"))
        XCTAssertTrue(access(a, "_lastNameCaps") === access(b, "_lastNameCaps"))
    }

    func testColumnReadsFollowTheObjectManagedFrozenAndUnmanaged() throws {
        let realm = try Realm(configuration: configuration([ProjPerson.self, ProjAddress.self, ProjTag.self]))
        let unmanaged = ProjPerson(value: ["id": 1, "firstName": "Jon", "lastName": "Snow", "age": 20])
        let projection = AgeProjection(projecting: unmanaged)
        XCTAssertEqual(projection.age1, 20)
        try realm.write { realm.add(unmanaged) }
        let managed = realm.objects(AgeProjection.self).first!
        let frozen = managed.freeze()
        try realm.write { managed.age1 = 21 }
        XCTAssertEqual(managed.age1, 21)
        XCTAssertEqual(managed.age2, 21)
        XCTAssertEqual(projection.age2, 21, "the projected object is now managed")
        XCTAssertEqual(frozen.age1, 20)
        let people = realm.objects(PersonProjection.self)
        XCTAssertEqual(people.map(\.name), ["Jon"])
        XCTAssertEqual(people.map(\.lastNameCaps), ["SNOW"])
    }
}
