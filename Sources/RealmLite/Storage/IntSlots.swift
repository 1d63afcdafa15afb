// Packing and unpacking records of classes with integer slots by value
// (Record.swift, "Integer slots"). The writer and the slow paths build the
// wide form (8-byte integers, u32 end offsets); packRecord makes the one
// encoding that is stored, unpackRecord gives the wide form back.

/// The width code (width 2^code bytes) that holds `value`.
@inline(__always)
func intWidthCode(_ value: Int64) -> Int {
    Int64(Int8(truncatingIfNeeded: value)) == value ? 0
        : Int64(Int16(truncatingIfNeeded: value)) == value ? 1
        : Int64(Int32(truncatingIfNeeded: value)) == value ? 2 : 3
}

extension RecordLayout {
    /// `wide`, a record in this layout's wide form, as stored: integers at
    /// the narrowest width that holds them all, end offsets at the width
    /// the packed size calls for. Nothing to do without packed integers.
    func packRecord(_ wide: UnsafeRawBufferPointer) -> [UInt8] {
        guard intCount > 0 else { return [UInt8](wide) }
        precondition(wide.count >= varTableStart + 4 * varCount, "RealmLite: a wide record shorter than its layout")
        let ints = (0..<intCount).map { Int64(littleEndian: wide.loadUnaligned(fromByteOffset: intStart + 8 * $0, as: Int64.self)) }
        let code = ints.reduce(0) { max($0, intWidthCode($1)) }, width = 1 << code
        let wideData = varTableStart + 4 * varCount, dataLength = wide.count - wideData
        let table = intStart + intCount << code
        let offsetWidth = offsetWidth(dataLength: dataLength, table: table)
        var out = [UInt8](repeating: 0, count: table + offsetWidth * varCount + dataLength)
        out.withUnsafeMutableBytes { dest in
            let base = dest.baseAddress!
            base.copyMemory(from: wide.baseAddress!, byteCount: intStart)
            base.storeBytes(of: base.load(fromByteOffset: intCodeByte, as: UInt8.self) & 0x3F | UInt8(code) << 6,
                            toByteOffset: intCodeByte, as: UInt8.self)
            for (i, value) in ints.enumerated() {
                withUnsafeBytes(of: value.littleEndian) { (base + intStart + i * width).copyMemory(from: $0.baseAddress!, byteCount: width) }
            }
            for j in 0..<varCount {
                let end = Int(UInt32(littleEndian: wide.loadUnaligned(fromByteOffset: varTableStart + 4 * j, as: UInt32.self)))
                (base + table + offsetWidth * j).storeOffset(end, width: offsetWidth)
            }
            if dataLength > 0 { (base + table + offsetWidth * varCount).copyMemory(from: wide.baseAddress! + wideData, byteCount: dataLength) }
        }
        return out
    }

    /// A stored record of this layout in its wide form (the code bits
    /// cleared), or nil when its sizes do not fit the layout.
    func unpackRecord(_ record: RecordView) -> [UInt8]? {
        guard intCount > 0 else { return [UInt8](UnsafeRawBufferPointer(start: record.base, count: record.size)) }
        guard record.size >= minimumSize else { return nil }
        let code = record.intCode(self), table = record.varTable(self)
        let width = offsetWidth(recordSize: record.size), data = table + width * varCount
        guard data <= record.size else { return nil }
        let dataLength = record.size - data
        var out = [UInt8](repeating: 0, count: varTableStart + 4 * varCount + dataLength)
        let valid = out.withUnsafeMutableBytes { dest -> Bool in
            let base = dest.baseAddress!
            base.copyMemory(from: record.base, byteCount: intStart)
            base.storeBytes(of: base.load(fromByteOffset: intCodeByte, as: UInt8.self) & 0x3F, toByteOffset: intCodeByte, as: UInt8.self)
            for i in 0..<intCount {
                let value = storedInt(UnsafeRawBufferPointer(start: record.base + intStart + i << code, count: 1 << code))
                (base + intStart + 8 * i).storeBytes(of: value.littleEndian, as: Int64.self)
            }
            var previous = 0
            for j in 0..<varCount {
                let end = record.varEnd(table, j, width)
                guard end >= previous, end <= dataLength else { return false }
                previous = end
                (base + varTableStart + 4 * j).storeOffset(end, width: 4)
            }
            if dataLength > 0 { (base + varTableStart + 4 * varCount).copyMemory(from: record.base + data, byteCount: dataLength) }
            return true
        }
        return valid ? out : nil
    }
}
