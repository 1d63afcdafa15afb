import Foundation

// Date literals, as realm-core's lexer takes them:
//
//   T<seconds>:<nanoseconds>                 signed, since 1970 (T-5:-100)
//   YYYY-MM-DD@HH:MM:SS[:NANOS]              in UTC; `T` may replace `@`
//
// Fields are any number of digits; out-of-range fields carry over as C's
// timegm does (2021-13-01 is 2022-01-01). Realm has no date-only form and no
// time zone suffix: those are errors that show the accepted forms, as are
// years before 1900 and seconds and nanoseconds of opposite signs.

extension QueryLexer {
    /// The date literal starting at `i` and the index after it; nil when
    /// none starts there; an error for a malformed one.
    func dateLiteral(at i: Int) throws -> (Date, Int)? {
        var j = i
        func digits() -> String? {
            let start = j
            while j < chars.count, chars[j].isASCII, chars[j].isNumber { j += 1 }
            return j > start ? String(chars[start..<j]) : nil
        }
        func signedDigits() -> String? {
            let sign = j < chars.count && (chars[j] == "-" || chars[j] == "+") ? String(chars[j]) : ""
            if !sign.isEmpty { j += 1 }
            guard let d = digits() else { return nil }
            return sign + d
        }
        func take(_ c: Character) -> Bool {
            guard j < chars.count, chars[j] == c else { return false }
            j += 1
            return true
        }
        func endsHere() -> Bool { j >= chars.count || !(chars[j].isLetter || chars[j].isNumber || chars[j] == "_") }

        if chars[i] == "T" {
            j += 1
            guard let s = signedDigits(), take(":"), let n = signedDigits(), endsHere() else { return nil }
            guard let seconds = Int64(s), let nanos = Int64(n), abs(nanos) < 1_000_000_000 else {
                throw error("'\(chars[i..<j].map(String.init).joined())' is not a valid timestamp: T<seconds>:<nanoseconds> with nanoseconds below 1000000000", at: i)
            }
            guard seconds >= 0 && nanos >= 0 || seconds <= 0 && nanos <= 0 else {
                throw error("invalid timestamp 'T\(s):\(n)': seconds and nanoseconds must have the same sign", at: i)
            }
            return (Date(timeIntervalSince1970: Double(seconds) + Double(nanos) / 1e9), j)
        }
        guard chars[i].isASCII, chars[i].isNumber, let year = digits(), take("-"), let month = digits(), take("-"), let day = digits() else {
            return nil
        }
        let forms = "write dates as YYYY-MM-DD@HH:MM:SS[:nanoseconds] (UTC) or T<seconds>:<nanoseconds>"
        guard take("@") || take("T") else {
            throw error("'\(year)-\(month)-\(day)' is a date without a time; \(forms)", at: i)
        }
        guard let hour = digits(), take(":"), let minute = digits(), take(":"), let second = digits() else {
            throw error("incomplete date literal; \(forms)", at: i)
        }
        var nanos: String?
        if take(":") {
            guard let n = digits() else { throw error("expected nanoseconds after ':' in the date literal; \(forms)", at: i) }
            nanos = n
        }
        let text = String(chars[i..<j])
        if j < chars.count, "Zz+-".contains(chars[j]) {
            throw error("date literals are in UTC and take no time zone ('\(text)\(chars[j])...'); \(forms)", at: j)
        }
        guard endsHere() else { return nil }
        let fields = [year, month, day, hour, minute, second, nanos ?? "0"].map { Int64($0) }
        guard fields.allSatisfy({ $0 != nil && $0! <= Int64(Int32.max) }) else { throw error("'\(text)' has a field out of range", at: i) }
        let f = fields.map { $0! }
        if f[0] < 1900 { throw error("'\(text)': dates before 1900 are not supported (as in Realm); use T<seconds>:<nanoseconds>", at: i) }
        guard f[6] < 1_000_000_000 else { throw error("'\(text)': nanoseconds must be below 1000000000", at: i) }
        let seconds = timegmSeconds(year: f[0], month: f[1], day: f[2], hour: f[3], minute: f[4], second: f[5])
        // As realm-core: the seconds give the sign of the nanoseconds.
        let fraction = Double(f[6]) / 1e9
        return (Date(timeIntervalSince1970: Double(seconds) + (seconds < 0 ? -fraction : fraction)), j)
    }
}

/// Seconds since 1970 of a UTC calendar time, normalizing out-of-range
/// fields as C's timegm does (month 13 is January of the next year).
func timegmSeconds(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64) -> Int64 {
    let months = year * 12 + (month - 1)
    let y = months >= 0 ? months / 12 : (months - 11) / 12
    let m = months - y * 12 + 1
    // Days from 1970-01-01 to y-m-01 (Howard Hinnant's days_from_civil).
    let yy = m <= 2 ? y - 1 : y
    let era = (yy >= 0 ? yy : yy - 399) / 400
    let yoe = yy - era * 400
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    let days = era * 146_097 + doe - 719_468 + (day - 1)
    return days * 86_400 + hour * 3_600 + minute * 60 + second
}
