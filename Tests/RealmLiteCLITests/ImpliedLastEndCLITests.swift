import CStorage
import Foundation
import RealmLite
import XCTest

// realmlite and the implied last var end (object format 11): check applies
// the offset width rule to the stored ends and reads the last field to the
// record's end.

/// Two var fields, the second's end implied.
final class CLIPair: Object {
    @Persisted var a = ""
    @Persisted var b = ""
}

extension CLITests {
    /// A record whose var end offsets are wider than its size calls for
    /// (a second encoding of the same values, which set and change
    /// comparisons of bytes would tell apart) is reported (R3).
    func testCheckFindsOffsetsWiderThanTheRecordNeeds() throws {
        do { // the Realm closes at the end of the scope
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [CLIPair.self]))
            try realm.write { realm.create(CLIPair.self, value: ["a": "a", "b": "b"]) }
        }
        func put(_ record: [UInt8]) throws {
            try engineWrite { txn in
                var pairs: cs_tree = 0
                XCTAssertEqual(cs_tree_open(txn, "obj:CLIPair", 0, &pairs), 0)
                var key: [UInt8] = []
                withUnsafeBytes(of: UInt64(1).bigEndian) { key += $0 }
                key.withUnsafeBytes { k in
                    record.withUnsafeBytes { v in
                        XCTAssertEqual(cs_put(txn, pairs, cs_val(data: k.baseAddress, size: k.count), cs_val(data: v.baseAddress, size: v.count), 0), 0)
                    }
                }
            }
        }
        // generation, null bitmap, a's end (b's is the record's), a, b: 256
        // bytes with a u16 offset, 255 with a u8 one, so u8 it must be.
        var record: [UInt8] = [0, 0]
        withUnsafeBytes(of: UInt16(2).littleEndian) { record += $0 }
        record += Array("aa".utf8) + Array(repeating: UInt8(ascii: "b"), count: 250)
        try put(record)
        let r = try run(["check", path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.lines, ["\(path): R3 record layout: obj:CLIPair: object 1: var end offsets 2 bytes wide, but the record fits narrower ones (it has two encodings)"])
        // The same at u8, then with a's end past the data.
        record.remove(at: 3)
        try put(record)
        let clean = try run(["check", path])
        XCTAssertEqual(clean.status, 0, clean.stdout + clean.stderr)
        let d = try run(["dump", path, "--class", "CLIPair"])
        XCTAssertTrue(d.stdout.contains(String(repeating: "b", count: 250)), d.stdout)
        record[2] = 253
        try put(record)
        let past = try run(["check", path])
        XCTAssertEqual(past.status, 1)
        XCTAssertEqual(past.lines, ["\(path): R3 record layout: obj:CLIPair: object 1: variable field 0 ends at 253, outside 0...252"])
    }
}
