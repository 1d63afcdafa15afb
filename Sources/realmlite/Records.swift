import CStorage
import Foundation

// Records of the object layer, read as Sources/RealmLite/Storage/Record.swift
// writes them (docs/OBJECTS.md, "Records"):
//
//   [generation: u8] [null bitmap: ceil(n/8)] [fixed slots] [LE end offset x nvar] [var bytes]
//
// The end offsets are u32, or in classes with `compactOffsets`
// cs_record_offset_width(record size) bytes wide; in classes with
// `impliedLastEnd` the last var field's is not stored (it ends at the
// record's end). Classes with `intSlots`
// pack their integer columns after the other fixed slots, 2^c bytes each,
// c the top two bits of the null bitmap's last byte (which keeps two spare
// bits for it); the var table follows them. Classes with `boolBits` hold a
// non-optional Bool property in its null bit (set: true), with no slot.
//
// The columns are the stored schema's stored properties in order (retired
// ones too), minus the primary key of a class keyed by it (its value is the
// object key with the sign bit flipped). Classes with `generations` start
// each record with its generation g, and the record holds the first
// generations[g] columns; the others read from the class's stored defaults
// record (Sources/RealmLite/Storage/RecordGenerations.swift). Collections are var fields:
// [u32 count][u32 end offset x count][elements] (CollectionCodec.swift),
// map entries [u32 key length][key][value element], optional elements a
// tag byte (0 nil, 1 value) before the bytes.

struct RecordLayout {
    /// Reads Lists stored in the lists tree (nil: their markers are only checked for shape).
    var lists: ListReader?
    struct Column {
        let property: FileProperty
        /// Storage position: bit in the null bitmap.
        let position: Int
        /// Fixed slot offset, or var field number when `width` is 0. A
        /// packed integer's offset and width are those of the wide form
        /// (8 bytes at intStart + 8 x its index), which the encoder writes.
        let offset: Int
        let width: Int
        /// A packed integer's index (intSlots), else nil.
        var packedIndex: Int? = nil
        /// A Bool held in its null bit (boolBits): never nil, no slot (width -1).
        var isBit = false
    }

    let cls: FileClass
    /// The live columns (retired ones are in the layout, not here).
    let columns: [Column]
    let headerSize: Int
    let nullBytes: Int
    /// The end of the fixed slots in the wide form (8-byte integers).
    let fixedEnd: Int
    let varCount: Int
    /// The end offsets a record stores (varCount, less the implied last one).
    let storedEnds: Int
    let compactOffsets: Bool
    /// Packed integers (intSlots): how many, and where they start.
    let intCount: Int
    let intStart: Int
    /// Older generations' layouts, by generation (empty: one generation).
    let generations: [RecordLayout]
    /// The stored defaults record (a record of this layout), for columns a
    /// record of an older generation lacks.
    let defaults: [UInt8]

    /// The current layout of `cls`'s records, or with `columnCount`, that of
    /// records holding only the first columnCount storage columns.
    init(_ cls: FileClass, columnCount: Int? = nil) {
        self.cls = cls
        let storage = cls.properties.filter { $0.isStored && !(cls.isKeyed && $0.primaryKey) }
        let stored = storage.prefix(columnCount ?? storage.count)
        headerSize = cls.generations == nil ? 0 : 1
        compactOffsets = cls.compactOffsets == true
        let isInt = { (property: FileProperty) in cls.intSlots == true && property.collection == .none && property.type == .int }
        let isBit = { (property: FileProperty) in
            cls.boolBits == true && property.collection == .none && property.type == .bool && !property.optional
        }
        let ints = stored.filter(isInt).count
        intCount = ints
        nullBytes = (stored.count + (ints > 0 ? 2 : 0) + 7) / 8
        var fixed = headerSize + nullBytes, vars = 0
        for property in stored where !isInt(property) && !isBit(property) && property.collection == .none { fixed += property.type.fixedWidth }
        intStart = fixed
        fixed = headerSize + nullBytes
        var columns: [Column] = []
        var intIndex = 0
        for (position, property) in stored.enumerated() {
            let width = property.collection == .none ? property.type.fixedWidth : 0
            let column: Column
            if isBit(property) {
                column = Column(property: property, position: position, offset: 0, width: -1, isBit: true)
            } else if isInt(property) {
                column = Column(property: property, position: position, offset: intStart + 8 * intIndex, width: 8, packedIndex: intIndex)
                intIndex += 1
            } else if width > 0 {
                column = Column(property: property, position: position, offset: fixed, width: width)
                fixed += width
            } else {
                column = Column(property: property, position: position, offset: vars, width: 0)
                vars += 1
            }
            if property.retired != true { columns.append(column) }
        }
        self.columns = columns
        fixedEnd = intStart + 8 * ints
        varCount = vars
        storedEnds = cls.impliedLastEnd == true && vars > 0 ? vars - 1 : vars
        if columnCount == nil, let generations = cls.generations, generations.count > 1 {
            self.generations = generations.dropLast().map { RecordLayout(cls, columnCount: $0) }
            defaults = [UInt8](cls.defaults ?? Data())
        } else {
            self.generations = []
            defaults = []
        }
    }

