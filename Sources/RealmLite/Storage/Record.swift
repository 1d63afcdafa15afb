// The record format: one B+ tree value per object, O(1) access to any field.
//
//   [generation: u8]                      absent in classes stored before
//                                         format 3 (RecordGenerations.swift)
//   [null bitmap: ceil(n/8) bytes]        bit i set = stored column i is nil
//   [fixed slots]                          scalars and link keys, little-endian
//   [var end offsets: u32 x nvar]          end of var field j, relative to var data
//   [var data]                             strings, data, decimals, collections
//
// Column order, slot offsets and var indexes come from the class's stored
// schema (ClassInfo), so a field read is: one bit test plus one unaligned
// load, or two u32 loads for a variable-size field. FileLayout.swift has the
// whole file's layout; docs/OBJECTS.md says why.

@usableFromInline
struct RecordLayout: Sendable {
    @usableFromInline let columnCount: Int
    /// 1 when records start with their generation byte, else 0. Slot
    /// offsets and null bits count it: they are from the record's start.
    @usableFromInline let headerSize: Int
    @usableFromInline let nullBytes: Int
    @usableFromInline let fixedSize: Int
    @usableFromInline let varCount: Int
    @inlinable var varTableStart: Int { headerSize + nullBytes + fixedSize }
    @inlinable var varDataStart: Int { headerSize + nullBytes + fixedSize + 4 * varCount }
}

/// Where one column lives in a record. Trivial, so hot reads copy no refs.
@usableFromInline
struct ColumnSlot: Sendable {
    /// Byte offset of the fixed slot, or the var-field index.
    @usableFromInline var offset: Int32
    /// Bit in the null bitmap (the column's storage position).
    @usableFromInline var nullBit: Int32
    /// Width of the fixed slot; 0 for var fields; `unstored` (linking
    /// objects) or `objectKey` (not in the record: see below).
    @usableFromInline var width: Int32

    @usableFromInline static var unstored: Int32 { -1 }
    /// The primary key of a class keyed by it: its value is the object key
    /// (objectKey(primaryKey:)), so readers take it from the key, never
    /// from the record (whose null bit and offset it does not have).
    @inlinable static var objectKey: Int32 { -2 }
}

/// A record read zero-copy from the map (or from a Swift buffer).
@usableFromInline
struct RecordView {
    @usableFromInline let base: UnsafeRawPointer
    @usableFromInline let size: Int

    @inlinable
    init(base: UnsafeRawPointer, size: Int) {
        self.base = base
        self.size = size
    }

    @inlinable @inline(__always)
    func isNull(_ slot: ColumnSlot) -> Bool {
        base.load(fromByteOffset: Int(slot.nullBit) >> 3, as: UInt8.self) & (1 << UInt8(slot.nullBit & 7)) != 0
    }

    @inlinable @inline(__always)
    func fixed(_ slot: ColumnSlot) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + Int(slot.offset), count: Int(slot.width))
    }

    @inlinable @inline(__always)
    func variable(_ index: Int, _ layout: RecordLayout) -> UnsafeRawBufferPointer {
        let table = layout.varTableStart
        let end = Int(base.loadUnaligned(fromByteOffset: table + 4 * index, as: UInt32.self))
        let start = index == 0 ? 0 : Int(base.loadUnaligned(fromByteOffset: table + 4 * (index - 1), as: UInt32.self))
        return UnsafeRawBufferPointer(start: base + layout.varDataStart + start, count: end - start)
    }

    /// The bytes of a column: the fixed slot, or the var field.
    @inlinable @inline(__always)
    func field(_ slot: ColumnSlot, _ layout: RecordLayout) -> UnsafeRawBufferPointer {
        slot.width > 0 ? fixed(slot) : variable(Int(slot.offset), layout)
    }
}

/// Builds a new record column by column, in storage order (var fields must be
/// appended in var-index order).
public struct _RecordWriter {
    var bytes: [UInt8]
    let layout: RecordLayout
    // unowned(unsafe): a writer lives only inside one insert call, which
    // holds both strongly; skipping the refcounting matters on every insert.
    unowned(unsafe) let info: ClassInfo
    unowned(unsafe) let realm: RealmCore
    private var nextVar = 0

    /// Starts a record in `buffer` (emptied; its capacity is reused).
    init(info: ClassInfo, realm: RealmCore, buffer: [UInt8] = []) {
        self.info = info
        self.realm = realm
        layout = info.layout
        bytes = buffer
        let start = layout.varDataStart
        if bytes.count < start {
            bytes.reserveCapacity(start + 64)
            bytes.append(contentsOf: repeatElement(0, count: start - bytes.count))
        } else if bytes.count > start {
            bytes.removeLast(bytes.count - start)
        }
        bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        if layout.headerSize > 0 { bytes[0] = info.generation }
    }

