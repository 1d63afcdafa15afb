// Codable models, as RealmSwift: `class Dog: Object, Codable` gets Swift's
// synthesized conformance because @Persisted and the collections are
// Codable when their values are. Decoding makes unmanaged objects, ready
// for `realm.add`. Encoding reads what the wrapper holds, so it works on
// unmanaged objects: a managed property is read through its object, which
// the wrapper does not know (it holds only its column), so encoding a
// managed object throws an EncodingError saying what to do (as RealmSwift).

extension Persisted: Decodable where Value: Decodable {
    /// Decodes the property's value (a missing optional decodes as nil).
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let optional = Value.self as? any ExpressibleByNilLiteral.Type, container.decodeNil() {
            self.init(wrappedValue: optional.init(nilLiteral: ()) as! Value)
        } else {
            self.init(wrappedValue: try container.decode(Value.self))
        }
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes the value of an unmanaged object's property. A managed
    /// object's property throws `EncodingError.invalidValue`: copy the object
    /// first (`Dog(value: managedDog)`) or write `encode(to:)` yourself.
    public func encode(to encoder: Encoder) throws {
        guard column == -1 else {
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "Only unmanaged Realm objects can be encoded with Swift's synthesized Codable conformance: a managed property reads through its object, which the property wrapper does not know. Encode an unmanaged copy (Dog(value: managedDog)), or write encode(to:) on the model class."))
        }
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Lets a synthesized `init(from:)` treat a missing key of an optional
/// @Persisted property as nil, as it does for a plain optional property
/// (RealmSwift's protocol of the same name).
public protocol OptionalCodingWrapper {
    /// The optional type wrapped.
    associatedtype WrappedType: ExpressibleByNilLiteral
    /// A wrapper holding `wrappedValue`.
    init(wrappedValue: WrappedType)
}

extension Persisted: OptionalCodingWrapper where Value: ExpressibleByNilLiteral {}

extension KeyedDecodingContainer {
    /// Decodes an optional wrapped property: nil when the key is missing.
    public func decode<T>(_ type: T.Type, forKey key: KeyedDecodingContainer<K>.Key) throws -> T
    where T: Decodable, T: OptionalCodingWrapper {
        try decodeIfPresent(T.self, forKey: key) ?? T(wrappedValue: nil)
    }
}

extension List: Decodable where Element: Decodable {
    /// An unmanaged list of the decoded elements (an array in the coding).
    public convenience init(from decoder: Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { append(try container.decode(Element.self)) }
    }
}

extension List: Encodable where Element: Encodable {}

extension MutableSet: Decodable where Element: Decodable {
    /// An unmanaged set of the decoded elements (an array in the coding).
    public convenience init(from decoder: Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { insert(try container.decode(Element.self)) }
    }
}

extension MutableSet: Encodable where Element: Encodable {}

extension Results: Encodable where Element: Encodable {}

extension AnyRealmCollection: Encodable where Element: Encodable {}

extension RealmCollection where Element: Encodable {
    /// Encodes the elements in order, as an array.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension Map: Decodable where Key: Decodable, Value: Decodable {
    /// An unmanaged map of the decoded entries (a dictionary in the coding).
    public convenience init(from decoder: Decoder) throws {
        self.init()
        let container = try decoder.singleValueContainer()
        for (key, value) in try container.decode([Key: Value].self) { self[key] = value }
    }
}

extension Map: Encodable where Key: Encodable, Value: Encodable {
    /// Encodes the entries as a dictionary.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(reduce(into: [Key: Value]()) { $0[$1.key] = $1.value })
    }
}
