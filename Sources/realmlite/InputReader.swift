import Foundation

// Incremental readers for `import`: bytes come from a file descriptor in
// 64 KiB reads, and each parse returns one row, so memory stays bounded by
// the largest row whatever the input's size.

/// Bad input text: the message names the line it was found on.
struct InputError: Error {
    let message: String
}

/// Buffered bytes from a file descriptor (or from memory), with the line
/// number for messages and the bytes consumed for the progress line.
struct ByteInput {
    private var buffer: [UInt8]
    private var position = 0
    private var end: Int
    private let fd: Int32?
    private(set) var line = 1
    private(set) var consumed: UInt64 = 0

    init(fd: Int32) {
        self.fd = fd
        buffer = [UInt8](repeating: 0, count: 1 << 16)
        end = 0
    }

    init(bytes: [UInt8]) {
        fd = nil
        buffer = bytes
        end = bytes.count
    }

    /// The next byte without consuming it; nil at the end of the input.
    mutating func peek() throws -> UInt8? {
        if position == end {
            guard let fd else { return nil }
            let n = buffer.withUnsafeMutableBytes { raw -> Int in
                while true {
                    let n = read(fd, raw.baseAddress!, raw.count)
                    if n < 0 && errno == EINTR { continue }
                    return n
                }
            }
            if n < 0 { throw InputError(message: "cannot read the input: \(String(cString: strerror(errno)))") }
            if n == 0 { return nil }
            position = 0
            end = n
        }
        return buffer[position]
    }

    mutating func next() throws -> UInt8? {
        guard let byte = try peek() else { return nil }
        position += 1
        consumed += 1
        if byte == 10 { line += 1 }
        return byte
    }

    mutating func skipWhitespace() throws {
        while let byte = try peek(), byte == 32 || byte == 9 || byte == 10 || byte == 13 { _ = try next() }
    }
}

