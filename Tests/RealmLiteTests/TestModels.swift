import Foundation
import RealmLite

// Models shared by the tests. Dog/Person are the seed's model.

class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

class Person: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    @Persisted var dogs: List<Dog>
}

enum Color: Int, PersistableEnum { case red, green, blue }
enum Mood: String, PersistableEnum { case happy, sad, sleepy }

/// Every scalar type, required and optional.
class AllTypes: Object {
    @Persisted var bool = false
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var float: Float = 0
    @Persisted var double: Double = 0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var uuid = UUID()
    @Persisted var objectId = ObjectId()
    @Persisted var decimal = Decimal128()
    @Persisted var color = Color.red
    @Persisted var mood = Mood.happy

    @Persisted var optBool: Bool?
    @Persisted var optInt: Int?
    @Persisted var optInt8: Int8?
    @Persisted var optInt16: Int16?
    @Persisted var optInt32: Int32?
    @Persisted var optInt64: Int64?
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optUUID: UUID?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optDecimal: Decimal128?
    @Persisted var optColor: Color?
    @Persisted var optMood: Mood?
}

/// Collections of values.
class Bag: Object {
    @Persisted var ints: List<Int>
    @Persisted var optStrings: List<String?>
    @Persisted var blobs: List<Data>
    @Persisted var dates: List<Date>
    @Persisted var colors: List<Color>
    @Persisted var decimals: List<Decimal128>
    @Persisted var tags: MutableSet<String>
    @Persisted var ids: MutableSet<ObjectId>
    @Persisted var scores: Map<String, Double>
    @Persisted var optInts: Map<String, Int?>
}

/// Links of every kind.
class Owner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var best: Pet?
    @Persisted var pets: List<Pet>
    @Persisted var petSet: MutableSet<Pet>
    @Persisted var petMap: Map<String, Pet?>
    @Persisted var address: Address?
    @Persisted var pastAddresses: List<Address>
}

class Pet: Object {
    @Persisted var name = ""
    @Persisted(indexed: true) var kind = ""
    @Persisted(originProperty: "pets") var listedBy: LinkingObjects<Owner>
    @Persisted(originProperty: "best") var favoriteOf: LinkingObjects<Owner>
}

class Address: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
    @Persisted var geo: Geo?
}

class Geo: EmbeddedObject {
    @Persisted var lat = 0.0
    @Persisted var lon = 0.0
}

/// Primary keys of each allowed type.
class StringKeyed: Object {
    @Persisted(primaryKey: true) var key = ""
    @Persisted var value = 0
    @Persisted var note = ""
}

class UUIDKeyed: Object {
    @Persisted(primaryKey: true) var key = UUID()
    @Persisted var value = 0
}

class OptionalIntKeyed: Object {
    @Persisted(primaryKey: true) var key: Int?
    @Persisted var value = 0
}

/// A self-referencing class (cycles).
class Node: Object {
    @Persisted var label = ""
    @Persisted var next: Node?
}

/// A List/MutableSet/Map of every element type.
class EveryCollection: Object {
    @Persisted var bools: List<Bool>
    @Persisted var int8s: List<Int8>
    @Persisted var int16s: List<Int16>
    @Persisted var int32s: List<Int32>
    @Persisted var int64s: List<Int64>
    @Persisted var floats: List<Float>
    @Persisted var doubles: List<Double>
    @Persisted var strings: List<String>
    @Persisted var datas: List<Data>
    @Persisted var dates: List<Date>
    @Persisted var uuids: List<UUID>
    @Persisted var objectIds: List<ObjectId>
    @Persisted var decimals: List<Decimal128>
    @Persisted var moods: List<Mood>
    @Persisted var optInts: List<Int?>
    @Persisted var optUUIDs: List<UUID?>
    @Persisted var optDatas: List<Data?>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var optStringSet: MutableSet<String?>
    @Persisted var dateSet: MutableSet<Date>
    @Persisted var decimalMap: Map<String, Decimal128>
    @Persisted var optDateMap: Map<String, Date?>
    @Persisted var boolMap: Map<String, Bool>
    @Persisted var embeddedList: List<Geo>
    @Persisted var embeddedMap: Map<String, Geo?>
}
