import Foundation
import XCTest
@testable import RealmLite

// CustomPersistable types whose PersistedType is an EmbeddedObject (issue 17
// item 4), RealmSwift's CGPoint / CLLocationCoordinate2D example.

final class CELocation: EmbeddedObject {
    @Persisted var latitude: Double
    @Persisted var longitude: Double
}

struct CECoordinate: CustomPersistable, Equatable {
    typealias PersistedType = CELocation
    var latitude: Double
    var longitude: Double
    init(_ latitude: Double, _ longitude: Double) { self.latitude = latitude; self.longitude = longitude }
    init(persistedValue: CELocation) { self.init(persistedValue.latitude, persistedValue.longitude) }
    var persistableValue: CELocation { CELocation(value: [latitude, longitude]) }
}

/// Converts only latitudes on the globe.
struct CEGlobePoint: FailableCustomPersistable, Equatable {
    typealias PersistedType = CELocation
    var latitude: Double
    init(_ latitude: Double) { self.latitude = latitude }
    init?(persistedValue: CELocation) {
        guard abs(persistedValue.latitude) <= 90 else { return nil }
        latitude = persistedValue.latitude
    }
    var persistableValue: CELocation { CELocation(value: ["latitude": latitude]) }
}

final class CEPlace: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var coordinate: CECoordinate
    @Persisted var optCoordinate: CECoordinate?
    @Persisted var route: List<CECoordinate>
    @Persisted var named: Map<String, CECoordinate?>
    @Persisted var globe: CEGlobePoint?
}

/// Not supported yet (RealmSwift takes it): map values must be optional.
final class CEPlainMap: Object {
    @Persisted var marks: Map<String, CECoordinate>
    // Kept out of other tests' default schema.
    override class func _realmIgnoreClass() -> Bool { true }
}

final class CustomPersistableEmbeddedTests: RealmTestCase {
    private let types: [ObjectBase.Type] = [CEPlace.self]

    private func embeddedCount(_ realm: Realm) -> Int { realm.dynamicObjects("CELocation").count }

    func testSchemaStoresALinkToTheEmbeddedClass() throws {
        try withRealm(types) { realm in
            let schema = try XCTUnwrap(realm.schema["CEPlace"])
            for name in ["coordinate", "optCoordinate"] {
                let property = try XCTUnwrap(schema[name])
                XCTAssertEqual(property.type, .object, name)
                XCTAssertEqual(property.objectClassName, "CELocation", name)
                XCTAssertTrue(property.isOptional, "a link is nullable even for a non-optional custom type (\(name))")
            }
            XCTAssertEqual(schema["route"]?.objectClassName, "CELocation")
            XCTAssertEqual(realm.schema["CELocation"]?.isEmbedded, true)
        }
    }

