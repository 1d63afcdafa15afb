import Foundation

// Rows to records for `import`, in the byte formats that Records.swift
// decodes (docs/OBJECTS.md): the record, its primary-key and index keys and
// its links. The library's own encoder (_RecordWriter) works from the
// program's model classes (ClassInfo, in a RealmCore); this tool has only
// the stored schema, so it encodes here. The CLI tests open imported files
// with the library, query them by primary key and index and run `check`,
// so a drift between the two shows there.

/// A value that does not fit the stored schema: names the property.
struct RowError: Error {
    let message: String
}

/// One row encoded: what import writes for it.
struct EncodedRow {
    /// `_key` as given, or the object key a keyed class's primary key is.
    var objectKey: UInt64?
    var record: [UInt8] = []
    /// pk:C key of a class with a non-Int (or not keyed) primary key.
    var primaryKeyEntry: [UInt8]?
    /// The primary key as given, for messages.
    var primaryKeyText = ""
    /// Per indexed column (RowEncoder.indexed order): the index key without the object key.
    var indexKeys: [[UInt8]] = []
    /// Per link column (RowEncoder.links order): the target keys, with repeats.
    var linkTargets: [[UInt64]] = []
}

struct RowEncoder {
    let cls: FileClass
    let layout: RecordLayout
    let indexed: [RecordLayout.Column]
    let links: [RecordLayout.Column]
    private let names: [String: Int]

    /// Longest primary-key or index encoding, as the library keeps it
    /// (KeyEncoding.swift: CS_MAX_KEY minus the 8-byte object key).
    static let maxIndexedValueBytes = 1024 - 8

    init(_ cls: FileClass) {
        self.cls = cls
        layout = RecordLayout(cls)
        indexed = layout.columns.filter { $0.property.indexed }
        links = layout.columns.filter { $0.property.type == .object }
        var names: [String: Int] = [:]
        for (i, column) in layout.columns.enumerated() { names[column.property.name] = i }
        self.names = names
    }

