import Foundation

// The query tree shared by predicate strings (QueryParser) and the
// type-safe `where {}` builder (WhereBuilder). QueryCompiler type-checks it
// against a class and turns it into a filter over record bytes.
// Positions are character offsets into the format string (-1: builder).

indirect enum QueryPredicate {
    case constant(Bool)
    case and(QueryPredicate, QueryPredicate)
    case or(QueryPredicate, QueryPredicate)
    case not(QueryPredicate)
    case comparison(QueryComparison)
    /// `location GEOWITHIN shape` (Geospatial/GeoQuery.swift).
    case geoWithin(QueryGeoWithin)
}

/// ANY / ALL / NONE before a comparison on a to-many path.
enum QueryQuantifier {
    case implicit, any, all, none
}

enum QueryOperator: String {
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS", like = "LIKE"
    case `in` = "IN", between = "BETWEEN"
    /// Full-text search (FullTextQuery.swift).
    case text = "TEXT"

    /// The operator with its operands swapped (3 < age  ->  age > 3).
    var flipped: QueryOperator? {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: nil
        }
    }

    /// The operator when a quantified collection on the right moves to the
    /// left (`7 IN ANY ints` -> `ANY ints == 7`).
    var flippedToCollection: QueryOperator? { self == .in ? .equal : flipped }

    var isStringOperator: Bool { self == .beginsWith || self == .endsWith || self == .contains || self == .like }
    var isOrdering: Bool { self == .less || self == .lessOrEqual || self == .greater || self == .greaterOrEqual }
}

struct QueryComparison {
    var quantifier: QueryQuantifier = .implicit
    var left: QueryExpression
    var op: QueryOperator
    var right: QueryExpression
    var caseInsensitive = false
    var diacriticInsensitive = false
    var position: Int = -1
    /// `ANY {1, 2} IN ints`, `ALL {...} < ALL path`, `age == NONE {18, 21}`:
    /// the quantifier over the constants of `right` (a list), compared with
    /// `left`'s values under `quantifier`. `.implicit` for every other
    /// comparison.
    var listQuantifier: QueryQuantifier = .implicit
    /// The list was written first, so its quantifier is the outer one
    /// (`ALL {1, 2} IN ANY ints`); otherwise the property's is
    /// (`ANY ints > ALL {1, 2}`).
    var listIsOuter = true
    /// A list of constants and a property with no ANY, ALL or NONE on
    /// either side: on a to-many path, Realm compares them element by
    /// element (QueryListComparisons.swift); on one value it means ANY.
    var listUnquantified = false
}

enum QueryExpression {
    /// Property names, possibly with collection operators ("dogs", "@count").
    case keyPath([String], position: Int)
    case value(QueryValue, position: Int)
    /// `{a, b, c}` or an array argument (IN, BETWEEN).
    case list([QueryValue], position: Int)
    /// `SUBQUERY(collection, $x, predicate).@count`
    case subquery(QuerySubquery, position: Int)
    /// `left + right`, `-`, `*`, `/` on numbers, with a key path on one side
    /// at least (constants are folded by the parser).
    indirect case arithmetic(Character, QueryExpression, QueryExpression, position: Int)

    var position: Int {
        switch self {
        case .keyPath(_, let p), .value(_, let p), .list(_, let p), .subquery(_, let p), .arithmetic(_, _, _, let p): p
        }
    }

    /// A key path, a subquery or arithmetic on them: something evaluated per object.
    var isPath: Bool {
        switch self {
        case .keyPath, .subquery, .arithmetic: true
        default: false
        }
    }
}

/// The number of objects of a to-many key path matching a predicate, whose
/// key paths start with `variable` (the collection's element).
final class QuerySubquery {
    let collection: [String]
    let variable: String
    let predicate: QueryPredicate

    init(collection: [String], variable: String, predicate: QueryPredicate) {
        self.collection = collection
        self.variable = variable
        self.predicate = predicate
    }
}

