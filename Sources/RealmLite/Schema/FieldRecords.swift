import Foundation

// A model class's @Persisted fields read from its field records, the
// compiler's reflection metadata, without instantiating each field's type.
//
// `_forEachField` gives each field's type metadata by instantiating it from
// its mangled name, and instantiating Persisted<V> checks `V: _Persistable`
// at run time: on a miss of the runtime's cache a scan of every conformance
// record of the program, once per value type and process, most of a first
// open. Here a field whose mangled name is Persisted<V> has V looked up in a
// table of the built-in value types (and their optionals), whose witness
// tables the compiler supplies statically; any other V (links, collections,
// enums, custom persistable types) is instantiated as before. Classes whose
// layout this reader does not handle (generic, resilient superclass) return
// nil and take the `_forEachField` path. The layouts read are ABI (the
// runtime's ClassMetadata, ClassDescriptor, FieldDescriptor/FieldRecord and
// symbolic references in mangled names); SchemaDiscoveryTests compare both
// paths on every kind of property.

/// One @Persisted field: its name as stored in the record (`_name`), its
/// byte offset in instances and V.
struct PersistedField {
    let name: String
    let offset: Int
    let valueType: any _Persistable.Type
}

enum FieldRecords {
    /// The @Persisted fields of `type` and its model superclasses, in
    /// declaration order from the root class down (`_forEachField`'s order);
    /// nil if this reader does not handle the class's layout.
    static func persistedFields(of type: ObjectBase.Type) -> [PersistedField]? {
        var fields: [PersistedField] = []
        return forEachPersistedField(of: type) { fields.append($0) } ? fields : nil
    }

    /// `persistedFields(of:)` one field at a time, without the array (one
    /// more generic type for a process's first open to build); false, after
    /// any number of fields, if this reader does not handle the layout.
    static func forEachPersistedField(of type: ObjectBase.Type, _ body: (PersistedField) -> Void) -> Bool {
        #if canImport(ObjectiveC)
        // Class metadata has three more words with Objective-C interop.
        return false
        #else
        return forEachField(from: type, body)
        #endif
    }

    /// The root model class's fields first: recursion, not an array of the
    /// class chain (its type would be built at a process's first open).
    private static func forEachField(from cls: AnyClass, _ body: (PersistedField) -> Void) -> Bool {
        guard !isModelBase(cls) else { return true }
        if let superclass = _getSuperclass(cls), !forEachField(from: superclass, body) { return false }
        return forEachField(of: unsafeBitCast(cls, to: UnsafeRawPointer.self), body)
    }

    /// RealmLite's own base classes declare no @Persisted fields.
    private static func isModelBase(_ cls: AnyClass) -> Bool {
        cls == ObjectBase.self || cls == Object.self || cls == EmbeddedObject.self
    }

    private static let word = MemoryLayout<UInt>.size

    private static func forEachField(of metadata: UnsafeRawPointer, _ body: (PersistedField) -> Void) -> Bool {
        // ClassMetadata (no Objective-C interop): kind, superclass, flags and
        // sizes (24 bytes), then the type descriptor.
        guard let descriptor = metadata.load(fromByteOffset: 5 * word, as: UnsafeRawPointer?.self) else { return false }
        let flags = descriptor.load(as: UInt32.self)
        // Kind 16 (class), not generic (0x80), no resilient superclass
        // (kind-specific bit 13): the field offsets are at a fixed place.
        guard flags & 0x1F == 16, flags & 0x80 == 0, flags & (1 << 29) == 0,
              let fieldDescriptor = relative(descriptor + 16) else { return false }
        let fieldCount = Int(descriptor.load(fromByteOffset: 36, as: UInt32.self))
        let offsetVector = metadata + Int(descriptor.load(fromByteOffset: 40, as: UInt32.self)) * word
        let recordSize = Int(fieldDescriptor.load(fromByteOffset: 10, as: UInt16.self))
        guard Int(fieldDescriptor.load(fromByteOffset: 12, as: UInt32.self)) == fieldCount, recordSize >= 12 else { return false }
        for index in 0..<fieldCount {
            let record = fieldDescriptor + 16 + index * recordSize
            guard let typeName = relative(record + 4), let fieldName = relative(record + 8) else { return false }
            let name = typeName.assumingMemoryBound(to: UInt8.self)
            guard let valueType = persistedValueType(mangled: name, length: mangledLength(name), context: descriptor) else { continue }
            let offset = offsetVector.load(fromByteOffset: index * word, as: Int.self)
            body(PersistedField(name: String(cString: fieldName.assumingMemoryBound(to: CChar.self)),
                                offset: offset, valueType: valueType))
        }
        return true
    }

    /// The target of a 32-bit relative pointer, nil when it is 0.
    private static func relative(_ at: UnsafeRawPointer) -> UnsafeRawPointer? {
        let offset = at.load(as: Int32.self)
        return offset == 0 ? nil : at + Int(offset)
    }

    /// The length of a mangled name: up to its NUL, a symbolic reference's
    /// operand (which may contain 0 bytes) skipped.
    private static func mangledLength(_ name: UnsafePointer<UInt8>) -> Int {
        var i = 0
        while true {
            let byte = name[i]
            switch byte {
            case 0: return i
            case 0x01...0x17: i += 5
            case 0x18...0x1F: i += 1 + word
            default: i += 1
            }
        }
    }

    /// The context descriptor a direct (0x01) or indirect (0x02) symbolic
    /// reference at `at` names; nil for any other token.
    private static func symbolicTarget(_ at: UnsafePointer<UInt8>) -> UnsafeRawPointer? {
        let operand = UnsafeRawPointer(at + 1)
        let target = operand + Int(operand.loadUnaligned(as: Int32.self))
        switch at.pointee {
        case 0x01: return target
        case 0x02: return target.load(as: UnsafeRawPointer?.self)
        default: return nil
        }
    }

