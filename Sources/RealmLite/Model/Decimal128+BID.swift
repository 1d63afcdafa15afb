// The decimal128 arithmetic behind Decimal128: IEEE 754-2008 decimal128 in
// the binary integer decimal (BID) encoding that realm-core and MongoDB use,
// 34-digit coefficients, exponents -6176...6111, round-half-even. Written
// here rather than linked (realm-core uses Intel's library) because the
// operations RealmSwift exposes are few: +, -, *, /, compare, parse, print.
//
// Every finite operation computes the exact result in up to 256 bits
// (`Wide`) and rounds it once (`Decimal128.rounded`), so results are
// correctly rounded.

/// The three kinds of decimal128 values and a finite value's parts.
enum DecimalParts {
    case nan
    case infinity(negative: Bool)
    case finite(negative: Bool, exponent: Int, coefficient: UInt128)
}

/// A 256-bit unsigned integer: exact products and aligned sums of two
/// 34-digit coefficients.
struct Wide: Comparable {
    var hi: UInt128
    var lo: UInt128

    init(_ value: UInt128) { hi = 0; lo = value }
    init(hi: UInt128, lo: UInt128) { self.hi = hi; self.lo = lo }

    var isZero: Bool { hi == 0 && lo == 0 }

    static func < (a: Wide, b: Wide) -> Bool { a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo }

    static func + (a: Wide, b: Wide) -> Wide {
        let (lo, carry) = a.lo.addingReportingOverflow(b.lo)
        return Wide(hi: a.hi &+ b.hi &+ (carry ? 1 : 0), lo: lo)
    }

    /// a - b for a >= b.
    static func - (a: Wide, b: Wide) -> Wide {
        let (lo, borrow) = a.lo.subtractingReportingOverflow(b.lo)
        return Wide(hi: a.hi &- b.hi &- (borrow ? 1 : 0), lo: lo)
    }

    /// self × m; the callers keep the product below 2^256.
    func times(_ m: UInt64) -> Wide {
        let low = lo.multipliedFullWidth(by: UInt128(m))
        return Wide(hi: hi &* UInt128(m) &+ low.high, lo: low.low)
    }

    /// self × 10^n, n <= 76 - digits (the product stays below 2^256).
    func timesPowerOfTen(_ n: Int) -> Wide {
        var result = self
        var left = n
        while left > 0 {
            let step = Swift.min(left, 19)
            result = result.times(powersOfTen64[step])
            left -= step
        }
        return result
    }

    /// (self / d, self % d).
    func divided(by d: UInt64) -> (Wide, UInt64) {
        let divisor = UInt128(d)
        let qh = hi / divisor
        let rh = hi % divisor
        let (ql, rl) = divisor.dividingFullWidth((high: rh, low: lo))
        return (Wide(hi: qh, lo: ql), UInt64(rl))
    }

    /// The number of decimal digits (1 for zero).
    var digitCount: Int {
        var value = self
        var count = 0
        while value.hi != 0 {
            value = value.divided(by: powersOfTen64[19]).0
            count += 19
        }
        return count + decimalDigits(value.lo)
    }
}

/// 10^0 ... 10^19.
let powersOfTen64: [UInt64] = (0...19).map { n in (0..<n).reduce(UInt64(1)) { acc, _ in acc * 10 } }
/// 10^0 ... 10^38.
let powersOfTen128: [UInt128] = (0...38).map { n in (0..<n).reduce(UInt128(1)) { acc, _ in acc * 10 } }

/// The number of decimal digits of `value` (1 for zero).
func decimalDigits(_ value: UInt128) -> Int {
    var n = 1
    while n < powersOfTen128.count && value >= powersOfTen128[n] { n += 1 }
    return n
}

extension Decimal128 {
    static let exponentBias = 6176
    static let minExponent = -6176
    static let maxExponent = 6111
    static let maxDigits = 34
    /// 10^34 - 1, the largest coefficient.
    static let maxCoefficient: UInt128 = powersOfTen128[34] - 1

    static let signBit: UInt64 = 1 << 63
    static let nanBits: UInt64 = 0x7C00_0000_0000_0000
    static let infinityBits: UInt64 = 0x7800_0000_0000_0000

    static let nan = Decimal128(bidHigh: nanBits, bidLow: 0)
    static func infinity(negative: Bool) -> Decimal128 {
        Decimal128(bidHigh: infinityBits | (negative ? signBit : 0), bidLow: 0)
    }