    /// Encodes one row given as (name, value) members: `_class`, `_key`,
    /// then properties by name. A missing optional property is nil, a
    /// missing collection empty; a missing required one is an error.
    func encode(_ members: [(String, JSONValue)]) throws -> EncodedRow {
        var values = [JSONValue?](repeating: nil, count: layout.columns.count)
        var row = EncodedRow()
        var keyedValue: JSONValue?
        for (name, value) in members {
            if name == "_class" {
                guard case .string(let c) = value, c == cls.name else {
                    throw RowError(message: "_class is \(value.kind), not \"\(cls.name)\" (import one class at a time: --class)")
                }
            } else if name == "_key" {
                guard case .number(let text) = value, let key = UInt64(text), key > 0 else {
                    throw RowError(message: "_key must be a positive integer (an object key), not \(value.kind)")
                }
                if row.objectKey != nil, row.objectKey != key { throw RowError(message: "_key \(key) is not the object key of its primary key") }
                row.objectKey = key
            } else if cls.isKeyed, name == cls.primaryKey?.name {
                keyedValue = value
            } else if let i = names[name] {
                guard values[i] == nil else { throw RowError(message: "property \(name) given twice") }
                values[i] = value
            } else if cls.properties.contains(where: { $0.name == name && !$0.isStored }) {
                continue // linking objects: computed, dump does not write them
            } else {
                throw RowError(message: "\(cls.name) has no property \(name)")
            }
        }
        if cls.isKeyed, let pk = cls.primaryKey {
            guard let keyedValue, case .number(let text) = keyedValue, let value = Int64(text) else {
                throw RowError(message: "property \(pk.name): the primary key must be an integer, not \(keyedValue?.kind ?? "missing")")
            }
            let key = UInt64(bitPattern: value) ^ (1 << 63)
            if let given = row.objectKey, given != key {
                throw RowError(message: "_key \(given) is not the object key of primary key \(value) (\(key))")
            }
            row.objectKey = key
        }
        // u32 end offsets first; narrowed at the end in classes with compact ones.
        var record = [UInt8](repeating: 0, count: layout.varTableStart + 4 * layout.varCount)
        // Written in the current generation (Records.swift); retired var
        // fields between live ones end where the previous field does.
        if layout.headerSize > 0 { record[0] = UInt8((cls.generations?.count ?? 1) - 1) }
        var varEnd = 0, nextVar = 0
        func endVarFields(through end: Int) {
            while nextVar < end {
                store(UInt32(varEnd), at: layout.varTableStart + 4 * nextVar, in: &record)
                nextVar += 1
            }
        }
        row.linkTargets = [[UInt64]](repeating: [], count: links.count)
        for (i, column) in layout.columns.enumerated() {
            let property = column.property
            var field: [UInt8] = []
            var isNull = false
            do {
                switch values[i] ?? (property.optional || property.collection != .none || property.type == .object ? .null : nil) {
                case nil:
                    throw RowError(message: "no value (the property is required)")
                case .null? where property.collection != .none:
                    field = []
                case .null?:
                    guard property.optional || property.type == .object else { throw RowError(message: "null, but the property is not optional") }
                    isNull = true
                case let value?:
                    field = try encodeField(property, value, links: &row.linkTargets, column: column)
                    if property.primaryKey { row.primaryKeyText = value.kind }
                }
            } catch let error as RowError {
                throw RowError(message: "property \(property.name): \(error.message)")
            }
            if isNull || (column.isBit && field.first == 1) {
                record[layout.headerSize + (column.position >> 3)] |= 1 << UInt8(column.position & 7)
            }
            if column.isBit {
                // The value is the bit: no slot.
            } else if column.width > 0 {
                if !isNull { record.replaceSubrange(column.offset..<(column.offset + column.width), with: field) }
            } else {
                endVarFields(through: column.offset)
                record.append(contentsOf: field)
                varEnd += field.count
                endVarFields(through: column.offset + 1)
            }
            if property.indexed {
                row.indexKeys.append(Self.indexKey(property.type, isNull: isNull, field))
            }
            if property.primaryKey, !cls.isKeyed {
                let entry = Self.indexKey(property.type, isNull: isNull, field)
                guard entry.count < Self.maxIndexedValueBytes else {
                    throw RowError(message: "property \(property.name): the primary key is too long (at most \(Self.maxIndexedValueBytes - 4) bytes)")
                }
                row.primaryKeyEntry = entry
            }
        }
        endVarFields(through: layout.varCount)
        if layout.intCount > 0 { record = Self.packingInts(record, layout) }
        if layout.compactOffsets { record = Self.narrowingOffsets(record, layout) }
        row.record = record
        return row
    }

    private func encodeField(_ property: FileProperty, _ value: JSONValue, links: inout [[UInt64]], column: RecordLayout.Column) throws -> [UInt8] {
        let linkSlot = links.isEmpty ? nil : self.links.firstIndex { $0.position == column.position }
        switch property.collection {
        case .none:
            let bytes = try Self.scalar(property.type, value)
            if let linkSlot { links[linkSlot].append(Self.key(bytes)) }
            return bytes
        case .list, .set:
            guard case .array(let values) = value else { throw RowError(message: "expected an array, got \(value.kind)") }
            var elements: [[UInt8]] = []
            elements.reserveCapacity(values.count)
            for (i, element) in values.enumerated() {
                let bytes: [UInt8]
                do { bytes = try encodeElement(property, element) } catch let error as RowError {
                    throw RowError(message: "element \(i): \(error.message)")
                }
                // A set keeps the first of equal elements (MutableSet.insert).
                if property.collection == .set, elements.contains(bytes) { continue }
                elements.append(bytes)
            }
            if let linkSlot { links[linkSlot] += elements.map(Self.key) }
            return Self.elementArray(elements)
        case .map:
            guard case .object(let entries) = value else { throw RowError(message: "expected an object (a map), got \(value.kind)") }
            var encoded: [(key: [UInt8], value: [UInt8])] = []
            for (key, element) in entries {
                let bytes: [UInt8]
                do { bytes = try encodeElement(property, element, tagged: true) } catch let error as RowError {
                    throw RowError(message: "key \"\(key)\": \(error.message)")
                }
                if linkSlot != nil, bytes.count == 9 { links[linkSlot!].append(Self.key(Array(bytes[1...]))) }
                encoded.append((Array(key.utf8), bytes))
            }
            // Entries sorted by key bytes (Map.swift: binary search).
            encoded.sort { $0.key.lexicographicallyPrecedes($1.key) }
            for i in encoded.indices.dropFirst() where encoded[i].key == encoded[i - 1].key {
                throw RowError(message: "key \"\(String(decoding: encoded[i].key, as: UTF8.self))\" given twice")
            }
            return Self.elementArray(encoded.map { entry in
                var bytes: [UInt8] = []
                Self.append(UInt32(entry.key.count), to: &bytes)
                return bytes + entry.key + entry.value
            })
        }
    }