/// A constant of a query.
enum QueryValue: CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case objectId(ObjectId)
    case uuid(UUID)
    case decimal(Decimal128)
    case object(ObjectBase)
    /// `obj('Class', primaryKey)`: resolved per evaluation (QueryObjectLiterals.swift).
    indirect case objectReference(String, QueryValue)
    /// `O123`: the object whose object key is 123, in the class a link targets.
    case objectKey(UInt64)

    var description: String {
        switch self {
        case .null: "nil"
        case .bool(let v): "\(v)"
        case .int(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): "'\(v)'"
        case .data(let v): "<data of \(v.count) bytes>"
        case .date(let v): "\(v)"
        case .objectId(let v): "oid(\(v))"
        case .uuid(let v): "uuid(\(v.uuidString))"
        case .decimal(let v): "\(v)"
        case .object(let v): "\(type(of: v).className()) object"
        case .objectReference(let name, let key): "obj('\(name)', \(key))"
        case .objectKey(let key): "O\(key)"
        }
    }

    /// "a string", "an int"... for error messages.
    var kindName: String {
        switch self {
        case .null: "nil"
        case .bool: "a bool"
        case .int: "an int"
        case .double: "a double"
        case .string: "a string"
        case .data: "data"
        case .date: "a date"
        case .objectId: "an object id"
        case .uuid: "a uuid"
        case .decimal: "a decimal128"
        case .object, .objectReference, .objectKey: "an object"
        }
    }

    /// Converts an argument (%@, builder operand). Arrays are handled by the
    /// caller; nil for unsupported types.
    /// A String, Int, Bool or Double by its static type (no dynamic cast);
    /// nil for every other type, which `from` converts.
    @inline(__always)
    static func plain<V>(_ value: V) -> QueryValue? {
        if V.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if V.self == Int.self { return .int(Int64(unsafeBitCast(value, to: Int.self))) }
        if V.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if V.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
        return nil
    }

    static func from(_ any: Any) -> QueryValue? {
        // The common constants first: one concrete cast costs less than the
        // optional checks below (which a nil or wrapped value needs).
        switch any {
        case let v as String: return .string(v)
        case let v as Int: return .int(Int64(v))
        case let v as Bool: return .bool(v)
        case let v as Double: return .double(v)
        default: break
        }
        if isNil(any) { return .null }
        let value = unwrapOptional(any)
        switch value {
        case let v as Bool: return .bool(v)
        case let v as String: return .string(v)
        case let v as Substring: return .string(String(v))
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        case let v as Date: return .date(v)
        case let v as Data: return .data(v)
        case let v as ObjectId: return .objectId(v)
        case let v as UUID: return .uuid(v)
        case let v as Decimal128: return .decimal(v)
        case let v as Decimal: return .decimal(Decimal128(v))
        case let v as ObjectBase: return .object(v)
        case let v as AnyRealmValue: return from(mixed: v)
        default: break
        }
        if let int = anyInteger(value), !(value is Double) { return .int(int) }
        // A custom persistable type queries as its persisted value.
        if let custom = value as? any _CustomPersistable { return from(custom.persistableValue) }
        if let raw = value as? any RawRepresentable { return from(raw.rawValue) }
        return nil
    }
}

extension QueryValue {
    /// An AnyRealmValue argument as the constant it holds (nil for .none and
    /// for nested collections, which cannot be compared).
    static func from(mixed value: AnyRealmValue) -> QueryValue? {
        switch value {
        case .none: .null
        case .int(let v): .int(Int64(v))
        case .bool(let v): .bool(v)
        case .float(let v): .double(Double(v))
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .decimal128(let v): .decimal(v)
        case .uuid(let v): .uuid(v)
        case .object(let v): .object(v)
        case .list, .dictionary: nil
        }
    }
}

/// The payload of a non-nil Optional wrapped in Any (any depth).
func unwrapOptional(_ any: Any) -> Any {
    if let optional = any as? any AnyOptional, let wrapped = optional.anyWrapped { return unwrapOptional(wrapped) }
    return any
}

extension Realm.Error {
    static func query(_ message: String) -> Realm.Error { Realm.Error(.invalidValue, message) }
}
