import Foundation

// Geometry on the unit sphere, following the S2 library realm-core uses for
// geospatial queries, so answers agree with RealmSwift's: points are unit
// vectors, edges are great-circle arcs, a loop's interior is on its left,
// and point-in-loop counts edge crossings from a fixed reference point with
// S2's rules for arcs that pass through a vertex (so a vertex shared by two
// loops that tile a region belongs to exactly one). Orientation tests whose
// determinant is too close to zero for doubles fall back to
// S2's tie-breaker as realm-core compiles it, so that points on an edge or
// a vertex get realm-core's answer.

/// A point on (or a vector in the space around) the unit sphere.
struct SpherePoint: Equatable, Comparable {
    var x, y, z: Double

    init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The point at `latitude`, `longitude` in degrees, computed as S2 does
    /// (so the same coordinates give the same bits, and shared vertices
    /// compare equal).
    init(latitude: Double, longitude: Double) {
        let phi = latitude * (Double.pi / 180), theta = longitude * (Double.pi / 180)
        let cosPhi = cos(phi)
        self.init(cos(theta) * cosPhi, sin(theta) * cosPhi, sin(phi))
    }

    static func - (a: SpherePoint, b: SpherePoint) -> SpherePoint { SpherePoint(a.x - b.x, a.y - b.y, a.z - b.z) }
    static func + (a: SpherePoint, b: SpherePoint) -> SpherePoint { SpherePoint(a.x + b.x, a.y + b.y, a.z + b.z) }

    /// Lexicographic, as S2 orders points.
    static func < (a: SpherePoint, b: SpherePoint) -> Bool {
        if a.x != b.x { return a.x < b.x }
        if a.y != b.y { return a.y < b.y }
        return a.z < b.z
    }

    func dot(_ b: SpherePoint) -> Double { x * b.x + y * b.y + z * b.z }
    func cross(_ b: SpherePoint) -> SpherePoint { SpherePoint(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x) }
    var norm2: Double { dot(self) }
    /// Scaled to unit length (by the reciprocal of the norm, as S2 does).
    var normalized: SpherePoint {
        var n = norm2.squareRoot()
        if n != 0 { n = 1.0 / n }
        return SpherePoint(x * n, y * n, z * n)
    }

    static func * (a: SpherePoint, k: Double) -> SpherePoint { SpherePoint(a.x * k, a.y * k, a.z * k) }

    /// The angle between two vectors, in radians.
    func angle(_ b: SpherePoint) -> Double { atan2(cross(b).norm2.squareRoot(), dot(b)) }

    /// `[lat, lng]` in degrees with 7 decimals, as S2 prints a point.
    var latLngText: String {
        let lat = atan2(z, (x * x + y * y).squareRoot()) * 180 / Double.pi
        let lng = atan2(y, x) * 180 / Double.pi
        return "[" + String(format: "%.7f", lat) + ", " + String(format: "%.7f", lng) + "]"
    }

    /// S2's fixed reference point for crossing counts.
    static let origin = SpherePoint(0.00457, 1, 0.0321).normalized

    /// A unit vector orthogonal to this one, chosen as S2 chooses it (the
    /// reference direction of the vertex rules).
    var ortho: SpherePoint {
        let ax = abs(x), ay = abs(y), az = abs(z)
        let largest = ax > ay ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2)
        var k = largest - 1
        if k < 0 { k = 2 }
        var temp = SpherePoint(0.012, 0.0053, 0.00457)
        switch k {
        case 0: temp.x = 1
        case 1: temp.y = 1
        default: temp.z = 1
        }
        return cross(temp).normalized
    }

    /// Twice the cross product, computed so that it stays orthogonal to both
    /// points when they are nearly equal or opposite.
    func robustCross(_ b: SpherePoint) -> SpherePoint { (b + self).cross(b - self) }
}

enum Sphere {
    /// +1 if a, b, c turn counter-clockwise (seen from outside the sphere),
    /// -1 if clockwise, 0 only if two of them are equal.
    static func ccw(_ a: SpherePoint, _ b: SpherePoint, _ c: SpherePoint) -> Int {
        let det = a.cross(b).dot(c)
        if det > 0.8e-15 { return 1 }
        if det < -0.8e-15 { return -1 }
        return expensiveCCW(a, b, c)
    }

