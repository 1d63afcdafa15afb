import Foundation

/// A 128-bit IEEE 754-2008 decimal floating-point number (RealmSwift's
/// Decimal128): 34 significant digits, exponents from -6143 to 6144, decimal
/// arithmetic rounded half to even, so `0.1 + 0.2 == 0.3`.
///
/// It differs from Foundation's `Decimal` (38 digits, exponents -128...127)
/// as RealmSwift's does. Values keep their exponent: `1.0` and `1.00` are
/// equal (and hash equally) but print as realm-core prints them. NaN is
/// never equal to anything, and orders before every number (realm-core's
/// order, which sorting and queries use). Dividing a nonzero value by zero
/// gives an infinity, 0 / 0 NaN. A struct here (RealmSwift's is a class),
/// so ``negate()`` needs a `var`.
public struct Decimal128: Sendable {
    // The IEEE bits in the BID encoding (`high`: sign, combination field and
    // the coefficient's top 49 bits), as realm-core and MongoDB hold them.
    var high: UInt64
    var low: UInt64

    init(bidHigh: UInt64, bidLow: UInt64) {
        high = bidHigh
        low = bidLow
    }

    /// Zero.
    public init() { self.init(negative: false, exponent: 0, coefficient: 0) }

    /// The integer `value`, exactly.
    public init(_ value: Int) { self.init(int64: Int64(value)) }

    /// `value` rounded to 15 significant digits, as realm-core converts a
    /// Double: `Decimal128(0.1)` is 0.1, not the binary fraction nearest it.
    public init(_ value: Double) { self = .fromDouble(value) }

    /// The Foundation decimal `value`; values of more than 34 digits are
    /// rounded.
    public init(_ value: Decimal) {
        self = value.isNaN ? .nan : (Self.parse(value.description.utf8) ?? .nan)
    }

    /// The number, exactly for integers; a Double or Float is rounded to 15
    /// significant digits (``init(_:)-(Double)``).
    public init(number: NSNumber) {
        let type = String(cString: number.objCType)
        if type == "d" || type == "f" {
            self = .fromDouble(number.doubleValue)
        } else if let first = type.unicodeScalars.first, CharacterSet.uppercaseLetters.contains(first) {
            self.init(uint64: number.uint64Value)
        } else {
            self.init(int64: number.int64Value)
        }
    }

    /// Converts an integer of any width, Float, Double, String (parsed as
    /// ``init(string:)``; NaN if it is not a number), NSNumber, Decimal or
    /// Decimal128. nil and NSNull give NaN (as RealmSwift's); any other type
    /// stops the program.
    public init(value: Any) {
        if isNil(value) {
            self = .nan
        } else if let string = value as? String {
            self = Self.parse(string.utf8) ?? .nan
        } else if let converted = Self.converting(value) {
            self = converted
        } else {
            realmFatal(.invalidValue, "Cannot convert a value of type \(type(of: value)) to Decimal128.")
        }
    }

    /// Parses a decimal string: "1.5", "-2e10", "1.5E+10", "NaN", "Inf";
    /// digits beyond the 34th are rounded. Throws
    /// ``Realm/Error/Code/invalidValue`` for anything else (RealmSwift's
    /// gives NaN instead, although its signature throws too).
    public init(string: String) throws {
        guard let parsed = Self.parse(string.utf8) else {
            throw Realm.Error(.invalidValue, "'\(string)' is not a valid Decimal128 value.")
        }
        self = parsed
    }

    /// The integer `source`, or nil if it has more than 34 significant
    /// digits.
    public init?<T: BinaryInteger>(exactly source: T) {
        if let small = Int64(exactly: source) {
            self.init(int64: small)
        } else if let unsigned = UInt64(exactly: source) {
            self.init(uint64: unsigned)
        } else {
            // Wider integers: exact when their digits, less trailing zeros, fit.
            let text = String(source)
            let significant = text.drop { $0 == "-" }.reversed().drop { $0 == "0" }.count
            guard significant <= Self.maxDigits, let parsed = Self.parse(text.utf8) else { return nil }
            self = parsed
        }
    }

    init(int64 value: Int64) {
        self.init(negative: value < 0, exponent: 0, coefficient: UInt128(value.magnitude))
    }

    init(uint64 value: UInt64) {
        self.init(negative: false, exponent: 0, coefficient: UInt128(value))
    }

