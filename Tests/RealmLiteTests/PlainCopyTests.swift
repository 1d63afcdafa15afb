import CStorage
import Foundation
import XCTest
@testable import RealmLite

// An insert copies Int, Int64, Double and Bool values straight from the
// instance into the record (ClassInfo.plainCopies); every other column goes
// through its accessor's encoder. The record must be the encoder's, byte
// for byte, whatever the mix of columns.

final class PlainMix: Object {
    @Persisted var flag = false
    @Persisted var name = ""
    @Persisted var int = 0
    @Persisted var small: Int32 = 0
    @Persisted var wide: Int64 = 0
    @Persisted var optInt: Int?
    @Persisted var double = 0.0
    @Persisted var note: String?
    @Persisted var optBool: Bool?
    @Persisted var last = true
}

final class PlainCopyTests: RealmTestCase {
    private func sample(_ i: Int) -> PlainMix {
        let o = PlainMix()
        let ints = [0, 1, -1, Int.min, Int.max, 1 << 40]
        o.flag = i % 2 == 1
        o.name = "n\(i)"
        o.int = ints[i % ints.count]
        o.small = Int32(truncatingIfNeeded: -i * 77)
        o.wide = Int64.min + Int64(i)
        o.optInt = i % 3 == 0 ? nil : i
        o.double = [0.0, -0.0, .infinity, -1.5, .nan, .leastNonzeroMagnitude][i % 6]
        o.note = i % 2 == 0 ? nil : "note \(i)"
        o.optBool = i % 3 == 1 ? nil : i % 2 == 0
        o.last = i % 4 != 0
        return o
    }

    func testPlainColumnsAreTheFixedIntDoubleAndBoolOnes() throws {
        let realm = try openRealm([PlainMix.self])
        let info = try realm.core.classInfo(for: PlainMix.self)
        let plainNames: Set = ["flag", "int", "wide", "double", "last"]
        let plain = info.storageOrder.filter { plainNames.contains(info.columns[$0].name) }
        XCTAssertEqual(plain.count, plainNames.count)
        XCTAssertEqual(info.encodedOrder, info.storageOrder.filter { !plainNames.contains(info.columns[$0].name) })
        // Into the writer's wide form: packed integers as 8-byte slots,
        // listed apart (the writer takes their width code as it copies).
        // Each list is (from, to, width) triples; a Bool held in its null
        // bit (flag, last) has width 0 and its bit as `to`.
        let ints = plain.filter { info.slots[$0].width == ColumnSlot.packedInt }
        let bits = plain.filter { info.slots[$0].width == ColumnSlot.bitBool }
        let others = plain.filter { info.slots[$0].width != ColumnSlot.packedInt && info.slots[$0].width != ColumnSlot.bitBool }
        XCTAssertEqual(ints.count, 2)
        XCTAssertEqual(bits.count, 2)

        func field(_ list: [Int], _ k: Int) -> [Int] { stride(from: k, to: list.count, by: 3).map { list[$0] } }
        let copied = plain.filter { info.slots[$0].width != ColumnSlot.packedInt }
        XCTAssertEqual(copied.count, others.count + bits.count)
        XCTAssertEqual(field(info.plainCopies, 1), copied.map { column in
            info.slots[column].width == ColumnSlot.bitBool ? Int(info.slots[column].nullBit) : Int(info.layout.wideSlot(info.slots[column]).offset)
        })
        XCTAssertEqual(field(info.plainCopies, 2), copied.map { max(0, Int(info.layout.wideSlot(info.slots[$0]).width)) })
        XCTAssertEqual(field(info.plainIntCopies, 1), ints.map { Int(info.layout.wideSlot(info.slots[$0]).offset) })
        XCTAssertEqual(field(info.plainIntCopies, 2), [8, 8])
    }

    func testInsertedRecordsEqualTheEncodersRecords() throws {
        let realm = try openRealm([PlainMix.self])
        let info = try realm.core.classInfo(for: PlainMix.self)
        for i in 0..<24 {
            let object = sample(i)
            // The record every column's encoder writes, before the insert binds the object.
            var writer = _RecordWriter(info: info, realm: realm.core)
            for column in info.storageOrder { try info.accessors[column].encodeUnmanaged(object, column: column, into: &writer) }
            let expected = writer.bytes
            try realm.write { realm.add(object) }
            let stored = try XCTUnwrap(realm.core.loadRecord(info, object._key))
            XCTAssertEqual(Array(UnsafeRawBufferPointer(start: stored.data, count: stored.size)), expected, "object \(i)")
            let back = sample(i)
            XCTAssertEqual(object.flag, back.flag)
            XCTAssertEqual(object.int, back.int)
            XCTAssertEqual(object.wide, back.wide)
            XCTAssertEqual(object.double.bitPattern, back.double.bitPattern)
            XCTAssertEqual(object.last, back.last)
            XCTAssertEqual(object.optInt, back.optInt)
            XCTAssertEqual(object.optBool, back.optBool)
            XCTAssertEqual(object.name, back.name)
        }
    }
}
