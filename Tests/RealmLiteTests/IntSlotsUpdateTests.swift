import Foundation
import XCTest
@testable import RealmLite

// A column update of a record with packed integers (replacingColumn): in
// place at the record's width when that stays the narrowest, else repacked
// once. The oracle is the record's wide form edited and packed again.

final class IntSlotsUpdateTests: XCTestCase {
    /// name (var), age (int), score (double), active (bool), extra (int), note (var).
    private let p = PositionalLayout(fixedWidths: [0, 8, 8, 1, 8, 0], ints: [false, true, false, false, true, false],
                                     headerSize: 1, compactOffsets: true, intSlots: true)

    /// The record `wide` (wide form) with column `c` set, packed: what an
    /// update must store. A nil integer is 0, as an insert writes it (so
    /// it never holds the record at a width).
    private func expected(_ wide: [UInt8], _ c: Int, isNull: Bool, _ raw: [UInt8]) -> [UInt8] {
        func replaced(_ record: [UInt8], isNull: Bool, _ raw: [UInt8]) -> [UInt8] {
            record.withUnsafeBytes { old in
                raw.withUnsafeBytes {
                    replacingColumn(RecordView(base: old.baseAddress!, size: old.count), p.wideSlots[c], p.layout.wide,
                                    isNull: isNull, $0)
                }
            }
        }
        var edited = wide
        if isNull && p.slots[c].width == ColumnSlot.packedInt { edited = replaced(edited, isNull: false, int(0)) }
        edited = replaced(edited, isNull: isNull, raw)
        return edited.withUnsafeBytes { p.layout.packRecord($0) }
    }

    private func int(_ v: Int64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }

    func testUpdatesMatchTheWideFormEditedAndPacked() {
        let ints: [Int64] = [0, 1, -1, 127, -128, 128, 300, -32768, 40000, -70000, 1 << 31, Int64(Int32.min) - 1, 1 << 40, .min, .max]
        var rng = SystemRandomNumberGenerator()
        // Start from a record with a long name (two-byte end offsets) and
        // a short one; apply random updates of every column, checking each.
        for start in ["", String(repeating: "n", count: 240)] {
            var stored = expected(wideOf(name: start, age: 5, extra: 0, note: "x"), 1, isNull: false, int(5))
            for step in 0..<400 {
                let c = [0, 1, 2, 3, 4, 5, 1, 4][Int.random(in: 0..<8, using: &rng)]
                let isNull = Int.random(in: 0..<10, using: &rng) == 0
                let raw: [UInt8]
                switch c {
                case 1, 4: raw = int(ints.randomElement(using: &rng)!)
                case 2: raw = withUnsafeBytes(of: Double(step).bitPattern.littleEndian) { Array($0) }
                case 3: raw = [UInt8(step & 1)]
                default: raw = Array(String(repeating: "v", count: [0, 3, 40, 250, 300].randomElement(using: &rng)!).utf8)
                }
                let wide = stored.withUnsafeBytes { p.layout.unpackRecord(RecordView(base: $0.baseAddress!, size: $0.count))! }
                let want = expected(wide, c, isNull: isNull, raw)
                let got = stored.withUnsafeBytes { old in
                    raw.withUnsafeBytes {
                        replacingColumn(RecordView(base: old.baseAddress!, size: old.count), p.slots[c], p.layout, isNull: isNull, $0)
                    }
                }
                XCTAssertEqual(got, want, "step \(step), column \(c), null \(isNull)")
                if got != want { return }
                stored = got
            }
        }
    }

    /// A record in the wide form with these values.
    private func wideOf(name: String, age: Int64, extra: Int64, note: String) -> [UInt8] {
        let layout = p.layout.wide, slots = p.wideSlots
        let a = Array(name.utf8), b = Array(note.utf8)
        var out = [UInt8](repeating: 0, count: layout.varTableStart + 8)
        out.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress!
            base.storeBytes(of: age.littleEndian, toByteOffset: Int(slots[1].offset), as: Int64.self)
            base.storeBytes(of: extra.littleEndian, toByteOffset: Int(slots[4].offset), as: Int64.self)
            base.storeBytes(of: UInt32(a.count).littleEndian, toByteOffset: layout.varTableStart, as: UInt32.self)
            base.storeBytes(of: UInt32(a.count + b.count).littleEndian, toByteOffset: layout.varTableStart + 4, as: UInt32.self)
        }
        return out + a + b
    }

    /// Same-width updates keep every other byte; a narrower value repacks
    /// the record when no other integer needs the width, a wider one widens it.
    func testWidthFollowsTheWidestIntegerAfterAnUpdate() {
        let wide = wideOf(name: "ab", age: 40000, extra: 3, note: "")
        let stored = expected(wide, 4, isNull: false, int(3))
        func update(_ record: [UInt8], _ c: Int, _ v: Int64) -> [UInt8] {
            record.withUnsafeBytes { old in
                int(v).withUnsafeBytes {
                    replacingColumn(RecordView(base: old.baseAddress!, size: old.count), p.slots[c], p.layout, isNull: false, $0)
                }
            }
        }
        func code(_ r: [UInt8]) -> Int { r.withUnsafeBytes { p.layout.intCode(of: $0.baseAddress!) } }
        XCTAssertEqual(code(stored), 2)
        let same = update(stored, 4, 70000)
        XCTAssertEqual(same.count, stored.count)
        XCTAssertEqual(code(same), 2)
        let narrower = update(stored, 1, 7)
        XCTAssertEqual(code(narrower), 0)
        XCTAssertEqual(narrower.count, stored.count - 2 * 3)
        let wider = update(narrower, 4, 1 << 40)
        XCTAssertEqual(code(wider), 3)
        XCTAssertEqual(wider.count, narrower.count + 2 * 7)
        XCTAssertEqual(update(wider, 4, 3), narrower)
    }
}