    /// S2's tie-breaker for nearly collinear points, as realm-core builds it
    /// (without exact arithmetic): the determinant recomputed from the two
    /// shorter edges, then planar orientation tests on the projections.
    private static func expensiveCCW(_ a: SpherePoint, _ b: SpherePoint, _ c: SpherePoint) -> Int {
        if a == b || b == c || c == a { return 0 }
        let sab: Double = a.dot(b) > 0 ? -1 : 1, sbc: Double = b.dot(c) > 0 ? -1 : 1, sca: Double = c.dot(a) > 0 ? -1 : 1
        let vab = a + b * sab, vbc = b + c * sbc, vca = c + a * sca
        let dab = vab.norm2, dbc = vbc.norm2, dca = vca.norm2
        let sign: Double
        if dca < dbc || (dca == dbc && a < b) {
            if dab < dbc || (dab == dbc && a < c) {
                sign = vab.cross(vca).dot(a) * sab // BC is the longest edge
            } else {
                sign = vca.cross(vbc).dot(c) * sca // AB is the longest edge
            }
        } else {
            if dab < dca || (dab == dca && b < c) {
                sign = vbc.cross(vab).dot(b) * sbc // CA is the longest edge
            } else {
                sign = vca.cross(vbc).dot(c) * sca // AB is the longest edge
            }
        }
        if sign > 0 { return 1 }
        if sign < 0 { return -1 }
        var result = planarOrderedCCW((a.y, a.z), (b.y, b.z), (c.y, c.z))
        if result == 0 { result = planarOrderedCCW((a.z, a.x), (b.z, b.x), (c.z, c.x)) }
        if result == 0 { result = planarOrderedCCW((a.x, a.y), (b.x, b.y), (c.x, c.y)) }
        return result
    }

    private typealias Planar = (x: Double, y: Double)

    private static func planarCCW(_ a: Planar, _ b: Planar) -> Int {
        let sab: Double = a.x * b.x + a.y * b.y > 0 ? -1 : 1
        let vab = (x: a.x + sab * b.x, y: a.y + sab * b.y)
        let da = a.x * a.x + a.y * a.y, db = b.x * b.x + b.y * b.y
        let aBeforeB = a.x < b.x || (a.x == b.x && a.y < b.y)
        let sign = da < db || (da == db && aBeforeB) ? (a.x * vab.y - a.y * vab.x) * sab : vab.x * b.y - vab.y * b.x
        return sign > 0 ? 1 : sign < 0 ? -1 : 0
    }

    private static func planarOrderedCCW(_ a: Planar, _ b: Planar, _ c: Planar) -> Int {
        let sum = planarCCW(a, b) + planarCCW(b, c) + planarCCW(c, a)
        return sum > 0 ? 1 : sum < 0 ? -1 : 0
    }

    /// True if, turning counter-clockwise around `o`, one meets `a`, then
    /// `b`, then `c` (closed at a and b, open at c).
    static func orderedCCW(_ a: SpherePoint, _ b: SpherePoint, _ c: SpherePoint, _ o: SpherePoint) -> Bool {
        var sum = 0
        if ccw(b, o, a) >= 0 { sum += 1 }
        if ccw(c, o, b) >= 0 { sum += 1 }
        if ccw(a, o, c) > 0 { sum += 1 }
        return sum >= 2
    }

    /// +1 if arcs AB and CD cross at a point interior to both, 0 if two of
    /// their vertices are equal, -1 otherwise.
    static func crossing(_ a: SpherePoint, _ b: SpherePoint, _ c: SpherePoint, _ d: SpherePoint) -> Int {
        let acb = -ccw(a, b, c)
        let bda = ccw(a, b, d)
        if bda == -acb && bda != 0 { return -1 }
        if bda == 0 || acb == 0 { return 0 }
        if -ccw(c, d, b) != acb { return -1 }
        return ccw(c, d, a) == acb ? 1 : -1
    }

    /// Whether arc AB crosses arc CD when they share a vertex: decided by the
    /// order of the edges around it from a fixed direction, so that crossing
    /// counts stay consistent.
    static func vertexCrossing(_ a: SpherePoint, _ b: SpherePoint, _ c: SpherePoint, _ d: SpherePoint) -> Bool {
        if a == b || c == d { return false }
        if a == d { return orderedCCW(a.ortho, c, b, a) }
        if b == c { return orderedCCW(b.ortho, d, a, b) }
        if a == c { return orderedCCW(a.ortho, d, b, a) }
        if b == d { return orderedCCW(b.ortho, c, a, b) }
        return false
    }

    static func edgeOrVertexCrossing(_ a: SpherePoint, _ b: SpherePoint, _ c: SpherePoint, _ d: SpherePoint) -> Bool {
        let sign = crossing(a, b, c, d)
        if sign != 0 { return sign > 0 }
        return vertexCrossing(a, b, c, d)
    }

