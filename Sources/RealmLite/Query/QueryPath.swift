import CStorage
import Foundation

// Key paths resolved against a class: a chain of closures that walks from a
// record through links (to-one, to-many, linking objects) to the values at
// the end, handing each value to a visitor as bytes inside the map. No Swift
// object is created per row.

/// One value reached by a key path.
enum QueryOperand {
    case null
    /// The stored bytes (record field, collection element...).
    case raw(UnsafeRawBufferPointer)
    /// Computed integers (@count, @sum of ints) and object keys (linking objects).
    case int(Int64)
    /// Computed doubles (@avg, @sum of doubles, @min/@max of doubles and dates).
    case double(Double)
    case decimal(Decimal128)
}

extension QueryOperand {
    /// The object key a link operand holds: a stored link (little-endian,
    /// in a record field or collection element) or a linking object's key.
    @inline(__always)
    var linkedKey: UInt64? {
        switch self {
        case .raw(let bytes): UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        case .int(let k): UInt64(bitPattern: k)
        default: nil
        }
    }
}

extension RealmCore {
    /// The record of the linked object `key` of class `target`; nil if it is gone.
    @inline(__always)
    func linkedRecord(_ target: ClassInfo, _ key: UInt64) -> RecordView? {
        guard let value = loadRecord(target, key) else { return nil }
        return RecordView(base: UnsafeRawPointer(value.data!), size: value.size)
    }
}

/// Visits the values of a key path for one row; the visitor returns false to
/// stop early, and so does the source.
typealias QuerySource = (RealmCore, RecordView, UInt64, (QueryOperand) -> Bool) -> Bool

enum CollectionAggregate: String {
    case count, sum, min, max, avg
}

struct ResolvedPath {
    var source: QuerySource
    /// Type of the values handed to visitors.
    var type: PropertyType
    /// True when the values come from a computed aggregate (.int/.double/.decimal operands).
    var isAggregate = false
    /// More than one value per row (to-many links, collections of values).
    var isMulti = false
    var isOptional = false
    /// Class of object values (links).
    var targetClass: ClassInfo?
    /// The column when the path is one scalar property of the root class.
    var directColumn: Column?
    /// The last property is a collection (List, MutableSet, Map, LinkingObjects).
    var endsInCollection = false
    /// `mixed.@type`: the values are AnyRealmValues whose type is compared
    /// with type names (MixedQuery.swift).
    var typeOf = false
    /// With `typeOf` on a property or collection of one declared type: the
    /// type of every non-nil value (QueryPath+Collections.swift).
    var declaredTag: MixedTag?
    var text: String
}

struct PathResolver {
    let root: ClassInfo
    let format: String
    /// Set when querying a collection of values: `self` is the element
    /// (QueryCompiler+Self.swift).
    var selfPath: ResolvedPath? = nil

    func fail(_ message: String, _ position: Int) -> Realm.Error {
        let place = position >= 0 ? " at position \(position)" : ""
        let context = format.isEmpty ? "" : " in '\(format)'"
        return .query(message + place + context + ".")
    }

    func resolve(_ components: [String], position: Int) throws -> ResolvedPath {
        if let selfPath { return try resolveSelf(components, selfPath, position: position) }
        return try resolve(components[...], info: root, position: position, text: components.joined(separator: "."))
    }

    private func column(_ name: String, _ info: ClassInfo, _ position: Int) throws -> Column {
        guard let index = info.descriptor.propertyIndex[name] else {
            let known = info.columns.map(\.name).joined(separator: ", ")
            throw fail("Property '\(name)' not found in class '\(info.name)' (properties: \(known))", position)
        }
        return info.columns[index]
    }

