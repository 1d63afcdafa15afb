import Foundation

// Record generations: how a class's records change shape without being
// rewritten, as SQLite's ALTER TABLE ADD COLUMN does.
//
//   [generation: u8] [null bitmap] [fixed slots] [var end offsets] [var data]
//
// (Record.swift has the widths of the var end offsets: every generation of
// a class has the same rule, StoredClass.compactOffsets, and the same
// StoredClass.impliedLastEnd: a record of any generation omits its own last
// field's end; and StoredClass.boolBits: a non-optional Bool of any
// generation is its null bit.)
//
// A class's storage columns (StoredClass.storageProperties) only ever grow
// at the end: an added property appends a column, a removed one stays in
// the layout as a retired column that nothing reads. Each such change that
// adds columns appends a generation, G1..G3:
//
//   G1. generations[g] is how many storage columns (a prefix of today's)
//       records of generation g hold; the last generation is the current
//       one, and every record written holds it.
//   G2. A record of an older generation reads the columns it lacks from the
//       class's stored defaults record (StoredClass.defaults), which holds,
//       for each column, the value the program gave it when it was added.
//   G3. Readers never interpret an older record with the current layout:
//       every record taken from the engine goes through
//       RealmCore.currentRecord (or, in the engine, a filter checking the
//       generation byte), which upgrades an older one into a copy kept by
//       the transaction's ReadContext until the snapshot moves.
//
// Classes stored before format 3 have no generation byte (generations ==
// nil): their records are all current, and a migration that changes them
// rewrites them (then they get one). A class runs out of generations at
// 255; the next change rewrites its records and starts again at one.

/// Where each storage column lives in a record holding the first
/// `properties.count` storage columns.
struct PositionalLayout {
    let layout: RecordLayout
    /// Per storage position.
    let slots: ColumnSlots
    /// Per storage position, in the wide form (layout.wide): packed
    /// integers as 8-byte fixed slots. The same as slots without them.
    let wideSlots: ColumnSlots

    init<C: Collection>(_ properties: C, headerSize: Int, compactOffsets: Bool, intSlots: Bool = false, impliedLastEnd: Bool = false,
                        boolBits: Bool = false)
    where C.Element == StoredProperty {
        self.init(fixedWidths: properties.map { $0.collection == .none ? $0.type.fixedWidth : 0 },
                  ints: properties.map { $0.collection == .none && $0.type == .int },
                  bits: boolBits ? properties.map { $0.isBitBool } : [],
                  headerSize: headerSize, compactOffsets: compactOffsets, intSlots: intSlots, impliedLastEnd: impliedLastEnd)
    }

    /// The layout of records holding `properties` (a prefix of `stored`'s
    /// storage columns), with the class's record format flags.
    init<C: Collection>(_ properties: C, of stored: StoredClass) where C.Element == StoredProperty {
        self.init(properties, headerSize: stored.generations == nil ? 0 : 1, compactOffsets: stored.compactOffsets == true,
                  intSlots: stored.intSlots == true, impliedLastEnd: stored.impliedLastEnd == true, boolBits: stored.boolBits == true)
    }

