import Foundation
import XCTest
@testable import RealmLite

// Geospatial queries: the shapes' validation (RealmSwift's), geoWithin in
// query strings and where {}, answers on the sphere worked out by hand
// (where a flat latitude/longitude plane would answer differently), invalid
// shapes and points, live results, and a randomized comparison with a slow
// independent computation.

final class GeoLocation: EmbeddedObject {
    @Persisted private(set) var coordinates: List<Double>
    @Persisted var type: String = "Point"

    convenience init(_ latitude: Double, _ longitude: Double) {
        self.init()
        coordinates.append(objectsIn: [longitude, latitude])
    }

    /// Replaces the coordinates (any number of them, to test bad points).
    func set(_ values: [Double]) {
        coordinates.removeAll()
        coordinates.append(objectsIn: values)
    }
}

final class GeoPerson: Object {
    @Persisted var name: String
    @Persisted var location: GeoLocation?
    @Persisted var stops: List<GeoLocation>

    convenience init(_ name: String, _ location: GeoLocation?) {
        self.init()
        self.name = name
        self.location = location
    }
}

/// Has a point's shape but is not embedded.
final class GeoTopLevelPoint: Object {
    @Persisted var coordinates: List<Double>
    @Persisted var type: String = "Point"
}

/// Embedded, but lacks `type`.
final class GeoCoordinatesOnly: EmbeddedObject {
    @Persisted var coordinates: List<Double>
}

final class GeoOddHolder: Object {
    @Persisted var coordinatesOnly: GeoCoordinatesOnly?
    @Persisted var topLevel: GeoTopLevelPoint?
    @Persisted var count: Int
}

final class GeospatialTests: RealmTestCase {
    private let types: [ObjectBase.Type] = [GeoPerson.self, GeoLocation.self, GeoTopLevelPoint.self,
                                            GeoCoordinatesOnly.self, GeoOddHolder.self]

    private func realm(with people: [(String, Double, Double)]) throws -> Realm {
        let realm = try openRealm(types)
        try realm.write {
            for (name, latitude, longitude) in people { realm.add(GeoPerson(name, GeoLocation(latitude, longitude))) }
        }
        return realm
    }

    /// Names matched by the shape, checked to be the same through every
    /// form: where {}, `GEOWITHIN %@`, `IN %@` and `GEOWITHIN $0`.
    private func names(_ realm: Realm, _ shape: some RLMGeospatial, file: StaticString = #filePath, line: UInt = #line) throws -> Set<String> {
        let people = realm.objects(GeoPerson.self)
        let built = Set(try people.checkedWhere { $0.location.geoWithin(shape) }.map(\.name))
        for format in ["location GEOWITHIN %@", "location geoWithin %@", "location IN %@", "location GEOWITHIN $0"] {
            XCTAssertEqual(Set(try people.checkedFilter(format, shape).map(\.name)), built, format, file: file, line: line)
        }
        return built
    }

    private func names(_ realm: Realm, _ format: String, _ args: Any...) throws -> Set<String> {
        Set(try realm.objects(GeoPerson.self).checkedFilter(format, arguments: args).map(\.name))
    }

    // MARK: - Shapes

    func testPointValidation() {
        XCTAssertNotNil(GeoPoint(latitude: 90, longitude: 0))
        XCTAssertNotNil(GeoPoint(latitude: -90, longitude: 180))
        XCTAssertNotNil(GeoPoint(latitude: 0, longitude: -180))
        XCTAssertNil(GeoPoint(latitude: 90.000000001, longitude: 0))
        XCTAssertNil(GeoPoint(latitude: 0, longitude: -180.000000001))
        XCTAssertNil(GeoPoint(latitude: .nan, longitude: 0))
        XCTAssertNil(GeoPoint(latitude: 0, longitude: .nan))
        XCTAssertNotNil(GeoPoint(latitude: 1, longitude: 2, altitude: 500))
        XCTAssertNil(GeoPoint(latitude: 1, longitude: 2, altitude: -1))
        XCTAssertNil(GeoPoint(latitude: 1, longitude: 2, altitude: .nan))
        XCTAssertEqual(GeoPoint(latitude: 1, longitude: 2, altitude: 3), GeoPoint(latitude: 1, longitude: 2, altitude: 3))
        XCTAssertNotEqual(GeoPoint(latitude: 1, longitude: 2, altitude: 3), GeoPoint(latitude: 1, longitude: 2, altitude: 4))
    }

