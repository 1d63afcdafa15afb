import CStorage
import Foundation
import XCTest

// realmlite and packed integer slots (object format 10): check rejects a
// record whose integers are wider than its values need.

extension CLITests {
    /// Packed integers (object format 10) wider than the record's values
    /// need: a second encoding, which check reports.
    func testCheckFindsIntegersWiderThanTheRecordNeeds() throws {
        try makeFile()
        try engineWrite { txn in
            var owners: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, "obj:CLIOwner", 0, &owners), 0)
            // Owner 1 (age 32): generation, 2 null bytes (the second holds the
            // width code), born, best, address, then age in 1 byte at 27.
            var key: [UInt8] = []
            withUnsafeBytes(of: (UInt64(1) ^ (1 << 63)).bigEndian) { key += $0 }
            var value = cs_val()
            key.withUnsafeBytes { k in XCTAssertEqual(cs_get(txn, owners, cs_val(data: k.baseAddress, size: k.count), &value), 0) }
            let old = [UInt8](UnsafeRawBufferPointer(start: value.data, count: value.size))
            XCTAssertEqual(old[2] >> 6, 0, "1-byte integers")
            XCTAssertEqual(old[27], 32)
            var record = Array(old[0..<27]) + [32, 0] + old[28...]
            record[2] |= 1 << 6
            key.withUnsafeBytes { k in
                record.withUnsafeBytes { v in
                    XCTAssertEqual(cs_put(txn, owners, cs_val(data: k.baseAddress, size: k.count), cs_val(data: v.baseAddress, size: v.count), 0), 0)
                }
            }
        }
        let r = try run(["check", path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.lines.count, 1, r.stdout)
        XCTAssertTrue(r.stdout.contains("integers 2 bytes wide, but they need 1 (the record has one encoding)"), r.stdout)
    }
}
