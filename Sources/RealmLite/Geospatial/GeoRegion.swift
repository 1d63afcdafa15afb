import Foundation

// A query's shape as coordinates (from a GeoBox / GeoPolygon / GeoCircle
// argument or a geoBox(...) literal), and the region it stands for on the
// sphere, validated as realm-core validates it (same checks, same order,
// same messages).

/// A longitude/latitude pair as written in a query; the altitude is kept
/// only to describe the shape.
struct GeoCoordinate: Equatable, CustomStringConvertible {
    var longitude: Double
    var latitude: Double
    var altitude: Double?

    init(longitude: Double, latitude: Double, altitude: Double? = nil) {
        self.longitude = longitude
        self.latitude = latitude
        self.altitude = altitude
    }

    init(_ point: GeoPoint) {
        self.init(longitude: point.longitude, latitude: point.latitude, altitude: point.altitude)
    }

    /// `[lng, lat]` or `[lng, lat, alt]`, numbers as realm-core prints them
    /// (6 significant digits).
    var description: String {
        let parts = [longitude, latitude] + (altitude.map { [$0] } ?? [])
        return "[" + parts.map { String(format: "%g", $0) }.joined(separator: ", ") + "]"
    }
}

enum GeoShape: CustomStringConvertible {
    case box(low: GeoCoordinate, high: GeoCoordinate)
    case polygon([[GeoCoordinate]])
    case circle(center: GeoCoordinate, radians: Double)

    init(_ box: GeoBox) { self = .box(low: GeoCoordinate(box.bottomLeft), high: GeoCoordinate(box.topRight)) }
    init(_ polygon: GeoPolygon) { self = .polygon([polygon.outerRing.map(GeoCoordinate.init)] + (polygon.holes ?? []).map { $0.map(GeoCoordinate.init) }) }
    init(_ circle: GeoCircle) { self = .circle(center: GeoCoordinate(circle.center), radians: circle.radians) }

    /// The shape a query argument holds, or nil.
    init?(argument: Any) {
        switch unwrapOptional(argument) {
        case let box as GeoBox: self.init(box)
        case let polygon as GeoPolygon: self.init(polygon)
        case let circle as GeoCircle: self.init(circle)
        default: return nil
        }
    }

    /// A box as the ring realm-core turns it into: its corners in order,
    /// joined by geodesics.
    var rings: [[GeoCoordinate]] {
        switch self {
        case .box(let low, let high):
            return [[low, GeoCoordinate(longitude: low.longitude, latitude: high.latitude), high,
                     GeoCoordinate(longitude: high.longitude, latitude: low.latitude), low]]
        case .polygon(let rings): return rings
        case .circle: return []
        }
    }

    var description: String {
        if case .circle(let center, let radians) = self {
            return "GeoCircle(\(center), \(String(format: "%g", radians)))"
        }
        return "GeoPolygon(" + rings.map { "{" + $0.map(\.description).joined(separator: ", ") + "}" }.joined(separator: ", ") + ")"
    }
}

/// A validated region: does it contain a point?
struct GeoRegion: Sendable {
    private enum Kind {
        /// The loops, and a cap around the outer one: a point outside the
        /// cap (with a margin) is rejected without testing edges.
        case polygon([SphericalLoop], bound: (center: SpherePoint, minDot: Double)?)
        case cap(center: SpherePoint, height: Double)
    }
    private let kind: Kind

    /// The region of `shape`, or the reason it is not a valid one.
    static func make(_ shape: GeoShape) -> Result<GeoRegion, GeoRegionError> {
        switch shape {
        case .circle(let center, let radians):
            guard let point = point(center) else { return .failure(outOfBounds(center)) }
            guard radians >= 0 else { return .failure(GeoRegionError("The radius of a circle must be a non-negative number")) }
            // S2's cap: chord length squared against twice the cap height.
            let d = sin(0.5 * radians)
            return .success(GeoRegion(kind: .cap(center: point, height: radians >= Double.pi ? 2 : 2 * d * d)))
        case .box, .polygon:
            return polygon(shape.rings).map { GeoRegion(kind: .polygon($0, bound: bound($0[0]))) }
        }
    }

    /// A cap holding the loop: centred on its vertices' mean, through the
    /// farthest vertex. A cap narrower than a hemisphere holds every arc
    /// between points in it, so it holds a (normalized) loop whose
    /// vertices it holds; nil when it is not that narrow.
    private static func bound(_ loop: SphericalLoop) -> (center: SpherePoint, minDot: Double)? {
        let center = loop.vertices.reduce(SpherePoint(0, 0, 0), +).normalized
        guard center.norm2 > 0.5, let nearest = loop.vertices.map(center.dot).min(), nearest > 0.01 else { return nil }
        return (center, nearest - 1e-9)
    }

    private static func point(_ c: GeoCoordinate) -> SpherePoint? {
        guard abs(c.longitude) <= 180, abs(c.latitude) <= 90 else { return nil }
        return SpherePoint(latitude: c.latitude, longitude: c.longitude)
    }

