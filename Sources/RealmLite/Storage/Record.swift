// The record format: one B+ tree value per object, O(1) access to any field.
//
//   [generation: u8]                      absent in classes stored before
//                                         format 3 (RecordGenerations.swift)
//   [null bitmap: ceil(n/8) bytes]        bit i set = stored column i is nil
//                                         (a non-optional Bool's: true, boolBits)
//   [fixed slots]                          scalars and link keys, little-endian
//   [int slots: 2^c bytes x nint]          integers, in classes with intSlots
//   [var end offsets: w bytes x nvar]      end of var field j, relative to var
//                                         data; the last one omitted in classes
//                                         with impliedLastEnd
//   [var data]                             strings, data, decimals, collections
//
// w, the width of the end offsets, is 4 in classes stored before object
// format 7 (StoredClass.compactOffsets absent). Since, it follows from the
// record's size alone: 1 byte below 256, 2 below 65536, else 4, so a
// reader needs no header byte and a record has one encoding (the writer
// takes the narrowest width whose record size still maps to it).
//
// The last var field's end is the record's end in classes with
// StoredClass.impliedLastEnd (object format 11): every reader has the
// record's size, so k var fields store k - 1 end offsets, and reading the
// last field costs one compare instead of one load.
//
// Integer slots (classes with StoredClass.intSlots): every integer column
// is packed after the other fixed slots, 1, 2, 4 or 8 bytes wide by the
// record's widest value, little-endian two's complement. The width code c
// (width 2^c) is the top two bits of the null bitmap's last byte (the
// layout keeps two spare bits there), so no field's offset depends on a
// value before it: an integer is at intStart + (index << c), the var table
// at intStart + (nint << c), one byte load more than a fixed slot. The
// writer takes the narrowest width that holds every integer, so a record
// has one encoding. Slow paths work on the wide form (8-byte integers,
// u32 end offsets: RecordLayout.wide) and pack it (packRecord).
//
// Bools in the null bitmap (classes with StoredClass.boolBits, object
// format 12): a non-optional Bool property's null bit, which a required
// column never sets, holds its value, and it has no fixed slot: a read is
// the null-bit test, 1 byte less per record per such column. Optional
// Bools and Bools elsewhere (collections, AnyRealmValue) keep their byte.
// Column order, slot offsets and var indexes come from the class's stored
// schema (ClassInfo), so a field read is: one bit test plus one unaligned
// load, or two offset loads for a variable-size field. FileLayout.swift has
// the whole file's layout; docs/OBJECTS.md says why.

@usableFromInline
struct RecordLayout: Sendable {
    @usableFromInline let columnCount: Int
    /// 1 when records start with their generation byte, else 0. Slot
    /// offsets and null bits count it: they are from the record's start.
    @usableFromInline let headerSize: Int
    @usableFromInline let nullBytes: Int
    @usableFromInline let fixedSize: Int
    @usableFromInline let varCount: Int
    /// Var end offsets as wide as the record's size needs (object format
    /// 7); false: always u32.
    @usableFromInline let compactOffsets: Bool
    /// Packed integer slots after the `fixedSize` bytes of other fixed
    /// slots (0 unless the class has intSlots).
    @usableFromInline let intCount: Int
    /// Where the packed integer slots start (after the other fixed slots).
    @usableFromInline let intStart: Int
    /// How many var end offsets a record stores: varCount, or one fewer
    /// when the last field ends at the record's end (impliedLastEnd). So
    /// var field `storedEnds`, when there is one, is that last field.
    @usableFromInline let storedEnds: Int

    @inlinable
    init(columnCount: Int, headerSize: Int, nullBytes: Int, fixedSize: Int, varCount: Int, compactOffsets: Bool,
         intCount: Int = 0, impliedLastEnd: Bool = false) {
        self.columnCount = columnCount
        self.headerSize = headerSize
        self.nullBytes = nullBytes
        self.fixedSize = fixedSize
        self.varCount = varCount
        self.compactOffsets = compactOffsets
        self.intCount = intCount
        intStart = headerSize + nullBytes + fixedSize
        intCodeByte = headerSize + nullBytes - 1
        storedEnds = impliedLastEnd && varCount > 0 ? varCount - 1 : varCount
    }

    /// The var table in a record whose integers are 8 bytes wide: every
    /// record without packed integers, and the wide form of one with them.
    @inlinable var varTableStart: Int { intStart &+ 8 &* intCount }
    /// The byte whose top two bits are the width code of packed integers
    /// (stored: every packed read loads it).
    @usableFromInline let intCodeByte: Int
    /// The smallest record of this layout (every var field empty).
    var minimumSize: Int { intStart + intCount + (compactOffsets ? 1 : 4) * storedEnds }