    /// The value's kind and parts. Non-canonical coefficients (above
    /// 10^34 - 1, including the "11" combination form) read as zero, as
    /// IEEE 754 says.
    var parts: DecimalParts {
        let negative = high & Self.signBit != 0
        let combination = (high >> 58) & 0x1F
        if combination == 0x1F { return .nan }
        if combination == 0x1E { return .infinity(negative: negative) }
        if (high >> 61) & 0x3 == 0x3 {
            let exponent = Int((high >> 47) & 0x3FFF) - Self.exponentBias
            return .finite(negative: negative, exponent: exponent, coefficient: 0)
        }
        let exponent = Int((high >> 49) & 0x3FFF) - Self.exponentBias
        var coefficient = UInt128(high & ((1 << 49) - 1)) << 64 | UInt128(low)
        if coefficient > Self.maxCoefficient { coefficient = 0 }
        return .finite(negative: negative, exponent: exponent, coefficient: coefficient)
    }

    /// A finite value from parts already in range.
    init(negative: Bool, exponent: Int, coefficient: UInt128) {
        let biased = UInt64(exponent + Self.exponentBias)
        self.init(bidHigh: (negative ? Self.signBit : 0) | biased << 49 | UInt64(coefficient >> 64),
                  bidLow: UInt64(truncatingIfNeeded: coefficient))
    }

    /// The exact value coefficient × 10^exponent rounded (half to even) to
    /// `digits` (34) digits and the exponent range; `sticky` says that nonzero digits below
    /// the coefficient were already dropped. Too large gives an infinity;
    /// too small rounds to zero.
    static func rounded(negative: Bool, _ exact: Wide, exponent: Int, sticky: Bool = false,
                        digits: Int = maxDigits) -> Decimal128 {
        var value = exact
        var exponent = exponent
        var excess = value.digitCount - digits
        if exponent + Swift.max(excess, 0) < minExponent { excess = minExponent - exponent }
        if excess > 0 {
            var sticky = sticky
            var roundDigit: UInt64 = 0
            if excess > 78 {
                // Far below the smallest digit: only "was it nonzero" matters.
                sticky = sticky || !value.isZero
                value = Wide(0)
            } else {
                var left = excess - 1
                while left > 0 {
                    let step = Swift.min(left, 19)
                    let (q, r) = value.divided(by: powersOfTen64[step])
                    sticky = sticky || r != 0
                    value = q
                    left -= step
                }
                (value, roundDigit) = value.divided(by: 10)
            }
            exponent += excess
            if roundDigit > 5 || (roundDigit == 5 && (sticky || value.lo & 1 == 1)) {
                value = value + Wide(1)
                if value.lo >= powersOfTen128[digits] {
                    value = Wide(powersOfTen128[digits - 1])
                    exponent += 1
                }
            }
        }
        var coefficient = value.lo
        if exponent > maxExponent {
            // Clamp: trade exponent for trailing zeros while they fit.
            if coefficient == 0 {
                exponent = maxExponent
            } else {
                while exponent > maxExponent && coefficient <= maxCoefficient / 10 {
                    coefficient *= 10
                    exponent -= 1
                }
                if exponent > maxExponent { return infinity(negative: negative) }
            }
        }
        return Decimal128(negative: negative, exponent: exponent, coefficient: coefficient)
    }

    // MARK: - Operations

    static func add(_ x: Decimal128, _ y: Decimal128) -> Decimal128 {
        switch (x.parts, y.parts) {
        case (.nan, _), (_, .nan): return .nan
        case (.infinity(let a), .infinity(let b)): return a == b ? x : .nan
        case (.infinity, _): return x
        case (_, .infinity): return y
        case (.finite(let n1, let e1, let c1), .finite(let n2, let e2, let c2)):
            if c1 == 0 && c2 == 0 {
                // Round-half-even: -0 only when both are negative.
                return rounded(negative: n1 && n2, Wide(0), exponent: Swift.min(e1, e2))
            }
            // (big, small) by exponent.
            var (nb, eb, cb) = (n1, e1, c1)
            var (ns, es, cs) = (n2, e2, c2)
            if eb < es { swap(&nb, &ns); swap(&eb, &es); swap(&cb, &cs) }
            if cb == 0 { return rounded(negative: ns, Wide(cs), exponent: es) }
            var aligned = Wide(cb)
            if eb - es > 38 {
                // Too far apart to align in 256 bits: give the big operand all
                // 34 digits; if still far, the small one lies below the
                // result's rounding digit and only its sign and being nonzero
                // count, so a 1 at 38 places down stands in for it.
                let shift = maxDigits - decimalDigits(cb)
                aligned = aligned.timesPowerOfTen(shift)
                eb -= shift
                if eb - es > 38 {
                    if cs == 0 { return rounded(negative: nb, aligned, exponent: eb) }
                    cs = 1
                    es = eb - 38
                }
            }
            aligned = aligned.timesPowerOfTen(eb - es)
            let other = Wide(cs)
            if nb == ns { return rounded(negative: nb, aligned + other, exponent: es) }
            if aligned == other { return rounded(negative: false, Wide(0), exponent: es) }
            return aligned > other
                ? rounded(negative: nb, aligned - other, exponent: es)
                : rounded(negative: ns, other - aligned, exponent: es)
        }
    }

