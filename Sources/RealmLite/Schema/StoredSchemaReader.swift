import Foundation

// A reader for the stored schema's JSON (StoredSchema.swift) as RealmLite
// writes it, without JSONDecoder: a first open decoded it in about a
// quarter of its time, most of it the runtime instantiating the decoder's
// generic types and looking up their conformances once per process. The
// reader takes the plain subset JSONEncoder writes for a schema (objects,
// arrays, strings without \u escapes, integers, booleans, null; only the
// keys it knows) and returns nil for anything else, which StoredSchema.decode
// then hands to JSONDecoder: both give the same schema.

struct StoredSchemaReader {
    private let bytes: UnsafeRawBufferPointer
    private var at = 0

    /// The schema in `bytes`, or nil if it is outside the plain subset.
    static func read(_ bytes: UnsafeRawBufferPointer) -> StoredSchema? {
        var reader = StoredSchemaReader(bytes: bytes)
        guard let schema = reader.schema() else { return nil }
        reader.skipSpace()
        return reader.at == bytes.count ? schema : nil
    }

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private mutating func schema() -> StoredSchema? {
        var version: UInt64?, classes: [StoredClass]?, format: Int?
        let ok = object { key, reader in
            switch key {
            case "version": version = reader.unsigned(); return version != nil
            case "classes": classes = reader.array { $0.storedClass() }; return classes != nil
            case "format": return reader.optional { format = $0.integer().flatMap { Int(exactly: $0) }; return format != nil }
            default: return false // a field this reader does not know: JSONDecoder reads it
            }
        }
        guard ok, let version, let classes else { return nil }
        return StoredSchema(version: version, classes: classes, format: format)
    }

    private mutating func storedClass() -> StoredClass? {
        var name: String?, embedded: Bool?, properties: [StoredProperty]?
        var keyed: Bool?, swiftType: String?, generations: [Int]?, defaults: Data?, compactOffsets: Bool?
        var intSlots: Bool?, impliedLastEnd: Bool?, boolBits: Bool?
        let ok = object { key, reader in
            switch key {
            case "name": name = reader.string(); return name != nil
            case "embedded": embedded = reader.bool(); return embedded != nil
            case "properties": properties = reader.array { $0.storedProperty() }; return properties != nil
            case "keyedByPrimaryKey": return reader.optional { keyed = $0.bool(); return keyed != nil }
            case "swiftType": return reader.optional { swiftType = $0.string(); return swiftType != nil }
            case "generations":
                return reader.optional { generations = $0.array { $0.integer().flatMap { Int(exactly: $0) } }; return generations != nil }
            case "compactOffsets": return reader.optional { compactOffsets = $0.bool(); return compactOffsets != nil }
            case "intSlots": return reader.optional { intSlots = $0.bool(); return intSlots != nil }
            case "impliedLastEnd": return reader.optional { impliedLastEnd = $0.bool(); return impliedLastEnd != nil }
            case "boolBits": return reader.optional { boolBits = $0.bool(); return boolBits != nil }
            case "defaults":
                return reader.optional { defaults = $0.string().flatMap { Data(base64Encoded: $0) }; return defaults != nil }
            default: return false // a field this reader does not know: JSONDecoder reads it
            }
        }
        guard ok, let name, let embedded, let properties else { return nil }
        return StoredClass(name: name, embedded: embedded, properties: properties, keyedByPrimaryKey: keyed,
                           swiftType: swiftType, generations: generations, defaults: defaults, compactOffsets: compactOffsets,
                           intSlots: intSlots, impliedLastEnd: impliedLastEnd, boolBits: boolBits)
    }

    private mutating func storedProperty() -> StoredProperty? {
        var name: String?, type: PropertyType?, optional: Bool?, collection: _CollectionKind?
        var objectClass: String?, primaryKey: Bool?, indexed: Bool?, originProperty: String?, fullText: Bool?, retired: Bool?
        let ok = object { key, reader in
            switch key {
            case "name": name = reader.string(); return name != nil
            case "type": type = reader.integer().flatMap { Int(exactly: $0) }.flatMap(PropertyType.init(rawValue:)); return type != nil
            case "optional": optional = reader.bool(); return optional != nil
            case "collection":
                collection = reader.integer().flatMap { UInt8(exactly: $0) }.flatMap(_CollectionKind.init(rawValue:))
                return collection != nil
            case "objectClass": return reader.optional { objectClass = $0.string(); return objectClass != nil }
            case "primaryKey": primaryKey = reader.bool(); return primaryKey != nil
            case "indexed": indexed = reader.bool(); return indexed != nil
            case "originProperty": return reader.optional { originProperty = $0.string(); return originProperty != nil }
            case "fullText": return reader.optional { fullText = $0.bool(); return fullText != nil }
            case "retired": return reader.optional { retired = $0.bool(); return retired != nil }
            default: return false // a field this reader does not know: JSONDecoder reads it
            }
        }
        guard ok, let name, let type, let optional, let collection, let primaryKey, let indexed else { return nil }
        return StoredProperty(name: name, type: type, optional: optional, collection: collection, objectClass: objectClass,
                              primaryKey: primaryKey, indexed: indexed, originProperty: originProperty, fullText: fullText,
                              retired: retired)
    }

