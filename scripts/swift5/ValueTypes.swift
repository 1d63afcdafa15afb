// A user's Swift 5 language-mode code against RealmLite (type-checked by
// scripts/check_swift5.sh): the value types as RealmSwift code uses them.
import Foundation
import RealmLite

struct Email: FailableCustomPersistable {
    typealias PersistedType = String
    var address: String
    init?(persistedValue: String) {
        guard persistedValue.isEmpty || persistedValue.contains("@") else { return nil }
        address = persistedValue
    }
    var persistableValue: String { address }
}

struct Cents: CustomPersistable {
    typealias PersistedType = Int
    var value: Int
    init(persistedValue: Int) { value = persistedValue }
    var persistableValue: Int { value }
}

enum Plan: String, PersistableEnum {
    case free, pro
}

class Account: Object {
    @Persisted(primaryKey: true) var plan: Plan
    @Persisted(indexed: true) var secondary: Plan?
    @Persisted var email: Email?
    @Persisted(indexed: true) var balance: Cents
    @Persisted var history: List<Cents>
    @Persisted var owner = ObjectId.generate()
    @Persisted var rate: Decimal128 = 0.05
}

class Ledger: Object {
    @Persisted(primaryKey: true) var id: Cents
    @Persisted var optional: Cents?
}

func valueTypes(_ realm: Realm) throws -> String {
    let id = ObjectId("5f1c9a3e2b7d4c0012345678")
    let parsed = try ObjectId(string: id.stringValue)
    let stamped = ObjectId(timestamp: Date(), machineId: 1, processId: 2)
    var rate: Decimal128 = "0.1"
    rate += 0.2
    rate.negate()
    let exact = Decimal128(exactly: 12) ?? Decimal128(value: 1)
    let fromNumber = Decimal128(number: 2.5)
    let quotient = try Decimal128(string: "1.5E+10") / exact
    let json = try JSONEncoder().encode([rate])
    let account = realm.object(ofType: Account.self, forPrimaryKey: Plan.pro)
    let rich = realm.objects(Account.self).where { $0.balance > Cents(persistedValue: 100) && $0.email != nil }
    _ = realm.object(ofType: Ledger.self, forPrimaryKey: Cents(persistedValue: 1))?.optional
    return "\(parsed < stamped) \(rate.isNaN) \(fromNumber.magnitude) \(quotient.stringValue) \(Decimal128.max > .min) "
        + "\(json.count) \(account?.rate.doubleValue ?? 0) \(rich.count)"
}

// RealmSwift's documented example: a Foundation type mapped to a String.
extension URL: @retroactive FailableCustomPersistable {
    public typealias PersistedType = String
    public init?(persistedValue: String) { self.init(string: persistedValue) }
    public var persistableValue: String { absoluteString }
}

class Bookmark: Object {
    @Persisted var url: URL?
    @Persisted var mirrors: List<URL>
}

// A custom type persisted as an embedded object (RealmSwift's CGPoint example).
class PointObject: EmbeddedObject {
    @Persisted var x: Double
    @Persisted var y: Double
}

struct Point: CustomPersistable {
    typealias PersistedType = PointObject
    var x = 0.0, y = 0.0
    init(persistedValue: PointObject) { x = persistedValue.x; y = persistedValue.y }
    var persistableValue: PointObject { PointObject(value: [x, y]) }
}

class PointModel: Object {
    @Persisted var point: Point
    @Persisted var optPoint: Point?
    @Persisted var line: List<Point>
    @Persisted var marks: Map<String, Point?>
}

func pointQueries(_ realm: Realm) -> Int {
    realm.objects(PointModel.self).where { $0.point.persistableValue.x > 1 && $0.optPoint.persistableValue.y == 2 }.count
        + realm.objects(PointModel.self).filter("point.x > 1").count
        + realm.objects(PointModel.self).where { $0.point == Point(persistedValue: PointObject()) }.count
}