    /// The angle the path a -> b -> c turns at b: positive to the left.
    static func turnAngle(_ a: SpherePoint, _ b: SpherePoint, _ c: SpherePoint) -> Double {
        let angle = b.robustCross(a).angle(c.robustCross(b))
        return ccw(a, b, c) > 0 ? angle : -angle
    }
}

/// A closed chain of great-circle arcs; its interior is on the left.
struct SphericalLoop {
    private(set) var vertices: [SpherePoint]
    /// Whether S2's reference point is inside.
    private var originInside = false

    init(_ vertices: [SpherePoint]) {
        self.vertices = vertices
        guard vertices.count >= 3 else { return }
        // Vertex 1 is inside iff the fixed direction at it lies in the
        // wedge on the left of vertex 0 -> 1 -> 2; counting from the
        // reference point assumed outside tells whether that assumption holds.
        let v1Inside = Sphere.orderedCCW(vertices[1].ortho, vertices[0], vertices[2], vertices[1])
        if v1Inside != contains(vertices[1]) { originInside = true }
    }

    var count: Int { vertices.count }

    /// Vertex `i`, wrapping once past the end.
    func vertex(_ i: Int) -> SpherePoint { vertices[i >= vertices.count ? i - vertices.count : i] }

    func contains(_ p: SpherePoint) -> Bool {
        var inside = originInside
        let origin = SpherePoint.origin
        for i in 1...vertices.count where Sphere.edgeOrVertexCrossing(origin, p, vertex(i - 1), vertex(i)) {
            inside.toggle()
        }
        return inside
    }

    /// The sum of the turns at each vertex: 2π minus the enclosed area, so
    /// negative when the interior is more than half the sphere.
    var turningAngle: Double {
        let n = vertices.count
        guard n >= 3 else { return 0 }
        var angle = 0.0
        for i in 0..<n { angle += Sphere.turnAngle(vertex(i + n - 1), vertex(i), vertex(i + 1)) }
        return angle
    }

    /// The interior is at most half the sphere (a hemisphere counts, within
    /// rounding).
    var isNormalized: Bool { turningAngle >= -1e-14 }

    /// Makes the interior the smaller side.
    mutating func normalize() {
        if !isNormalized {
            vertices.reverse()
            originInside.toggle()
        }
    }

    /// Why the loop is not a simple ring, or nil: a repeated vertex, or two
    /// non-adjacent edges that cross (S2's messages).
    func invalidity() -> String? {
        let n = vertices.count
        if n < 3 { return "Degenerate loop" }
        var seen: [SpherePoint: Int] = [:]
        for (i, v) in vertices.enumerated() {
            if let first = seen[v] { return "Duplicate vertices: \(first) and \(i)" }
            seen[v] = i
        }
        for i in 0..<n {
            for j in (i + 2)..<max(i + 2, n) where Sphere.crossing(vertex(i), vertex(i + 1), vertex(j), vertex(j + 1)) > 0 {
                return "Edges \(i) and \(j) cross. Edge locations in degrees: \(vertex(i).latLngText)-\(vertex(i + 1).latLngText)"
                    + " and \(vertex(j).latLngText)-\(vertex(j + 1).latLngText)"
            }
        }
        return nil
    }

    /// True if some edge of this loop crosses an edge of `other` at a point
    /// interior to both.
    func edgesCross(_ other: SphericalLoop) -> Bool {
        for i in 0..<count {
            for j in 0..<other.count where Sphere.crossing(vertex(i), vertex(i + 1), other.vertex(j), other.vertex(j + 1)) > 0 {
                return true
            }
        }
        return false
    }

    /// Whether this loop's region contains all of `other`'s: no edges
    /// cross, each vertex of `other` that is not one of ours is inside (the
    /// midpoint of an edge stands in when all are shared), and the two do not
    /// together cover the sphere.
    func contains(_ other: SphericalLoop) -> Bool {
        if edgesCross(other) { return false }
        let ours = Set(vertices)
        var tested = false
        for v in other.vertices where !ours.contains(v) {
            if !contains(v) { return false }
            tested = true
        }
        if !tested {
            for j in 0..<other.count {
                let mid = (other.vertex(j) + other.vertex(j + 1)).normalized
                if !contains(mid) { return false }
            }
        }
        let theirs = Set(other.vertices)
        if let mine = vertices.first(where: { !theirs.contains($0) }), other.contains(mine) { return false }
        return true
    }
}

extension SpherePoint: Hashable {}
