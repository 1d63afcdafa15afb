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

/// Discovery reads a Persisted<V> field's V from the field type's metadata
/// (no protocol cast): every kind of V gives its own type back, and nothing
/// else is taken for a property.
final class SchemaDiscoveryTests: XCTestCase {
    private func valueType(_ fieldType: Any.Type) -> Any.Type? {
        persistedValueType(fieldType).map { $0 as Any.Type }
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
}
