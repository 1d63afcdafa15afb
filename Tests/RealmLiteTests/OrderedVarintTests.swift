@testable import RealmLite
import XCTest

/// The order-preserving Int encoding of new tree collections (Storage/OrderedVarint.swift).
final class OrderedVarintTests: XCTestCase {
    func encode(_ value: Int64) -> [UInt8] {
        var out: [UInt8] = []
        OrderedVarint.append(value, to: &out)
        return out
    }

    func decode(_ bytes: [UInt8]) -> Int64? { bytes.withUnsafeBytes { OrderedVarint.decode($0) } }

    /// memcmp order, shorter first on a common prefix (the engine's key order).
    func less(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    /// Every value within `radius` of each edge, and the neighbours of each.
    func windows(radius: Int64) -> [Int64] {
        var out: [Int64] = []
        for edge in (TreeIntValues.edges + [Int(OrderedVarint.directMin), Int(OrderedVarint.directMax)]).map(Int64.init) {
            let low = edge < Int64.min + radius ? Int64.min : edge - radius
            let high = edge > Int64.max - radius ? Int64.max : edge + radius
            out += Array(low...high)
        }
        return Array(Set(out)).sorted()
    }

    func testLengthsAtEveryBoundary() {
        XCTAssertEqual(OrderedVarint.directMin, -32)
        XCTAssertEqual(OrderedVarint.directMax, 206)
        XCTAssertEqual(encode(-32), [0x09])
        XCTAssertEqual(encode(0), [0x29])
        XCTAssertEqual(encode(206), [0xF7])
        XCTAssertEqual(encode(207), [0xF8, 0x00])
        XCTAssertEqual(encode(462), [0xF8, 0xFF])
        XCTAssertEqual(encode(463), [0xF9, 0x00, 0x00])
        XCTAssertEqual(encode(-33), [0x08, 0xFF])
        XCTAssertEqual(encode(-288), [0x08, 0x00])
        XCTAssertEqual(encode(-289), [0x07, 0xFF, 0xFF])
        // Each length n + 1 reaches 256^n values past the one before.
        var high: Int64 = 206, low: Int64 = -32
        for n in 1...7 {
            let span = Int64(1) << (8 * Int64(n))
            XCTAssertEqual(encode(high + 1).count, n + 1, "first of \(n + 1) bytes above")
            XCTAssertEqual(encode(low - 1).count, n + 1, "first of \(n + 1) bytes below")
            high += span
            low -= span
            XCTAssertEqual(encode(high).count, n + 1, "last of \(n + 1) bytes above")
            XCTAssertEqual(encode(low).count, n + 1, "last of \(n + 1) bytes below")
        }
        XCTAssertEqual(encode(high + 1).count, 9)
        XCTAssertEqual(encode(low - 1).count, 9)
        XCTAssertEqual(encode(.max).count, OrderedVarint.maxLength)
        XCTAssertEqual(encode(.min).count, OrderedVarint.maxLength)
        XCTAssertEqual(encode(.min).first, 0x01)
        XCTAssertEqual(encode(.max).first, 0xFF)
    }

    /// Round trip and strict order of every neighbouring pair around every
    /// edge, and of every value in -70000...70000.
    func testRoundTripAndOrderExhaustivelyNearEdges() {
        let values = Array(Set(windows(radius: 300) + Array(-70_000...70_000))).sorted()
        var previous: [UInt8] = [OrderedVarint.nilByte]
        for value in values {
            let bytes = encode(value)
            XCTAssertEqual(decode(bytes), value)
            XCTAssertTrue(less(previous, bytes), "\(value) sorts after its predecessor (and nil)")
            previous = bytes
        }
    }

    func testRandomPairsCompareAsTheirValues() {
        var generator = SystemRandomNumberGenerator()
        // Magnitudes of every length: random bits shifted down by a random amount.
        func random() -> Int64 { Int64(bitPattern: generator.next()) >> Int64.random(in: 0...63, using: &generator) }
        for _ in 0..<100_000 {
            let a = random(), b = random()
            let ea = encode(a), eb = encode(b)
            XCTAssertEqual(less(ea, eb), a < b, "\(a) vs \(b)")
            XCTAssertEqual(ea == eb, a == b)
            XCTAssertEqual(decode(ea), a)
        }
    }

    /// Every 1- and 2-byte string, and random longer ones, either decodes
    /// to a value whose encoding is those bytes or is refused.
    func testEncodingIsCanonical() {
        var strings: [[UInt8]] = (0...255).map { [UInt8($0)] }
        for a in 0...255 { for b in 0...255 { strings.append([UInt8(a), UInt8(b)]) } }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50_000 {
            let count = Int.random(in: 3...10, using: &generator)
            strings.append((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        for bytes in strings {
            guard let value = decode(bytes) else { continue }
            XCTAssertEqual(encode(value), bytes, "\(bytes) decodes to \(value)")
        }
        for bad: [UInt8] in [[], [OrderedVarint.nilByte], [0x29, 0x00], [0xF8], [0xF8, 0x00, 0x00], [0x08],
                             [0xFF] + [UInt8](repeating: 0xFF, count: 8), [0x01] + [UInt8](repeating: 0x00, count: 8)] {
            XCTAssertNil(decode(bad), "\(bad)")
        }
        // The longest forms stop at Int64's ends.
        XCTAssertEqual(decode([0xFF, 0x7E, 0xFE, 0xFE, 0xFE, 0xFE, 0xFE, 0xFE, 0x30]), .max)
        XCTAssertNil(decode([0xFF, 0x7E, 0xFE, 0xFE, 0xFE, 0xFE, 0xFE, 0xFE, 0x31]))
        XCTAssertEqual(decode([0x01, 0x81, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x20]), .min)
        XCTAssertNil(decode([0x01, 0x81, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x1F]))
    }

    /// The id names the form: 8 bytes below compactIDBase, zigzag below
    /// orderedIDBase, ordered from it; each reads back its own bytes.
    func testCollectionIDNamesTheForm() {
        let optional = TreeElementEncoding(type: .int, optional: true, collection: .set)
        XCTAssertEqual(optional.forID(5), .plain)
        XCTAssertEqual(optional.forID(ListTree.compactIDBase).form, .zigzag)
        XCTAssertEqual(optional.forID(ListTree.orderedIDBase - 1).form, .zigzag)
        XCTAssertEqual(optional.forID(ListTree.orderedIDBase).form, .ordered)
        XCTAssertTrue(TreeElementEncoding(type: .string, optional: false, collection: .set).forID(ListTree.orderedIDBase).isPlain)
        let map = TreeElementEncoding(type: .int, optional: true, collection: .map)
        for value in [Int64.min, -33, -1, 0, 206, 207, .max] {
            let field: [UInt8] = [1] + withUnsafeBytes(of: value.littleEndian) { Array($0) }
            let entry = MapEntry(key: Array("k".utf8), value: field).encoded
            for encoding in [optional.forID(ListTree.compactIDBase), optional.forID(ListTree.orderedIDBase)] {
                XCTAssertEqual(encoding.stored(field).withUnsafeBytes { encoding.field($0) }, field)
            }
            XCTAssertEqual(optional.stored(field), encode(value))
            let ordered = map.forID(ListTree.orderedIDBase), zigzag = map.forID(ListTree.compactIDBase)
            XCTAssertEqual(ordered.stored(entry).withUnsafeBytes { ordered.field($0) }, entry)
            XCTAssertEqual(zigzag.stored(entry).withUnsafeBytes { zigzag.field($0) }, entry)
        }
        XCTAssertEqual(optional.stored([0]), [OrderedVarint.nilByte])
        XCTAssertEqual(optional.forID(ListTree.compactIDBase).stored([0]), [TreeElementEncoding.zigzagNilByte])
    }
}
