import BenchModels
import Foundation
import RealmLite

// geo-bench: what a geospatial query (geoWithin) costs over N points, beside
// plain scans of the same objects; RealmLite alone (benchmarks/README.md).
//
//   geo-bench [--quick] [-n N] [--reps R] [--dir DIR]
//
// Inserts N places (default 100,000; --quick: 10,000 and one repetition)
// with points spread over Europe (lat 35..70, lng -10..40, a fixed
// pseudo-random sequence), then times each query R times (default 5):
// first run and median (min). Every count is checked against a slow
// computation on the same coordinates; timings are never checked.

final class GeoPointObject: EmbeddedObject {
    @Persisted var type = "Point"
    @Persisted var coordinates: List<Double>
}

final class Place: Object {
    @Persisted var rank = 0
    @Persisted var location: GeoPointObject?
}

var directoryArgument = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("tmp")
var arguments = CommandLine.arguments.dropFirst().makeIterator()
var explicitN: Int?, explicitReps: Int?, quick = false
while let argument = arguments.next() {
    switch argument {
    case "--quick": quick = true
    case "-n": explicitN = arguments.next().flatMap { Int($0) }
    case "--reps": explicitReps = arguments.next().flatMap { Int($0) }
    case "--dir": directoryArgument = URL(fileURLWithPath: arguments.next() ?? ".")
    default: fatalError("unknown option \(argument); see the comment at the top of main.swift")
    }
}
let n = max(explicitN ?? (quick ? 10_000 : 100_000), 1)
let reps = max(explicitReps ?? (quick ? 1 : 5), 1)

/// Point i: (latitude, longitude), from a fixed SplitMix sequence.
func point(_ i: Int) -> (Double, Double) {
    func mix(_ x: UInt64) -> Double {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
    return (35 + 35 * mix(UInt64(2 * i)), -10 + 50 * mix(UInt64(2 * i + 1)))
}

let directory = directoryArgument.appendingPathComponent("geo-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let realm = try Realm(configuration: .init(fileURL: directory.appendingPathComponent("geo.realm"),
                                           objectTypes: [Place.self, GeoPointObject.self]))
print("geospatial queries: \(n) points, \(reps) run(s) per query")
let insertStart = now()
try realm.write {
    for i in 0..<n {
        let place = Place()
        place.rank = i
        let location = GeoPointObject()
        let (latitude, longitude) = point(i)
        location.coordinates.append(objectsIn: [longitude, latitude])
        place.location = location
        realm.add(place)
    }
}
print("GEO_BENCH \(pad("insert (one write)")) \(ms((now() - insertStart) * 1000)) ms")

func pad(_ label: String) -> String { label.padding(toLength: 52, withPad: " ", startingAt: 0) }
func ms(_ value: Double) -> String { String(format: "%8.2f", value) }

func time(_ label: String, expected: Int, _ query: () -> Results<Place>) {
    var runs: [Double] = []
    for _ in 0..<reps {
        let start = now()
        let count = query().count
        runs.append((now() - start) * 1000)
        if count != expected { fatalError("\(label): gave \(count), expected \(expected)") }
    }
    let sorted = runs.sorted()
    print("GEO_BENCH \(pad(label)) \(ms(runs[0])) ms first, \(ms(sorted[sorted.count / 2])) ms median"
          + " (min \(String(format: "%.2f", sorted[0])))  result \(expected)")
}

/// How many points satisfy `inside` (degrees in), computed on unit vectors.
func expected(_ inside: (_ v: [Double]) -> Bool) -> Int {
    (0..<n).reduce(0) { count, i in
        let (lat, lng) = point(i)
        let phi = lat * .pi / 180, lambda = lng * .pi / 180
        return count + (inside([cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi)]) ? 1 : 0)
    }
}

func vector(_ lat: Double, _ lng: Double) -> [Double] {
    let phi = lat * .pi / 180, lambda = lng * .pi / 180
    return [cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi)]
}
func dot(_ a: [Double], _ b: [Double]) -> Double { a[0] * b[0] + a[1] * b[1] + a[2] * b[2] }
func cross(_ a: [Double], _ b: [Double]) -> [Double] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
/// Inside a convex ring (lat, lng) given counter-clockwise: left of every edge.
func insideConvex(_ ring: [(Double, Double)]) -> ([Double]) -> Bool {
    let v = ring.map { vector($0.0, $0.1) }
    return { p in v.indices.allSatisfy { dot(cross(v[$0], v[($0 + 1) % v.count]), p) > 0 } }
}

let places = realm.objects(Place.self)
let half = n / 2
time("scan baseline: rank < N/2 (no index)", expected: half) { places.filter("rank < %@", half) }
time("link baseline: location.type == 'Point'", expected: n) { places.filter("location.type == 'Point'") }
let box = GeoBox(bottomLeft: (48, 0), topRight: (52, 10))!
let boxRing = [(48.0, 0.0), (48, 10), (52, 10), (52, 0)]
time("box 4°x10° (where {})", expected: expected(insideConvex(boxRing))) { places.where { $0.location.geoWithin(box) } }
time("box 4°x10° (GEOWITHIN geoBox literal)", expected: expected(insideConvex(boxRing))) {
    places.filter("location GEOWITHIN geoBox([0, 48], [10, 52])")
}
let centre = vector(50, 10)
let radius = Distance.kilometers(300)!.radians
time("circle 300 km", expected: expected { dot($0, centre) >= cos(radius) }) {
    places.filter("location GEOWITHIN %@", GeoCircle(center: (50, 10), radius: .kilometers(300)!)!)
}
// An octagon around (50°N, 10°E), counter-clockwise.
let octagon = (0..<8).map { k -> (Double, Double) in
    let angle = Double(k) * .pi / 4
    return (50 + 4 * sin(angle), 10 + 6 * cos(angle))
}
time("octagon (8 edges)", expected: expected(insideConvex(octagon))) {
    places.filter("location GEOWITHIN %@", GeoPolygon(outerRing: octagon + [octagon[0]])!)
}
let hole = [(49.0, 9.0), (49, 11), (51, 11), (51, 9)]
let insideOctagon = insideConvex(octagon), insideHole = insideConvex(hole)
time("octagon with a square hole", expected: expected { insideOctagon($0) && !insideHole($0) }) {
    places.filter("location GEOWITHIN %@", GeoPolygon(outerRing: octagon + [octagon[0]], holes: [hole + [hole[0]]])!)
}