    /// The same columns with 8-byte integers and every end offset a u32,
    /// what the slow paths edit; identical when there are no packed integers.
    var wide: RecordLayout {
        guard intCount > 0 else { return self }
        return RecordLayout(columnCount: columnCount, headerSize: headerSize, nullBytes: nullBytes,
                            fixedSize: fixedSize + 8 * intCount, varCount: varCount, compactOffsets: false)
    }

    /// `slot` in the wide form: a packed integer becomes an 8-byte slot
    /// (the other fixed slots and var indexes are the same in both).
    func wideSlot(_ slot: ColumnSlot) -> ColumnSlot {
        slot.width != ColumnSlot.packedInt ? slot : ColumnSlot(offset: Int32(intStart) + 8 * slot.offset, nullBit: slot.nullBit, width: 8)
    }

    /// The width code of `record`'s packed integers (0 without any).
    @inlinable @inline(__always)
    func intCode(of record: UnsafeRawPointer) -> Int {
        intCount == 0 ? 0 : Int(record.load(fromByteOffset: intCodeByte, as: UInt8.self) &>> 6)
    }

    /// The width of the var end offsets in a record of `size` bytes.
    @inlinable @inline(__always)
    func offsetWidth(recordSize size: Int) -> Int {
        // The same rule as cs_record_offset_width (cstorage.h), which the
        // engine's filters and the realmlite tool use.
        !compactOffsets ? 4 : size < 0x100 ? 1 : size < 0x10000 ? 2 : 4
    }

    /// The width a record with `dataLength` bytes of var data is written with.
    func offsetWidth(dataLength: Int, table: Int? = nil) -> Int {
        guard compactOffsets else { return 4 }
        let base = (table ?? varTableStart) + dataLength
        return base + storedEnds < 0x100 ? 1 : base + 2 * storedEnds < 0x10000 ? 2 : 4
    }
}

extension UnsafeMutableRawPointer {
    /// Stores a var end offset `width` bytes wide, little-endian.
    func storeOffset(_ value: Int, width: Int) {
        switch width {
        case 1: storeBytes(of: UInt8(value), as: UInt8.self)
        case 2: storeBytes(of: UInt16(value).littleEndian, as: UInt16.self)
        default: storeBytes(of: UInt32(value).littleEndian, as: UInt32.self)
        }
    }
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
    /// An integer in the packed slots (intSlots): `offset` is its index
    /// among them; its width is the record's (RecordView.packedInt).
    @inlinable static var packedInt: Int32 { -3 }
    /// A non-optional Bool held in its null bit (boolBits): `offset` and
    /// `nullBit` are that bit; it is never nil and has no slot.
    @inlinable static var bitBool: Int32 { -4 }

    /// The column's value is in the record (not linking objects, not the key).
    var inRecord: Bool { width >= 0 || width == ColumnSlot.packedInt || width == ColumnSlot.bitBool }
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

    /// Whether the column is nil: its null bit, except for a Bool held in
    /// that bit (never nil).
    @inlinable @inline(__always)
    func isNull(_ slot: ColumnSlot) -> Bool {
        slot.width != ColumnSlot.bitBool && bit(slot.nullBit)
    }

    /// Bit `index` of the record (a null bit, or a bitBool's value).
    @inlinable @inline(__always)
    func bit(_ index: Int32) -> Bool {
        base.load(fromByteOffset: Int(index) >> 3, as: UInt8.self) & (1 << UInt8(index & 7)) != 0
    }

