import Foundation
import XCTest
@testable import RealmLite

/// Same layout as Persisted (a generic struct over a _Persistable value) but
/// not Persisted: discovery must not take it for a property.
private struct LookAlike<Value: _Persistable> {
    var column: Int32 = -1
    var flags: UInt8 = 0
    var value: Value
}

/// A model with stored fields that are not @Persisted beside those that are.
private final class MixedFields: Object {
    @Persisted var name = ""
    var cache = 7
    let lookAlike = LookAlike(value: 3)
    @Persisted var tags: List<String>
    @Persisted var mood: Mood?
}

/// A model subclassing a model: its fields follow the superclass's.
private class BaseModel: Object {
    @Persisted var base = 0
    @Persisted var baseName: String?
}

private final class DerivedModel: BaseModel {
    @Persisted var derived = 0.0
    @Persisted var tags: List<Int>
}

/// Two classes linking to each other: the closure holds each once.
private final class CycleA: Object {
    @Persisted var b: CycleB?
    override class func _realmIgnoreClass() -> Bool { true }
}

private final class CycleB: Object {
    @Persisted var a: CycleA?
    @Persisted var many: List<CycleA>
    override class func _realmIgnoreClass() -> Bool { true }
}

/// A generic model class: its field offsets are not at a fixed place, so
/// the field-record reader leaves it to reflection.
private final class GenericModel<T>: Object {
    @Persisted var name = ""
    @Persisted var count = 0
}

/// A generic subclass of a model: the reader handles its superclass, then
/// gives up on it, so discovery starts again through reflection.
private final class GenericDerived<T>: BaseModel {
    @Persisted var extra = 0
}

/// Discovery reads a Persisted<V> field's V from the field type's metadata
/// (no protocol cast): every kind of V gives its own type back, and nothing
/// else is taken for a property.
final class SchemaDiscoveryTests: XCTestCase {
    private func valueType(_ fieldType: Any.Type) -> Any.Type? {
        persistedValueType(fieldType).map { $0 as Any.Type }
    }

    func testClosureHoldsEachLinkedClassOnce() throws {
        XCTAssertEqual(try SchemaDiscovery.closure(of: [CycleA.self]).map(\.name).sorted(), ["CycleA", "CycleB"])
        XCTAssertEqual(try SchemaDiscovery.closure(of: [CycleB.self, CycleA.self, CycleB.self]).map(\.name).sorted(),
                       ["CycleA", "CycleB"])
    }

    func testPersistedFieldTypesGiveTheirValueType() {
        XCTAssertTrue(valueType(Persisted<Int>.self) == Int.self)
        XCTAssertTrue(valueType(Persisted<String?>.self) == String?.self)
        XCTAssertTrue(valueType(Persisted<Color>.self) == Color.self)
        XCTAssertTrue(valueType(Persisted<Decimal128?>.self) == Decimal128?.self)
        XCTAssertTrue(valueType(Persisted<List<Dog>>.self) == List<Dog>.self)
        XCTAssertTrue(valueType(Persisted<Map<String, Pet?>>.self) == Map<String, Pet?>.self)
        XCTAssertTrue(valueType(Persisted<LinkingObjects<Owner>>.self) == LinkingObjects<Owner>.self)
        XCTAssertTrue(valueType(Persisted<Address?>.self) == Address?.self)
    }

    func testOtherTypesAreNotPersistedFields() {
        XCTAssertNil(valueType(Int.self))
        XCTAssertNil(valueType(Int?.self))
        XCTAssertNil(valueType(LookAlike<Int>.self))
        XCTAssertNil(valueType(List<Int>.self))
        XCTAssertNil(valueType(Dog.self))
        XCTAssertNil(valueType([Int].self))
    }

