import Foundation
import XCTest
@testable import RealmLite

// Integer slots by value (Record.swift, "Integer slots"): the layout packs
// integer columns after the other fixed slots, packRecord stores them at
// the record's narrowest width, reads follow the width code.

final class IntSlotsTests: XCTestCase {
    /// Person's storage columns: name, age, score, active (the primary key
    /// is the object key), plus a second Int after the var field.
    private func personLayout(intSlots: Bool) -> PositionalLayout {
        PositionalLayout(fixedWidths: [0, 8, 8, 1, 8], ints: [false, true, false, false, true],
                         headerSize: 1, compactOffsets: true, intSlots: intSlots)
    }

    /// A record in `layout`'s wide form.
    private func wideRecord(_ p: PositionalLayout, name: String, age: Int64, score: Double, active: Bool, extra: Int64,
                            nulls: [Int] = []) -> [UInt8] {
        let layout = p.layout.wide, slots = p.wideSlots
        let nameBytes = Array(name.utf8)
        var out = [UInt8](repeating: 0, count: layout.varTableStart + 4 * layout.varCount + nameBytes.count)
        out[0] = 7
        out.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress!
            base.storeBytes(of: age.littleEndian, toByteOffset: Int(slots[1].offset), as: Int64.self)
            base.storeBytes(of: score.bitPattern.littleEndian, toByteOffset: Int(slots[2].offset), as: UInt64.self)
            base.storeBytes(of: active ? 1 : 0, toByteOffset: Int(slots[3].offset), as: UInt8.self)
            base.storeBytes(of: extra.littleEndian, toByteOffset: Int(slots[4].offset), as: Int64.self)
            base.storeBytes(of: UInt32(nameBytes.count).littleEndian, toByteOffset: layout.varTableStart, as: UInt32.self)
        }
        out.replaceSubrange(layout.varTableStart + 4..<out.count, with: nameBytes)
        for column in nulls {
            let bit = Int(p.slots[column].nullBit)
            out[bit >> 3] |= 1 << UInt8(bit & 7)
        }
        return out
    }

    func testLayoutPacksIntegersAfterTheOtherFixedSlots() {
        let p = personLayout(intSlots: true)
        XCTAssertEqual(p.slots.all.map(\.width), [0, ColumnSlot.packedInt, 8, 1, ColumnSlot.packedInt])
        XCTAssertEqual(p.slots.all.map(\.offset), [0, 0, 2, 10, 1])
        XCTAssertEqual(p.layout.intStart, 11)
        XCTAssertEqual(p.layout.intCount, 2)
        XCTAssertEqual(p.layout.intCodeByte, 1)
        XCTAssertEqual(p.wideSlots[1].offset, 11)
        XCTAssertEqual(p.wideSlots[4].offset, 19)
        // Without intSlots the layout is the one every older class has.
        let plain = personLayout(intSlots: false)
        XCTAssertEqual(plain.slots.all.map(\.offset), [0, 2, 10, 18, 19])
        XCTAssertEqual(plain.layout.intCount, 0)
        XCTAssertEqual(plain.layout.varTableStart, 27)
        XCTAssertEqual(plain.wideSlots.all.map(\.offset), plain.slots.all.map(\.offset))
    }

    /// Seven columns leave one spare bit in the null byte: the width code
    /// needs two, so the bitmap grows a byte.
    func testNullBitmapKeepsTwoSpareBits() {
        let seven = PositionalLayout(fixedWidths: Array(repeating: 8, count: 7), ints: Array(repeating: true, count: 7),
                                     headerSize: 1, compactOffsets: true, intSlots: true)
        XCTAssertEqual(seven.layout.nullBytes, 2)
        let six = PositionalLayout(fixedWidths: Array(repeating: 8, count: 6), ints: Array(repeating: true, count: 6),
                                   headerSize: 1, compactOffsets: true, intSlots: true)
        XCTAssertEqual(six.layout.nullBytes, 1)
        let noInts = PositionalLayout(fixedWidths: Array(repeating: 1, count: 8), ints: Array(repeating: false, count: 8),
                                      headerSize: 1, compactOffsets: true, intSlots: true)
        XCTAssertEqual(noInts.layout.nullBytes, 1)
    }

    func testPackedRecordsReadBackAtEachWidth() {
        let p = personLayout(intSlots: true)
        let cases: [(Int64, Int64, Int)] = [(42, 0, 1), (-128, 127, 1), (128, -1, 2), (-32768, 5, 2), (40000, 0, 4),
                                            (Int64(Int32.min), 1, 4), (1 << 40, 0, 8), (Int64.min, Int64.max, 8)]
        for (age, extra, width) in cases {
            let wide = wideRecord(p, name: "name12345", age: age, score: 2.5, active: true, extra: extra)
            let packed = wide.withUnsafeBytes { p.layout.packRecord($0) }
            // generation, null byte, score, active, two ints, one end offset, name
            XCTAssertEqual(packed.count, 1 + 1 + 8 + 1 + 2 * width + 1 + 9, "age \(age)")
            packed.withUnsafeBytes { raw in
                let view = RecordView(base: raw.baseAddress!, size: raw.count)
                XCTAssertEqual(1 << view.intCode(p.layout), width)
                XCTAssertEqual(storedInt(view.field(p.slots[1], p.layout)), age)
                XCTAssertEqual(storedInt(view.field(p.slots[4], p.layout)), extra)
                let code = p.layout.intCode(of: raw.baseAddress!)
                XCTAssertEqual(view.packedIntValue(Int(p.slots[1].offset), p.layout, code: code), age)
                XCTAssertEqual(view.packedIntValue(Int(p.slots[4].offset), p.layout, code: code), extra)
                XCTAssertEqual(Int._rlmLoad(view.field(p.slots[1], p.layout)), Int(age))
                XCTAssertEqual(Double._rlmLoad(view.field(p.slots[2], p.layout)), 2.5)
                XCTAssertEqual(Bool._rlmLoad(view.field(p.slots[3], p.layout)), true)
                XCTAssertEqual(String(decoding: view.field(p.slots[0], p.layout), as: UTF8.self), "name12345")
                XCTAssertFalse(view.isNull(p.slots[1]))
                XCTAssertEqual(p.layout.unpackRecord(view), wide, "age \(age)")
            }
        }
    }

    func testWidthCodeLeavesNullBitsAlone() {
        let p = personLayout(intSlots: true)
        let wide = wideRecord(p, name: "", age: 1 << 33, score: 0, active: false, extra: 0, nulls: [0, 1, 2, 3, 4])
        let packed = wide.withUnsafeBytes { p.layout.packRecord($0) }
        packed.withUnsafeBytes { raw in
            let view = RecordView(base: raw.baseAddress!, size: raw.count)
            XCTAssertEqual(view.intCode(p.layout), 3)
            for slot in p.slots.all { XCTAssertTrue(view.isNull(slot)) }
            XCTAssertEqual(view.field(p.slots[0], p.layout).count, 0)
            XCTAssertEqual(p.layout.unpackRecord(view), wide)
        }
    }

    /// The end offsets' width follows the packed size: a record that needs
    /// u16 offsets with 8-byte integers needs only u8 once they are packed.
    func testOffsetsNarrowAfterIntegersPack() {
        let p = personLayout(intSlots: true)
        let name = String(repeating: "x", count: 230)
        let wide = wideRecord(p, name: name, age: 3, score: 0, active: false, extra: 4)
        XCTAssertGreaterThan(wide.count, 256)
        let packed = wide.withUnsafeBytes { p.layout.packRecord($0) }
        XCTAssertEqual(packed.count, 11 + 2 + 1 + 230)
        packed.withUnsafeBytes { raw in
            let view = RecordView(base: raw.baseAddress!, size: raw.count)
            XCTAssertEqual(String(decoding: view.field(p.slots[0], p.layout), as: UTF8.self), name)
            XCTAssertEqual(p.layout.unpackRecord(view), wide)
        }
    }

    func testUnpackRefusesRecordsThatDoNotFitTheLayout() {
        let p = personLayout(intSlots: true)
        let wide = wideRecord(p, name: "abc", age: 300, score: 0, active: false, extra: 0)
        var packed = wide.withUnsafeBytes { p.layout.packRecord($0) }
        packed[1] |= 0xC0 // claims 8-byte integers: the table then lies past the end
        packed.withUnsafeBytes { raw in
            XCTAssertNil(p.layout.unpackRecord(RecordView(base: raw.baseAddress!, size: raw.count)))
        }
        let short = [UInt8](repeating: 0, count: 5)
        short.withUnsafeBytes { raw in
            XCTAssertNil(p.layout.unpackRecord(RecordView(base: raw.baseAddress!, size: raw.count)))
        }
    }

    func testPackingWithoutIntegerSlotsKeepsTheBytes() {
        let p = personLayout(intSlots: false)
        let wide = wideRecord(p, name: "abc", age: 1, score: 0, active: true, extra: 2)
        XCTAssertEqual(wide.withUnsafeBytes { p.layout.packRecord($0) }, wide)
    }
}