    func resolve(_ components: ArraySlice<String>, info: ClassInfo, position: Int, text: String) throws -> ResolvedPath {
        guard let name = components.first else { throw fail("Empty key path", position) }
        if name == "@links" { return try backlinksPath(components.dropFirst(), info: info, position: position, text: text) }
        if name.hasPrefix("@") { throw fail("Collection operator '\(name)' must follow a collection property in '\(text)'", position) }
        let column = try column(name, info, position)
        let rest = components.dropFirst()
        let slot = info.slots[column.index]
        let layout = info.layout
        let isObject = column.type == .object || column.type == .linkingObjects
        let isToMany = column.collection != .none || column.type == .linkingObjects

        if !isToMany {
            if column.type == .object {
                guard let target = column.target else { throw fail("Class of link '\(info.name).\(name)' is not in the schema", position) }
                if rest.isEmpty {
                    return ResolvedPath(source: { _, record, _, visit in
                        visit(record.isNull(slot) ? .null : .raw(record.field(slot, layout)))
                    }, type: .object, isOptional: true, targetClass: target, text: text)
                }
                var next = try resolve(rest, info: target, position: position, text: text)
                let inner = next.source
                next.source = { realm, record, _, visit in
                    if record.isNull(slot) { return visit(.null) }
                    guard let key = QueryOperand.raw(record.field(slot, layout)).linkedKey,
                          let linked = realm.linkedRecord(target, key) else { return visit(.null) }
                    return inner(realm, linked, key, visit)
                }
                next.isOptional = true
                next.directColumn = nil
                return next
            }
            if column.type == .any, !rest.isEmpty {
                // Into the value: @type, @size, [0], ['key'], [*] (MixedQuery.swift).
                return try resolveMixed(rest, { _, record, _, visit in
                    visit(record.isNull(slot) ? .null : .raw(record.field(slot, layout)))
                }, isMulti: false, position: position, text: text)
            }
            if column.type == .string || column.type == .data, rest.count == 1, rest.first == "@size" || rest.first == "@count" {
                return lengthPath(slot, layout, column, text: text)
            }
            if rest.count == 1, rest.first == "@type", let tag = MixedTag(declared: column.type), slot.width != ColumnSlot.objectKey {
                return ResolvedPath(source: { _, record, _, visit in
                    visit(record.isNull(slot) ? .null : .raw(record.field(slot, layout)))
                }, type: .any, typeOf: true, declaredTag: tag, text: text)
            }
            if let extra = rest.first {
                throw fail("Property '\(info.name).\(name)' of type \(column.type) is not a link or collection, so '\(extra)' cannot follow it", position)
            }
            if slot.width == ColumnSlot.objectKey {
                return ResolvedPath(source: { _, _, key, visit in
                    withPrimaryKeyBytes(objectKey: key) { visit(.raw($0)) }
                }, type: column.type, isOptional: false, directColumn: column, text: text)
            }
            return ResolvedPath(source: { _, record, _, visit in
                visit(record.isNull(slot) ? .null : .raw(record.field(slot, layout)))
            }, type: column.type, isOptional: column.isOptional, directColumn: column, text: text)
        }

        // To-many: collections of values or objects, linking objects.
        let tagged = column.isOptional
        let isMap = column.collection == .map
        let treeType = TreeElementEncoding(column)
        // Visits each element's bytes (nil element = .null).
        let elements: (RealmCore, RecordView, UInt64, (QueryOperand) -> Bool) -> Bool
        if column.type == .linkingObjects {
            guard let origin = column.target, column.originColumn >= 0 else {
                throw fail("Linking objects '\(info.name).\(name)' have no origin property in the schema", position)
            }
            let originColumn = origin.columns[column.originColumn]
            elements = { realm, _, key, visit in
                for source in realm.backlinkSources(originColumn, target: key) where !visit(.int(Int64(bitPattern: source))) { return false }
                return true
            }
        } else {
            elements = { realm, record, _, visit in
                let view = realm.elementArray(record.field(slot, layout), type: treeType)
                for i in 0..<view.count {
                    var element = view.element(i)
                    if isMap { element = MapEntry.split(element).value }
                    if !visit(elementOperand(element, tagged: tagged)) { return false }
                }
                return true
            }
        }
        let elementType: PropertyType = column.type == .linkingObjects ? .object : column.type
        let collection = CollectionSource(elements: elements, elementType: elementType, target: column.target,
                                          isObject: isObject, isMap: isMap, isList: column.collection == .list,
                                          tagged: tagged,
                                          field: column.type == .linkingObjects ? nil : { $0.elementArray($1.field(slot, layout), type: treeType) }, name: "\(info.name).\(name)")
        return try collectionPath(collection, rest, position: position, text: text)
    }

    /// For each linked object (element operands hold object keys), runs `inner` on its record.
    func objectWalk(_ elements: @escaping QuerySource, _ target: ClassInfo, _ inner: @escaping QuerySource) -> QuerySource {
        { realm, record, key, visit in
            elements(realm, record, key) { operand in
                guard let linked = operand.linkedKey, let record = realm.linkedRecord(target, linked) else { return true }
                return inner(realm, record, linked, visit)
            }
        }
    }