    private static func outOfBounds(_ c: GeoCoordinate) -> GeoRegionError {
        GeoRegionError("Longitude/latitude is out of bounds, lng: \(String(format: "%g", c.longitude)) lat: \(String(format: "%g", c.latitude))")
    }

    /// Rings to loops, checked in realm-core's order: coordinates, closed,
    /// three distinct vertices, a simple ring, holes inside the first ring,
    /// then across rings no shared edge and no crossing, then a hole
    /// sharing at most one vertex with the ring and no nested holes.
    private static func polygon(_ rings: [[GeoCoordinate]]) -> Result<[SphericalLoop], GeoRegionError> {
        var loops: [SphericalLoop] = []
        for (i, ring) in rings.enumerated() {
            var points: [SpherePoint] = []
            for c in ring {
                guard let p = point(c) else { return .failure(outOfBounds(c)) }
                points.append(p)
            }
            guard let first = ring.first, let last = ring.last else { return .failure(GeoRegionError("Ring has no vertices")) }
            guard first.longitude == last.longitude, first.latitude == last.latitude, first.altitude == last.altitude else {
                return .failure(GeoRegionError("Ring is not closed, first vertex 'GeoPoint(\(first))' does not equal last vertex 'GeoPoint(\(last))'"))
            }
            var unique: [SpherePoint] = []
            for p in points where unique.last != p { unique.append(p) }
            unique.removeLast()
            guard unique.count >= 3 else {
                return .failure(GeoRegionError("Ring \(i) must have at least 3 different vertices, \(unique.count) unique vertices were provided"))
            }
            var loop = SphericalLoop(unique)
            if let reason = loop.invalidity() { return .failure(GeoRegionError("Ring \(i) is not valid: '\(reason)'")) }
            loop.normalize()
            if i > 0 && !loops[0].contains(loop) {
                return .failure(GeoRegionError("Secondary ring \(i) not contained by first exterior ring - secondary rings must be holes in the first ring"))
            }
            loops.append(loop)
        }
        if loops.isEmpty { return .failure(GeoRegionError("Polygon has no rings.")) }
        if let reason = crossRingProblem(loops) { return .failure(GeoRegionError("Polygon isn't valid: '\(reason)'")) }
        let outer = Set(loops[0].vertices)
        for i in loops.indices.dropFirst() where loops[i].vertices.filter(outer.contains).count > 1 {
            return .failure(GeoRegionError("Polygon is not normalized: 'Ring \(i) shares more than one vertex with its parent ring 0'"))
        }
        for i in loops.indices.dropFirst() {
            for j in loops.indices.dropFirst() where j != i && loops[j].contains(loops[i]) {
                return .failure(GeoRegionError("Polygon interior rings cannot be nested: \(max(i, j))"))
            }
        }
        return .success(loops)
    }

    /// S2Polygon's checks across rings: an edge used by two rings, a ring
    /// over half the sphere, rings that cross.
    private static func crossRingProblem(_ loops: [SphericalLoop]) -> String? {
        if loops.count > 1 {
            struct Edge: Hashable { let a, b: SpherePoint }
            var edges: [Edge: (Int, Int)] = [:]
            for (i, loop) in loops.enumerated() {
                for j in 0..<loop.count {
                    let forward = Edge(a: loop.vertex(j), b: loop.vertex(j + 1))
                    let backward = Edge(a: loop.vertex(j + 1), b: loop.vertex(j))
                    if let other = edges[forward] ?? edges[backward] {
                        return "Duplicate edge: ring \(i), edge \(j) and ring \(other.0), edge \(other.1)"
                    }
                    edges[forward] = (i, j)
                    edges[backward] = (i, j)
                }
            }
        }
        for (i, loop) in loops.enumerated() {
            if !loop.isNormalized { return "Ring \(i) encloses more than half the sphere" }
            for j in (i + 1)..<max(i + 1, loops.count) where loop.edgesCross(loops[j]) {
                return "Ring \(i) crosses ring \(j)"
            }
        }
        return nil
    }

    /// Whether the point at `latitude`, `longitude` (degrees) is inside; an
    /// invalid coordinate is in no region.
    func contains(latitude: Double, longitude: Double) -> Bool {
        guard abs(latitude) <= 90, abs(longitude) <= 180 else { return false }
        let p = SpherePoint(latitude: latitude, longitude: longitude)
        switch kind {
        case .cap(let center, let height):
            return (center - p).norm2 <= 2 * height
        case .polygon(let loops, let bound):
            if let bound, bound.center.dot(p) < bound.minDot { return false }
            // Holes lie inside the outer ring: inside an odd number of loops.
            var inside = false
            for loop in loops where loop.contains(p) { inside.toggle() }
            return inside
        }
    }
}

/// Why a shape is not a valid region (realm-core's wording).
struct GeoRegionError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