    /// The layout `record` was written with: this one, or an older
    /// generation's; nil when its generation byte is not one of the class's.
    func layout(of record: UnsafeRawBufferPointer) -> RecordLayout? {
        guard headerSize > 0 else { return self }
        guard let generation = record.first.map(Int.init) else { return nil }
        if generation == generations.count { return self }
        return generation < generations.count ? generations[generation] : nil
    }

    /// The var table in the wide form (what the encoder writes).
    var varTableStart: Int { fixedEnd }
    /// The smallest record of this layout (every var field empty).
    var minimumSize: Int { intStart + intCount + (compactOffsets ? 1 : 4) * storedEnds }

    /// The width code of `record`'s packed integers (width 1 << code).
    func intCode(_ record: UnsafeRawBufferPointer) -> Int {
        intCount == 0 ? 3 : Int(record[headerSize + nullBytes - 1] >> 6)
    }

    /// Where `record`'s var table starts.
    func varTable(_ record: UnsafeRawBufferPointer) -> Int {
        intCount == 0 ? fixedEnd : intStart + intCount << intCode(record)
    }

    /// The width of the var end offsets of a record of `size` bytes.
    func offsetWidth(_ size: Int) -> Int { compactOffsets ? Int(cs_record_offset_width(size)) : 4 }

    func varDataStart(_ record: UnsafeRawBufferPointer) -> Int { varTable(record) + offsetWidth(record.count) * storedEnds }

    /// Packed integer `index` of `record`, sign-extended to 8 bytes LE.
    func packedInt(_ record: UnsafeRawBufferPointer, _ index: Int) -> [UInt8] {
        let code = intCode(record), width = 1 << code, at = intStart + index << code
        let sign: UInt8 = record[at + width - 1] & 0x80 != 0 ? 0xFF : 0
        return Array(record[at..<(at + width)]) + [UInt8](repeating: sign, count: 8 - width)
    }

    func varEnd(_ record: UnsafeRawBufferPointer, _ index: Int) -> Int {
        if index >= storedEnds { return record.count - varDataStart(record) }
        let width = offsetWidth(record.count), at = varTable(record) + width * index
        switch width {
        case 1: return Int(record[at])
        case 2: return Int(record[at]) | Int(record[at + 1]) << 8
        default: return Int(record.loadUnaligned(fromByteOffset: at, as: UInt32.self))
        }
    }

    /// Why `record` does not fit this layout (or its generation's), or nil if it does.
    func problem(_ record: UnsafeRawBufferPointer) -> String? {
        guard let layout = layout(of: record) else {
            return record.isEmpty ? "empty, the layout needs at least \(minimumSize) bytes"
                : "generation \(record[0]), the class has \(generations.count + 1)"
        }
        if layout.headerSize > 0 && !generations.isEmpty && defaults.count < minimumSize {
            return "the class's stored defaults have \(defaults.count) bytes, the layout needs at least \(minimumSize)"
        }
        return layout.fitProblem(record)
    }

