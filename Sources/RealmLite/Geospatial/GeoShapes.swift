import Foundation

// The shapes of geospatial queries, with RealmSwift's names and validation:
// constructors return nil for values RealmSwift rejects (a latitude outside
// -90...90, an open ring, a negative radius); what only the sphere can tell
// (crossing edges, a hole outside its ring) is checked when the query is
// built (GeoRegion.swift), as realm-core does.

/// A shape a geospatial query (`geoWithin`, `GEOWITHIN`) can test points
/// against: ``GeoBox``, ``GeoPolygon`` or ``GeoCircle``.
public protocol RLMGeospatial: Sendable {}

/// A latitude and longitude in degrees (and an altitude, which queries
/// ignore). Points are stored as a GeoJSON-shaped embedded object with
/// `@Persisted var type: String = "Point"` and
/// `@Persisted var coordinates: List<Double>` holding `[longitude,
/// latitude]`; this type only builds the other shapes.
public final class GeoPoint: Equatable, CustomStringConvertible, Sendable {
    /// Latitude in degrees, -90...90.
    public let latitude: Double
    /// Longitude in degrees, -180...180.
    public let longitude: Double
    /// Altitude (not negative); not used by queries.
    public let altitude: Double

    /// A point, or nil if the latitude is outside -90...90, the longitude
    /// outside -180...180, or a value is NaN.
    public convenience init?(latitude: Double, longitude: Double) {
        self.init(latitude: latitude, longitude: longitude, altitude: 0)
    }

    /// A point, or nil if the latitude is outside -90...90, the longitude
    /// outside -180...180, the altitude negative, or a value is NaN.
    public init?(latitude: Double, longitude: Double, altitude: Double) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), altitude >= 0 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// Equal coordinates and altitude.
    public static func == (a: GeoPoint, b: GeoPoint) -> Bool {
        a.latitude == b.latitude && a.longitude == b.longitude && a.altitude == b.altitude
    }

    /// `[longitude, latitude, altitude]`, as query descriptions show points.
    public var description: String { GeoCoordinate(self).description }
}

/// A rectangle given by its bottom-left and top-right corners, for
/// `geoWithin`. Its edges are geodesics (great-circle arcs) between the four
/// corners, as in realm-core, not lines of constant latitude; the region is
/// the smaller of the two the edges enclose, so a box may cross the
/// antimeridian (`bottomLeft.longitude > topRight.longitude`).
public final class GeoBox: RLMGeospatial, Equatable, CustomStringConvertible {
    /// The bottom left corner.
    public let bottomLeft: GeoPoint
    /// The top right corner.
    public let topRight: GeoPoint

    /// A box from its bottom-left and top-right corners.
    public init(bottomLeft: GeoPoint, topRight: GeoPoint) {
        self.bottomLeft = bottomLeft
        self.topRight = topRight
    }

    /// A box from `(latitude, longitude)` corners; nil if either is not a
    /// valid ``GeoPoint``.
    public convenience init?(bottomLeft: (Double, Double), topRight: (Double, Double)) {
        guard let low = GeoPoint(latitude: bottomLeft.0, longitude: bottomLeft.1),
              let high = GeoPoint(latitude: topRight.0, longitude: topRight.1) else { return nil }
        self.init(bottomLeft: low, topRight: high)
    }

    /// Equal corners.
    public static func == (a: GeoBox, b: GeoBox) -> Bool { a.bottomLeft == b.bottomLeft && a.topRight == b.topRight }

    /// The box as the polygon queries use: `GeoPolygon({...})`.
    public var description: String { GeoShape(self).description }
}

/// A polygon for `geoWithin`: an outer ring and any number of holes. Each
/// ring is closed (its first and last points are equal) and has at least 4
/// points; edges are geodesics; the ring encloses the smaller of the two
/// regions its edges bound. When the query is built, rings must not cross
/// themselves or each other, holes must lie inside the outer ring, share no
/// edge and not nest; otherwise the query fails with realm-core's message.
public final class GeoPolygon: RLMGeospatial, Equatable, CustomStringConvertible {
    /// The outer ring.
    public let outerRing: [GeoPoint]
    /// The holes, if any.
    public let holes: [[GeoPoint]]?

    /// A polygon, or nil if a ring has fewer than 4 points or its first and
    /// last points differ.
    public init?(outerRing: [GeoPoint], holes: [[GeoPoint]]? = nil) {
        func closed(_ ring: [GeoPoint]) -> Bool { ring.count > 3 && ring.first == ring.last }
        guard closed(outerRing), (holes ?? []).allSatisfy(closed) else { return nil }
        self.outerRing = outerRing
        self.holes = holes
    }