    func testMapOfTheNonOptionalTypeIsRefused() {
        XCTAssertThrowsError(try Realm(configuration: configuration([CEPlainMap.self]))) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidSchema)
        }
    }

    func testRoundTripThroughAFileReopen() throws {
        try withRealm(types) { realm in
            try realm.write {
                let place = CEPlace()
                place.id = 1
                place.coordinate = CECoordinate(48.85, 2.35)
                place.route.append(objectsIn: [CECoordinate(1, 2), CECoordinate(3, 4)])
                place.named["home"] = CECoordinate(5, 6)
                place.globe = CEGlobePoint(45)
                realm.add(place)
                let other = CEPlace()
                other.id = 2
                other.optCoordinate = CECoordinate(-10, 20)
                realm.add(other)
            }
        }
        try withRealm(types) { realm in
            let place = try XCTUnwrap(realm.object(ofType: CEPlace.self, forPrimaryKey: 1))
            XCTAssertEqual(place.coordinate, CECoordinate(48.85, 2.35))
            XCTAssertNil(place.optCoordinate)
            XCTAssertEqual(Array(place.route), [CECoordinate(1, 2), CECoordinate(3, 4)])
            XCTAssertEqual(place.named["home"], .some(CECoordinate(5, 6)))
            XCTAssertEqual(place.named.count, 1)
            XCTAssertEqual(place.globe, CEGlobePoint(45))
            let other = try XCTUnwrap(realm.object(ofType: CEPlace.self, forPrimaryKey: 2))
            XCTAssertEqual(other.optCoordinate, CECoordinate(-10, 20))
            // Never set: the non-optional property holds the default embedded object.
            XCTAssertEqual(other.coordinate, CECoordinate(0, 0))
            // Embedded rows: place's coordinate, 2 in the route, 1 in the map, globe; other's two.
            XCTAssertEqual(embeddedCount(realm), 7)
            let stored = try XCTUnwrap(realm.dynamicObject(ofType: "CEPlace", forPrimaryKey: 1)?["coordinate"] as? DynamicObject)
            XCTAssertEqual(stored["latitude"] as? Double, 48.85)
        }
    }

    func testUnmanagedDefaults() {
        let place = CEPlace()
        XCTAssertEqual(place.coordinate, CECoordinate(0, 0))
        XCTAssertNil(place.optCoordinate)
        place.coordinate = CECoordinate(1, 1)
        XCTAssertEqual(place.coordinate, CECoordinate(1, 1))
    }

    func testReplacingDeletesTheOldEmbeddedObject() throws {
        try withRealm(types) { realm in
            let place = CEPlace()
            try realm.write { realm.add(place) }
            XCTAssertEqual(embeddedCount(realm), 1, "a never-set non-optional property stores its default")
            try realm.write { place.coordinate = CECoordinate(1, 2) }
            XCTAssertEqual(embeddedCount(realm), 1, "the default was replaced")
            try realm.write {
                place.coordinate = CECoordinate(3, 4)
                place.optCoordinate = CECoordinate(5, 6)
            }
            XCTAssertEqual(place.coordinate, CECoordinate(3, 4))
            XCTAssertEqual(embeddedCount(realm), 2, "the replaced embedded object is deleted, no orphan")
            XCTAssertEqual(realm.dynamicObjects("CELocation").filter("latitude == 1").count, 0)
            try realm.write { place.optCoordinate = nil }
            XCTAssertNil(place.optCoordinate)
            XCTAssertEqual(embeddedCount(realm), 1)
            try realm.write {
                place.route.append(objectsIn: [CECoordinate(7, 8), CECoordinate(9, 10)])
                place.route[0] = CECoordinate(11, 12)
            }
            XCTAssertEqual(Array(place.route), [CECoordinate(11, 12), CECoordinate(9, 10)])
            XCTAssertEqual(embeddedCount(realm), 3)
            try realm.write { place.route.removeAll() }
            XCTAssertEqual(embeddedCount(realm), 1)
            try realm.write { realm.delete(place) }
            XCTAssertEqual(embeddedCount(realm), 0)
        }
    }

    func testCreateValue() throws {
        try withRealm(types) { realm in
            try realm.write {
                realm.create(CEPlace.self, value: [
                    "id": 1,
                    "coordinate": ["latitude": 1.0, "longitude": 2.0],
                    "optCoordinate": CECoordinate(3, 4),
                    "route": [[5.0, 6.0], CECoordinate(7, 8), CELocation(value: [9.0, 10.0])],
                ] as [String: Any])
                realm.create(CEPlace.self, value: ["id": 2, "coordinate": NSNull()] as [String: Any])
            }
            let place = try XCTUnwrap(realm.object(ofType: CEPlace.self, forPrimaryKey: 1))
            XCTAssertEqual(place.coordinate, CECoordinate(1, 2))
            XCTAssertEqual(place.optCoordinate, CECoordinate(3, 4))
            XCTAssertEqual(Array(place.route), [CECoordinate(5, 6), CECoordinate(7, 8), CECoordinate(9, 10)])
            XCTAssertEqual(realm.object(ofType: CEPlace.self, forPrimaryKey: 2)?.coordinate, CECoordinate(0, 0))
            // A copy of a managed object copies its embedded objects.
            try realm.write { realm.create(CEPlace.self, value: CEPlace(value: ["id": 3, "coordinate": CECoordinate(9, 9)] as [String: Any])) }
            XCTAssertEqual(realm.object(ofType: CEPlace.self, forPrimaryKey: 3)?.coordinate, CECoordinate(9, 9))
        }
    }

    func testKeyValueCodingFreezeAndDescription() throws {
        try withRealm(types) { realm in
            let place = CEPlace()
            try realm.write {
                realm.add(place)
                place.setValue(["latitude": 1.0, "longitude": 2.0], forKey: "coordinate")
                place.setValue(CECoordinate(3, 4), forKey: "optCoordinate")
            }
            XCTAssertEqual(place.value(forKey: "coordinate") as? CECoordinate, CECoordinate(1, 2))
            XCTAssertEqual(place.optCoordinate, CECoordinate(3, 4))
            let frozen = place.freeze()
            try realm.write { place.coordinate = CECoordinate(5, 6) }
            XCTAssertEqual(frozen.coordinate, CECoordinate(1, 2))
            XCTAssertEqual(place.coordinate, CECoordinate(5, 6))
            XCTAssertTrue(place.description.contains("latitude: 5"), place.description)
        }
    }

    func testUpdatePolicies() throws {
        try withRealm(types) { realm in
            try realm.write { realm.add(CEPlace(value: ["id": 1, "coordinate": CECoordinate(1, 1), "route": [CECoordinate(2, 2)]] as [String: Any])) }
            for (policy, latitude) in [(Realm.UpdatePolicy.modified, 3.0), (.all, 4.0), (.modified, 4.0)] {
                try realm.write {
                    realm.add(CEPlace(value: ["id": 1, "coordinate": CECoordinate(latitude, 0)] as [String: Any]), update: policy)
                }
                let place = try XCTUnwrap(realm.object(ofType: CEPlace.self, forPrimaryKey: 1))
                XCTAssertEqual(place.coordinate, CECoordinate(latitude, 0))
                XCTAssertTrue(place.route.isEmpty)
                XCTAssertEqual(embeddedCount(realm), 1, "\(policy): only the current coordinate remains")
            }
        }
    }

    func testQueriesOnTheEmbeddedProperties() throws {
        try withRealm(types) { realm in
            try realm.write {
                for i in 0..<5 {
                    let place = CEPlace()
                    place.id = i
                    place.coordinate = CECoordinate(Double(i) * 10, 0)
                    if i % 2 == 0 { place.optCoordinate = CECoordinate(Double(i), 1) }
                    place.route.append(CECoordinate(Double(i), Double(i)))
                    realm.add(place)
                }
            }
            let places = realm.objects(CEPlace.self)
            XCTAssertEqual(places.filter("coordinate.latitude > 15").map(\.id), [2, 3, 4])
            XCTAssertEqual(places.where { $0.coordinate.persistableValue.latitude > 15 }.map(\.id), [2, 3, 4])
            XCTAssertEqual(places.where { $0.optCoordinate.persistableValue.longitude == 1 }.map(\.id), [0, 2, 4])
            XCTAssertEqual(places.filter("optCoordinate == nil").map(\.id), [1, 3])
            XCTAssertEqual(places.filter("ANY route.latitude >= 3").map(\.id), [3, 4])
            XCTAssertEqual(places.sorted(byKeyPath: "coordinate.latitude", ascending: false).first?.id, 4)
            // Memberwise equality, as RealmSwift: latitude and longitude both.
            XCTAssertEqual(places.where { $0.coordinate == CECoordinate(20, 0) }.map(\.id), [2])
            XCTAssertEqual(places.where { $0.coordinate == CECoordinate(20, 1) }.count, 0)
            XCTAssertEqual(places.where { $0.coordinate != CECoordinate(20, 0) }.map(\.id), [0, 1, 3, 4])
            XCTAssertEqual(places.where { $0.optCoordinate == CECoordinate(4, 1) }.map(\.id), [4])
            XCTAssertEqual(places.where { $0.optCoordinate == nil }.map(\.id), [1, 3])
        }
    }

    func testFailableConversionIsNilWhereOptional() throws {
        try withRealm(types) { realm in
            try realm.write { realm.create(CEPlace.self, value: ["id": 1, "globe": CEGlobePoint(10)] as [String: Any]) }
            let place = try XCTUnwrap(realm.object(ofType: CEPlace.self, forPrimaryKey: 1))
            XCTAssertEqual(place.globe, CEGlobePoint(10))
            // Another program stores a latitude the type refuses.
            let stored = try XCTUnwrap(realm.dynamicObject(ofType: "CEPlace", forPrimaryKey: 1)?["globe"] as? DynamicObject)
            try realm.write { stored["latitude"] = 100.0 }
            XCTAssertNil(place.globe)
            XCTAssertEqual(realm.objects(CEPlace.self).filter("globe.latitude == 100").count, 1, "the stored value is kept")
        }
    }

    func testObservationReportsTheProperty() throws {
        let realm = try openRealm(types)
        let place = CEPlace()
        try realm.write { realm.add(place) }
        var replaced: [[String]] = []
        var inside: [[String]] = []
        let tokens = [
            place.observe { change in
                if case .change(_, let properties) = change { replaced.append(properties.map(\.name)) }
            },
            // Into the embedded object, as for any embedded link.
            place.observe(keyPaths: ["coordinate.longitude"]) { change in
                if case .change(_, let properties) = change { inside.append(properties.map(\.name)) }
            },
        ]
        defer { tokens.forEach { $0.invalidate() } }
        try realm.write { place.coordinate = CECoordinate(1, 2) }
        nextTurn()
        XCTAssertEqual(replaced, [["coordinate"]])
        XCTAssertEqual(inside, [["coordinate"]])
        // A change inside the embedded object (another program's write).
        let stored = try XCTUnwrap(realm.dynamicObject(ofType: "CEPlace", forPrimaryKey: 0)?["coordinate"] as? DynamicObject)
        try realm.write { stored["longitude"] = 5.0 }
        nextTurn()
        XCTAssertEqual(inside, [["coordinate"], ["coordinate"]])
        XCTAssertEqual(place.coordinate, CECoordinate(1, 5))
        try realm.write { stored["latitude"] = 7.0 }
        nextTurn()
        XCTAssertEqual(inside.count, 2, "latitude is not on the key path")
    }
}