    /// Per storage position: the fixed width (0: a var field) and whether
    /// the column is an integer. With `intSlots`, integer columns are
    /// packed after the other fixed slots (Record.swift, "Integer slots").
    /// `bits` (empty, or per position): the column is a Bool held in its
    /// null bit (Record.swift, "Bools in the null bitmap").
    init(fixedWidths: [Int], ints: [Bool], bits: [Bool] = [], headerSize: Int, compactOffsets: Bool, intSlots: Bool,
         impliedLastEnd: Bool = false) {
        let count = fixedWidths.count
        let intCount = intSlots ? ints.filter { $0 }.count : 0
        // Packed integers keep two spare bits in the null bitmap's last byte.
        let nullBytes = (count + (intCount > 0 ? 2 : 0) + 7) / 8
        var fixed = headerSize + nullBytes, varCount = 0, intIndex = 0
        var slots = ColumnSlots(capacity: count)
        for position in 0..<count {
            let nullBit = Int32(8 * headerSize + position)
            let width = fixedWidths[position]
            if !bits.isEmpty && bits[position] {
                slots.append(ColumnSlot(offset: nullBit, nullBit: nullBit, width: ColumnSlot.bitBool))
            } else if intCount > 0 && ints[position] {
                slots.append(ColumnSlot(offset: Int32(intIndex), nullBit: nullBit, width: ColumnSlot.packedInt))
                intIndex += 1
            } else if width > 0 {
                slots.append(ColumnSlot(offset: Int32(fixed), nullBit: nullBit, width: Int32(width)))
                fixed += width
            } else {
                slots.append(ColumnSlot(offset: Int32(varCount), nullBit: nullBit, width: 0))
                varCount += 1
            }
        }
        self.slots = slots
        var wide = ColumnSlots(capacity: count)
        for position in 0..<count {
            let slot = slots[position]
            wide.append(slot.width == ColumnSlot.packedInt
                ? ColumnSlot(offset: Int32(fixed) + 8 * slot.offset, nullBit: slot.nullBit, width: 8) : slot)
        }
        wideSlots = wide
        layout = RecordLayout(columnCount: count, headerSize: headerSize, nullBytes: nullBytes,
                              fixedSize: fixed - headerSize - nullBytes, varCount: varCount, compactOffsets: compactOffsets,
                              intCount: intCount, impliedLastEnd: impliedLastEnd)
    }
}

/// The ColumnSlot of each position, as (offset, nullBit, width) triples
/// in one [Int]: an array of ColumnSlot would be one more generic type for
/// a process's first open to build (every ClassInfo reads its layout here).
struct ColumnSlots {
    private var fields: [Int] = []

    init(capacity: Int) { fields.reserveCapacity(3 * capacity) }

    var count: Int { fields.count / 3 }

    subscript(position: Int) -> ColumnSlot {
        ColumnSlot(offset: Int32(fields[3 * position]), nullBit: Int32(fields[3 * position + 1]),
                   width: Int32(fields[3 * position + 2]))
    }

    mutating func append(_ slot: ColumnSlot) {
        fields.append(Int(slot.offset))
        fields.append(Int(slot.nullBit))
        fields.append(Int(slot.width))
    }
}

/// The generations of one class (G1), for upgrading older records (G2).
/// Present on a ClassInfo only when the class has more than one.
final class RecordGenerations: @unchecked Sendable {
    // @unchecked: immutable after init.
    let current: UInt8
    /// Per generation: its layout (the current one's is the class's).
    let layouts: [PositionalLayout]
    /// Per storage position: a retired column (written empty when upgrading).
    let retired: [Bool]
    /// The stored defaults record, in the current layout (G2).
    let defaults: [UInt8]

    init?(_ stored: StoredClass) {
        guard let generations = stored.generations, generations.count > 1 else { return nil }
        let properties = stored.storageProperties
        current = UInt8(generations.count - 1)
        layouts = generations.map { PositionalLayout(properties.prefix($0), of: stored) }
        retired = properties.map { $0.retired == true }
        defaults = stored.defaults.map { [UInt8]($0) } ?? []
    }

    /// `record` in the current layout; nil when it already is. Throws for a
    /// record whose generation byte or size the class cannot have.
    func upgrade(_ record: UnsafeRawBufferPointer) throws -> [UInt8]? {
        var result: [UInt8]?
        _ = try upgrade(record) { size in
            var out = [UInt8](repeating: 0, count: size)
            let written = out.withUnsafeMutableBytes { dest in self.write(record, into: dest) }
            precondition(written == size)
            result = out
            return true
        }
        return result
    }

    /// Upgrades `record` into memory `store` writes it to (given the
    /// size; it calls `write`); false when the record is already current.
    func upgrade(_ record: UnsafeRawBufferPointer, store: (Int) -> Bool) throws -> Bool {
        guard let first = record.first else { throw corrupt("an empty record") }
        if first == current { return false }
        guard Int(first) < layouts.count - 1 else { throw corrupt("a record of generation \(first)") }
        let old = layouts[Int(first)]
        guard record.count >= old.layout.minimumSize, defaults.count >= layouts.last!.layout.minimumSize else {
            throw corrupt("a record shorter than its layout")
        }
        return store(upgradedSize(record))
    }