/// A parsed JSON value. Numbers keep their text, so that 64-bit integers
/// convert exactly and the schema decides between integer and double.
indirect enum JSONValue {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number(let text): "the number \(text)"
        case .string(let s): "the string \"\(s.count > 40 ? s.prefix(40) + "…" : Substring(s))\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Rows of a JSON input: JSON Lines (what `dump` writes: one object per
/// line, or any whitespace between objects) or one array of objects.
struct JSONRows {
    var input: ByteInput
    private var started = false
    private var inArray = false
    private var finished = false
    /// Nesting deeper than this is refused (it would only exhaust the stack).
    static let maxDepth = 64

    init(_ input: ByteInput) { self.input = input }

    /// The next top-level value and the line it starts on; nil at the end.
    mutating func next() throws -> (value: JSONValue, line: Int)? {
        if finished { return nil }
        try input.skipWhitespace()
        if !started {
            started = true
            if try input.peek() == UInt8(ascii: "[") {
                _ = try input.next()
                inArray = true
                try input.skipWhitespace()
                if try input.peek() == UInt8(ascii: "]") {
                    _ = try input.next()
                    return try end()
                }
            }
        } else if inArray {
            switch try input.next() {
            case UInt8(ascii: ","): try input.skipWhitespace()
            case UInt8(ascii: "]"): return try end()
            case nil: throw error("the array is not closed (no ])")
            case let byte?: throw error("expected , or ] after a row, found \(describe(byte))")
            }
        }
        guard try input.peek() != nil else {
            if inArray { throw error("the array is not closed (no ])") }
            finished = true
            return nil
        }
        let line = input.line
        return (try value(depth: 0), line)
    }

    private mutating func end() throws -> (value: JSONValue, line: Int)? {
        finished = true
        try input.skipWhitespace()
        if let byte = try input.peek() { throw error("\(describe(byte)) after the closing ]") }
        return nil
    }

    func error(_ message: String) -> InputError { InputError(message: "line \(input.line): \(message)") }

    private func describe(_ byte: UInt8) -> String {
        byte >= 32 && byte < 127 ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02x", byte)
    }

    private mutating func expect(_ word: String) throws {
        for unit in word.utf8 where try input.next() != unit { throw error("expected \(word)") }
    }

    mutating func value(depth: Int) throws -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth) levels") }
        try input.skipWhitespace()
        guard let byte = try input.peek() else { throw error("the input ends inside a value") }
        switch byte {
        case UInt8(ascii: "{"):
            _ = try input.next()
            var members: [(String, JSONValue)] = []
            try input.skipWhitespace()
            if try input.peek() == UInt8(ascii: "}") {
                _ = try input.next()
                return .object(members)
            }
            while true {
                try input.skipWhitespace()
                let quote = try input.next()
                if quote == nil { throw error("the input ends inside an object") }
                guard quote == UInt8(ascii: "\"") else { throw error("expected a property name in quotes") }
                let name = try string()
                try input.skipWhitespace()
                guard try input.next() == UInt8(ascii: ":") else { throw error("expected : after \"\(name)\"") }
                members.append((name, try value(depth: depth + 1)))
                try input.skipWhitespace()
                switch try input.next() {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return .object(members)
                default: throw error("expected , or } in an object")
                }
            }
        case UInt8(ascii: "["):
            _ = try input.next()
            var elements: [JSONValue] = []
            try input.skipWhitespace()
            if try input.peek() == UInt8(ascii: "]") {
                _ = try input.next()
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth + 1))
                try input.skipWhitespace()
                switch try input.next() {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(elements)
                default: throw error("expected , or ] in an array")
                }
            }
        case UInt8(ascii: "\""):
            _ = try input.next()
            return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            var text: [UInt8] = []
            while let b = try input.peek(), (b >= 48 && b <= 57) || b == 45 || b == 43 || b == 46 || b == 101 || b == 69 {
                text.append(b)
                _ = try input.next()
            }
            return .number(String(decoding: text, as: UTF8.self))
        default:
            throw error("unexpected \(describe(byte))")
        }
    }

    /// A string's body after its opening quote.
    private mutating func string() throws -> String {
        var bytes: [UInt8] = []
        while true {
            guard let byte = try input.next() else { throw error("the input ends inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                guard let s = String(validating: bytes, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
                return s
            case UInt8(ascii: "\\"):
                guard let escape = try input.next() else { throw error("the input ends inside a string") }
                switch escape {
                case UInt8(ascii: "n"): bytes.append(10)
                case UInt8(ascii: "t"): bytes.append(9)
                case UInt8(ascii: "r"): bytes.append(13)
                case UInt8(ascii: "b"): bytes.append(8)
                case UInt8(ascii: "f"): bytes.append(12)
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard try input.next() == UInt8(ascii: "\\"), try input.next() == UInt8(ascii: "u") else { throw error("an unpaired surrogate in a string") }
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("an unpaired surrogate in a string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let s = Unicode.Scalar(scalar) else { throw error("an unpaired surrogate in a string") }
                    bytes.append(contentsOf: String(Character(s)).utf8)
                default:
                    throw error("unknown escape \\\(describe(escape)) in a string")
                }
            case 0..<0x20:
                throw error("a control character (0x\(String(byte, radix: 16))) inside a string: escape it")
            default:
                bytes.append(byte)
            }
        }
    }

    private mutating func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let b = try input.next(), let digit = Character(Unicode.Scalar(b)).hexDigitValue else { throw error("a bad \\u escape in a string") }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}

/// Records of a CSV input (RFC 4180, as `dump --format csv` writes it):
/// fields separated by commas, quoted when they hold a comma, a quote or a
/// line break, quotes doubled inside.
struct CSVRows {
    var input: ByteInput

    init(_ input: ByteInput) { self.input = input }

    /// The next record's fields and the line it starts on; nil at the end.
    mutating func next() throws -> (fields: [String], line: Int)? {
        while try input.peek() == 13 || input.peek() == 10 { _ = try input.next() } // blank lines
        guard try input.peek() != nil else { return nil }
        let line = input.line
        var fields: [String] = []
        var field: [UInt8] = []
        func finish() throws {
            guard let s = String(validating: field, as: UTF8.self) else { throw InputError(message: "line \(line): a field is not valid UTF-8") }
            fields.append(s)
            field.removeAll(keepingCapacity: true)
        }
        while true {
            guard let byte = try input.next() else { try finish(); return (fields, line) }
            switch byte {
            case UInt8(ascii: ","): try finish()
            case 10: try finish(); return (fields, line)
            case 13:
                if try input.peek() == 10 { _ = try input.next() }
                try finish()
                return (fields, line)
            case UInt8(ascii: "\"") where field.isEmpty:
                while true {
                    guard let b = try input.next() else { throw InputError(message: "line \(line): a quoted field is not closed") }
                    if b == UInt8(ascii: "\"") {
                        if try input.peek() == UInt8(ascii: "\"") {
                            _ = try input.next()
                            field.append(b)
                        } else {
                            break
                        }
                    } else {
                        field.append(b)
                    }
                }
                if let b = try input.peek(), b != UInt8(ascii: ","), b != 10, b != 13 {
                    throw InputError(message: "line \(input.line): text after a closing quote")
                }
            default:
                field.append(byte)
            }
        }
    }
}