    static func multiply(_ x: Decimal128, _ y: Decimal128) -> Decimal128 {
        switch (x.parts, y.parts) {
        case (.nan, _), (_, .nan): return .nan
        case (.infinity(let a), .infinity(let b)): return infinity(negative: a != b)
        case (.infinity(let a), .finite(let b, _, let c)), (.finite(let b, _, let c), .infinity(let a)):
            return c == 0 ? .nan : infinity(negative: a != b)
        case (.finite(let n1, let e1, let c1), .finite(let n2, let e2, let c2)):
            let product = c1.multipliedFullWidth(by: c2)
            return rounded(negative: n1 != n2, Wide(hi: product.high, lo: product.low), exponent: e1 + e2)
        }
    }

    static func divide(_ x: Decimal128, _ y: Decimal128) -> Decimal128 {
        switch (x.parts, y.parts) {
        case (.nan, _), (_, .nan), (.infinity, .infinity): return .nan
        case (.infinity(let a), .finite(let b, _, _)): return infinity(negative: a != b)
        case (.finite(let a, _, _), .infinity(let b)):
            return Decimal128(negative: a != b, exponent: minExponent, coefficient: 0)
        case (.finite(let n1, let e1, let c1), .finite(let n2, let e2, let c2)):
            let negative = n1 != n2
            if c2 == 0 { return c1 == 0 ? .nan : infinity(negative: negative) }
            // Long division, one decimal digit at a time: the remainder stays
            // below c2 < 10^34, so ten times it fits in 128 bits. Stops when
            // exact or at 35 digits (34 and a rounding digit).
            var quotient = c1 / c2
            var remainder = c1 % c2
            var exponent = e1 - e2
            while remainder != 0 && quotient <= maxCoefficient {
                remainder *= 10
                quotient = quotient * 10 + remainder / c2
                remainder %= c2
                exponent -= 1
            }
            return rounded(negative: negative, Wide(quotient), exponent: exponent, sticky: remainder != 0)
        }
    }

    /// -1, 0 or 1, realm-core's order: NaN before every number (NaNs by their
    /// bits), then -infinity ... +infinity; equal values of different
    /// exponents (1.0 and 1.00) compare 0.
    static func compare(_ x: Decimal128, _ y: Decimal128) -> Int {
        switch (x.parts, y.parts) {
        case (.nan, .nan):
            if x.high != y.high { return x.high < y.high ? -1 : 1 }
            return x.low == y.low ? 0 : (x.low < y.low ? -1 : 1)
        case (.nan, _): return -1
        case (_, .nan): return 1
        case (.infinity(let a), .infinity(let b)): return a == b ? 0 : (a ? -1 : 1)
        case (.infinity(let a), _): return a ? -1 : 1
        case (_, .infinity(let b)): return b ? 1 : -1
        case (.finite(let n1, let e1, let c1), .finite(let n2, let e2, let c2)):
            if c1 == 0 && c2 == 0 { return 0 }
            if c1 == 0 { return n2 ? 1 : -1 }
            if c2 == 0 { return n1 ? -1 : 1 }
            if n1 != n2 { return n1 ? -1 : 1 }
            let magnitude = compareMagnitudes(c1, e1, c2, e2)
            return n1 ? -magnitude : magnitude
        }
    }