    // MARK: JSON

    private var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipSpace() {
        while let b = peek, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { at += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard peek == byte else { return false }
        at += 1
        return true
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        skipSpace()
        let n = text.utf8CodeUnitCount
        guard at + n <= bytes.count else { return false }
        for i in 0..<n where bytes[at + i] != text.utf8Start[i] { return false }
        at += n
        return true
    }

    /// A member that may be null (then left nil).
    private mutating func optional(_ value: (inout StoredSchemaReader) -> Bool) -> Bool {
        literal("null") || value(&self)
    }

    /// `{ "key": value, ... }`, each value read by `member` (false: fail).
    private mutating func object(_ member: (String, inout StoredSchemaReader) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), member(key, &self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    private mutating func array<T>(_ element: (inout StoredSchemaReader) -> T?) -> [T]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var items: [T] = []
        if take(UInt8(ascii: "]")) { return items }
        repeat {
            guard let item = element(&self) else { return nil }
            items.append(item)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? items : nil
    }

    /// A string; of the escapes, only the one-character ones (JSONEncoder
    /// writes `\/` for every slash, base64 has them); `\u` gives nil.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = at
        var unescaped: [UInt8]?
        var ascii = true
        while let b = peek, b != UInt8(ascii: "\"") {
            guard b >= 0x20 else { return nil }
            if b >= 0x80 { ascii = false }
            if b == UInt8(ascii: "\\") {
                if unescaped == nil { unescaped = Array(bytes[start..<at]) }
                guard at + 1 < bytes.count else { return nil }
                switch bytes[at + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped!.append(bytes[at + 1])
                case UInt8(ascii: "b"): unescaped!.append(0x08)
                case UInt8(ascii: "f"): unescaped!.append(0x0C)
                case UInt8(ascii: "n"): unescaped!.append(0x0A)
                case UInt8(ascii: "r"): unescaped!.append(0x0D)
                case UInt8(ascii: "t"): unescaped!.append(0x09)
                default: return nil
                }
                at += 2
                continue
            }
            unescaped?.append(b)
            at += 1
        }
        guard peek != nil else { return nil }
        // ASCII (every name a schema has in practice) is valid UTF-8: decoded
        // without String(validating:), whose generic validation cost the
        // first open ~2k instructions per string.
        let text = unescaped.map { String(validating: $0, as: UTF8.self) }
            ?? (ascii ? String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
                : String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self))
        at += 1
        return text
    }

    private mutating func integer() -> Int64? {
        skipSpace()
        let negative = peek == UInt8(ascii: "-")
        if negative { at += 1 }
        guard let magnitude = unsigned(), let value = Int64(exactly: magnitude) else { return nil }
        return negative ? -value : value
    }

    /// Digits as a UInt64 (a schema version may exceed Int64).
    private mutating func unsigned() -> UInt64? {
        skipSpace()
        var value: UInt64 = 0, digits = 0
        while let b = peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(b - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = sum
            digits += 1
            at += 1
        }
        // Fractions and exponents are not integers: JSONDecoder decides.
        guard digits > 0, peek != UInt8(ascii: "."), peek != UInt8(ascii: "e"), peek != UInt8(ascii: "E") else { return nil }
        return value
    }

    private mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// Skips any value of the subset (an unknown key's).
}

extension StoredClass {
    init(name: String, embedded: Bool, properties: [StoredProperty], keyedByPrimaryKey: Bool?, swiftType: String?,
         generations: [Int]?, defaults: Data?, compactOffsets: Bool? = nil, intSlots: Bool? = nil, impliedLastEnd: Bool? = nil,
         boolBits: Bool? = nil) {
        self.name = name
        self.embedded = embedded
        self.properties = properties
        self.keyedByPrimaryKey = keyedByPrimaryKey
        self.swiftType = swiftType
        self.generations = generations
        self.defaults = defaults
        self.compactOffsets = compactOffsets
        self.intSlots = intSlots
        self.impliedLastEnd = impliedLastEnd
        self.boolBits = boolBits
    }
}

extension StoredProperty {
    init(name: String, type: PropertyType, optional: Bool, collection: _CollectionKind, objectClass: String?,
         primaryKey: Bool, indexed: Bool, originProperty: String?, fullText: Bool?, retired: Bool?) {
        self.name = name
        self.type = type
        self.optional = optional
        self.collection = collection
        self.objectClass = objectClass
        self.primaryKey = primaryKey
        self.indexed = indexed
        self.originProperty = originProperty
        self.fullText = fullText
        self.retired = retired
    }
}