    func aggregatePath(_ op: CollectionAggregate, _ values: @escaping QuerySource, _ type: PropertyType,
                               name: String, position: Int, text: String) throws -> ResolvedPath {
        if type == .any { return try aggregatePath(op, mixedNumbers(values), .double, name: name, position: position, text: text) }
        let numeric: Set<PropertyType> = [.int, .float, .double, .decimal128]
        let ordered: Set<PropertyType> = numeric.union([.date])
        guard (op == .min || op == .max ? ordered : numeric).contains(type) else {
            throw fail("'@\(op.rawValue)' is not supported on \(type) values ('\(text)')", position)
        }
        let resultType: PropertyType
        switch (op, type) {
        case (.sum, .int): resultType = .int
        case (_, .decimal128): resultType = .decimal128
        case (.avg, _), (.sum, _): resultType = .double
        default: resultType = type
        }
        return ResolvedPath(source: { realm, record, key, visit in
            var acc = AggregateAccumulator(op: op, type: type)
            _ = values(realm, record, key) { acc.add($0); return true }
            return visit(acc.result)
        }, type: resultType, isAggregate: true, isOptional: op != .sum && op != .count, text: text)
    }
}

/// Folds values of one stored type into a sum, min, max or average.
struct AggregateAccumulator {
    let op: CollectionAggregate
    let type: PropertyType
    var count = 0
    var intSum: Int64 = 0
    var doubleSum: Double = 0
    var decimalSum = Decimal128()
    var best: QueryOperand = .null
    var bestDouble = 0.0
    var bestDecimal = Decimal128()
    var bestInt: Int64 = 0

    init(op: CollectionAggregate, type: PropertyType) {
        self.op = op
        self.type = type
    }

    mutating func add(_ operand: QueryOperand) {
        switch type {
        case .int:
            guard let v = operandInt(operand) else { return }
            count += 1
            intSum &+= v
            if count == 1 || (op == .min ? v < bestInt : v > bestInt) { bestInt = v }
        case .decimal128:
            guard let v = operandDecimal(operand), !v.isNaN else { return }
            count += 1
            decimalSum = decimalSum + v
            if count == 1 || (op == .min ? v < bestDecimal : bestDecimal < v) { bestDecimal = v }
        default:
            guard let v = operandDouble(operand, type), !v.isNaN else { return }
            count += 1
            doubleSum += v
            if count == 1 || (op == .min ? v < bestDouble : v > bestDouble) { bestDouble = v }
        }
    }

    var result: QueryOperand {
        switch op {
        case .count: return .int(Int64(count))
        case .sum:
            switch type {
            case .int: return .int(intSum)
            case .decimal128: return .decimal(decimalSum)
            default: return .double(doubleSum)
            }
        case .avg:
            guard count > 0 else { return .null }
            switch type {
            case .int: return .double(Double(intSum) / Double(count))
            case .decimal128: return .decimal(decimalSum / Decimal128(count))
            default: return .double(doubleSum / Double(count))
            }
        case .min, .max:
            guard count > 0 else { return .null }
            switch type {
            case .int: return .int(bestInt)
            case .decimal128: return .decimal(bestDecimal)
            default: return .double(bestDouble)
            }
        }
    }
}

// MARK: - Reading operands

@inline(__always)
func operandInt(_ operand: QueryOperand) -> Int64? {
    switch operand {
    case .raw(let bytes): storedInt(bytes)
    case .int(let v): v
    default: nil
    }
}

/// Numbers and dates (seconds since the reference date) as Double.
@inline(__always)
func operandDouble(_ operand: QueryOperand, _ type: PropertyType) -> Double? {
    switch operand {
    case .raw(let bytes):
        switch type {
        case .int: Double(storedInt(bytes))
        case .float: Double(Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self))))
        case .double, .date: Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
        case .decimal128: Decimal128._rlmLoad(bytes).doubleValue
        default: nil
        }
    case .int(let v): Double(v)
    case .double(let v): v
    case .decimal(let v): v.doubleValue
    case .null: nil
    }
}

func operandDecimal(_ operand: QueryOperand) -> Decimal128? {
    switch operand {
    case .raw(let bytes): Decimal128._rlmLoad(bytes)
    case .int(let v): Decimal128(Int(v))
    case .double(let v): Decimal128(v)
    case .decimal(let v): v
    case .null: nil
    }
}