    /// The shortest decimal that reads back as `value`, rounded to 15
    /// significant digits (what realm-core keeps of a Double).
    static func fromDouble(_ value: Double) -> Decimal128 {
        if value.isNaN { return .nan }
        if value.isInfinite { return infinity(negative: value < 0) }
        guard let parsed = parse("\(value)".utf8),
              case .finite(let negative, let exponent, let coefficient) = parsed.parts,
              decimalDigits(coefficient) > 15 else { return parse("\(value)".utf8) ?? .nan }
        return rounded(negative: negative, Wide(coefficient), exponent: exponent, digits: 15)
    }

    /// The conversions of ``init(value:)`` that cannot fail, or nil: what
    /// `create(value:)` and `setValue` accept for a Decimal128 property.
    static func converting(_ value: Any) -> Decimal128? {
        switch value {
        case let v as Decimal128: return v
        case let v as String: return parse(v.utf8)
        case let v as Double: return fromDouble(v)
        case let v as Float: return fromDouble(Double(v))
        case let v as Decimal: return Decimal128(v)
        case let v as UInt64: return Decimal128(uint64: v)
        case let v as UInt: return Decimal128(uint64: UInt64(v))
        case let v as NSNumber: return Decimal128(number: v)
        default: return anyInteger(value).map { Decimal128(int64: $0) }
        }
    }

    // MARK: - Properties

    /// The smallest finite value, -9.999…(34 nines)E6144.
    public static var min: Decimal128 { Decimal128(negative: true, exponent: maxExponent, coefficient: maxCoefficient) }
    /// The largest finite value, 9.999…(34 nines)E6144.
    public static var max: Decimal128 { Decimal128(negative: false, exponent: maxExponent, coefficient: maxCoefficient) }
    /// ``min``, by its Objective-C name.
    public static var minimumDecimalNumber: Decimal128 { min }
    /// ``max``, by its Objective-C name.
    public static var maximumDecimalNumber: Decimal128 { max }

    /// True for NaN: `Decimal128(value: NSNull())`, an unparsable string
    /// given to ``init(value:)``, 0 / 0, infinity - infinity.
    public var isNaN: Bool { if case .nan = parts { true } else { false } }
    /// Same as ``isNaN`` (RealmSwift's name: every NaN counts as signaling).
    public var isSignaling: Bool { isNaN }
    /// Same as ``isNaN``.
    public var isSignalingNaN: Bool { isNaN }

    /// The value as RealmSwift prints it: realm-core's form without trailing
    /// fractional zeros ("1.5", "-1", "1.5E10", "1.23E-3", "NaN", "Inf").
    /// ``init(string:)`` parses it back to an equal value.
    public var stringValue: String {
        var text = exactString
        guard let point = text.firstIndex(of: ".") else { return text }
        let mantissaEnd = text[point...].firstIndex(of: "E") ?? text.endIndex
        var cut = mantissaEnd
        while cut > point, text[text.index(before: cut)] == "0" { cut = text.index(before: cut) }
        if text.index(before: cut) == point { cut = point }
        text.removeSubrange(cut..<mantissaEnd)
        return text
    }

    /// The nearest Double (correctly rounded); infinities beyond its range.
    public var doubleValue: Double { Double(exactString) ?? .nan }

    /// The value as Foundation's Decimal; NaN when it is out of Decimal's
    /// range (exponents -128...127).
    public var decimalValue: Decimal { isNaN ? .nan : (Decimal(string: exactString) ?? .nan) }
}

extension Decimal128: CustomStringConvertible {
    /// ``stringValue``.
    public var description: String { stringValue }
}

// MARK: - Literals and Codable

extension Decimal128: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// The integer literal, exactly: `let d: Decimal128 = 3`.
    public init(integerLiteral value: Int64) { self.init(int64: value) }
    /// The float literal rounded to 15 significant digits, as
    /// ``init(_:)-(Double)``: `let d: Decimal128 = 0.1` is exactly 0.1.
    public init(floatLiteral value: Double) { self = .fromDouble(value) }
    /// The string literal parsed as ``init(string:)``, with all 34 digits:
    /// `let d: Decimal128 = "9.876543"`. Stops the program if it is not a
    /// number.
    public init(stringLiteral value: String) {
        guard let parsed = Self.parse(value.utf8) else {
            realmFatal(.invalidValue, "'\(value)' is not a valid Decimal128 literal.")
        }
        self = parsed
    }
}

extension Decimal128: Codable {
    /// Decodes a string (as ``init(string:)``), an integer or a Double.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            guard let parsed = Self.parse(string.utf8) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(string)' is not a Decimal128 value")
            }
            self = parsed
        } else if let int = try? container.decode(Int64.self) {
            self.init(int64: int)
        } else if let double = try? container.decode(Double.self) {
            self = .fromDouble(double)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Cannot convert value to Decimal128")
        }
    }

    /// Encodes ``stringValue`` (as RealmSwift does).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