/// The getters read packed integers by value (`_rlmLoadKeyOrPacked`): every
/// integer type, required and optional, at the edges of each width.
final class IntSlotsGetterTests: RealmTestCase {
    func testGettersReadEachIntegerTypeAtEachWidth() throws {
        let realm = try openRealm()
        let edges: [Int64] = [0, -1, 127, -128, 128, -129, 32767, -32768, 32768, Int64(Int32.min), Int64(Int32.max) + 1, .min, .max]
        try realm.write {
            for (i, edge) in edges.enumerated() {
                let o = AllTypes()
                o.int = Int(edge)
                o.int8 = Int8(truncatingIfNeeded: edge)
                o.int16 = Int16(truncatingIfNeeded: edge)
                o.int32 = Int32(truncatingIfNeeded: edge)
                o.int64 = edge
                o.optInt = i % 2 == 0 ? nil : Int(edge)
                o.optInt8 = Int8(truncatingIfNeeded: edge)
                o.optInt64 = i % 2 == 0 ? edge : nil
                o.color = .blue
                o.string = "s\(i)"
                realm.add(o)
            }
        }
        let objects = Array(realm.objects(AllTypes.self))
        XCTAssertEqual(objects.count, edges.count)
        for (i, o) in objects.enumerated() {
            let edge = edges[i]
            XCTAssertEqual(o.int, Int(edge), "object \(i)")
            XCTAssertEqual(o.int8, Int8(truncatingIfNeeded: edge))
            XCTAssertEqual(o.int16, Int16(truncatingIfNeeded: edge))
            XCTAssertEqual(o.int32, Int32(truncatingIfNeeded: edge))
            XCTAssertEqual(o.int64, edge)
            XCTAssertEqual(o.optInt, i % 2 == 0 ? nil : Int(edge))
            XCTAssertEqual(o.optInt8, Int8(truncatingIfNeeded: edge))
            XCTAssertEqual(o.optInt64, i % 2 == 0 ? edge : nil)
            XCTAssertEqual(o.color, .blue)
            XCTAssertEqual(o.string, "s\(i)")
        }
    }
}

extension ColumnSlots {
    /// Every position's slot, for assertions.
    var all: [ColumnSlot] { (0..<count).map { self[$0] } }
}