    /// The witness table read with V works: the accessors built from it
    /// encode, read and convert values of the right type.
    func testDiscoveredAccessorsUseTheValueType() throws {
        let descriptor = try SchemaDiscovery.descriptor(for: MixedFields.self)
        XCTAssertEqual(descriptor.properties.map(\.name), ["name", "tags", "mood"])
        XCTAssertEqual(descriptor.properties.map(\.shape.type), [.string, .string, .string])
        XCTAssertEqual(descriptor.properties.map(\.shape.collection), [.none, .list, .none])
        XCTAssertEqual(descriptor.properties.map(\.shape.isOptional), [false, false, true])
        XCTAssertTrue(descriptor.properties[2].accessor.valueType == Mood?.self)

        let object = MixedFields()
        try descriptor.properties[0].accessor.setValue("abc", on: object, realm: nil)
        try descriptor.properties[2].accessor.setValue("sad", on: object, realm: nil)
        XCTAssertEqual(object.name, "abc")
        XCTAssertEqual(object.mood, .sad)
        XCTAssertEqual(object.cache, 7)

        let realm = try Realm(configuration: .init(inMemoryIdentifier: #function, objectTypes: [MixedFields.self]))
        try realm.write { realm.add(object) }
        XCTAssertEqual(realm.objects(MixedFields.self).first?.mood, .sad)
        XCTAssertEqual(realm.objects(MixedFields.self).first?.name, "abc")
    }

    /// Every class of the tests' models of every property kind (built-in
    /// values and their optionals, collections of each, links, linking
    /// objects, embedded objects, enums, custom persistable types, a
    /// subclass, non-Persisted fields) gives from its field records the same
    /// fields, offsets and value types as from the runtime's reflection.
    func testFieldRecordsAgreeWithReflection() throws {
        let types: [ObjectBase.Type] = [
            AllTypes.self, Bag.self, Dog.self, Person.self, Owner.self, Pet.self, Address.self, Geo.self,
            RFAll.self, MixedFields.self, CustomHolder.self, Product.self, OptionalSkuKeyed.self,
            FailableHolder.self, CEPlace.self, CELocation.self, MixedHolder.self, Kennel.self,
            BaseModel.self, DerivedModel.self,
        ]
        for type in types {
            let fast = try XCTUnwrap(FieldRecords.persistedFields(of: type), "\(type)")
            let reflected = SchemaDiscovery.reflectedFields(of: type)
            XCTAssertFalse(fast.isEmpty, "\(type)")
            XCTAssertEqual(fast.map(\.name), reflected.map(\.name), "\(type)")
            XCTAssertEqual(fast.map(\.offset), reflected.map(\.offset), "\(type)")
            XCTAssertEqual(fast.map { ObjectIdentifier($0.valueType) }, reflected.map { ObjectIdentifier($0.valueType) },
                           "\(type): \(fast.map(\.valueType)) vs \(reflected.map(\.valueType))")
        }
        XCTAssertEqual(FieldRecords.persistedFields(of: DerivedModel.self)?.map(\.name), ["_base", "_baseName", "_derived", "_tags"])
    }

    /// The descriptors discovery builds (so the stored schema) are those the
    /// reflection path gives.
    func testDescriptorsMatchTheReflectionPath() throws {
        for type in [AllTypes.self, Bag.self, Owner.self, Pet.self, CustomHolder.self, CEPlace.self] as [ObjectBase.Type] {
            let descriptor = try SchemaDiscovery.descriptor(for: type)
            let reflected = SchemaDiscovery.reflectedFields(of: type)
            XCTAssertEqual(descriptor.properties.map(\.name), reflected.map { String($0.name.dropFirst()) })
            XCTAssertEqual(descriptor.properties.map { ObjectIdentifier($0.accessor.valueType) },
                           reflected.map { ObjectIdentifier($0.valueType) })
        }
    }

    /// Built-in values and their optionals come from the static table; other
    /// types (collections, optionals of them) are not in it.
    func testBuiltInTableResolvesMangledValueTypes() {
        func resolve(_ mangled: String) -> Any.Type? {
            Array(mangled.utf8).withUnsafeBufferPointer { FieldRecords.builtInValueType($0.baseAddress!, $0.count, nil) }
                .map { $0 as Any.Type }
        }
        XCTAssertTrue(resolve("Si") == Int.self)
        XCTAssertTrue(resolve("SS") == String.self)
        XCTAssertTrue(resolve("Sd") == Double.self)
        XCTAssertTrue(resolve("Sb") == Bool.self)
        XCTAssertTrue(resolve("Sf") == Float.self)
        XCTAssertTrue(resolve("s5Int64V") == Int64.self)
        XCTAssertTrue(resolve("SiSg") == Int?.self)
        XCTAssertTrue(resolve("SSSg") == String?.self)
        XCTAssertTrue(resolve("SbSg") == Bool?.self)
        XCTAssertNil(resolve("SaySiG"))
        XCTAssertNil(resolve("SaySiGSg"))
        XCTAssertNil(resolve("s6UInt64V"))
    }

    /// A class the reader does not handle (generic) is discovered through
    /// reflection, with the same properties.
    func testGenericModelFallsBackToReflection() throws {
        XCTAssertNil(FieldRecords.persistedFields(of: GenericModel<Int>.self))
        let descriptor = try SchemaDiscovery.descriptor(for: GenericModel<Int>.self)
        XCTAssertEqual(descriptor.properties.map(\.name), ["name", "count"])
        XCTAssertEqual(descriptor.properties.map(\.shape.type), [.string, .int])
    }

    /// The reader gives fields one at a time: when it gives up after some
    /// (a generic subclass of a model it reads), none of them is kept twice.
    func testPartlyReadClassFallsBackWithoutDuplicates() throws {
        var given: [String] = []
        XCTAssertFalse(FieldRecords.forEachPersistedField(of: GenericDerived<Int>.self) { given.append($0.name) })
        XCTAssertEqual(given, ["_base", "_baseName"])
        let descriptor = try SchemaDiscovery.descriptor(for: GenericDerived<Int>.self)
        XCTAssertEqual(descriptor.properties.map(\.name), ["base", "baseName", "extra"])
        XCTAssertEqual(descriptor.publicSchema.properties.map(\.name), ["base", "baseName", "extra"])
    }
}