    /// The size of `record` (of an older generation) in the current layout.
    private func upgradedSize(_ record: UnsafeRawBufferPointer) -> Int {
        let old = layouts[Int(record[0])], now = layouts.last!
        let view = RecordView(base: record.baseAddress!, size: record.count)
        return defaults.withUnsafeBytes { rawDefaults in
            let fallback = RecordView(base: rawDefaults.baseAddress!, size: rawDefaults.count)
            if now.layout.intCount > 0 {
                return view.packedUpgrade(generation: current, from: old, defaults: fallback, current: now, retired: retired).count
            }
            let data = view.varDataLength(from: old, defaults: fallback, current: now, retired: retired)
            return now.layout.varTableStart + now.layout.offsetWidth(dataLength: data) * now.layout.storedEnds + data
        }
    }

    /// Writes `record` (of an older generation) in the current layout to
    /// `dest` (room for upgradedSize); returns the bytes written.
    func write(_ record: UnsafeRawBufferPointer, into dest: UnsafeMutableRawBufferPointer) -> Int {
        let old = layouts[Int(record[0])], now = layouts.last!
        let view = RecordView(base: record.baseAddress!, size: record.count)
        return defaults.withUnsafeBytes { rawDefaults in
            view.write(into: dest, generation: current, from: old,
                       defaults: RecordView(base: rawDefaults.baseAddress!, size: rawDefaults.count),
                       current: now, retired: retired)
        }
    }

    private func corrupt(_ what: String) -> Realm.Error {
        Realm.Error(.fileFormatUpgradeRequired, "The Realm file holds \(what) of a class with \(layouts.count) record generations: the file is damaged (run `realmlite check`).")
    }

    /// The defaults record for a class given one more generation: `previous`
    /// (the last defaults, nil if the class had one generation) upgraded to
    /// `next`, whose newly added columns come from `prototype` (a record of
    /// the new layout holding the program's defaults).
    static func defaults(previous: StoredClass, next: StoredClass, prototype: [UInt8]) -> Data {
        guard let previousDefaults = previous.defaults, let generations = next.generations else { return Data(prototype) }
        let properties = next.storageProperties
        let oldCount = generations[generations.count - 2]
        let old = PositionalLayout(properties.prefix(oldCount), of: next)
        let current = PositionalLayout(properties, of: next)
        // The previous defaults hold the previous generation's columns; the
        // new ones come from the prototype.
        let retired = properties.map { $0.retired == true }
        var merged = [UInt8](repeating: 0, count: previousDefaults.count + prototype.count + current.layout.varTableStart + 4 * current.layout.varCount)
        let size = [UInt8](previousDefaults).withUnsafeBytes { raw in
            prototype.withUnsafeBytes { rawPrototype in
                merged.withUnsafeMutableBytes { dest in
                    RecordView(base: raw.baseAddress!, size: raw.count).write(
                        into: dest, generation: UInt8(generations.count - 1), from: old,
                        defaults: RecordView(base: rawPrototype.baseAddress!, size: rawPrototype.count),
                        current: current, retired: retired)
                }
            }
        }
        return Data(merged.prefix(size))
    }
}

extension RecordView {
    /// The bytes of var data this record (of layout `old`, a prefix of
    /// `current`) has in `current`, its missing columns from `defaults`.
    func varDataLength(from old: PositionalLayout, defaults fallback: RecordView, current: PositionalLayout, retired: [Bool]) -> Int {
        var length = 0
        for position in 0..<current.slots.count where current.slots[position].width == 0 && !retired[position] {
            let (source, slot, layout) = position < old.slots.count
                ? (self, old.slots[position], old.layout) : (fallback, current.slots[position], current.layout)
            if !source.isNull(slot) { length += source.variable(Int(slot.offset), layout).count }
        }
        return length
    }