    /// A collection element: optional elements (and map values of links)
    /// carry a tag byte, 0 nil or 1 then the value.
    private func encodeElement(_ property: FileProperty, _ value: JSONValue, tagged: Bool = false) throws -> [UInt8] {
        let hasTag = property.optional || (tagged && property.type == .object)
        if case .null = value {
            guard hasTag else { throw RowError(message: "null, but the elements are not optional") }
            return [0]
        }
        let bytes = try Self.scalar(property.type, value)
        return hasTag ? [1] + bytes : bytes
    }

    // MARK: - scalars

    /// The stored bytes of a non-nil value (Primitives.swift's formats);
    /// takes the forms `dump` writes.
    static func scalar(_ type: ValueType, _ value: JSONValue) throws -> [UInt8] {
        func mismatch(_ want: String) -> RowError { RowError(message: "expected \(want), got \(value.kind)") }
        switch type {
        case .int:
            guard case .number(let text) = value, let v = Int64(text) else { throw mismatch("a 64-bit integer") }
            return le(UInt64(bitPattern: v))
        case .bool:
            guard case .bool(let v) = value else { throw mismatch("true or false") }
            return [v ? 1 : 0]
        case .float:
            guard let v = double(value) else { throw mismatch("a number") }
            return le32(Float(v).bitPattern)
        case .double:
            guard let v = double(value) else { throw mismatch("a number") }
            return le(v.bitPattern)
        case .date:
            guard case .string(let text) = value, let date = date(text) else { throw mismatch("an ISO 8601 date (2024-05-01T12:00:00.000Z)") }
            return le(date.timeIntervalSinceReferenceDate.bitPattern)
        case .string:
            guard case .string(let s) = value else { throw mismatch("a string") }
            return Array(s.utf8)
        case .decimal128:
            let text: String
            switch value {
            case .string(let s), .number(let s): text = s
            default: throw mismatch("a decimal number")
            }
            guard Decimal(string: text) != nil || text.lowercased() == "nan" else { throw mismatch("a decimal number") }
            return Array(text.utf8)
        case .data:
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else { throw mismatch("base64 data") }
            return Array(data)
        case .objectId:
            guard case .string(let text) = value, text.utf8.count == 24, let bytes = hex(text) else { throw mismatch("an ObjectId (24 hex digits)") }
            return bytes
        case .uuid:
            guard case .string(let text) = value, let uuid = UUID(uuidString: text) else { throw mismatch("a UUID") }
            return withUnsafeBytes(of: uuid.uuid) { Array($0) }
        case .object:
            guard case .number(let text) = value, let key = UInt64(text), key > 0 else { throw mismatch("an object key (a positive integer)") }
            return le(key)
        case .any, .linkingObjects:
            throw RowError(message: "\(type) values are not imported")
        }
    }

