import Foundation

/// A decimal floating-point number (RealmSwift's Decimal128). Backed by
/// Foundation's Decimal (38 significant digits), stored as its canonical
/// string so a round trip is exact.
public struct Decimal128: Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// The value as Foundation's `Decimal`, for arithmetic and formatting
    /// beyond what Decimal128 offers.
    public let decimalValue: Decimal

    /// Zero.
    public init() { decimalValue = 0 }
    /// The decimal `value`, exactly.
    public init(_ value: Decimal) { decimalValue = value }
    /// The integer `value`, exactly.
    public init(_ value: Int) { decimalValue = Decimal(value) }
    /// The nearest decimal to `value` (as `Decimal(_: Double)` converts it, so
    /// `0.1` gives 0.1, not the binary fraction).
    public init(_ value: Double) { decimalValue = Decimal(value) }
    public init(integerLiteral value: Int) { self.init(value) }
    public init(floatLiteral value: Double) { self.init(value) }
    public init(stringLiteral value: String) {
        guard let parsed = try? Decimal128(string: value) else {
            realmFatal(.invalidValue, "'\(value)' is not a valid Decimal128 literal.")
        }
        self = parsed
    }

    /// Parses a decimal string ("1.5", "-2e10", "NaN").
    public init(string: String) throws {
        let trimmed = string.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "nan" { decimalValue = .nan; return }
        guard let value = Decimal(string: trimmed) else {
            throw Realm.Error(.invalidValue, "'\(string)' is not a valid Decimal128 value.")
        }
        decimalValue = value
    }

    /// Converts Int, Double, String, Decimal or Decimal128 values.
    public init(value: Any) throws {
        switch value {
        case let v as Decimal128: self = v
        case let v as Decimal: self.init(v)
        case let v as Int: self.init(v)
        case let v as Double: self.init(v)
        case let v as String: try self.init(string: v)
        default: throw Realm.Error(.invalidValue, "Cannot convert \(type(of: value)) to Decimal128.")
        }
    }

    /// True for the not-a-number value (`Decimal128(string: "NaN")`, or a
    /// division by zero).
    public var isNaN: Bool { decimalValue.isNaN }
    /// The canonical decimal string ("1.5", "-200", "NaN"): what is stored, and
    /// what ``init(string:)`` parses back to an equal value.
    public var stringValue: String { decimalValue.isNaN ? "NaN" : decimalValue.description }
    /// The nearest `Double`; loses digits beyond a Double's precision.
    public var doubleValue: Double { NSDecimalNumber(decimal: decimalValue).doubleValue }
    public var description: String { stringValue }
    /// The absolute value.
    public var magnitude: Decimal128 { Decimal128(decimalValue.magnitude) }

    /// Numeric order.
    public static func < (a: Decimal128, b: Decimal128) -> Bool { a.decimalValue < b.decimalValue }
    /// The exact sum, rounded to 38 significant digits if longer.
    public static func + (a: Decimal128, b: Decimal128) -> Decimal128 { Decimal128(a.decimalValue + b.decimalValue) }
    /// The exact difference, rounded to 38 significant digits if longer.
    public static func - (a: Decimal128, b: Decimal128) -> Decimal128 { Decimal128(a.decimalValue - b.decimalValue) }
    /// The product, rounded to 38 significant digits.
    public static func * (a: Decimal128, b: Decimal128) -> Decimal128 { Decimal128(a.decimalValue * b.decimalValue) }
    /// The quotient, rounded to 38 significant digits; dividing by zero gives
    /// NaN.
    public static func / (a: Decimal128, b: Decimal128) -> Decimal128 { Decimal128(a.decimalValue / b.decimalValue) }
}