    /// Writes a column's value: nil, fixed-slot bytes or var-field bytes.
    mutating func write(_ column: Int, isNull: Bool, _ raw: UnsafeRawBufferPointer) {
        let slot = info.slots[column]
        if isNull { bytes[Int(slot.nullBit) >> 3] |= 1 << UInt8(slot.nullBit & 7) }
        if slot.width > 0 {
            if !isNull, raw.count > 0 {
                bytes.withUnsafeMutableBytes { dest in
                    (dest.baseAddress! + Int(slot.offset)).copyMemory(from: raw.baseAddress!, byteCount: min(raw.count, Int(slot.width)))
                }
            }
        } else if slot.width == 0 {
            // Retired var fields (RecordGenerations.swift) before this one are empty.
            if _slowPath(Int(slot.offset) > nextVar) { endVarFields(through: Int(slot.offset)) }
            precondition(Int(slot.offset) == nextVar, "RealmLite: var fields written out of order")
            if !isNull { bytes.appendRaw(raw) }
            endVarFields(through: nextVar + 1)
            if _slowPath(nextVar == info.lastLiveVarField + 1) { endVarFields(through: layout.varCount) }
        }
    }

    /// Ends var fields nextVar..<end at the current end of the record.
    private mutating func endVarFields(through end: Int) {
        let offset = UInt32(bytes.count - layout.varDataStart)
        while nextVar < end {
            withUnsafeBytes(of: offset.littleEndian) { endBytes in
                bytes.withUnsafeMutableBytes { dest in
                    (dest.baseAddress! + layout.varTableStart + 4 * nextVar).copyMemory(from: endBytes.baseAddress!, byteCount: 4)
                }
            }
            nextVar += 1
        }
    }

    mutating func write(_ column: Int, isNull: Bool, _ array: [UInt8]) {
        array.withUnsafeBytes { write(column, isNull: isNull, $0) }
    }
}

/// Copies `record` with one column replaced.
func replacingColumn(_ record: RecordView, _ slot: ColumnSlot, _ layout: RecordLayout,
                     isNull: Bool, _ raw: UnsafeRawBufferPointer) -> [UInt8] {
    var out: [UInt8] = []
    replacingColumn(record, slot, layout, isNull: isNull, raw, into: &out)
    return out
}

/// `record` with one column replaced, into `out` (emptied; its capacity is
/// reused: a loop rewriting many records allocates once).
func replacingColumn(_ record: RecordView, _ slot: ColumnSlot, _ layout: RecordLayout,
                     isNull: Bool, _ raw: UnsafeRawBufferPointer, into out: inout [UInt8]) {
    let old = UnsafeRawBufferPointer(start: record.base, count: record.size)
    out.removeAll(keepingCapacity: true)
    if slot.width > 0 {
        out.appendRaw(old)
        if !isNull, raw.count > 0 {
            out.withUnsafeMutableBytes { dest in
                (dest.baseAddress! + Int(slot.offset)).copyMemory(from: raw.baseAddress!, byteCount: min(raw.count, Int(slot.width)))
            }
        }
    } else {
        let index = Int(slot.offset)
        let oldField = record.variable(index, layout)
        let delta = (isNull ? 0 : raw.count) - oldField.count
        let fieldStart = oldField.baseAddress! - record.base
        out.reserveCapacity(record.size + delta)
        out.appendRaw(UnsafeRawBufferPointer(rebasing: old[0..<fieldStart]))
        if !isNull { out.appendRaw(raw) }
        out.appendRaw(UnsafeRawBufferPointer(rebasing: old[(fieldStart + oldField.count)...]))
        // Shift the end offsets of this and later var fields.
        out.withUnsafeMutableBytes { dest in
            for j in index..<layout.varCount {
                let at = layout.varTableStart + 4 * j
                let end = Int(dest.loadUnaligned(fromByteOffset: at, as: UInt32.self)) + delta
                dest.storeBytes(of: UInt32(end), toByteOffset: at, as: UInt32.self)
            }
        }
    }
    let byte = Int(slot.nullBit) >> 3, mask: UInt8 = 1 << UInt8(slot.nullBit & 7)
    if isNull { out[byte] |= mask } else { out[byte] &= ~mask }
}