    /// Numbers, and the non-finite doubles dump writes as strings.
    private static func double(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let text): return Double(text)
        case .string(let text): return ["nan", "inf", "+inf", "-inf", "infinity", "-infinity"].contains(text.lowercased()) ? Double(text) : nil
        default: return nil
        }
    }

    private static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    private static func hex(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var high: Int?
        for c in text {
            guard let digit = c.hexDigitValue else { return nil }
            if let h = high {
                bytes.append(UInt8(h << 4 | digit))
                high = nil
            } else {
                high = digit
            }
        }
        return bytes
    }

    static func le(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func key(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) } }

    static func append(_ v: UInt32, to out: inout [UInt8]) { out += le32(v) }

    /// `record` (u32 end offsets) with offsets as wide as its size calls for
    /// (the narrowest width whose record size maps to it: Records.swift),
    /// less the last one in classes with `impliedLastEnd`.
    static func narrowingOffsets(_ record: [UInt8], _ layout: RecordLayout) -> [UInt8] {
        let table = record.withUnsafeBytes { layout.varTable($0) }, count = layout.varCount, data = table + 4 * count
        let stored = layout.storedEnds
        let width = [1, 2, 4].first { layout.offsetWidth(record.count - 4 * count + $0 * stored) == $0 }!
        guard width < 4 || stored < count else { return record }
        var out = Array(record[0..<table])
        for j in 0..<stored {
            let end = record.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: table + 4 * j, as: UInt32.self)) }
            out += le32(UInt32(end)).prefix(width)
        }
        return out + record[data...]
    }

    /// The width code (width 1 << code) that holds the 8-byte LE integer `bytes`.
    static func intWidthCode(_ bytes: [UInt8]) -> Int {
        let value = bytes.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
        return Int64(Int8(truncatingIfNeeded: value)) == value ? 0 : Int64(Int16(truncatingIfNeeded: value)) == value ? 1
            : Int64(Int32(truncatingIfNeeded: value)) == value ? 2 : 3
    }

    /// `record` (8-byte integers, u32 end offsets) with its integers
    /// packed at the narrowest width that holds them all (Records.swift).
    static func packingInts(_ record: [UInt8], _ layout: RecordLayout) -> [UInt8] {
        let start = layout.intStart, count = layout.intCount
        let ints = (0..<count).map { Array(record[(start + 8 * $0)..<(start + 8 * $0 + 8)]) }
        let code = ints.map(intWidthCode).max() ?? 0
        var out = Array(record[0..<start])
        out[layout.headerSize + layout.nullBytes - 1] = out[layout.headerSize + layout.nullBytes - 1] & 0x3F | UInt8(code) << 6
        for value in ints { out += value.prefix(1 << code) }
        return out + record[(start + 8 * count)...]
    }

    private func store(_ v: UInt32, at offset: Int, in record: inout [UInt8]) {
        record.replaceSubrange(offset..<(offset + 4), with: Self.le32(v))
    }

    /// [u32 count][u32 end offset x count][elements] (CollectionCodec.swift).
    static func elementArray(_ elements: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        append(UInt32(elements.count), to: &out)
        var end = 0
        for element in elements {
            end += element.count
            append(UInt32(end), to: &out)
        }
        for element in elements { out += element }
        return out
    }

    // MARK: - keys (KeyEncoding.swift)

    /// The order-preserving key of a value: 0x00 for nil, else 0x01 then
    /// the body; cut to maxIndexedValueBytes as the library cuts it.
    static func indexKey(_ type: ValueType, isNull: Bool, _ bytes: [UInt8]) -> [UInt8] {
        if isNull { return [0] }
        var out: [UInt8] = [1]
        switch type {
        case .int:
            out += be(UInt64(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }) ^ (1 << 63))
            return out
        case .date, .double:
            let bits = UInt64(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
            out += be(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
            return out
        case .bool:
            out.append(bytes[0])
        case .string, .data:
            for byte in bytes {
                out.append(byte)
                if byte == 0 { out.append(0xFF) }
            }
            out += [0, 1]
        default:
            out += bytes
        }
        return Array(out.prefix(maxIndexedValueBytes))
    }

    static func be(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
}