    /// Compares c1 × 10^e1 with c2 × 10^e2 (both nonzero).
    private static func compareMagnitudes(_ c1: UInt128, _ e1: Int, _ c2: UInt128, _ e2: Int) -> Int {
        let top1 = decimalDigits(c1) + e1
        let top2 = decimalDigits(c2) + e2
        if top1 != top2 { return top1 < top2 ? -1 : 1 }
        // Same leading digit position: the exponents differ by at most 33.
        let a = e1 > e2 ? Wide(c1).timesPowerOfTen(e1 - e2) : Wide(c1)
        let b = e2 > e1 ? Wide(c2).timesPowerOfTen(e2 - e1) : Wide(c2)
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    /// The value without trailing zeros in the coefficient: equal values have
    /// equal normal forms (for hashing). Zero is +0E0.
    var normalized: Decimal128 {
        guard case .finite(let negative, var exponent, var coefficient) = parts else { return self }
        if coefficient == 0 { return Decimal128(negative: false, exponent: 0, coefficient: 0) }
        while coefficient % 10 == 0 && exponent < Self.maxExponent {
            coefficient /= 10
            exponent += 1
        }
        return Decimal128(negative: negative, exponent: exponent, coefficient: coefficient)
    }

    // MARK: - Text

    /// Parses "[+-]digits[.digits][e[+-]digits]", "NaN", "Inf" and
    /// "Infinity" (any case). More than 34 significant digits are rounded
    /// half to even. nil for anything else.
    static func parse<Bytes: BidirectionalCollection>(_ text: Bytes) -> Decimal128? where Bytes.Element == UInt8 {
        var bytes = text[...]
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { bytes.removeFirst() }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes.removeLast() }
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            bytes.removeFirst()
        }
        if let first = bytes.first, first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z") {
            // Only the specials start with a letter (no String for numbers: this runs per read).
            switch String(decoding: bytes, as: UTF8.self).lowercased() {
            case "nan", "snan": return .nan
            case "inf", "infinity": return infinity(negative: negative)
            default: return nil
            }
        }

        var coefficient: UInt128 = 0
        var kept = 0            // significant digits in `coefficient`
        var dropped = 0         // integer digits beyond the 34th (each one ×10)
        var fractionDigits = 0  // fraction digits in `coefficient`, with the zeros before them
        var roundDigit: UInt8? = nil
        var sticky = false
        var sawDigit = false
        var sawPoint = false
        var exponent = 0
        var rest = bytes
        while let c = rest.popFirst() {
            if c == UInt8(ascii: ".") {
                if sawPoint { return nil }
                sawPoint = true
                continue
            }
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                guard sawDigit, let value = parseExponent(rest) else { return nil }
                exponent = value
                break
            }
            guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { return nil }
            sawDigit = true
            let digit = c - UInt8(ascii: "0")
            if kept == 0 && digit == 0 {
                // A leading zero: not significant, but after the point it places it.
                if sawPoint { fractionDigits += 1 }
            } else if kept < maxDigits {
                coefficient = coefficient * 10 + UInt128(digit)
                kept += 1
                if sawPoint { fractionDigits += 1 }
            } else {
                if roundDigit == nil { roundDigit = digit } else { sticky = sticky || digit != 0 }
                if !sawPoint { dropped += 1 }
            }
        }
        guard sawDigit else { return nil }
        var result = exponent - fractionDigits + dropped
        let round = roundDigit ?? 0
        if round > 5 || (round == 5 && (sticky || coefficient & 1 == 1)) {
            coefficient += 1
            if coefficient > maxCoefficient {
                coefficient /= 10
                result += 1
            }
        }
        return rounded(negative: negative, Wide(coefficient), exponent: result)
    }

    /// The digits after an 'e': an optional sign and at least one digit,
    /// saturated far beyond the exponent range.
    private static func parseExponent(_ text: some Collection<UInt8>) -> Int? {
        var rest = text[...]
        var negative = false
        if let sign = rest.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            rest.removeFirst()
        }
        guard !rest.isEmpty else { return nil }
        var value = 0
        for c in rest {
            guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { return nil }
            value = Swift.min(value * 10 + Int(c - UInt8(ascii: "0")), 1_000_000)
        }
        return negative ? -value : value
    }

    /// realm-core's text for the value: the coefficient's digits, the point
    /// moved left while the exponent is nonzero and more than one digit is
    /// before it, then "E" and the exponent if one is left ("1.50", "1.5E10",
    /// "1.23E-3", "NaN", "-Inf"). It keeps trailing zeros, so parsing it gives
    /// back the same coefficient and exponent: this is what records store.
    var exactString: String {
        switch parts {
        case .nan: return "NaN"
        case .infinity(let negative): return negative ? "-Inf" : "Inf"
        case .finite(let negative, var exponent, let coefficient):
            let digits = String(coefficient)
            var before = digits.count
            while before > 1 && exponent != 0 {
                before -= 1
                exponent += 1
            }
            var out = negative ? "-" : ""
            out += digits.prefix(before)
            if before < digits.count { out += "." + digits.dropFirst(before) }
            if exponent != 0 { out += "E\(exponent)" }
            return out
        }
    }
}
