// Packing and unpacking records of classes with integer slots by value
// (Record.swift, "Integer slots"). The writer and the slow paths build the
// wide form (8-byte integers, every end offset a u32); packRecord makes the one
// encoding that is stored, unpackRecord gives the wide form back.

import Foundation

/// The width code (width 2^code bytes) that holds `value`.
@inline(__always)
func intWidthCode(_ value: Int64) -> Int {
    Int64(Int8(truncatingIfNeeded: value)) == value ? 0
        : Int64(Int16(truncatingIfNeeded: value)) == value ? 1
        : Int64(Int32(truncatingIfNeeded: value)) == value ? 2 : 3
}

extension UnsafeMutableRawPointer {
    /// Stores `value` 2^code bytes wide, little-endian (truncated: the
    /// caller's code holds it).
    @inline(__always)
    func storePackedInt(_ value: Int64, code: Int) {
        switch code {
        case 0: storeBytes(of: Int8(truncatingIfNeeded: value), as: Int8.self)
        case 1: storeBytes(of: Int16(truncatingIfNeeded: value).littleEndian, as: Int16.self)
        case 2: storeBytes(of: Int32(truncatingIfNeeded: value).littleEndian, as: Int32.self)
        default: storeBytes(of: value.littleEndian, as: Int64.self)
        }
    }
}

extension RecordLayout {
    /// `wide`, a record in this layout's wide form, as stored (packInPlace).
    func packRecord(_ wide: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](wide)
        packInPlace(&out)
        return out
    }

    /// Packs `record` from this layout's wide form where it is: integers at
    /// the narrowest width that holds them all, end offsets at the width the
    /// packed size calls for. Everything moves down, so no byte is read after
    /// it is overwritten. Nothing to do without packed integers.
    /// `knownCode`: the width code of its integers when the writer already
    /// has it (computed as they were copied in), spared a pass over them.
    func packInPlace(_ record: inout [UInt8], knownCode: Int? = nil) {
        guard intCount > 0 else { return }
        let length = record.withUnsafeMutableBytes { packInPlace($0, knownCode: knownCode) }
        if length < record.count { record.removeLast(record.count &- length) }
    }

    /// packInPlace on the wide record `raw`; returns the packed record's
    /// length (the bytes after it are left as they were).
    func packInPlace(_ raw: UnsafeMutableRawBufferPointer, knownCode: Int? = nil) -> Int {
        guard intCount > 0 else { return raw.count }
        precondition(raw.count >= varTableStart &+ 4 &* varCount, "RealmLite: a wide record shorter than its layout")
        let base = raw.baseAddress!
        var code = knownCode ?? 0
        if knownCode == nil {
            for i in 0..<intCount {
                code = max(code, intWidthCode(Int64(littleEndian: base.loadUnaligned(fromByteOffset: intStart &+ 8 &* i, as: Int64.self))))
            }
        }
        base.storeBytes(of: base.load(fromByteOffset: intCodeByte, as: UInt8.self) & 0x3F | UInt8(code) << 6,
                        toByteOffset: intCodeByte, as: UInt8.self)
        let width = 1 << code
        // One loop per width: no switch per integer.
        switch code {
        case 0: narrowInts(base, to: UInt8.self)
        case 1: narrowInts(base, to: UInt16.self)
        case 2: narrowInts(base, to: UInt32.self)
        default: break
        }
        let wideData = varTableStart &+ 4 &* varCount, dataLength = raw.count &- wideData
        let table = intStart &+ intCount &* width
        let offsetWidth = offsetWidth(dataLength: dataLength, table: table)
        for j in 0..<storedEnds {
            let end = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: varTableStart &+ 4 &* j, as: UInt32.self)))
            (base + (table &+ offsetWidth &* j)).storeOffset(end, width: offsetWidth)
        }
        let data = table &+ offsetWidth &* storedEnds
        if dataLength > 0 && data != wideData { memmove(base + data, base + wideData, dataLength) }
        return data &+ dataLength
    }

    /// The wide form's 8-byte integers of `record` stored as `T`, from the
    /// first down (each lands at or before where it was read).
    @inline(__always)
    private func narrowInts<T: FixedWidthInteger>(_ record: UnsafeMutableRawPointer, to _: T.Type) {
        for i in 0..<intCount {
            let value = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: intStart &+ 8 &* i, as: UInt64.self))
            record.storeBytes(of: T(truncatingIfNeeded: value).littleEndian, toByteOffset: intStart &+ i &* MemoryLayout<T>.size, as: T.self)
        }
    }

    /// A stored record of this layout in its wide form (the code bits
    /// cleared), or nil when its sizes do not fit the layout.
    func unpackRecord(_ record: RecordView) -> [UInt8]? {
        guard intCount > 0 else { return [UInt8](UnsafeRawBufferPointer(start: record.base, count: record.size)) }
        guard record.size >= minimumSize else { return nil }
        let code = record.intCode(self), table = record.varTable(self)
        let width = offsetWidth(recordSize: record.size), data = table + width * storedEnds
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
                let end = record.varEnd(table, j, width, self, data: data)
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

extension RecordLayout {
    /// `record` with packed integer `index` set to `value`, into `out`
    /// (emptied): written in place at the record's width when that stays
    /// the narrowest holding every integer, else repacked once at the new
    /// width, wider or narrower (integers and end offsets; the var data
    /// moves as one block). The caller sets the null bit.
    func replacingPackedInt(_ record: RecordView, _ index: Int, _ value: Int64, into out: inout [UInt8]) {
        guard record.size >= minimumSize else { preconditionFailure("RealmLite: a record shorter than its layout") }
        let code = record.intCode(self)
        var newCode = intWidthCode(value)
        if newCode < code {
            // Narrower only if no other integer needs the record's width.
            for i in 0..<intCount where i != index {
                newCode = max(newCode, intWidthCode(record.packedIntValue(i, self, code: code)))
                if newCode == code { break }
            }
        }
        out.removeAll(keepingCapacity: true)
        if newCode == code {
            out.appendRaw(UnsafeRawBufferPointer(start: record.base, count: record.size))
            out.withUnsafeMutableBytes { ($0.baseAddress! + (intStart &+ index &<< code)).storePackedInt(value, code: code) }
            return
        }
        let table = intStart &+ intCount &<< code, width = offsetWidth(recordSize: record.size)
        let data = table &+ width &* storedEnds
        guard data <= record.size else { preconditionFailure("RealmLite: a record shorter than its layout") }
        let dataLength = record.size &- data
        let newTable = intStart &+ intCount &<< newCode
        let newWidth = offsetWidth(dataLength: dataLength, table: newTable)
        let newData = newTable &+ newWidth &* storedEnds
        out.append(contentsOf: repeatElement(0, count: newData &+ dataLength))
        out.withUnsafeMutableBytes { dest in
            let base = dest.baseAddress!
            base.copyMemory(from: record.base, byteCount: intStart)
            base.storeBytes(of: base.load(fromByteOffset: intCodeByte, as: UInt8.self) & 0x3F | UInt8(newCode) << 6,
                            toByteOffset: intCodeByte, as: UInt8.self)
            for i in 0..<intCount {
                let v = i == index ? value : record.packedIntValue(i, self, code: code)
                (base + (intStart &+ i &<< newCode)).storePackedInt(v, code: newCode)
            }
            for j in 0..<storedEnds { (base + (newTable &+ newWidth &* j)).storeOffset(record.varEnd(table, j, width), width: newWidth) }
            if dataLength > 0 { (base + newData).copyMemory(from: record.base + data, byteCount: dataLength) }
        }
    }
}
