// Order-preserving key encodings for the primary-key and index trees: the
// memcmp order of the encoded keys is the natural order of the values, so
// range scans and sorted walks (queries, issue 6) need no decoding.
//
//   nil            0x00
//   value          0x01 body
//     int          8 bytes big-endian, sign bit flipped
//     bool         1 byte
//     date/double  8 bytes big-endian of the IEEE bits, negatives inverted
//     string/data  bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x01
//     objectId     12 bytes as stored (big-endian)
//     uuid         16 bytes
//
// Index keys append the object key (8 bytes big-endian) so that equal values
// are distinct entries; primary keys map the value to the object key.

import CStorage

/// Longest value encoding kept in an index key (the key also holds the
/// object key). Longer strings are truncated in indexes: the index then
/// narrows candidates and the query re-checks the record.
let maxIndexedValueBytes = Int(CS_MAX_KEY) - 8

func indexKey(_ type: PropertyType, isNull: Bool, _ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    if isNull { return [0] }
    switch type {
    case .int:
        return tagged64(UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) ^ (1 << 63))
    case .date, .double:
        let bits = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        return tagged64(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
    default:
        break
    }
    var out: [UInt8] = [1]
    out.reserveCapacity(bytes.count + 11)
    switch type {
    case .bool:
        out.append(bytes[0])
    case .string, .data:
        for byte in bytes {
            out.append(byte)
            if byte == 0 { out.append(0xFF) }
        }
        out.append(0)
        out.append(1)
    default:
        out.appendRaw(bytes)
    }
    if out.count > maxIndexedValueBytes { out.removeLast(out.count - maxIndexedValueBytes) }
    return out
}

/// 0x01 then 8 bytes big-endian, in one allocation.
@inline(__always)
private func tagged64(_ value: UInt64) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: 17) { buffer, count in
        buffer[0] = 1
        UnsafeMutableRawPointer(buffer.baseAddress! + 1).storeBytes(of: value.bigEndian, as: UInt64.self)
        count = 9
    }
}

func appendBigEndian(_ value: UInt64, to out: inout [UInt8]) {
    var be = value.bigEndian
    withUnsafeBytes(of: &be) { out.append(contentsOf: $0) }
}