    /// Writes this record (of layout `old`, a prefix of `current`) in
    /// `current` to `dest`: its own columns, then those of `defaults` (a
    /// record of `current`); retired columns are written nil. `dest` must
    /// have room (RecordGenerations.upgradedSize); returns the bytes written.
    /// Used by upgrades (G2).
    func write(into dest: UnsafeMutableRawBufferPointer, generation: UInt8, from old: PositionalLayout,
               defaults fallback: RecordView, current: PositionalLayout, retired: [Bool]) -> Int {
        guard current.layout.intCount > 0 else {
            return write(into: dest, generation: generation, from: old, defaults: fallback, current: current, retired: retired,
                         as: current.layout, current.slots)
        }
        let packed = packedUpgrade(generation: generation, from: old, defaults: fallback, current: current, retired: retired)
        packed.withUnsafeBytes { dest.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return packed.count
    }

    /// This record upgraded to `current`, which packs integers: built in
    /// the wide form, then packed.
    func packedUpgrade(generation: UInt8, from old: PositionalLayout, defaults fallback: RecordView,
                       current: PositionalLayout, retired: [Bool]) -> [UInt8] {
        let wide = current.layout.wide
        let data = varDataLength(from: old, defaults: fallback, current: current, retired: retired)
        var buffer = [UInt8](repeating: 0, count: wide.varTableStart + 4 * wide.varCount + data)
        let size = buffer.withUnsafeMutableBytes {
            write(into: $0, generation: generation, from: old, defaults: fallback, current: current, retired: retired,
                  as: wide, current.wideSlots)
        }
        return buffer.withUnsafeBytes { current.layout.packRecord(UnsafeRawBufferPointer(rebasing: $0[0..<size])) }
    }

    /// write(into:...) in `layout` with `targets` (current's own, or its
    /// wide form): fixed values are copied, packed integers widened.
    private func write(into dest: UnsafeMutableRawBufferPointer, generation: UInt8, from old: PositionalLayout,
                       defaults fallback: RecordView, current: PositionalLayout, retired: [Bool],
                       as layout: RecordLayout, _ targets: ColumnSlots) -> Int {
        let out = dest.baseAddress!
        let width = layout.offsetWidth(dataLength: varDataLength(from: old, defaults: fallback, current: current, retired: retired))
        let dataStart = layout.varTableStart + width * layout.storedEnds
        out.initializeMemory(as: UInt8.self, repeating: 0, count: dataStart)
        out.storeBytes(of: generation, as: UInt8.self)
        var end = dataStart
        for position in 0..<current.slots.count {
            let slot = targets[position]
            let (source, sourceSlot, sourceLayout) = position < old.slots.count
                ? (self, old.slots[position], old.layout) : (fallback, current.slots[position], current.layout)
            let isNull = retired[position] || source.isNull(sourceSlot)
            if slot.width == ColumnSlot.bitBool {
                // Its value is its bit; a retired one is written false.
                if !retired[position] && source.bit(sourceSlot.nullBit) { dest[Int(slot.nullBit) >> 3] |= 1 << UInt8(slot.nullBit & 7) }
            } else if isNull {
                dest[Int(slot.nullBit) >> 3] |= 1 << UInt8(slot.nullBit & 7)
            } else if sourceSlot.width == ColumnSlot.packedInt {
                (out + Int(slot.offset)).storeBytes(of: storedInt(source.field(sourceSlot, sourceLayout)).littleEndian, as: Int64.self)
            } else if slot.width > 0 {
                (out + Int(slot.offset)).copyMemory(from: source.base + Int(sourceSlot.offset), byteCount: Int(slot.width))
            } else {
                let field = source.variable(Int(sourceSlot.offset), sourceLayout)
                if field.count > 0 { (out + end).copyMemory(from: field.baseAddress!, byteCount: field.count) }
                end += field.count
            }
            if slot.width == 0 && Int(slot.offset) < layout.storedEnds {
                (out + layout.varTableStart + width * Int(slot.offset)).storeOffset(end - dataStart, width: width)
            }
        }
        return end
    }
}
