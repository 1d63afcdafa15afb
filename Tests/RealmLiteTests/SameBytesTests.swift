@testable import RealmLite
import XCTest

/// `sameBytes`, the one byte comparison behind the schema check, field
/// change detection and indexed lookups: equal only with equal lengths and
/// equal bytes, empty buffers included.
final class SameBytesTests: XCTestCase {
    func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { x in sameBytes(x, b) }
    }

    func testEqualityByLengthAndEveryByte() {
        XCTAssertTrue(same([], []))
        XCTAssertTrue(same([7], [7]))
        XCTAssertFalse(same([], [0]))
        XCTAssertFalse(same([0], []))
        XCTAssertFalse(same([1, 2, 3], [1, 2]))
        XCTAssertFalse(same([1, 2], [1, 2, 3]))
        let base = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        XCTAssertTrue(same(base, base))
        for i in [0, 1, 150, 298, 299] {
            var other = base
            other[i] ^= 0x80
            XCTAssertFalse(same(base, other), "a change at byte \(i) must be seen")
        }
    }

    func testNilBaseAddressOfAnEmptyBuffer() {
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        XCTAssertTrue(sameBytes(empty, empty))
        XCTAssertTrue(sameBytes(empty, [UInt8]()))
        [UInt8](repeating: 1, count: 4).withUnsafeBytes { XCTAssertFalse(sameBytes(empty, $0)) }
    }
}
