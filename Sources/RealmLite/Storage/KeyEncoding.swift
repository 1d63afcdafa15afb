// Order-preserving key encodings for the primary-key and index trees: the
// memcmp order of the encoded keys is the natural order of the values, so
// range scans and sorted walks (queries) need no decoding.
//
//   nil            0x00
//   value          0x01 body
//     int          8 bytes big-endian, sign bit flipped
//     bool         1 byte
//     date/double  8 bytes big-endian of the IEEE bits, negatives inverted
//     string/data  bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x01
//     objectId     12 bytes as stored (big-endian)
//     uuid         16 bytes
//     mixed        type class, then the value as above (MixedCodec.swift)
//
// Index keys append the object key (8 bytes big-endian) so that equal values
// are distinct entries; primary keys map the value to the object key.

import CStorage

/// Longest value encoding kept in an index key (the key also holds the
/// object key). Longer strings are truncated in indexes: the index then
/// narrows candidates and the query re-checks the record.
let maxIndexedValueBytes = Int(CS_MAX_KEY) - 8

func indexKey(_ type: PropertyType, isNull: Bool, _ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    withIndexKey(type, isNull: isNull, bytes) { [UInt8]($0) }
}

/// Calls `body` with the index key of a value, encoded in a temporary
/// buffer (on the stack for all but very long strings): lookups need no
/// allocation.
@inline(__always)
func withIndexKey<R>(_ type: PropertyType, isNull: Bool, _ bytes: UnsafeRawBufferPointer,
                     _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    if isNull {
        var nilTag: UInt8 = 0
        return try withUnsafeBytes(of: &nilTag, body)
    }
    switch type {
    case .any:
        return try indexedMixedKey(bytes).withUnsafeBytes(body)
    case .int:
        return try withTagged64(UInt64(bitPattern: storedInt(bytes)) ^ (1 << 63), body)
    case .date, .double:
        let bits = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        return try withTagged64(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), body)
    default:
        break
    }
    // Strings and data at most double (escaped 0x00) plus tag and terminator.
    return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * bytes.count + 3) { out in
        out[0] = 1
        var count = 1
        switch type {
        case .bool:
            out[1] = bytes[0]
            count = 2
        case .string, .data:
            for byte in bytes {
                out[count] = byte
                count += 1
                if byte == 0 {
                    out[count] = 0xFF
                    count += 1
                }
            }
            out[count] = 0
            out[count + 1] = 1
            count += 2
        default:
            UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: out[1...])).copyMemory(from: bytes)
            count += bytes.count
        }
        return try body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: out[0..<min(count, maxIndexedValueBytes)])))
    }
}

/// 0x01 then 8 bytes big-endian.
@inline(__always)
private func withTagged64<R>(_ value: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 9) { out in
        out[0] = 1
        UnsafeMutableRawPointer(out.baseAddress! + 1).storeBytes(of: value.bigEndian, as: UInt64.self)
        return try body(UnsafeRawBufferPointer(out))
    }
}

func appendBigEndian(_ value: UInt64, to out: inout [UInt8]) {
    var be = value.bigEndian
    withUnsafeBytes(of: &be) { out.append(contentsOf: $0) }
}