    /// V if the field's mangled type is Persisted<V>, nil if it is not.
    private static func persistedValueType(mangled name: UnsafePointer<UInt8>, length: Int,
                                           context: UnsafeRawPointer) -> (any _Persistable.Type)? {
        // Canonical field types: Persisted<V> is `<Persisted> y V G`, with
        // Persisted a symbolic reference (5 bytes), or spelled out.
        guard length > 7, symbolicTarget(name).map({ UInt(bitPattern: $0) }) == persistedTypeDescriptor,
              name[5] == UInt8(ascii: "y"), name[length - 1] == UInt8(ascii: "G") else {
            return spelledOut(name, length) ? instantiated(name, length, context) : nil
        }
        let argument = name + 6, argumentLength = length - 7
        if let builtIn = builtInValueType(argument, argumentLength, context) { return builtIn }
        return instantiated(name, length, context)
    }

    /// A Persisted type not written with a symbolic reference.
    private static func spelledOut(_ name: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        let marker = Array("9PersistedV".utf8)
        guard length >= marker.count else { return false }
        return (0...(length - marker.count)).contains { start in
            (0..<marker.count).allSatisfy { name[start + $0] == marker[$0] }
        }
    }

    /// The general path: the field type instantiated (its requirements
    /// checked by the runtime), V read from its generic arguments.
    private static func instantiated(_ name: UnsafePointer<UInt8>, _ length: Int,
                                     _ context: UnsafeRawPointer) -> (any _Persistable.Type)? {
        _getTypeByMangledNameInContext(name, UInt(length), genericContext: context, genericArguments: nil)
            .flatMap(RealmLite.persistedValueType)
    }

    /// V from the built-in table when the argument is a built-in value type
    /// or the Optional of one (`Sg` at its end).
    static func builtInValueType(_ argument: UnsafePointer<UInt8>, _ length: Int,
                                 _ context: UnsafeRawPointer?) -> (any _Persistable.Type)? {
        let optional = length > 2 && endsInPlainSg(argument, length)
        let bare = optional ? length - 2 : length
        guard let type = standardType(argument, bare)
                ?? _getTypeByMangledNameInContext(argument, UInt(bare), genericContext: context, genericArguments: nil)
        else { return nil }
        let id = ObjectIdentifier(type)
        if !optional && id == ObjectIdentifier(AnyRealmValue.self) { return AnyRealmValue.self }
        guard let primitive = builtInPrimitive(id) else { return nil }
        return optional ? optionalValueType(primitive) : persistableValueType(primitive)
    }

    /// The standard library's one-letter substitutions (`Si`: Int...),
    /// without running the demangler.
    private static func standardType(_ name: UnsafePointer<UInt8>, _ length: Int) -> Any.Type? {
        guard length == 2, name[0] == UInt8(ascii: "S") else { return nil }
        switch name[1] {
        case UInt8(ascii: "i"): return Int.self
        case UInt8(ascii: "S"): return String.self
        case UInt8(ascii: "d"): return Double.self
        case UInt8(ascii: "b"): return Bool.self
        case UInt8(ascii: "f"): return Float.self
        default: return nil
        }
    }

    /// Whether the name's last two bytes are the `Sg` (Optional) operator,
    /// not the operand of a symbolic reference.
    private static func endsInPlainSg(_ name: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        var i = 0
        while i < length - 2 {
            switch name[i] {
            case 0x01...0x17: i += 5
            case 0x18...0x1F: i += 1 + word
            default: i += 1
            }
        }
        return i == length - 2 && name[i] == UInt8(ascii: "S") && name[i + 1] == UInt8(ascii: "g")
    }
}

/// The built-in value type `id` names, with the witness table the compiler
/// supplies statically (no runtime lookup). A switch, not a table: an array
/// of them is one more generic type, and its initializer touches every
/// type's witness table, at a process's first open.
private func builtInPrimitive(_ id: ObjectIdentifier) -> (any _RealmPrimitive.Type)? {
    switch id {
    case ObjectIdentifier(Int.self): Int.self
    case ObjectIdentifier(String.self): String.self
    case ObjectIdentifier(Double.self): Double.self
    case ObjectIdentifier(Bool.self): Bool.self
    case ObjectIdentifier(Date.self): Date.self
    case ObjectIdentifier(Int64.self): Int64.self
    case ObjectIdentifier(Int32.self): Int32.self
    case ObjectIdentifier(Int16.self): Int16.self
    case ObjectIdentifier(Int8.self): Int8.self
    case ObjectIdentifier(Float.self): Float.self
    case ObjectIdentifier(Data.self): Data.self
    case ObjectIdentifier(UUID.self): UUID.self
    case ObjectIdentifier(ObjectId.self): ObjectId.self
    case ObjectIdentifier(Decimal128.self): Decimal128.self
    default: nil
    }
}

// Generic functions, not specialized: inside them Persisted<V> and
// Optional<V> are instantiated from the witness tables passed in, where a
// concrete `Persisted<Int>.self` is instantiated from its mangled name and
// its requirement checked by a conformance scan.

@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func optionalValueType<V: _RealmPrimitive>(_: V.Type) -> any _Persistable.Type { V?.self }

@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func persistableValueType<V: _RealmPrimitive>(_: V.Type) -> any _Persistable.Type { V.self }

@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func persistedMetadata<V: _Persistable>(_: V.Type) -> Any.Type { Persisted<V>.self }

/// The type descriptor every Persisted<V> shares (word 1 of its metadata).
let persistedTypeDescriptor: UInt = unsafeBitCast(persistedMetadata(Int.self), to: UnsafeRawPointer.self)
    .load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self)