    private func fitProblem(_ record: UnsafeRawBufferPointer) -> String? {
        if record.count < minimumSize { return "\(record.count) bytes, the layout needs at least \(minimumSize)" }
        let varDataStart = varDataStart(record)
        if record.count < varDataStart {
            return "\(record.count) bytes, the layout needs at least \(varDataStart)"
        }
        if intCount > 0 {
            let needed = (0..<intCount).map { RowEncoder.intWidthCode(packedInt(record, $0)) }.max() ?? 0
            if needed != intCode(record) {
                return "integers \(1 << intCode(record)) bytes wide, but they need \(1 << needed) (the record has one encoding)"
            }
        }
        let width = offsetWidth(record.count)
        if compactOffsets && storedEnds > 0 && width > 1 && offsetWidth(record.count - (width - width / 2) * storedEnds) < width {
            return "var end offsets \(width) bytes wide, but the record fits narrower ones (it has two encodings)"
        }
        var previous = 0
        for i in 0..<varCount {
            let end = varEnd(record, i)
            if end < previous || varDataStart + end > record.count {
                return "variable field \(i) ends at \(end), outside \(previous)...\(record.count - varDataStart)"
            }
            previous = end
        }
        for column in columns where column.width == 0 && !isNull(record, column) {
            let property = column.property, field = varField(record, column.offset)
            if property.collection == .none {
                if let problem = RecordLayout.valueProblem(property.type, field) { return "property \(property.name): \(problem)" }
                continue
            }
            if property.type != .any, let marker = ListMarker(field) {
                guard let lists else { continue }
                let stored: [[UInt8]]?
                do { stored = try lists.elements(marker.id, property) } catch { return "property \(property.name): \(error)" }
                if let stored, stored.count != marker.count {
                    return "property \(property.name): the \(property.collection) holds \(marker.count) elements, the collections tree \(stored.count)"
                }
                continue
            }
            if let problem = ElementArray.problem(field) { return "property \(property.name): \(problem)" }
            let elements = ElementArray(bytes: field)
            for i in 0..<elements.count {
                var element = elements.element(i)
                if property.collection == .map {
                    guard element.count >= 4, Int(element.loadUnaligned(as: UInt32.self)) <= element.count - 4 else {
                        return "property \(property.name): map entry \(i) has no room for its key"
                    }
                    let keyLength = Int(element.loadUnaligned(as: UInt32.self))
                    if String(validating: element[4..<(4 + keyLength)], as: UTF8.self) == nil {
                        return "property \(property.name): map key \(i) is not valid UTF-8"
                    }
                    element = UnsafeRawBufferPointer(rebasing: element[(4 + keyLength)...])
                }
                if property.optional || (property.type == .object && property.collection == .map) {
                    guard let tag = element.first, tag <= 1 else { return "property \(property.name): element \(i) has no nil tag" }
                    if tag == 0 {
                        if element.count != 1 { return "property \(property.name): element \(i) is nil with \(element.count - 1) bytes" }
                        continue
                    }
                    element = UnsafeRawBufferPointer(rebasing: element[1...])
                }
                if let problem = RecordLayout.valueProblem(property.type, element) { return "property \(property.name): element \(i): \(problem)" }
            }
        }
        return nil
    }

    /// Why `bytes` is not a stored value of `type`: a fixed-size value of
    /// another size, or text that is not UTF-8.
    static func valueProblem(_ type: ValueType, _ bytes: UnsafeRawBufferPointer) -> String? {
        if type.fixedWidth > 0 {
            return bytes.count == type.fixedWidth ? nil : "\(bytes.count) bytes where \(type) has \(type.fixedWidth)"
        }
        if type == .string || type == .decimal128, String(validating: bytes, as: UTF8.self) == nil { return "not valid UTF-8" }
        return nil
    }

    func isNull(_ record: UnsafeRawBufferPointer, _ column: Column) -> Bool {
        !column.isBit && nullBit(record, column)
    }

    /// The column's null bit (a bit Bool's value).
    func nullBit(_ record: UnsafeRawBufferPointer, _ column: Column) -> Bool {
        record[headerSize + (column.position >> 3)] & (1 << UInt8(column.position & 7)) != 0
    }

    func varField(_ record: UnsafeRawBufferPointer, _ index: Int) -> UnsafeRawBufferPointer {
        let end = varEnd(record, index), start = index == 0 ? 0 : varEnd(record, index - 1)
        let varDataStart = varDataStart(record)
        return UnsafeRawBufferPointer(rebasing: record[(varDataStart + start)..<(varDataStart + end)])
    }

    /// The value of one of `columns` (record checked with `problem` first):
    /// from the record, or from the defaults when its generation lacks it.
    func value(_ record: UnsafeRawBufferPointer, _ column: Column) -> Value {
        guard !generations.isEmpty, let generation = record.first.map(Int.init), generation < generations.count else {
            return fieldValue(record, column)
        }
        let layout = generations[generation]
        if let own = layout.columns.first(where: { $0.position == column.position }) { return layout.fieldValue(record, own, lists: lists) }
        return defaults.withUnsafeBytes { fieldValue($0, column) }
    }