    func testBoxPolygonCircleDistanceValidation() {
        XCTAssertNotNil(GeoBox(bottomLeft: (-90, -180), topRight: (90, 180)))
        XCTAssertNil(GeoBox(bottomLeft: (-91, -181), topRight: (91, 181)))
        XCTAssertEqual(GeoBox(bottomLeft: (0, 0), topRight: (1, 1)), GeoBox(bottomLeft: (0, 0), topRight: (1, 1)))
        XCTAssertNotEqual(GeoBox(bottomLeft: (1, 1), topRight: (0, 0)), GeoBox(bottomLeft: (0, 0), topRight: (1, 1)))

        // At least 4 points, first == last, in the outer ring and every hole.
        XCTAssertNotNil(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (0, 0)]))
        XCTAssertNil(GeoPolygon(outerRing: [(0, 0), (1, 1), (0, 0)]))
        XCTAssertNil(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (3, 3)]))
        XCTAssertNil(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (0, 0)], holes: [[(0, 0)]]))
        XCTAssertNil(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (0, 0)], holes: [(0, 0), (1, 1), (2, 0), (0, 0)], [(0, 0), (1, 1), (2, 2), (3, 3)]))
        XCTAssertNotNil(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (0, 0)], holes: [(0, 0), (1, 1), (2, 0), (0, 0)]))
        XCTAssertNil(GeoPolygon(outerRing: [(0, 0), (100, 1), (2, 0), (0, 0)]), "a latitude out of range")
        XCTAssertNotNil(GeoPolygon(outerRing: [GeoPoint(latitude: 0, longitude: 0)!, GeoPoint(latitude: 1, longitude: 1)!,
                                               GeoPoint(latitude: 2, longitude: 0)!, GeoPoint(latitude: 0, longitude: 0)!]))
        XCTAssertEqual(GeoPolygon(outerRing: [(0, 0), (10, 0), (5, 4), (0, 0)], holes: [[(1, 1), (9, 0), (4, 4), (1, 1)]]),
                       GeoPolygon(outerRing: [(0, 0), (10, 0), (5, 4), (0, 0)], holes: [[(1, 1), (9, 0), (4, 4), (1, 1)]]))

        XCTAssertNotNil(GeoCircle(center: (0, 70), radiusInRadians: 0))
        XCTAssertNotNil(GeoCircle(center: (0, 70), radiusInRadians: 500))
        XCTAssertNil(GeoCircle(center: (0, 70), radiusInRadians: -1))
        XCTAssertNil(GeoCircle(center: (0, 70), radiusInRadians: .nan))
        XCTAssertNil(GeoCircle(center: (95, 70), radiusInRadians: 1))

        XCTAssertNil(Distance.kilometers(-1))
        XCTAssertNil(Distance.miles(.nan))
        XCTAssertNil(Distance.degrees(-90))
        XCTAssertNil(Distance.radians(-0.1))
        // 40,075 km and 24,901 miles are the equator: 2π.
        XCTAssertEqual(Distance.kilometers(40075)!.radians, 2 * .pi, accuracy: 1e-3)
        XCTAssertEqual(Distance.miles(24901)!.radians, 2 * .pi, accuracy: 1e-3)
        XCTAssertEqual(Distance.degrees(180)!.radians, .pi)
        XCTAssertEqual(Distance.radians(.pi)!.asDegrees(), 180)
        XCTAssertEqual(Distance.kilometers(12.5)!.asKilometers(), 12.5, accuracy: 1e-12)
        XCTAssertEqual(Distance.miles(7)!.asMiles(), 7, accuracy: 1e-12)
        XCTAssertEqual(Distance.kilometers(1), Distance.kilometers(1))
        XCTAssertNotEqual(Distance.kilometers(25.01), Distance.kilometers(25.02))
    }

    // MARK: - Answers

    /// RealmSwift's own expectations for its sample data.
    func testRealmSwiftSampleShapes() throws {
        let realm = try realm(with: [("Diana", 40.7128, -74.0060), ("Maria", 55.6761, 12.5683),
                                     ("Tomas", 55.6280, 12.0826), ("Alba", -76, -76)])
        try realm.write { realm.add(GeoPerson("Manuela", nil)) }
        XCTAssertEqual(try names(realm, GeoBox(bottomLeft: (55.6281, 12.0826), topRight: (55.6762, 12.5684))!), ["Maria"])
        XCTAssertEqual(try names(realm, GeoBox(bottomLeft: (55.6279, 12.0825), topRight: (55.6762, 12.5684))!), ["Maria", "Tomas"])
        XCTAssertEqual(try names(realm, GeoBox(bottomLeft: (0, -75), topRight: (60, 15))!), ["Diana", "Maria", "Tomas"])
        XCTAssertEqual(try names(realm, GeoPolygon(outerRing: [(55, 12), (55.67, 12.5), (55.67, 11.5), (55, 12)])!), ["Tomas"])
        let ring = [(40.0096192, -75.5175781), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175781)]
        XCTAssertEqual(try names(realm, GeoPolygon(outerRing: ring)!), ["Diana", "Maria", "Tomas"])
        XCTAssertEqual(try names(realm, GeoPolygon(outerRing: [(50, -80), (61, 21), (21, 21), (-80, -80), (50, -80)], holes: [ring])!), ["Alba"])
        let outer = [(50.0, -80.0), (62, 22), (22, 22), (-80, -80), (50, -80)]
        let holes = [[(40.7129, -75.0), (40.7129, -74), (40.7126, -74), (40.7129, -75)],
                     [(-77.0, -77.0), (-77, -75), (-75, -75), (-75, -77), (-77, -77)],
                     [(55.6760, 12.5682), (55.6760, 12.5684), (55.6763, 12.5684), (55.6763, 12.5682), (55.6760, 12.5682)]]
        XCTAssertEqual(try names(realm, GeoPolygon(outerRing: outer, holes: Array(holes[..<1]))!), ["Maria", "Tomas", "Alba"])
        XCTAssertEqual(try names(realm, GeoPolygon(outerRing: outer, holes: Array(holes[..<2]))!), ["Maria", "Tomas"])
        XCTAssertEqual(try names(realm, GeoPolygon(outerRing: outer, holes: holes)!), ["Tomas"])
        XCTAssertEqual(try names(realm, GeoCircle(center: (55.67, 12.56), radiusInRadians: 0.001)!), ["Maria"])
        XCTAssertEqual(try names(realm, GeoCircle(center: (55.67, 12.56), radius: .kilometers(10)!)!), ["Maria"])
        XCTAssertEqual(try names(realm, GeoCircle(center: (55.67, 12.56), radius: .kilometers(100)!)!), ["Maria", "Tomas"])
        XCTAssertEqual(try names(realm, GeoCircle(center: (45, -20), radius: .kilometers(5000)!)!), ["Diana", "Maria", "Tomas"])
    }

    /// realm-core's expectations for points on corners and edges, where
    /// S2's rules decide (a vertex or edge shared by two regions that tile
    /// the sphere belongs to one of them).
    func testRealmCoreBoundaryCases() throws {
        // (lat, lng) of realm-core's points [lng, lat]: (-2, -1), (-1, -2), (0, 0), (0.5, 0.5), (1, 1), (2, 2).
        let realm = try realm(with: [("a", -1, -2), ("b", -2, -1), ("c", 0, 0), ("d", 0.5, 0.5), ("e", 1, 1), ("f", 2, 2)])
        func count(_ format: String, _ args: Any...) throws -> Int {
            try realm.objects(GeoPerson.self).checkedFilter(format, arguments: args).count
        }
        XCTAssertEqual(try count("location GEOWITHIN geoBox([0.2, 0.2], [0.7, 0.7])"), 1)
        XCTAssertEqual(try count("location GEOWITHIN geoBox([-2, -1.5], [0.7, 0.5])"), 2)
        XCTAssertEqual(try count("location GEOWITHIN geoBox([0, 0], [0.5, 0.5])"), 0)
        XCTAssertEqual(try count("location GEOWITHIN geoBox([0, 0], [0.5, 1])"), 1)
        XCTAssertEqual(try count("location GEOWITHIN geoBox([0, -0.5], [0.5, 1])"), 0)
        XCTAssertEqual(try count("location GEOWITHIN geoBox([-2, -1], [1, 0.5])"), 2)
        XCTAssertEqual(try count("location GEOWITHIN geoBox([-2, -2], [1, 1])"), 4)
        XCTAssertEqual(try count("location GEOWITHIN geoBox([-2, -2], [0.5, 1])"), 4)
        XCTAssertEqual(try count("location GEOWITHIN geoPolygon({[-0.5, -0.5], [1.0, 2.5], [2.5, -0.5], [-0.5, -0.5]})"), 3)
        XCTAssertEqual(try count("location GEOWITHIN geoPolygon({[-3, -1], [-2, -2], [-1, -1], [1.5, -1], [-1, 1.5], [-3, -1]})"), 2)
        XCTAssertEqual(try count("location GEOWITHIN geoCircle([1, 0.5], $0)", 150_000 / 6_378_100.0), 3)
        XCTAssertEqual(try count("location GEOWITHIN geoCircle([-1.5, -1.5], $0)", 90_000 / 6_378_100.0), 2)
    }

    /// A box's edges are great-circle arcs. Between (lat 60..70, lng 0..90)
    /// the arc joining the northern corners peaks at lng 45, lat
    /// atan(√2·tan 70°) = 75.57°, the southern one at atan(√2·tan 60°) =
    /// 67.79°: so at lng 45 the box spans lat 67.79...75.57, not 60...70.
    func testBoxEdgesAreGeodesicsNearThePole() throws {
        let realm = try realm(with: [("lat73", 73, 45), ("lat62", 62, 45), ("lat70", 70, 45), ("lat76", 76, 45),
                                     ("lat68", 68, 45), ("lat67.5", 67.5, 45), ("lat75.5", 75.5, 45), ("lat75.6", 75.6, 45)])
        let box = GeoBox(bottomLeft: (60, 0), topRight: (70, 90))!
        // A flat lat/lng box would take lat62, lat68, lat67.5 and lat70.
        XCTAssertEqual(try names(realm, box), ["lat73", "lat70", "lat68", "lat75.5"])
    }

    /// At lat 10 over lng 0...10 the top edge peaks at lng 5, lat
    /// atan(tan 10° / cos 5°) = 10.037°.
    func testPolygonWithHoleAndBulgingEdge() throws {
        let realm = try realm(with: [("in", 2, 2), ("hole", 5, 5), ("east", 5, 11), ("bulge", 10.02, 5),
                                     ("aboveBulge", 10.05, 5), ("corner", 9.99, 0.01)])
        let square = [(0.0, 0.0), (0, 10), (10, 10), (10, 0), (0, 0)]
        XCTAssertEqual(try names(realm, GeoPolygon(outerRing: square)!), ["in", "hole", "bulge", "corner"])
        let withHole = GeoPolygon(outerRing: square, holes: [(4, 4), (4, 6), (6, 6), (6, 4), (4, 4)])!
        XCTAssertEqual(try names(realm, withHole), ["in", "bulge", "corner"])
        // The ring's direction does not matter: the smaller side is the region.
        XCTAssertEqual(try names(realm, GeoPolygon(outerRing: square.reversed(), holes: [(4, 4), (6, 4), (6, 6), (4, 6), (4, 4)])!),
                       ["in", "bulge", "corner"])
    }

    /// A box from lng 170 to lng -170 is the 20° strip across the
    /// antimeridian (the smaller region), as in realm-core.
    func testBoxAcrossTheAntimeridian() throws {
        let realm = try realm(with: [("date line", 0, 180), ("west of it", 5, -175), ("east of it", -5, 175),
                                     ("greenwich", 0, 0), ("outside", 0, 160), ("also outside", 0, -160)])
        XCTAssertEqual(try names(realm, GeoBox(bottomLeft: (-10, 170), topRight: (10, -170))!), ["date line", "west of it", "east of it"])
        // realm-core's meridian polygon: the 4° strip from lng 178 to -178.
        XCTAssertEqual(try names(realm, "location GEOWITHIN geoPolygon({[-178, 10], [178, 10], [178, -10], [-178, -10], [-178, 10]})"),
                       ["date line"])
    }

    /// Circles measure great-circle distance. Along a meridian the distance
    /// is the latitude difference: 1° = 6378.1 km · π/180 = 111.319 km =
    /// 69.170 miles. Along lat 60, 10° of longitude is
    /// acos(sin²60° + cos²60°·cos 10°) = 4.9952°, not 10° (flat) nor 5°.
    func testCircleDistances() throws {
        let realm = try realm(with: [("1.79", 1.79, 0), ("1.80", 1.80, 0), ("1.44", 1.44, 0), ("1.45", 1.45, 0),
                                     ("5.72", 5.72, 0), ("5.74", 5.74, 0)])
        XCTAssertEqual(try names(realm, GeoCircle(center: (0, 0), radius: .kilometers(200)!)!), ["1.79", "1.44", "1.45"])
        XCTAssertEqual(try names(realm, GeoCircle(center: (0, 0), radius: .miles(100)!)!), ["1.44"]) // 1.4457°
        XCTAssertEqual(try names(realm, GeoCircle(center: (0, 0), radiusInRadians: 0.1)!), ["1.79", "1.80", "1.44", "1.45", "5.72"]) // 5.7296°
        XCTAssertEqual(try names(realm, GeoCircle(center: (0, 0), radius: .degrees(5.73)!)!), ["1.79", "1.80", "1.44", "1.45", "5.72"])

        let north = realm
        try north.write {
            north.delete(north.objects(GeoPerson.self))
            north.add(GeoPerson("east", GeoLocation(60, 10)))
            north.add(GeoPerson("pole side", GeoLocation(85, 170)))
            north.add(GeoPerson("80.5", GeoLocation(80.5, -100)))
            north.add(GeoPerson("79.5", GeoLocation(79.5, 0)))
        }
        XCTAssertEqual(try names(north, GeoCircle(center: (60, 0), radius: .degrees(5.0)!)!), ["east"])
        XCTAssertEqual(try names(north, GeoCircle(center: (60, 0), radius: .degrees(4.99)!)!), [])
        // Around the pole every longitude is near: lat >= 80 is within 10°.
        XCTAssertEqual(try names(north, GeoCircle(center: (90, 0), radius: .degrees(10)!)!), ["pole side", "80.5"])
        // A radius of π or more covers the sphere.
        XCTAssertEqual(try names(north, GeoCircle(center: (0, 0), radiusInRadians: 4)!).count, 4)
    }

    func testQueryLanguageLiterals() throws {
        let realm = try realm(with: [("a", 0.5, 0.5), ("b", 2, 2), ("c", -1, -2)])
        XCTAssertEqual(try names(realm, "location geoWithin geoBox([0.2, 0.2], [0.7, 0.7])"), ["a"])
        XCTAssertEqual(try names(realm, "location GEOWITHIN geoBox([0.2, 0.2, 10.5], [3, 3, 0])"), ["a", "b"])
        XCTAssertEqual(try names(realm, "location GEOWITHIN geoCircle([0, 0], 0.05)"), ["a", "b", "c"])
        XCTAssertEqual(try names(realm, "location GEOWITHIN geoCircle([0, 0], 0.02)"), ["a"])
        XCTAssertEqual(try names(realm, "location GEOWITHIN geoPolygon({[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]})"), ["a"])
        XCTAssertEqual(try names(realm, "location GEOWITHIN geoPolygon({[-5, -5], [5, -5], [5, 5], [-5, 5], [-5, -5]}, {[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]})"),
                       ["b", "c"])
        XCTAssertEqual(try names(realm, "location GEOWITHIN geoCircle([$0, $1], $2)", 0.5, 0.5, 0.001), ["a"])
        XCTAssertEqual(try names(realm, "location GEOWITHIN geoBox([%@, %@], [%@, %@])", -3, -3, 0, 0), ["c"])
        XCTAssertEqual(try names(realm, "NOT location GEOWITHIN geoCircle([0, 0], 0.02) AND name != 'c'"), ["b"])
        XCTAssertEqual(try names(realm, "location GEOWITHIN %@ OR name == 'c'", GeoCircle(center: (2, 2), radiusInRadians: 0.001)!), ["b", "c"])
        XCTAssertEqual(Set(realm.objects(GeoPerson.self).where { $0.location.geoWithin(GeoBox(bottomLeft: (0, 0), topRight: (1, 1))!) || $0.name == "c" }.map(\.name)),
                       ["a", "c"])
        XCTAssertEqual(realm.objects(GeoPerson.self).filter("location GEOWITHIN %@", GeoBox(bottomLeft: (0, 0), topRight: (3, 3))!).count, 2)
    }

    func testAnyAllNoneOverAListOfPoints() throws {
        let realm = try openRealm(types)
        try realm.write {
            let one = GeoPerson("both in", nil), two = GeoPerson("one in", nil), three = GeoPerson("none in", nil)
            one.stops.append(objectsIn: [GeoLocation(1, 1), GeoLocation(1.001, 1)])
            two.stops.append(objectsIn: [GeoLocation(1, 1), GeoLocation(3, 3)])
            three.stops.append(GeoLocation(3, 3))
            realm.add([one, two, three, GeoPerson("no stops", nil)])
        }
        let area = "geoCircle([1, 1], 0.01)"
        XCTAssertEqual(try names(realm, "stops GEOWITHIN \(area)"), ["both in", "one in"])
        XCTAssertEqual(try names(realm, "ANY stops GEOWITHIN \(area)"), ["both in", "one in"])
        XCTAssertEqual(try names(realm, "ALL stops GEOWITHIN \(area)"), ["both in"])
        XCTAssertEqual(try names(realm, "NONE stops GEOWITHIN \(area)"), ["none in", "no stops"])
    }

    /// A point must be an embedded object of type "Point" (any case) with at
    /// least two coordinates in range; anything else matches no shape.
    func testMissingOrInvalidPointsNeverMatch() throws {
        let realm = try openRealm(types)
        try realm.write {
            realm.add(GeoPerson("good", GeoLocation(1, 1)))
            realm.add(GeoPerson("nil", nil))
            let upper = GeoLocation(1, 1)
            upper.type = "POINT"
            realm.add(GeoPerson("upper", upper))
            let polygon = GeoLocation(1, 1)
            polygon.type = "Polygon"
            realm.add(GeoPerson("polygon", polygon))
            let short = GeoLocation()
            short.set([1])
            realm.add(GeoPerson("short", short))
            let altitude = GeoLocation()
            altitude.set([1, 1, 300])
            realm.add(GeoPerson("altitude", altitude))
            let latitudeTooBig = GeoLocation()
            latitudeTooBig.set([1, 91])
            realm.add(GeoPerson("lat 91", latitudeTooBig))
            let nan = GeoLocation()
            nan.set([.nan, 1])
            realm.add(GeoPerson("nan", nan))
        }
        XCTAssertEqual(try names(realm, GeoCircle(center: (1, 1), radiusInRadians: 4)!), ["good", "upper", "altitude"])
        XCTAssertEqual(try names(realm, "NOT location GEOWITHIN geoCircle([1, 1], 4)"), ["nil", "polygon", "short", "lat 91", "nan"])
    }

    func testResultsStayLive() throws {
        let realm = try realm(with: [("mover", 0, 0), ("stayer", 0.5, 0.5)])
        let inBox = realm.objects(GeoPerson.self).where { $0.location.geoWithin(GeoBox(bottomLeft: (0.2, 0.2), topRight: (1, 1))!) }
        XCTAssertEqual(inBox.map(\.name), ["stayer"])
        let mover = realm.objects(GeoPerson.self).filter("name == 'mover'").first!
        try realm.write { mover.location!.set([0.6, 0.6]) }
        XCTAssertEqual(Set(inBox.map(\.name)), ["mover", "stayer"])
        try realm.write { mover.location!.type = "Other" }
        XCTAssertEqual(inBox.map(\.name), ["stayer"])
        try realm.write { mover.location = GeoLocation(0.3, 0.3) }
        XCTAssertEqual(inBox.count, 2)

        var counts: [Int] = []
        let token = inBox.observe { change in
            if case .initial(let results) = change { counts.append(results.count) }
            if case .update(let results, _, _, _) = change { counts.append(results.count) }
        }
        nextTurn()
        try realm.write { mover.location!.set([50, 50]) }
        nextTurn()
        token.invalidate()
        XCTAssertEqual(counts, [2, 1])
    }

    // MARK: - Errors

    private func assertRegionError(_ shape: some RLMGeospatial, _ reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let people = try openRealm(types).objects(GeoPerson.self)
        expectRealmError(.invalidValue, mentioning: ["Invalid region in GEOWITHIN query", reason], file: file, line: line) {
            _ = try people.checkedWhere { $0.location.geoWithin(shape) }
        }
        expectRealmError(.invalidValue, mentioning: ["Invalid region in GEOWITHIN query", reason], file: file, line: line) {
            _ = try people.checkedFilter("location GEOWITHIN %@", shape)
        }
    }

    /// RealmSwift's messages for shapes the sphere rejects.
    func testInvalidPolygonsThrowRealmSwiftsErrors() throws {
        let square = [(0.0, 0.0), (0, 1), (1, 1), (1, 0), (0, 0)]
        try assertRegionError(GeoPolygon(outerRing: square, holes: [[(2, 2), (2, 3), (3, 3), (3, 2), (2, 2)]])!,
                              "'Secondary ring 1 not contained by first exterior ring - secondary rings must be holes in the first ring")
        try assertRegionError(GeoPolygon(outerRing: square, holes: [[(0.25, 0.5), (0.75, 0.5), (0.75, 1.5), (0.25, 1.5), (0.25, 0.5)]])!,
                              "Secondary ring 1 not contained by first exterior ring")
        try assertRegionError(GeoPolygon(outerRing: [(50, -50), (55, 55), (-50, 50), (70, -25), (50, -50)])!,
                              "GeoPolygon({[-50, 50, 0], [55, 55, 0], [50, -50, 0], [-25, 70, 0], [-50, 50, 0]})': 'Ring 0 is not valid: 'Edges 0 and 2 cross. Edge locations in degrees: [50.0000000, -50.0000000]-[55.0000000, 55.0000000] and [-50.0000000, 50.0000000]-[70.0000000, -25.0000000]''")
        try assertRegionError(GeoPolygon(outerRing: [(50, -80), (60, 20), (20, 20), (-80, -80), (50, -80)],
                                         holes: [[(40.0096192, -75.5175781), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175781)]])!,
                              "{[-75.5176, 40.0096, 0], [20, 60, 0], [20, 20, 0], [-75.5176, -75.5176, 0], [-75.5176, 40.0096, 0]})': 'Polygon isn't valid: 'Duplicate edge: ring 1, edge 1 and ring 0, edge 1''")
        try assertRegionError(GeoPolygon(outerRing: [(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)],
                                         holes: [[(45, -77), (61, 21), (21, 21), (-77, -77), (45, -77)],
                                                 [(40.0096192, -75.5175780), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175780)]])!,
                              "'Polygon interior rings cannot be nested: 2")
        try assertRegionError(GeoPolygon(outerRing: [(0, 0), (0, 1), (0, 1), (0, 0)])!,
                              "Ring 0 must have at least 3 different vertices, 2 unique vertices were provided")
        try assertRegionError(GeoBox(bottomLeft: (1, 1), topRight: (1, 1))!, "Ring 0 must have at least 3 different vertices")
        try assertRegionError(GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (0, 1), (0, 2), (0, 0)])!,
                              "Ring 0 is not valid: 'Duplicate vertices: 1 and 3'")
        let big = [(0.0, 0.0), (0, 10), (10, 10), (10, 0), (0, 0)]
        try assertRegionError(GeoPolygon(outerRing: big, holes: [(1, 1), (1, 5), (5, 5), (5, 1), (1, 1)], [(3, 3), (3, 7), (7, 7), (7, 3), (3, 3)])!,
                              "Polygon isn't valid: 'Ring 1 crosses ring 2'")
        try assertRegionError(GeoPolygon(outerRing: big, holes: [(0, 0), (5, 4), (10, 10), (4, 5), (0, 0)])!,
                              "Polygon is not normalized: 'Ring 1 shares more than one vertex with its parent ring 0'")
    }

    func testInvalidLiteralsAndArguments() throws {
        let people = try openRealm(types).objects(GeoPerson.self)
        let cases: [(String, [Any], [String])] = [
            ("location GEOWITHIN geoBox([200, 0], [1, 1])", [], ["Longitude/latitude is out of bounds, lng: 200 lat: 0"]),
            ("location GEOWITHIN geoCircle([0, 0], -1)", [], ["The radius of a circle must be a non-negative number"]),
            ("location GEOWITHIN geoPolygon({[0, 0], [1, 0], [1, 1], [0, 1]})", [],
             ["Ring is not closed, first vertex 'GeoPoint([0, 0])' does not equal last vertex 'GeoPoint([0, 1])'"]),
            ("location GEOWITHIN %@", [5], ["must be a geospatial constant value", "Int"]),
            ("location GEOWITHIN 'text'", [], ["expected a shape after GEOWITHIN"]),
            ("location GEOWITHIN geoBox([0, 0] [1, 1])", [], ["expected ','"]),
            ("location GEOWITHIN geoCircle([0, 'x'], 1)", [], ["expected a number"]),
            ("location GEOWITHIN geoCircle([0, %@], 1)", ["x"], ["a coordinate must be a number"]),
            ("name GEOWITHIN geoCircle([0, 0], 1)", [], ["The left hand side of 'geoWithin' must be a link to geoJSON formatted data", "'string'"]),
            ("ANY location GEOWITHIN geoCircle([0, 0], 1)", [], ["to-many"]),
            ("location GEOWITHIN", [], ["expected a shape after GEOWITHIN"]),
            ("location GEOWITHIN geoCircle([0,", [], ["expected a number"]),
            ("location GEOWITHIN geoPolygon({[0, 0], [1, 0], [1, 1], [0, 0]", [], ["expected '}'"]),
        ]
        for (format, args, words) in cases {
            expectRealmError(.invalidValue, mentioning: words) { _ = try people.checkedFilter(format, arguments: args) }
        }
    }

    /// A linked class without a point's properties, and a top-level class
    /// with them, are rejected with RealmSwift's messages.
    func testWrongPointClassesThrow() throws {
        let realm = try openRealm(types)
        let odd = realm.objects(GeoOddHolder.self)
        let circle = GeoCircle(center: (0, 0), radiusInRadians: 10)!
        expectRealmError(.invalidValue, mentioning: ["Query 'coordinatesOnly GEOWITHIN GeoCircle([0, 0, 0], 10)' links to data in the wrong format for a geoWithin query"]) {
            _ = try odd.checkedWhere { $0.coordinatesOnly.geoWithin(circle) }
        }
        expectRealmError(.invalidValue, mentioning: ["A GEOWITHIN query can only operate on a link to an embedded class but 'GeoTopLevelPoint' is at the top level"]) {
            _ = try odd.checkedFilter("topLevel IN %@", circle)
        }
        expectRealmError(.invalidValue, mentioning: ["must be a link to geoJSON formatted data", "'int'"]) {
            _ = try odd.checkedFilter("count GEOWITHIN %@", circle)
        }
    }

    // MARK: - Randomized

    /// Random points and shapes against a slow computation that shares no
    /// code with the engine: circles by the haversine distance on
    /// latitude/longitude, convex polygons and boxes by the sign of each
    /// edge's plane (the point is inside iff it is on the interior side of
    /// every edge's great circle). Points within 1e-9 of a boundary are
    /// left out.
    func testRandomShapesAgainstSlowSphericalComputation() throws {
        var rng = SplitMix(seed: 0x6E0)
        let realm = try openRealm(types)
        var points: [(Double, Double)] = []
        try realm.write {
            for i in 0..<400 {
                // Uniform on the sphere.
                let latitude = asin(Double.random(in: -1..<1, using: &rng)) * 180 / .pi, longitude = Double.random(in: -180..<180, using: &rng)
                points.append((latitude, longitude))
                realm.add(GeoPerson("\(i)", GeoLocation(latitude, longitude)))
            }
        }
        let people = realm.objects(GeoPerson.self)
        var checked = 0
        for round in 0..<60 {
            let center = (asin(Double.random(in: -1..<1, using: &rng)) * 180 / .pi, Double.random(in: -180..<180, using: &rng))
            var expected = Set<String>()
            var nearBoundary = false
            let results: Results<GeoPerson>
            switch round % 3 {
            case 0:
                let radius = Double.random(in: 0.05..<2.5, using: &rng)
                for (i, p) in points.enumerated() {
                    let d = haversine(center, p)
                    if abs(d - radius) < 1e-9 { nearBoundary = true }
                    if d <= radius { expected.insert("\(i)") }
                }
                results = try people.checkedWhere { $0.location.geoWithin(GeoCircle(center: center, radiusInRadians: radius)!) }
            default:
                let ring: [(Double, Double)]
                let box: GeoBox?
                if round % 3 == 1 {
                    // A box: corners (lat, lng), edges joining them in order.
                    let low = (Double.random(in: -75..<45, using: &rng), Double.random(in: -180..<180, using: &rng))
                    let high = (low.0 + Double.random(in: 1..<30, using: &rng), low.1 + Double.random(in: 1..<60, using: &rng))
                    let east = high.1 > 180 ? high.1 - 360 : high.1
                    ring = [low, (high.0, low.1), (high.0, east), (low.0, east)]
                    box = GeoBox(bottomLeft: low, topRight: (high.0, east))
                } else {
                    // Points on a small circle, in bearing order: a convex polygon.
                    let spread = Double.random(in: 2..<40, using: &rng)
                    let bearings = (0..<Int(Double.random(in: 3..<9, using: &rng))).map { _ in Double.random(in: 0..<360, using: &rng) }.sorted()
                    ring = bearings.map { destination(center, degrees: spread, bearing: $0) }
                    box = nil
                }
                let vectors = ring.map(unitVector)
                // The vertices' centroid is inside a convex polygon.
                let inward = vectors.reduce([0.0, 0, 0]) { [$0[0] + $1[0], $0[1] + $1[1], $0[2] + $1[2]] }
                for (i, p) in points.enumerated() {
                    let v = unitVector(p)
                    var inside = true
                    for k in vectors.indices {
                        let a = vectors[k], b = vectors[(k + 1) % vectors.count]
                        let n = cross(a, b)
                        let side = dot(n, v), centreSide = dot(n, inward)
                        if abs(side) < 1e-9 { nearBoundary = true }
                        if (side > 0) != (centreSide > 0) { inside = false }
                    }
                    if inside { expected.insert("\(i)") }
                }
                if let box {
                    results = try people.checkedWhere { $0.location.geoWithin(box) }
                } else {
                    results = try people.checkedFilter("location GEOWITHIN %@", GeoPolygon(outerRing: ring + [ring[0]])!)
                }
            }
            if nearBoundary { continue }
            XCTAssertEqual(Set(results.map(\.name)), expected, "round \(round)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 50)
    }
}

// MARK: - Slow reference geometry (degrees in, radians out)

private func haversine(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
    let (φ1, φ2) = (a.0 * .pi / 180, b.0 * .pi / 180)
    let Δφ = φ2 - φ1, Δλ = (b.1 - a.1) * .pi / 180
    let h = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
    return 2 * asin(min(1, h.squareRoot()))
}

/// The point `degrees` of arc from `start` along `bearing` (clockwise from north).
private func destination(_ start: (Double, Double), degrees: Double, bearing: Double) -> (Double, Double) {
    let φ1 = start.0 * .pi / 180, λ1 = start.1 * .pi / 180, δ = degrees * .pi / 180, θ = bearing * .pi / 180
    let φ2 = asin(sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ))
    let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sin(φ2))
    var longitude = λ2 * 180 / .pi
    longitude = longitude.truncatingRemainder(dividingBy: 360)
    if longitude > 180 { longitude -= 360 }
    if longitude < -180 { longitude += 360 }
    return (min(90, max(-90, φ2 * 180 / .pi)), longitude)
}

private func unitVector(_ p: (Double, Double)) -> [Double] {
    let φ = p.0 * .pi / 180, λ = p.1 * .pi / 180
    return [cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ)]
}

private func cross(_ a: [Double], _ b: [Double]) -> [Double] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

private func dot(_ a: [Double], _ b: [Double]) -> Double { a[0] * b[0] + a[1] * b[1] + a[2] * b[2] }