    @inlinable @inline(__always)
    func fixed(_ slot: ColumnSlot) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + Int(slot.offset), count: Int(slot.width))
    }

    /// End offset `index` of a var table at `table` with offsets `width` bytes wide.
    @inlinable @inline(__always)
    func varEnd(_ table: Int, _ index: Int, _ width: Int) -> Int {
        switch width {
        case 1: return Int(base.load(fromByteOffset: table + index, as: UInt8.self))
        case 2: return Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: table + 2 * index, as: UInt16.self)))
        default: return Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: table + 4 * index, as: UInt32.self)))
        }
    }

    /// End offset `index` of a var table at `table` with offsets `width`
    /// bytes wide and the var data at `data`: stored, or the record's end
    /// for the layout's implied last field.
    @inlinable @inline(__always)
    func varEnd(_ table: Int, _ index: Int, _ width: Int, _ layout: RecordLayout, data: Int) -> Int {
        index == layout.storedEnds ? size &- data : varEnd(table, index, width)
    }

    /// The width code of packed integers (width 2^code bytes).
    @inlinable @inline(__always)
    func intCode(_ layout: RecordLayout) -> Int { layout.intCode(of: base) }

    /// Where the var table starts in this record.
    @inlinable @inline(__always)
    func varTable(_ layout: RecordLayout) -> Int {
        layout.intCount == 0 ? layout.varTableStart : layout.intStart &+ layout.intCount &<< intCode(layout)
    }

    /// Packed integer `index`'s bytes (1, 2, 4 or 8; loadInt widens them).
    @inlinable @inline(__always)
    func packedInt(_ index: Int, _ layout: RecordLayout) -> UnsafeRawBufferPointer {
        let code = intCode(layout)
        return UnsafeRawBufferPointer(start: base + (layout.intStart &+ index &<< code), count: 1 &<< code)
    }

    /// Packed integer `index`, sign-extended, of a record whose width code
    /// is `code` (intCode): no byte buffer to widen (the getters' path).
    /// One-byte integers first: small values are the common case.
    @inlinable @inline(__always)
    func packedIntValue(_ index: Int, _ layout: RecordLayout, code: Int) -> Int64 {
        let at = layout.intStart &+ index &<< code
        if _fastPath(code == 0) { return Int64(base.load(fromByteOffset: at, as: Int8.self)) }
        if code == 1 { return Int64(Int16(littleEndian: base.loadUnaligned(fromByteOffset: at, as: Int16.self))) }
        if code == 2 { return Int64(Int32(littleEndian: base.loadUnaligned(fromByteOffset: at, as: Int32.self))) }
        return Int64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: Int64.self))
    }

    @inlinable @inline(__always)
    func variable(_ index: Int, _ layout: RecordLayout) -> UnsafeRawBufferPointer {
        variable(index, layout, code: intCode(layout))
    }

    /// Var field `index` of a record whose width code is `code` (the
    /// getters pass the accessor's): without packed integers the table is
    /// at intStart, so there is no branch on the layout.
    @inlinable @inline(__always)
    func variable(_ index: Int, _ layout: RecordLayout, code: Int) -> UnsafeRawBufferPointer {
        let table = layout.intStart &+ layout.intCount &<< code, width = layout.offsetWidth(recordSize: size)
        let data = table &+ width &* layout.storedEnds
        let end = varEnd(table, index, width, layout, data: data)
        let start = index == 0 ? 0 : varEnd(table, index - 1, width)
        return UnsafeRawBufferPointer(start: base + data + start, count: end - start)
    }

    /// The bytes of a column: the fixed slot, or the var field; a Bool held
    /// in its bit reads as the byte it would have had (static storage).
    @inlinable @inline(__always)
    func field(_ slot: ColumnSlot, _ layout: RecordLayout) -> UnsafeRawBufferPointer {
        slot.width > 0 ? fixed(slot) : slot.width == 0 ? variable(Int(slot.offset), layout)
            : slot.width == ColumnSlot.packedInt ? packedInt(Int(slot.offset), layout) : boolByte(bit(slot.offset))
    }
}

/// Whether two fields of column `slot` hold the same value: a packed
/// integer's bytes depend on its record's width, so it compares by value.
func sameField(_ slot: ColumnSlot, _ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    slot.width == ColumnSlot.packedInt ? storedInt(a) == storedInt(b) : sameBytes(a, b)
}

/// Zero bytes a record writer grows its buffer from.
private let recordZeros = [UInt8](repeating: 0, count: 256)