    private func fieldValue(_ record: UnsafeRawBufferPointer, _ column: Column, lists: ListReader? = nil) -> Value {
        let lists = lists ?? self.lists
        if column.isBit { return .bool(nullBit(record, column)) }
        if isNull(record, column) { return .null }
        if let index = column.packedIndex { return packedInt(record, index).withUnsafeBytes { Value.scalar(.int, $0) } }
        if column.width > 0 {
            return Value.scalar(column.property.type, UnsafeRawBufferPointer(rebasing: record[column.offset..<(column.offset + column.width)]))
        }
        let field = varField(record, column.offset)
        let property = column.property
        switch property.collection {
        case .none:
            return Value.scalar(property.type, field)
        case .list, .set:
            if property.type != .any, let marker = ListMarker(field) {
                let stored = (try? lists?.elements(marker.id, property)) ?? nil
                return .array((stored ?? []).map { $0.withUnsafeBytes { Value.element(property, $0) } })
            }
            let elements = ElementArray(bytes: field)
            return .array((0..<elements.count).map { Value.element(property, elements.element($0)) })
        case .map:
            if property.type != .any, let marker = ListMarker(field) {
                let stored = ((try? lists?.elements(marker.id, property)) ?? nil) ?? []
                return .map(stored.map { entry in entry.withUnsafeBytes { mapEntryValue(property, $0) } })
            }
            let elements = ElementArray(bytes: field)
            return .map((0..<elements.count).map { mapEntryValue(property, elements.element($0)) })
        }
    }
}

/// A map entry's key and value.
private func mapEntryValue(_ property: FileProperty, _ entry: UnsafeRawBufferPointer) -> (String, Value) {
    guard entry.count >= 4 else { return ("", .null) }
    let keyLength = min(Int(entry.loadUnaligned(as: UInt32.self)), entry.count - 4)
    let key = String(decoding: entry[4..<(4 + keyLength)], as: UTF8.self)
    return (key, Value.element(property, UnsafeRawBufferPointer(rebasing: entry[(4 + keyLength)...])))
}

struct ElementArray {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count < 4 ? 0 : Int(bytes.loadUnaligned(as: UInt32.self)) }

    func element(_ index: Int) -> UnsafeRawBufferPointer {
        let payload = 4 + 4 * count
        let end = Int(bytes.loadUnaligned(fromByteOffset: 4 + 4 * index, as: UInt32.self))
        let start = index == 0 ? 0 : Int(bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
        return UnsafeRawBufferPointer(rebasing: bytes[(payload + start)..<(payload + end)])
    }

    static func problem(_ bytes: UnsafeRawBufferPointer) -> String? {
        if bytes.isEmpty { return nil }
        let array = ElementArray(bytes: bytes)
        guard bytes.count >= 4, array.count <= (bytes.count - 4) / 4 else { return "collection of \(bytes.count) bytes cannot hold its count" }
        let payload = 4 + 4 * array.count
        var previous = 0
        for i in 0..<array.count {
            let end = Int(bytes.loadUnaligned(fromByteOffset: 4 + 4 * i, as: UInt32.self))
            if end < previous || payload + end > bytes.count { return "collection element \(i) out of bounds" }
            previous = end
        }
        return nil
    }
}