    /// A polygon from `(latitude, longitude)` points; nil if a point is not
    /// a valid ``GeoPoint`` or a ring is not closed with at least 4 points.
    public convenience init?(outerRing: [(Double, Double)], holes: [[(Double, Double)]] = []) {
        func points(_ ring: [(Double, Double)]) -> [GeoPoint]? {
            let points = ring.compactMap { GeoPoint(latitude: $0.0, longitude: $0.1) }
            return points.count == ring.count ? points : nil
        }
        guard let outer = points(outerRing) else { return nil }
        var inner: [[GeoPoint]] = []
        for hole in holes {
            guard let ring = points(hole) else { return nil }
            inner.append(ring)
        }
        self.init(outerRing: outer, holes: inner)
    }

    /// A polygon from `(latitude, longitude)` points, holes given one by one.
    public convenience init?(outerRing: [(Double, Double)], holes: [(Double, Double)]...) {
        self.init(outerRing: outerRing, holes: holes)
    }

    /// Equal rings, point by point (no holes equals an empty list of holes).
    public static func == (a: GeoPolygon, b: GeoPolygon) -> Bool {
        a.outerRing == b.outerRing && (a.holes ?? []) == (b.holes ?? [])
    }

    /// `GeoPolygon({[lng, lat, alt], ...}, {...})`.
    public var description: String { GeoShape(self).description }
}

/// A distance on the Earth as an angle, for ``GeoCircle``. Kilometres and
/// miles convert with the Earth's equatorial radius, 6378.1 km.
public final class Distance: Equatable, Sendable {
    /// Radius of the Earth in metres, as RealmSwift converts distances.
    static let earthRadiusMeters = 6_378_100.0

    /// The distance in radians.
    public let radians: Double

    private init?(radians: Double) {
        guard radians >= 0 else { return nil } // false for NaN too
        self.radians = radians
    }

    /// A distance in kilometres; nil if negative or NaN.
    public static func kilometers(_ kilometers: Double) -> Distance? { Distance(radians: kilometers * 1000 / earthRadiusMeters) }
    /// A distance in miles; nil if negative or NaN.
    public static func miles(_ miles: Double) -> Distance? { Distance(radians: miles * 1609.344 / earthRadiusMeters) }
    /// A distance in degrees of arc; nil if negative or NaN.
    public static func degrees(_ degrees: Double) -> Distance? { Distance(radians: degrees * (Double.pi / 180)) }
    /// A distance in radians; nil if negative or NaN.
    public static func radians(_ radians: Double) -> Distance? { Distance(radians: radians) }

    /// The distance in kilometres.
    public func asKilometers() -> Double { radians * Distance.earthRadiusMeters / 1000 }
    /// The distance in miles.
    public func asMiles() -> Double { radians * Distance.earthRadiusMeters / 1609.344 }
    /// The distance in degrees of arc.
    public func asDegrees() -> Double { radians / (Double.pi / 180) }

    /// Equal angles.
    public static func == (a: Distance, b: Distance) -> Bool { a.radians == b.radians }
}

/// A circle on the sphere for `geoWithin`: the points whose great-circle
/// distance from ``center`` is at most ``radians`` (a radius of π or more
/// covers the whole sphere).
public final class GeoCircle: RLMGeospatial, Equatable, CustomStringConvertible {
    /// The centre.
    public let center: GeoPoint
    /// The radius in radians.
    public let radians: Double

    /// A circle; nil if the radius is negative or NaN.
    public init?(center: GeoPoint, radiusInRadians: Double) {
        guard radiusInRadians >= 0 else { return nil }
        self.center = center
        self.radians = radiusInRadians
    }

    /// A circle with a radius given as a ``Distance``.
    public init(center: GeoPoint, radius: Distance) {
        self.center = center
        self.radians = radius.radians
    }

    /// A circle around `(latitude, longitude)`; nil if the centre is not a
    /// valid ``GeoPoint`` or the radius is negative or NaN.
    public convenience init?(center: (Double, Double), radiusInRadians: Double) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radiusInRadians: radiusInRadians)
    }

    /// A circle around `(latitude, longitude)` with a ``Distance`` radius;
    /// nil if the centre is not a valid ``GeoPoint``.
    public convenience init?(center: (Double, Double), radius: Distance) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radius: radius)
    }

    /// Equal centres and radii.
    public static func == (a: GeoCircle, b: GeoCircle) -> Bool { a.center == b.center && a.radians == b.radians }

    /// `GeoCircle([lng, lat, alt], radians)`.
    public var description: String { GeoShape(self).description }
}