/// Builds a new record column by column, in storage order (var fields must be
/// appended in var-index order).
public struct _RecordWriter {
    /// The record in its wide form (the layout's own without packed
    /// integers), its first `count` bytes: the bytes after them are stale.
    /// A reused buffer keeps its length, so an insert neither shrinks it
    /// nor grows it again (each a generic range replacement).
    private var wide: [UInt8]
    private var count = 0
    /// The wide form's layout.
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
        layout = info.wideLayout
        wide = buffer
        // Written with u32 end offsets; narrowed once the last is known.
        let start = layout.varTableStart + 4 * layout.varCount
        if wide.count < start {
            // Grow by one copy, not by appending a repeated element, which
            // goes byte by byte.
            wide.reserveCapacity(start + 64)
            let missing = start - wide.count
            if missing <= recordZeros.count {
                recordZeros.withUnsafeBufferPointer { wide.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<missing])) }
            } else {
                wide.append(contentsOf: repeatElement(0, count: missing))
            }
        }
        count = start
        if start > 0 { wide.withUnsafeMutableBytes { _ = $0.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: start) } }
        if layout.headerSize > 0 { wide[0] = info.generation }
        if info.lastLiveVarField < 0 && layout.varCount > 0 { endVarFields(through: layout.varCount) }
    }

    private var packed = false
    /// The width code of the integers written so far (they start zeroed).
    private var intCode = 0

    /// Packs the wide form in place, once: write no column after this.
    private mutating func pack() {
        if _slowPath(info.layout.intCount > 0 && !packed) {
            let length = count, code = intCode
            count = wide.withUnsafeMutableBytes { info.layout.packInPlace(UnsafeMutableRawBufferPointer(rebasing: $0[0..<length]), knownCode: code) }
            packed = true
        }
    }

    /// The record as stored (packed integers at their width); packs it.
    var bytes: [UInt8] {
        mutating get {
            pack()
            if wide.count > count { wide.removeLast(wide.count - count) }
            return wide
        }
    }

    /// `body` on the record as stored, packed without copying or shrinking
    /// the buffer (the insert path, which hands the buffer on: takeBuffer).
    mutating func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        pack()
        let length = count
        return wide.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }

    /// The buffer, for the next writer to reuse (its length and stale bytes
    /// included); the writer is empty after this.
    mutating func takeBuffer() -> [UInt8] {
        var buffer: [UInt8] = []
        swap(&buffer, &wide)
        count = 0
        return buffer
    }

    /// Writes a column's value: nil, fixed-slot bytes or var-field bytes
    /// (a packed integer's: any of its widths).
    mutating func write(_ column: Int, isNull: Bool, _ raw: UnsafeRawBufferPointer) {
        let slot = info.slots[column]
        if _fastPath(slot.width >= 0) {
            writeColumn(slot, isNull: isNull, raw)
        } else if slot.width == ColumnSlot.packedInt {
            let value = isNull || raw.isEmpty ? 0 : storedInt(raw)
            intCode = max(intCode, intWidthCode(value))
            withInt64Bytes(value) { writeColumn(info.layout.wideSlot(slot), isNull: isNull, $0) }
        } else if slot.width == ColumnSlot.bitBool {
            setBit(slot.offset, !isNull && !raw.isEmpty && raw[0] != 0)
        }
    }

    /// Sets or clears bit `index` (a bitBool's value).
    private mutating func setBit(_ index: Int32, _ value: Bool) {
        let mask: UInt8 = 1 << UInt8(index & 7)
        if value { wide[Int(index) >> 3] |= mask } else { wide[Int(index) >> 3] &= ~mask }
    }

    private mutating func writeColumn(_ slot: ColumnSlot, isNull: Bool, _ raw: UnsafeRawBufferPointer) {
        if isNull { wide[Int(slot.nullBit) >> 3] |= 1 << UInt8(slot.nullBit & 7) }
        if slot.width > 0 {
            if !isNull, raw.count > 0 {
                wide.withUnsafeMutableBytes { dest in
                    (dest.baseAddress! + Int(slot.offset)).copyMemory(from: raw.baseAddress!, byteCount: min(raw.count, Int(slot.width)))
                }
            }
        } else if slot.width == 0 {
            // Retired var fields (RecordGenerations.swift) before this one are empty.
            if _slowPath(Int(slot.offset) > nextVar) { endVarFields(through: Int(slot.offset)) }
            precondition(Int(slot.offset) == nextVar, "RealmLite: var fields written out of order")
            if !isNull { appendData(raw) }
            endVarFields(through: nextVar + 1)
            if _slowPath(nextVar == info.lastLiveVarField + 1) { endVarFields(through: layout.varCount) }
        }
    }

    /// Appends var data at the record's end: over stale bytes when the
    /// buffer is long enough, else the stale tail goes first.
    private mutating func appendData(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        let at = count
        if wide.count >= at + raw.count {
            wide.withUnsafeMutableBytes { ($0.baseAddress! + at).copyMemory(from: source, byteCount: raw.count) }
        } else {
            if wide.count > at { wide.removeLast(wide.count - at) }
            wide.appendRaw(raw)
        }
        count = at + raw.count
    }

    /// Ends var fields nextVar..<end at the current end of the record.
    private mutating func endVarFields(through end: Int) {
        guard nextVar < end else { return }
        let table = layout.varTableStart
        let offset = count - table - 4 * layout.varCount
        while nextVar < end {
            wide.withUnsafeMutableBytes { ($0.baseAddress! + table + 4 * nextVar).storeOffset(offset, width: 4) }
            nextVar += 1
        }
        if nextVar == layout.varCount && layout.compactOffsets { narrowOffsets(dataLength: offset) }
    }

    /// Rewrites the u32 end offsets at the width the record's size calls
    /// for, without the implied last one.
    private mutating func narrowOffsets(dataLength: Int) {
        let width = layout.offsetWidth(dataLength: dataLength)
        let table = layout.varTableStart, varCount = layout.varCount, stored = layout.storedEnds, length = count
        guard width < 4 || stored < varCount else { return }
        wide.withUnsafeMutableBytes { raw in
            let view = RecordView(base: UnsafeRawPointer(raw.baseAddress!), size: length)
            for j in 0..<stored { (raw.baseAddress! + table + width * j).storeOffset(view.varEnd(table, j, 4), width: width) }
            let data = table + 4 * varCount
            (raw.baseAddress! + table + width * stored).copyMemory(from: raw.baseAddress! + data, byteCount: dataLength)
        }
        count -= 4 * varCount - width * stored
    }

    /// Copies fixed values of 8 or 1 bytes from an unmanaged instance into
    /// their slots (ClassInfo.plainCopies and plainIntCopies: from, to,
    /// width triples; the record starts zeroed, so their null bits are
    /// already clear), taking the integers' width code in the same pass.
    /// Width 0: a Bool held in its null bit, bit `to` (clear until set here).
    mutating func copyPlain(from object: UnsafeRawPointer, _ copies: [Int], ints: [Int] = []) {
        var code = intCode
        wide.withUnsafeMutableBytes { dest in
            let base = dest.baseAddress!
            for i in stride(from: 0, to: copies.count, by: 3) {
                let from = copies[i], to = copies[i + 1]
                let width = copies[i + 2]
                if width == 8 {
                    (base + to).storeBytes(of: (object + from).loadUnaligned(as: UInt64.self), as: UInt64.self)
                } else if width == 1 {
                    (base + to).storeBytes(of: (object + from).load(as: UInt8.self), as: UInt8.self)
                } else {
                    let byte = base + to >> 3
                    byte.storeBytes(of: byte.load(as: UInt8.self) | ((object + from).load(as: UInt8.self) & 1) << UInt8(to & 7), as: UInt8.self)
                }
            }
            for i in stride(from: 0, to: ints.count, by: 3) {
                let value = (object + ints[i]).loadUnaligned(as: Int64.self)
                (base + ints[i + 1]).storeBytes(of: value, as: Int64.self)
                code = max(code, intWidthCode(value))
            }
        }
        intCode = code
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
    let byte = Int(slot.nullBit) >> 3, mask: UInt8 = 1 << UInt8(slot.nullBit & 7)
    if slot.width == ColumnSlot.bitBool {
        out.removeAll(keepingCapacity: true)
        out.appendRaw(UnsafeRawBufferPointer(start: record.base, count: record.size))
        if !isNull && !raw.isEmpty && raw[0] != 0 { out[byte] |= mask } else { out[byte] &= ~mask }
        return
    }
    if slot.width == ColumnSlot.packedInt {
        layout.replacingPackedInt(record, Int(slot.offset), isNull || raw.isEmpty ? 0 : storedInt(raw), into: &out)
        if isNull { out[byte] |= mask } else { out[byte] &= ~mask }
        return
    }
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
        // Packed integers keep their width: only the var data changes size.
        let table = record.varTable(layout), width = layout.offsetWidth(recordSize: record.size)
        let dataStart = table + width * layout.storedEnds
        let fieldStart = oldField.baseAddress! - record.base
        // The new size may call for another offset width.
        let newWidth = layout.offsetWidth(dataLength: record.size - dataStart + delta, table: table)
        out.reserveCapacity(record.size + delta + (newWidth - width) * layout.storedEnds)
        out.appendRaw(UnsafeRawBufferPointer(rebasing: old[0..<table]))
        out.append(contentsOf: repeatElement(0, count: newWidth * layout.storedEnds))
        out.withUnsafeMutableBytes { dest in
            for j in 0..<layout.storedEnds {
                let end = record.varEnd(table, j, width) + (j >= index ? delta : 0)
                (dest.baseAddress! + table + newWidth * j).storeOffset(end, width: newWidth)
            }
        }
        out.appendRaw(UnsafeRawBufferPointer(rebasing: old[dataStart..<fieldStart]))
        if !isNull { out.appendRaw(raw) }
        out.appendRaw(UnsafeRawBufferPointer(rebasing: old[(fieldStart + oldField.count)...]))
    }
    if isNull { out[byte] |= mask } else { out[byte] &= ~mask }
}
