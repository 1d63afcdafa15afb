// Reading short ASCII strings without String(decoding:). Most string
// columns hold short text (names, codes), and on 64-bit platforms a String
// of up to 15 UTF-8 bytes is stored inline in its two words: the bytes in
// order, then a top byte of flags and count. `String(decoding:)` builds
// that form too, but only after a generic validation pass and a byte-wise
// copy (most of a `name` read); ASCII needs no validation, so the two
// words are assembled here with a few loads.
//
// The form is the standard library's, not a public API: it is checked
// once per process against strings the standard library made (`flags`),
// and where it does not match, every read takes String(decoding:).

@usableFromInline
enum _SmallASCII {
    /// The longest string made here: what fits in two words beside the
    /// flag-and-count byte.
    @inlinable static var capacity: Int { 15 }

    /// The top byte's flags of an inline ASCII string (count in its low
    /// nibble), or 0 if this platform's strings are not laid out as
    /// expected.
    @usableFromInline static let flags: UInt64 = {
        guard MemoryLayout<String>.size == 16, UInt64(littleEndian: 1) == 1 else { return 0 }
        // Literals of up to 15 bytes are inline: read their words.
        let probe = unsafeBitCast("abc", to: (UInt64, UInt64).self)
        guard probe.0 == 0x63_62_61, probe.1 & 0x00FF_FFFF_FFFF_FFFF == 0, probe.1 >> 56 & 0x0F == 3 else { return 0 }
        let flags = probe.1 & (0xF0 << 56)
        // Every length, against strings made by the standard library: the
        // same two words as the standard library's own string of those
        // bytes are the same String (its bytes need no comparison of their
        // own; comparing them, as two arrays per length, was most of this
        // check's cost, paid by a process's first string read).
        let text = Array("0123456789abcde".utf8)
        for count in 0...capacity {
            let made = text.withUnsafeBytes { assemble(UnsafeRawBufferPointer(rebasing: $0.prefix(count)), flags) }
            let expected = String(decoding: text.prefix(count), as: UTF8.self)
            guard let made, made == expected, made.utf8.count == count,
                  unsafeBitCast(made, to: (UInt64, UInt64).self) == unsafeBitCast(expected, to: (UInt64, UInt64).self) else { return 0 }
        }
        return flags
    }()

    /// `bytes` as a String if it is ASCII of at most `capacity` bytes and
    /// this platform's inline form is the expected one; nil otherwise.
    @inlinable @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        let flags = flags
        return flags == 0 ? nil : assemble(bytes, flags)
    }

    /// The inline String of `bytes` (at most `capacity`, ASCII), or nil.
    /// Reads only within `bytes`: overlapping loads from both ends, so no
    /// byte loop and no read past a record at a page's end.
    @inlinable @inline(__always)
    static func assemble(_ bytes: UnsafeRawBufferPointer, _ flags: UInt64) -> String? {
        let count = bytes.count
        guard count <= capacity else { return nil }
        if count == 0 { return "" }
        let base = bytes.baseAddress.unsafelyUnwrapped
        var low: UInt64, high: UInt64 = 0
        if count >= 8 {
            low = UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))
            // Bytes count-8..<count; bytes 8..<count are its top count-8.
            let tail = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
            high = count == 8 ? 0 : tail >> UInt64(8 * (16 - count))
        } else if count >= 4 {
            let first = UInt64(UInt32(littleEndian: base.loadUnaligned(as: UInt32.self)))
            let last = UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            low = first | last << UInt64(8 * (count - 4)) // the overlap has equal bytes
        } else {
            low = UInt64(base.load(as: UInt8.self))
                | UInt64(base.load(fromByteOffset: count / 2, as: UInt8.self)) << UInt64(8 * (count / 2))
                | UInt64(base.load(fromByteOffset: count - 1, as: UInt8.self)) << UInt64(8 * (count - 1))
        }
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        // Written over an empty String's words (both forms are immortal, so
        // nothing is released or retained); unsafeBitCast would copy, with a
        // swift_bridgeObjectRetain call.
        var string = ""
        withUnsafeMutableBytes(of: &string) {
            $0.storeBytes(of: low, as: UInt64.self)
            $0.storeBytes(of: high | flags | UInt64(count) << 56, toByteOffset: 8, as: UInt64.self)
        }
        return string
    }
}
