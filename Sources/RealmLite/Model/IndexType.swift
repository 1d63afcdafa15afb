// Full-text indexed properties: `@Persisted(indexed: .fullText) var bio: String`.
// The tokenizer and the index are the engine's (CStorage fts.c); queries
// use them through the TEXT operator (Query/FullTextQuery.swift).

/// The kind of index a `@Persisted(indexed:)` property gets.
public enum IndexType: Sendable, Hashable {
    /// The ordinary index: `==`, `IN` and range queries become lookups
    /// (the same as `indexed: true`).
    case general
    /// A full-text index over the words of a String property, for the `TEXT`
    /// query operator (`filter("bio TEXT %@", "cat dog")`) and
    /// `where { $0.bio.fullTextSearch("cat dog") }`. docs/QUERIES.md gives the
    /// tokenizer's rules.
    case fullText
}

extension Persisted {
    @usableFromInline static var fullTextFlag: UInt8 { 4 }
}

extension Persisted where Value == String {
    /// A String property with an index of the given type and a default value:
    /// `@Persisted(indexed: .fullText) var bio = ""`.
    @inlinable public init(wrappedValue: Value, indexed: IndexType) {
        value = wrappedValue
        flags |= indexed == .fullText ? Self.fullTextFlag : Self.indexedFlag
    }

    /// A String property with an index of the given type, empty by default:
    /// `@Persisted(indexed: .fullText) var bio: String`.
    @inlinable public init(indexed: IndexType) {
        self.init(wrappedValue: "", indexed: indexed)
    }
}

extension Persisted where Value == String? {
    /// An optional String property with an index of the given type and a
    /// default value. A nil value has no words.
    @inlinable public init(wrappedValue: Value, indexed: IndexType) {
        value = wrappedValue
        flags |= indexed == .fullText ? Self.fullTextFlag : Self.indexedFlag
    }

    /// An optional String property with an index of the given type, nil by default.
    @inlinable public init(indexed: IndexType) {
        self.init(wrappedValue: nil, indexed: indexed)
    }
}