// MARK: - Comparison and hashing

extension Decimal128: Comparable, Hashable {
    /// Numeric equality: `1.0 == 1.00`; NaN equals nothing, itself included.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        if lhs.isNaN || rhs.isNaN { return false }
        return compare(lhs, rhs) == 0
    }
    /// Numeric order, with NaN before every number (realm-core's order).
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool { compare(lhs, rhs) < 0 }
    /// `lhs` orders before or equal to `rhs` (see ``<(_:_:)``).
    public static func <= (lhs: Decimal128, rhs: Decimal128) -> Bool { compare(lhs, rhs) <= 0 }
    /// `lhs` orders after `rhs` (see ``<(_:_:)``).
    public static func > (lhs: Decimal128, rhs: Decimal128) -> Bool { compare(lhs, rhs) > 0 }
    /// `lhs` orders after or equal to `rhs` (see ``<(_:_:)``).
    public static func >= (lhs: Decimal128, rhs: Decimal128) -> Bool { compare(lhs, rhs) >= 0 }

    /// Hashes the value, not its exponent: equal values hash equally.
    public func hash(into hasher: inout Hasher) {
        let normal = normalized
        hasher.combine(normal.high)
        hasher.combine(normal.low)
    }
}

// MARK: - Arithmetic

extension Decimal128: SignedNumeric, Strideable {
    /// The absolute value, Decimal128 itself.
    public typealias Magnitude = Decimal128
    /// The distance between two values, Decimal128 itself.
    public typealias Stride = Decimal128

    /// The absolute value, exactly.
    public var magnitude: Decimal128 { Decimal128(bidHigh: high & ~Self.signBit, bidLow: low) }

    /// Flips the sign, exactly.
    public mutating func negate() { high ^= Self.signBit }

    /// The value with its sign flipped.
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        Decimal128(bidHigh: operand.high ^ signBit, bidLow: operand.low)
    }

    /// The sum, rounded to 34 digits when longer.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { add(lhs, rhs) }
    /// The difference, rounded to 34 digits when longer.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { add(lhs, -rhs) }
    /// The product, rounded to 34 digits when longer.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { multiply(lhs, rhs) }
    /// The quotient, rounded to 34 digits; dividing by zero gives an
    /// infinity (NaN for 0 / 0).
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { divide(lhs, rhs) }

    /// Adds `rhs` to `lhs`.
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = add(lhs, rhs) }
    /// Subtracts `rhs` from `lhs`.
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = add(lhs, -rhs) }
    /// Multiplies `lhs` by `rhs`.
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = multiply(lhs, rhs) }
    /// Divides `lhs` by `rhs`.
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = divide(lhs, rhs) }

    /// `other - self`.
    public func distance(to other: Decimal128) -> Decimal128 { other - self }
    /// `self + n`.
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }
}

// RLMDecimal128's method spellings, which RealmSwift's Decimal128 inherits.
extension Decimal128 {
    /// `self + decimalNumber`.
    public func decimalNumber(byAdding decimalNumber: Decimal128) -> Decimal128 { self + decimalNumber }
    /// `self - decimalNumber`.
    public func decimalNumber(bySubtracting decimalNumber: Decimal128) -> Decimal128 { self - decimalNumber }
    /// `self * decimalNumber`.
    public func decimalNumber(byMultiplyingBy decimalNumber: Decimal128) -> Decimal128 { self * decimalNumber }
    /// `self / decimalNumber`.
    public func decimalNumber(byDividingBy decimalNumber: Decimal128) -> Decimal128 { self / decimalNumber }
    /// `self > other` in the order of ``<(_:_:)`` (NaN first); false for nil.
    public func isGreaterThan(_ other: Decimal128?) -> Bool { other.map { self > $0 } ?? false }
    /// `self >= other` in the order of ``<(_:_:)`` (NaN first); false for nil.
    public func isGreaterThanOrEqual(to other: Decimal128?) -> Bool { other.map { self >= $0 } ?? false }
    /// `self < other` in the order of ``<(_:_:)`` (NaN first); false for nil.
    public func isLessThan(_ other: Decimal128?) -> Bool { other.map { self < $0 } ?? false }
    /// `self <= other` in the order of ``<(_:_:)`` (NaN first); false for nil.
    public func isLessThanOrEqual(to other: Decimal128?) -> Bool { other.map { self <= $0 } ?? false }
}
