import Foundation
import Synchronization

/// A 12-byte MongoDB-style object id (RealmSwift's ObjectId): 4-byte
/// big-endian seconds since 1970, 5 random bytes fixed per process, a 3-byte
/// counter. Ordered by its bytes, so ids sort by creation time; encoded
/// (Codable) as its 24 hexadecimal characters.
public struct ObjectId: Hashable, Comparable, Sendable, CustomStringConvertible {
    // bytes 0..7 and 8..11, big-endian, so integer order == byte order.
    var high: UInt64
    var low: UInt32

    /// The all-zero ObjectId (as RealmSwift's `ObjectId()`).
    public init() { high = 0; low = 0 }

    init(high: UInt64, low: UInt32) { self.high = high; self.low = low }

    /// Parses 24 hexadecimal characters.
    public init(string: String) throws {
        let chars = Array(string.utf8)
        guard chars.count == 24 else {
            throw Realm.Error(.invalidValue, "Invalid ObjectId string '\(string)': expected 24 hexadecimal characters.")
        }
        var bytes = [UInt8](repeating: 0, count: 12)
        for i in 0..<12 {
            guard let hi = hexValue(chars[2 * i]), let lo = hexValue(chars[2 * i + 1]) else {
                throw Realm.Error(.invalidValue, "Invalid ObjectId string '\(string)': expected 24 hexadecimal characters.")
            }
            bytes[i] = hi << 4 | lo
        }
        self = bytes.withUnsafeBytes { ObjectId(bigEndianBytes: $0) }
    }

    /// Parses 24 hexadecimal characters written in the source:
    /// `ObjectId("5f1c9a3e2b7d4c0012345678")`. Stops the program if they are
    /// not a valid id; use ``init(string:)`` for strings read at run time.
    public init(_ str: StaticString) {
        let text = str.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        do { try self.init(string: text) } catch { realmFatal(.invalidValue, "Invalid ObjectId '\(text)': expected 24 hexadecimal characters.") }
    }

    /// An id for `timestamp` (whole seconds since 1970), with the low three
    /// bytes of `machineId` and low two bytes of `processId` (little-endian,
    /// as realm-core lays them out) and this process's next counter value.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let seconds = UInt64(UInt32(truncatingIfNeeded: Int64(timestamp.timeIntervalSince1970.rounded(.down))))
        let machine = UInt32(truncatingIfNeeded: machineId) & 0xFF_FFFF
        let process = UInt16(truncatingIfNeeded: processId)
        let count = objectIdCounter.add(1, ordering: .relaxed).newValue & 0xFF_FFFF
        // Bytes 4...6: machine (little-endian); 7...8: process (little-endian).
        let middle = UInt64(machine & 0xFF) << 24 | UInt64((machine >> 8) & 0xFF) << 16
            | UInt64(machine >> 16) << 8 | UInt64(process & 0xFF)
        self.init(high: seconds << 32 | middle, low: UInt32(process >> 8) << 24 | count)
    }

    /// A new id: the current time, this process's random bytes, a counter.
    public static func generate() -> ObjectId {
        let seconds = UInt64(UInt32(truncatingIfNeeded: Int(Date().timeIntervalSince1970)))
        let count = objectIdCounter.add(1, ordering: .relaxed).newValue & 0xFF_FFFF
        let high = seconds << 32 | UInt64(objectIdProcessRandom >> 8)
        let low = UInt32(truncatingIfNeeded: objectIdProcessRandom & 0xFF) << 24 | count
        return ObjectId(high: high, low: low)
    }

    /// The creation time encoded in the first four bytes.
    public var timestamp: Date { Date(timeIntervalSince1970: TimeInterval(high >> 32)) }

    /// The 24 lowercase hexadecimal characters of the 12 bytes, as
    /// ``init(string:)`` parses them back.
    public var stringValue: String {
        var out = ""
        out.reserveCapacity(24)
        withBigEndianBytes { for b in $0 { out += String(b, radix: 16).leftPadded(to: 2) } }
        return out
    }

    /// ``stringValue``.
    public var description: String { stringValue }

    /// Byte order: the timestamp first, so ids generated in different seconds
    /// sort by creation time (within one second, by process bytes and counter).
    public static func < (a: ObjectId, b: ObjectId) -> Bool {
        a.high != b.high ? a.high < b.high : a.low < b.low
    }
    /// Byte order (see ``<(_:_:)``).
    public static func <= (a: ObjectId, b: ObjectId) -> Bool { !(b < a) }
    /// Byte order (see ``<(_:_:)``).
    public static func > (a: ObjectId, b: ObjectId) -> Bool { b < a }
    /// Byte order (see ``<(_:_:)``).
    public static func >= (a: ObjectId, b: ObjectId) -> Bool { !(a < b) }

    init(bigEndianBytes b: UnsafeRawBufferPointer) {
        high = UInt64(bigEndian: b.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        low = UInt32(bigEndian: b.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    }

    func withBigEndianBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var raw = (high.bigEndian, low.bigEndian)
        return withUnsafeBytes(of: &raw) { body(UnsafeRawBufferPointer(rebasing: $0[0..<12])) }
    }
}

// Not ExpressibleByStringLiteral, as RealmSwift's is not: with it, a
// dictionary literal such as `["_id": ObjectId.generate(), "name": "Rex"]`
// passed to `create(_:value:)` (a parameter of type Any) type-checks as
// [String: ObjectId], and "Rex" stops the program, where RealmSwift gives
// [String: Any]. `ObjectId("…")` covers literals.

extension ObjectId: Codable {
    /// Decodes the 24 hexadecimal characters RealmSwift encodes.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do { try self.init(string: text) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ObjectId: expected 24 hexadecimal characters")
        }
    }

    /// Encodes ``stringValue``, as RealmSwift does.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

private let objectIdCounter = Atomic<UInt32>(UInt32.random(in: 0...0xFF_FFFF))
private let objectIdProcessRandom = UInt64.random(in: 0...0xFF_FFFF_FFFF)

private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

// RLMObjectId's method spellings, which RealmSwift's ObjectId inherits.
extension ObjectId {
    /// `self > other`; false for nil.
    public func isGreaterThan(_ other: ObjectId?) -> Bool { other.map { self > $0 } ?? false }
    /// `self >= other`; false for nil.
    public func isGreaterThanOrEqual(to other: ObjectId?) -> Bool { other.map { self >= $0 } ?? false }
    /// `self < other`; false for nil.
    public func isLessThan(_ other: ObjectId?) -> Bool { other.map { self < $0 } ?? false }
    /// `self <= other`; false for nil.
    public func isLessThanOrEqual(to other: ObjectId?) -> Bool { other.map { self <= $0 } ?? false }
}