/// A decoded property value, written as JSON or CSV.
indirect enum Value {
    case null
    case int(Int64)
    /// An object key (a link), unsigned as `_key` prints it.
    case key(UInt64)
    case bool(Bool)
    case double(Double)
    case string(String)
    case array([Value])
    case map([(String, Value)])

    static func scalar(_ type: ValueType, _ bytes: UnsafeRawBufferPointer) -> Value {
        func load<T>(_: T.Type) -> T? { bytes.count >= MemoryLayout<T>.size ? bytes.loadUnaligned(as: T.self) : nil }
        switch type {
        case .int: return load(Int64.self).map { .int(Int64(littleEndian: $0)) } ?? .null
        case .bool: return bytes.first.map { .bool($0 != 0) } ?? .null
        case .float: return load(UInt32.self).map { .double(Double(Float(bitPattern: UInt32(littleEndian: $0)))) } ?? .null
        case .double: return load(UInt64.self).map { .double(Double(bitPattern: UInt64(littleEndian: $0))) } ?? .null
        case .date:
            return load(UInt64.self).map {
                let date = Date(timeIntervalSinceReferenceDate: Double(bitPattern: UInt64(littleEndian: $0)))
                return .string(date.ISO8601Format(.init(includingFractionalSeconds: true)))
            } ?? .null
        case .object: return load(UInt64.self).map { .key(UInt64(littleEndian: $0)) } ?? .null
        case .string, .decimal128: return .string(String(decoding: bytes, as: UTF8.self))
        case .data: return .string(Data(bytes).base64EncodedString())
        case .any: return mixed(bytes)
        case .objectId: return .string(bytes.map { String(format: "%02x", $0) }.joined())
        case .uuid:
            guard bytes.count == 16 else { return .null }
            let b = Array(bytes)
            return .string(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])).uuidString)
        case .linkingObjects: return .null
        }
    }

    /// An AnyRealmValue (tag byte, payload; RealmLite's MixedCodec.swift):
    /// the payload as its type's value, a link as {"class", "key"}, nested
    /// lists and dictionaries as arrays and maps.
    static func mixed(_ bytes: UnsafeRawBufferPointer) -> Value {
        guard let tag = bytes.first else { return .null }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[1...])
        let scalars: [ValueType] = [.int, .bool, .float, .double, .string, .data, .date, .objectId, .decimal128, .uuid]
        switch tag {
        case 1...10: return scalar(scalars[Int(tag) - 1], payload)
        case 11:
            guard payload.count >= 8 else { return .null }
            return .map([("class", .string(String(decoding: payload[8...], as: UTF8.self))),
                         ("key", .key(UInt64(littleEndian: payload.loadUnaligned(as: UInt64.self))))])
        case 12:
            let array = ElementArray(bytes: payload)
            return .array((0..<array.count).map { mixed(array.element($0)) })
        case 13:
            let array = ElementArray(bytes: payload)
            return .map((0..<array.count).map { i in
                let entry = array.element(i)
                let length = Int(entry.loadUnaligned(as: UInt32.self))
                return (String(decoding: entry[4..<(4 + length)], as: UTF8.self),
                        mixed(UnsafeRawBufferPointer(rebasing: entry[(4 + length)...])))
            })
        default: return .null
        }
    }

    static func element(_ property: FileProperty, _ bytes: UnsafeRawBufferPointer) -> Value {
        if property.optional || (property.type == .object && property.collection == .map) {
            guard let tag = bytes.first, tag != 0 else { return .null }
            return scalar(property.type, UnsafeRawBufferPointer(rebasing: bytes[1...]))
        }
        return scalar(property.type, bytes)
    }

    /// The links in a decoded AnyRealmValue (mixed, below): maps of exactly
    /// a class name and an object key, at any depth.
    var mixedLinkCount: UInt64 {
        switch self {
        case .array(let values): return values.reduce(0) { $0 + $1.mixedLinkCount }
        case .map(let entries):
            if entries.count == 2, entries[0].0 == "class", entries[1].0 == "key", case .key = entries[1].1 { return 1 }
            return entries.reduce(0) { $0 + $1.1.mixedLinkCount }
        default: return 0
        }
    }

    func writeJSON(to out: inout OutputBuffer) {
        switch self {
        case .null: out.write("null")
        case .int(let v): out.write(String(v))
        case .key(let v): out.write(String(v))
        case .bool(let v): out.write(v ? "true" : "false")
        case .double(let v): out.write(v.isFinite ? "\(v)" : "\"\(v)\"")
        case .string(let s): out.writeJSONString(s)
        case .array(let values):
            out.write("[")
            for (i, v) in values.enumerated() {
                if i > 0 { out.write(",") }
                v.writeJSON(to: &out)
            }
            out.write("]")
        case .map(let entries):
            out.write("{")
            for (i, (k, v)) in entries.enumerated() {
                if i > 0 { out.write(",") }
                out.writeJSONString(k)
                out.write(":")
                v.writeJSON(to: &out)
            }
            out.write("}")
        }
    }

    /// A CSV field: scalars as text, collections as their JSON, quoted when needed.
    func writeCSV(to out: inout OutputBuffer) {
        let text: String
        switch self {
        case .null: return
        case .int(let v): text = String(v)
        case .key(let v): text = String(v)
        case .bool(let v): text = v ? "true" : "false"
        case .double(let v): text = "\(v)"
        case .string(let s): text = s
        case .array, .map:
            var json = OutputBuffer(sink: nil)
            writeJSON(to: &json)
            text = String(decoding: json.bytes, as: UTF8.self)
        }
        out.writeCSVField(text)
    }
}

/// Buffered stdout (flushed every 64 KiB), so dumps stream in constant memory.
struct OutputBuffer {
    var bytes: [UInt8] = []
    /// A file descriptor, or nil to collect into `bytes`.
    let sink: Int32?

    init(sink: Int32?) {
        self.sink = sink
        bytes.reserveCapacity(1 << 16)
    }

    mutating func write(_ s: String) {
        bytes.append(contentsOf: s.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard let sink, !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Foundation.write(sink, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { exit(1) } // stdout closed (e.g. a pipe to head): stop quietly
                done += n
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }

    mutating func writeJSONString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for unit in s.utf8 {
            switch unit {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [92, UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [92, UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20: bytes.append(contentsOf: Array(String(format: "\\u%04x", unit).utf8))
            default: bytes.append(unit)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func writeCSVField(_ s: String) {
        if s.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }) {
            write("\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
        } else {
            write(s)
        }
    }
}

/// The marker of a List, MutableSet or Map stored in the collections tree
/// instead of its field (Sources/RealmLite/Storage/ListTree.swift,
/// SetMapTree.swift): [u32 0xFFFFFFFF][u32 count][u64 id][u32 serial].
struct ListMarker {
    let count: Int
    let id: UInt64

    init?(_ field: UnsafeRawBufferPointer) {
        guard field.count == 20, UInt32(littleEndian: field.loadUnaligned(as: UInt32.self)) == 0xFFFF_FFFF else { return nil }
        count = Int(UInt32(littleEndian: field.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        id = UInt64(littleEndian: field.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }
}

/// The elements of collections in the collections tree (realm:lists: id
/// (u64 BE) ++ order key or content -> element), read from a file's snapshot.
final class ListReader {
    let file: RealmFile
    let tree: cs_tree?

    init(_ file: RealmFile) throws {
        self.file = file
        tree = try file.tree("realm:lists")
    }

    /// The elements of collection `id` of `property` in order, as a field
    /// holds them (TreeInts.swift); nil without a lists tree. Throws if one
    /// is damaged.
    func elements(_ id: UInt64, _ property: FileProperty) throws -> [[UInt8]]? {
        guard let tree else { return nil }
        var elements: [[UInt8]] = []
        var cursor: OpaquePointer?
        try file.check(cs_cursor_open(try file.readTxn(), tree, &cursor))
        defer { cs_cursor_close(cursor) }
        var prefix = id.bigEndian
        var key = withUnsafeBytes(of: &prefix) { cs_val(data: $0.baseAddress, size: 8) }
        var value = cs_val()
        var rc = withUnsafeBytes(of: &prefix) { raw in
            key = cs_val(data: raw.baseAddress, size: 8)
            return cs_cursor_get(cursor, &key, &value, CS_SEEK)
        }
        while rc == 0, key.size > 8,
              UInt64(bigEndian: UnsafeRawPointer(key.data!).loadUnaligned(as: UInt64.self)) == id {
            let stored = Array(UnsafeRawBufferPointer(start: value.data, count: value.size))
            // A set's short elements are keyed by their stored bytes (lookups rely on it).
            if property.collection == .set, stored.count <= TreeInts.setKeyDirectLength,
               !UnsafeRawBufferPointer(start: key.data, count: key.size).dropFirst(8).elementsEqual(stored) {
                throw CLIError("element \(elements.count) of a set in the collections tree is keyed by other bytes than its own")
            }
            if TreeInts.apply(id, property) {
                guard let field = TreeInts.field(stored, id: id, property) else {
                    throw CLIError("element \(elements.count) of the collections tree is not a varint (\(stored.count) bytes)")
                }
                elements.append(field)
            } else {
                elements.append(stored)
            }
            rc = cs_cursor_get(cursor, &key, &value, CS_NEXT)
        }
        if rc != 0 && rc != Int32(CS_NOTFOUND.rawValue) { try file.check(rc) }
        return elements
    }
}
