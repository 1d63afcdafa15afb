import Foundation
import XCTest
@testable import RealmLite

// Queries (issue 6): predicate strings, where {}, sorting, distinct,
// aggregates, index use, live Results. Models: TestModels.swift plus these.

class Email: Object {
    @Persisted var subject = ""
    @Persisted var read = false
}

class QItem: Object {
    @Persisted var name = ""
    @Persisted(indexed: true) var tag = ""
    @Persisted(indexed: true) var rank = 0
    @Persisted(indexed: true) var optRank: Int?
    @Persisted var plainTag = ""
    @Persisted var plainRank = 0
    @Persisted var score = 0.0
    @Persisted var optScore: Double?
    @Persisted var when = Date(timeIntervalSince1970: 0)
    @Persisted var flag = false
    @Persisted var owner: QOwner?
}

class QOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var items: List<QItem>
    @Persisted(originProperty: "owner") var owned: LinkingObjects<QItem>
}

let queryTestTypes: [ObjectBase.Type] = allTestTypes + [Email.self, QItem.self, QOwner.self]

class QueryTestCase: RealmTestCase {
    func openQueryRealm() throws -> Realm { try openRealm(queryTestTypes) }

    func names<T: Object>(_ results: Results<T>, _ key: String = "name") -> [String] {
        results.map { $0[key] as? String ?? "?" }
    }
}

final class QuerySeedTests: QueryTestCase {
    func testSeedQueries() throws {
        let realm = try openQueryRealm()
        try realm.write {
            for name in ["Dachary", "Ann", "Dachary2"] {
                let person = Person()
                person.name = name
                realm.add(person)
            }
            for (subject, read) in [("a", true), ("b", false), ("c", true)] {
                let email = Email()
                email.subject = subject
                email.read = read
                realm.add(email)
            }
        }
        let dachary = realm.objects(Person.self).where { $0.name == "Dachary" }
        XCTAssertEqual(dachary.count, 1)
        XCTAssertEqual(dachary.first?.name, "Dachary")
        let read = realm.objects(Email.self).filter("read == true")
        XCTAssertEqual(read.map(\.subject), ["a", "c"])
        XCTAssertEqual(realm.objects(Email.self).where { $0.read }.count, 2)
        XCTAssertEqual(realm.objects(Email.self).where { !$0.read }.map(\.subject), ["b"])
    }
}

final class QueryParserTests: QueryTestCase {
    func testMalformedFormatsReportPosition() throws {
        let realm = try openQueryRealm()
        let items = realm.objects(QItem.self)
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["position 7"]) { _ = try items.checkedFilter("rank > > 3") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["unterminated", "position 8"]) { _ = try items.checkedFilter("name == 'abc") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["')'"]) { _ = try items.checkedFilter("(rank > 3") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["the end"]) { _ = try items.checkedFilter("rank >") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["expected a comparison", "the end"]) { _ = try items.checkedFilter("") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["unexpected character '#'", "position 5"]) { _ = try items.checkedFilter("rank # 3") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["expected a comparison"]) { _ = try items.checkedFilter("rank == 3 AND") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["operator"]) { _ = try items.checkedFilter("rank 3") }
    }

    /// nil operands, from arguments and from the where-builder, of any
    /// Optional type; NSNull counts as nil (isNil/unwrapOptional).
    func testNilOperands() throws {
        let realm = try openQueryRealm()
        try realm.write {
            realm.create(QItem.self, value: ["name": "none"])
            realm.create(QItem.self, value: ["name": "seven", "optRank": 7])
        }
        let items = realm.objects(QItem.self)
        let noRank: Int? = nil, seven: Int?? = .some(7)
        XCTAssertEqual(names(items.filter("optRank == %@", noRank as Any)), ["none"])
        XCTAssertEqual(names(items.filter("optRank == %@", NSNull())), ["none"])
        XCTAssertEqual(names(items.filter("optRank == %@", seven as Any)), ["seven"], "nested Optionals unwrap")
        XCTAssertEqual(names(items.where { $0.optRank == nil }), ["none"])
        XCTAssertEqual(names(items.where { $0.optRank != nil }), ["seven"])
        XCTAssertTrue(isNil(Optional<Int>.none as Any))
        XCTAssertFalse(isNil(Optional<Optional<Int>>.some(nil) as Any), "only the outer level is looked at")
        XCTAssertFalse(isNil(0))
    }

    func testSchemaErrors() throws {
        let realm = try openQueryRealm()
        let items = realm.objects(QItem.self)
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["'nmae'", "QItem", "position 0"]) { _ = try items.checkedFilter("nmae == 'x'") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["'bogus'", "QOwner"]) { _ = try items.checkedFilter("owner.bogus == 1") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["rank", "int", "'x'", "a string", "position 8"]) { _ = try items.checkedFilter("rank == 'x'") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["name", "string"]) { _ = try items.checkedFilter("name > 3") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["flag", "bool"]) { _ = try items.checkedFilter("flag < true") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["BEGINSWITH", "rank"]) { _ = try items.checkedFilter("rank BEGINSWITH 'a'") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["nil", "<"]) { _ = try items.checkedFilter("optRank < nil") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["[c]", "rank"]) { _ = try items.checkedFilter("rank ==[c] 3") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["ANY", "name"]) { _ = try items.checkedFilter("ANY name == 'x'") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["not a link", "name"]) { _ = try items.checkedFilter("name.length == 3") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["BETWEEN", "two"]) { _ = try items.checkedFilter("rank BETWEEN {1}") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["'rank' (int)", "'name' (string)"]) { _ = try items.checkedFilter("rank == name") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["BEGINSWITH", "two properties", "strings"]) { _ = try items.checkedFilter("name BEGINSWITH rank") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["one value per object"]) {
            _ = try realm.objects(QOwner.self).checkedFilter("name == items.name")
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["@foo"]) { _ = try realm.objects(QOwner.self).checkedFilter("items.@foo > 1") }
    }

    func testArgumentCount() throws {
        let realm = try openQueryRealm()
        let items = realm.objects(QItem.self)
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["argument 2", "1 given", "position 23"]) {
            _ = try items.checkedFilter("rank == %@ AND name == %@", 1)
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["3 arguments", "uses 1"]) { _ = try items.checkedFilter("rank == %@", 1, 2, 3) }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["%K"]) { _ = try items.checkedFilter("%K == 1", 5) }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["unsupported argument"]) { _ = try items.checkedFilter("rank == %@", [1: 2]) }
    }

    func testSortingErrors() throws {
        let realm = try openQueryRealm()
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["'items'", "collection"]) {
            _ = try realm.objects(QOwner.self).checkedSorted(byKeyPath: "items")
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["'items.name'", "to-many"]) {
            _ = try realm.objects(QOwner.self).checkedSorted(byKeyPath: "items.name")
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["'owner'", "link"]) {
            _ = try realm.objects(QItem.self).checkedSorted(byKeyPath: "owner")
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["'nope'"]) {
            _ = try realm.objects(QItem.self).checkedSorted(byKeyPath: "nope")
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["name", "string"]) {
            let _: Int? = try realm.objects(QItem.self).checkedSum(ofProperty: "name")
        }
    }

    func testParserAcceptsSyntaxVariants() throws {
        let tree = try QueryParser.parse("NOT (a = 1 || b <> 2) && c =< 3 AND d => 4 AND e BEGINSWITH[cd] 'x' AND TRUEPREDICATE", [])
        guard case .and = tree else { return XCTFail("expected AND at the top: \(tree)") }
        XCTAssertNoThrow(try QueryParser.parse("x IN {1, 2, 3} OR y BETWEEN {1, 2} OR z == $0 OR %K == %@", [1, "w", 5]))
        XCTAssertNoThrow(try QueryParser.parse("oid == oid(507f1f77bcf86cd799439011) AND u == uuid(3B241101-E2BB-4255-8CAF-4136C566A962)", []))
        // Month 13 carries over as realm-core's timegm does; years before 1900 are refused.
        XCTAssertNoThrow(try QueryParser.parse("d == 2021-13-01@00:00:00", []))
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["dates before 1900", "position 5"]) {
            _ = try QueryParser.parse("d == 1800-01-01@00:00:00", [])
        }
        XCTAssertNoThrow(try QueryParser.parse("a == 0x1F AND b == -2.5e3 AND c == \"q\\\"uote\" AND d == nil AND e == NULL", []))
    }
}

final class QueryOperatorTests: QueryTestCase {
    /// Three AllTypes rows: low (all minimal, optionals nil), mid, high.
    func makeAllTypes(_ realm: Realm) throws -> (UUID, ObjectId, Date) {
        let uuid = UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962")!
        let oid = try ObjectId(string: "507f1f77bcf86cd799439011")
        let date = Date(timeIntervalSince1970: 1_000_000)
        try realm.write {
            for i in 0..<3 {
                let o = AllTypes()
                o.bool = i == 1
                o.int = i * 10
                o.int8 = Int8(i)
                o.int16 = Int16(i * 100)
                o.int32 = Int32(-i)
                o.int64 = Int64(i) << 40
                o.float = Float(i) + 0.5
                o.double = i == 2 ? .nan : Double(i) * 1.5
                o.string = ["", "héllo", "Wörld"][i]
                o.data = Data([UInt8](repeating: UInt8(i), count: i))
                o.date = date.addingTimeInterval(Double(i))
                o.uuid = i == 1 ? uuid : UUID()
                o.objectId = i == 1 ? oid : ObjectId.generate()
                o.decimal = Decimal128(i * 3)
                o.color = [Color.red, .green, .blue][i]
                o.mood = [Mood.happy, .sad, .sleepy][i]
                if i > 0 {
                    o.optBool = i == 2
                    o.optInt = i
                    o.optDouble = Double(i)
                    o.optString = "s\(i)"
                    o.optDate = date
                    o.optUUID = uuid
                    o.optObjectId = oid
                    o.optDecimal = Decimal128(i)
                    o.optColor = .blue
                    o.optFloat = 1
                }
                realm.add(o)
            }
        }
        return (uuid, oid, date)
    }

    func ints(_ r: Results<AllTypes>) -> [Int] { r.map(\.int) }

    func testEveryType() throws {
        let realm = try openQueryRealm()
        let (uuid, oid, date) = try makeAllTypes(realm)
        let all = realm.objects(AllTypes.self)
        func q(_ format: String, _ args: Any..., line: UInt = #line) -> [Int] {
            do { return ints(try all.checkedFilter(format, arguments: args)) } catch {
                XCTFail("\(format): \(error)", line: line)
                return []
            }
        }
        XCTAssertEqual(q("bool == true"), [10])
        XCTAssertEqual(q("bool != true"), [0, 20])
        XCTAssertEqual(q("int > 5"), [10, 20])
        XCTAssertEqual(q("int >= 10 AND int <= 10"), [10])
        XCTAssertEqual(q("int < 10.5"), [0, 10])
        XCTAssertEqual(q("int == 10.0"), [10])
        XCTAssertEqual(q("int8 == 2"), [20])
        XCTAssertEqual(q("int16 BETWEEN {100, 200}"), [10, 20])
        XCTAssertEqual(q("int32 < 0"), [10, 20])
        XCTAssertEqual(q("int64 == %@", Int64(1) << 41), [20])
        XCTAssertEqual(q("float > 1"), [10, 20])
        XCTAssertEqual(q("float == 0.5"), [0])
        XCTAssertEqual(q("float BETWEEN {1.5, 2.5}"), [10, 20])
        XCTAssertEqual(q("double > 1"), [10])        // NaN is never ordered
        XCTAssertEqual(q("double == %@", Double.nan), [20])
        XCTAssertEqual(q("double != %@", Double.nan), [0, 10])
        XCTAssertEqual(q("string == ''"), [0])
        XCTAssertEqual(q("string != ''"), [10, 20])
        XCTAssertEqual(q("string == 'héllo'"), [10])
        XCTAssertEqual(q("data == %@", Data([1])), [10])
        XCTAssertEqual(q("data BEGINSWITH %@", Data([2])), [20])
        XCTAssertEqual(q("date > %@", date), [10, 20])
        XCTAssertEqual(q("date == %@", date.addingTimeInterval(2)), [20])
        // date is 1970-01-12 13:46:40 UTC (+0, +1, +2 s)
        XCTAssertEqual(q("date > 1970-01-12@13:46:40"), [10, 20])
        XCTAssertEqual(q("date == 1970-01-12T13:46:41"), [10])
        XCTAssertEqual(q("date >= 1970-01-12@13:46:41:500000000"), [20])
        XCTAssertEqual(q("date == T1000002:0"), [20])
        XCTAssertEqual(q("date BETWEEN {T1000000:0, T1000001:0}"), [0, 10])
        XCTAssertEqual(q("uuid == %@", uuid), [10])
        XCTAssertEqual(q("uuid == uuid(3B241101-E2BB-4255-8CAF-4136C566A962)"), [10])
        XCTAssertEqual(q("objectId == %@", oid), [10])
        XCTAssertEqual(q("objectId == oid(507f1f77bcf86cd799439011)"), [10])
        XCTAssertEqual(q("decimal > 2"), [10, 20])
        XCTAssertEqual(q("decimal == %@", Decimal128(6)), [20])
        XCTAssertEqual(q("decimal BETWEEN {1, 3}"), [10])
        XCTAssertEqual(q("decimal < 3.5 AND decimal != 0"), [10])
        XCTAssertEqual(q("decimal <= %@", Decimal128(3)), [0, 10])
        XCTAssertEqual(q("objectId != %@", oid).count, 2)
        XCTAssertEqual(q("uuid != %@", uuid).count, 2)
        XCTAssertEqual(q("objectId >= %@ AND objectId <= %@", oid, oid), [10])
        XCTAssertEqual(q("date BETWEEN %@", [date, date.addingTimeInterval(1)]), [0, 10])
        XCTAssertEqual(q("date <= %@", date), [0])
        XCTAssertEqual(q("data != %@", Data()), [10, 20])
        XCTAssertEqual(q("data ENDSWITH %@ AND data CONTAINS %@", Data([2]), Data([2, 2])), [20])
        XCTAssertEqual(q("data < %@", Data([1, 0])), [0, 10])
        XCTAssertEqual(q("int8 <= 1 AND int16 >= 100 AND int32 > -2 AND int64 < %@", Int64(1) << 41), [10])
        XCTAssertEqual(q("float != 1.5"), [0, 20])
        XCTAssertEqual(q("double BETWEEN {0, 2}"), [0, 10])
        XCTAssertEqual(q("bool == 1"), [10])
        XCTAssertEqual(q("color == %@", Color.green), [10])
        XCTAssertEqual(q("color IN %@", [Color.green, Color.blue]), [10, 20])
        XCTAssertEqual(q("mood == 'sleepy'"), [20])
        XCTAssertEqual(q("int IN {0, 20, 99}"), [0, 20])
        XCTAssertEqual(q("NOT int IN {0, 20}"), [10])
        XCTAssertEqual(q("10 < int"), [20])
        XCTAssertEqual(q("%K == %d", "int", 10), [10])
        XCTAssertEqual(q("int == $1 OR int == $0", 0, 20), [0, 20])
        XCTAssertEqual(q("TRUEPREDICATE"), [0, 10, 20])
        // property against property
        XCTAssertEqual(q("int > int8"), [10, 20])
        XCTAssertEqual(q("int16 == int"), [0])
        XCTAssertEqual(q("float < double"), [])        // NaN never ordered
        XCTAssertEqual(q("float <= double"), [10])
        XCTAssertEqual(q("optInt == int8"), [10, 20])
        XCTAssertEqual(q("optInt != int8"), [0])        // nil != 0
        XCTAssertEqual(q("date > optDate"), [10, 20])
        XCTAssertEqual(q("FALSEPREDICATE OR (int == 0 || int == 10) && !(int == 0)"), [10])
    }

    func testFloatConstantsRoundToFloat() throws {
        let realm = try openQueryRealm()
        try realm.write {
            let o = AllTypes()
            o.float = 0.1
            o.double = 0.1
            realm.add(o)
        }
        let all = realm.objects(AllTypes.self)
        XCTAssertEqual(all.filter("float == 0.1").count, 1)
        XCTAssertEqual(all.filter("float == %@", Float(0.1)).count, 1)
        XCTAssertEqual(all.filter("float > 0.1").count, 0)
        XCTAssertEqual(all.filter("double == 0.1").count, 1)
        XCTAssertEqual(all.filter("double == %@", Float(0.1)).count, 0, "a Float argument is its exact value")
    }

    func testNil() throws {
        let realm = try openQueryRealm()
        let (uuid, oid, _) = try makeAllTypes(realm)
        let all = realm.objects(AllTypes.self)
        func q(_ format: String, _ args: Any..., line: UInt = #line) -> [Int] {
            do { return ints(try all.checkedFilter(format, arguments: args)) } catch {
                XCTFail("\(format): \(error)", line: line)
                return []
            }
        }
        for property in ["optBool", "optInt", "optDouble", "optString", "optDate", "optUUID", "optObjectId", "optDecimal", "optColor", "optFloat"] {
            XCTAssertEqual(q("\(property) == nil"), [0], property)
            XCTAssertEqual(q("\(property) != NULL"), [10, 20], property)
        }
        XCTAssertEqual(q("optInt > 0"), [10, 20])
        XCTAssertEqual(q("optInt != 1"), [0, 20])   // nil != 1
        XCTAssertEqual(q("optUUID == %@", uuid), [10, 20])
        XCTAssertEqual(q("optObjectId == %@", oid), [10, 20])
        XCTAssertEqual(q("optInt == %@", Optional<Int>.none as Any), [0])
        XCTAssertEqual(q("optString BEGINSWITH 's'"), [10, 20])
        XCTAssertEqual(q("int == nil"), [])          // a required property is never nil
    }

    func testStrings() throws {
        let realm = try openQueryRealm()
        try realm.write {
            for (i, s) in ["Straße", "STRASSE", "résumé", "Resume", "", "naïve café", "a*b?c", "日本語テキスト"].enumerated() {
                let o = AllTypes()
                o.int = i
                o.string = s
                realm.add(o)
            }
        }
        let all = realm.objects(AllTypes.self)
        func q(_ format: String, _ args: Any..., line: UInt = #line) -> [Int] {
            do { return ints(try all.checkedFilter(format, arguments: args)) } catch {
                XCTFail("\(format): \(error)", line: line)
                return []
            }
        }
        XCTAssertEqual(q("string == 'Resume'"), [3])
        XCTAssertEqual(q("string ==[c] 'resume'"), [3])
        XCTAssertEqual(q("string ==[cd] 'resume'"), [2, 3])
        XCTAssertEqual(q("string ==[d] 'resume'"), [2])
        XCTAssertEqual(q("string ==[c] 'strasse'"), [0, 1])   // ß folds to ss
        XCTAssertEqual(q("string !=[c] 'strasse'"), [2, 3, 4, 5, 6, 7])
        XCTAssertEqual(q("string BEGINSWITH 'Str'"), [0])
        XCTAssertEqual(q("string BEGINSWITH[c] 'str'"), [0, 1])
        XCTAssertEqual(q("string ENDSWITH 'café'"), [5])
        XCTAssertEqual(q("string ENDSWITH[d] 'cafe'"), [5])
        XCTAssertEqual(q("string CONTAINS 'ï'"), [5])
        XCTAssertEqual(q("string CONTAINS[cd] 'SUM'"), [2, 3])
        XCTAssertEqual(q("string CONTAINS '本語'"), [7])
        XCTAssertEqual(q("string LIKE 'R*e'"), [3])
        XCTAssertEqual(q("string LIKE[c] 'r?sum?'"), [2, 3]) // ? matches one character, é included
        XCTAssertEqual(q("string LIKE '*'"), [0, 1, 2, 3, 4, 5, 6, 7])
        XCTAssertEqual(q("string LIKE 'a*b?c'"), [6])
        XCTAssertEqual(q("string BEGINSWITH ''"), [0, 1, 2, 3, 4, 5, 6, 7])
        XCTAssertEqual(q("string CONTAINS ''"), [0, 1, 2, 3, 4, 5, 6, 7])
        XCTAssertEqual(q("string == ''"), [4])
        XCTAssertEqual(q("string < 'S'"), [3, 4])   // byte (code point) order
        XCTAssertEqual(q("string IN {'Resume', 'résumé'}"), [2, 3])
        XCTAssertEqual(q("string IN[c] {'RESUME'}"), [3])
    }

    func testLinksAndCollectionOperators() throws {
        let realm = try openQueryRealm()
        try realm.write {
            let cat = Pet(), dog = Pet(), fish = Pet()
            cat.name = "Tom"; cat.kind = "cat"
            dog.name = "Rex"; dog.kind = "dog"
            fish.name = "Nemo"; fish.kind = "fish"
            let ann = Owner(), bob = Owner(), cy = Owner()
            ann.id = 1; ann.name = "Ann"; ann.best = cat; ann.pets.append(objectsIn: [cat, dog])
            ann.address = Address(); ann.address?.city = "Oslo"
            bob.id = 2; bob.name = "Bob"; bob.best = fish; bob.pets.append(objectsIn: [fish])
            cy.id = 3; cy.name = "Cy"
            realm.add([ann, bob, cy])
            let bag1 = Bag(), bag2 = Bag(), bag3 = Bag()
            bag1.ints.append(objectsIn: [1, 2, 3]); bag1.tags.insert(objectsIn: ["x", "y"]); bag1.scores["a"] = 1.5
            bag1.optStrings.append(objectsIn: ["a", nil])
            bag2.ints.append(objectsIn: [10]); bag2.tags.insert("z"); bag2.scores["a"] = 4; bag2.scores["b"] = 6
            bag3.optStrings.append("b")
            realm.add([bag1, bag2, bag3])
        }
        let owners = realm.objects(Owner.self)
        func q(_ format: String, _ args: Any..., line: UInt = #line) -> [String] {
            do { return try owners.checkedFilter(format, arguments: args).map(\.name) } catch {
                XCTFail("\(format): \(error)", line: line)
                return []
            }
        }
        let cat = realm.objects(Pet.self).filter("kind == 'cat'").first!
        XCTAssertEqual(q("best.name == 'Tom'"), ["Ann"])
        XCTAssertEqual(q("best.kind BEGINSWITH 'f'"), ["Bob"])
        XCTAssertEqual(q("best == nil"), ["Cy"])
        XCTAssertEqual(q("best.name == nil"), ["Cy"])
        XCTAssertEqual(q("best == %@", cat), ["Ann"])
        XCTAssertEqual(q("best != %@", cat), ["Bob", "Cy"])
        XCTAssertEqual(q("pets.kind == 'dog'"), ["Ann"])          // implicit ANY
        XCTAssertEqual(q("ANY pets.kind == 'fish'"), ["Bob"])
        XCTAssertEqual(q("ALL pets.kind == 'fish'"), ["Bob", "Cy"]) // vacuous for Cy
        XCTAssertEqual(q("NONE pets.kind == 'fish'"), ["Ann", "Cy"])
        XCTAssertEqual(q("ANY pets == %@", cat), ["Ann"])
        XCTAssertEqual(q("%@ IN pets", cat), ["Ann"])
        XCTAssertEqual(q("pets.@count == 2"), ["Ann"])
        XCTAssertEqual(q("pets.@size > 0"), ["Ann", "Bob"])
        XCTAssertEqual(q("address.city == 'Oslo'"), ["Ann"])
        XCTAssertEqual(q("address.geo.lat == nil"), ["Ann", "Bob", "Cy"])
        let pets = realm.objects(Pet.self)
        XCTAssertEqual(try pets.checkedFilter("listedBy.name == 'Ann'").map(\.name), ["Tom", "Rex"])
        XCTAssertEqual(try pets.checkedFilter("favoriteOf.@count == 0").map(\.name), ["Rex"])
        XCTAssertEqual(try pets.checkedFilter("ANY favoriteOf.id > 1").map(\.name), ["Nemo"])

        let bags = realm.objects(Bag.self)
        func b(_ format: String, line: UInt = #line) -> [Int] {
            do { return try bags.checkedFilter(format).map { $0.ints.count * 100 + $0.tags.count } } catch {
                XCTFail("\(format): \(error)", line: line)
                return []
            }
        }
        XCTAssertEqual(b("ANY ints > 2"), [302, 101])
        XCTAssertEqual(b("ints == 10"), [101])
        XCTAssertEqual(b("ALL ints < 5"), [302, 0])
        XCTAssertEqual(b("ints.@count == 0"), [0])
        XCTAssertEqual(b("ints.@sum == 6"), [302])
        XCTAssertEqual(b("ints.@min == 1 AND ints.@max == 3"), [302])
        XCTAssertEqual(b("ints.@avg > 5"), [101])
        XCTAssertEqual(b("ints.@avg == nil"), [0])
        XCTAssertEqual(b("'y' IN tags"), [302])
        XCTAssertEqual(b("tags.@count == 1"), [101])
        XCTAssertEqual(b("ANY scores > 5"), [101])
        XCTAssertEqual(b("scores.@sum == 10"), [101])
        XCTAssertEqual(b("ANY optStrings == nil"), [302])
        XCTAssertEqual(b("optStrings == 'b'"), [0])
        // Maps of objects, lists of embedded objects.
        try realm.write {
            let ann = realm.object(ofType: Owner.self, forPrimaryKey: 1)!
            ann.petMap["fav"] = realm.objects(Pet.self).filter("name == 'Rex'").first
            ann.petMap["none"] = nil as Pet?
            let old = Address()
            old.city = "Bergen"
            realm.object(ofType: Owner.self, forPrimaryKey: 2)!.pastAddresses.append(old)
        }
        XCTAssertEqual(q("petMap.kind == 'dog'"), ["Ann"])
        XCTAssertEqual(q("petMap.@count == 2"), ["Ann"])
        XCTAssertEqual(q("ANY petMap == nil"), ["Ann"])
        XCTAssertEqual(q("pastAddresses.city == 'Bergen'"), ["Bob"])
        XCTAssertEqual(q("pastAddresses.@count == 0"), ["Ann", "Cy"])

        // SUBQUERY(collection, $x, predicate).@count
        XCTAssertEqual(q("SUBQUERY(pets, $p, $p.kind == 'cat' OR $p.kind == 'dog').@count == 2"), ["Ann"])
        XCTAssertEqual(q("SUBQUERY(pets, $p, $p.name BEGINSWITH 'N').@count > 0"), ["Bob"])
        XCTAssertEqual(q("subquery(pets, $p, $p.listedBy.@count == 1).@size == 0"), ["Cy"])
        XCTAssertEqual(q("0 == SUBQUERY(pets, $p, TRUEPREDICATE).@count"), ["Cy"])
        XCTAssertEqual(try pets.checkedFilter("SUBQUERY(listedBy, $o, SUBQUERY($o.pets, $q, $q.kind == 'fish').@count == 1).@count == 1").map(\.name), ["Nemo"])
        // As in Realm, a key path without the variable is the element's too.
        XCTAssertEqual(q("SUBQUERY(pets, $p, name BEGINSWITH 'N').@count > 0"), ["Bob"])
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["collection of objects"]) { _ = try owners.checkedFilter("SUBQUERY(name, $p, $p.x == 1).@count > 0") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["@count"]) { _ = try owners.checkedFilter("SUBQUERY(pets, $p, $p.name == 'x') > 0") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["variable"]) { _ = try owners.checkedFilter("SUBQUERY(pets, p, $p.name == 'x').@count > 0") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["@max", "string"]) { _ = try owners.checkedFilter("pets.@max.name == 'x'") }
    }
}

/// RealmSwift's non-throwing query methods raise on bad input; RealmLite's
/// stop with the Realm.Error message (checked twins throw it). Each scenario
/// runs in a child process.
final class QueryStopTests: QueryTestCase {
    static let variable = "REALMLITE_QUERY_STOP_SCENARIO"

    func testRunQueryScenario() throws {
        guard let name = ProcessInfo.processInfo.environment[Self.variable] else { return }
        let realm = try openQueryRealm()
        switch name {
        case "badFormat": _ = realm.objects(QItem.self).filter("rank >> 3")
        case "sortByList": _ = realm.objects(QOwner.self).sorted(byKeyPath: "items")
        case "typeMismatch": _ = realm.objects(QItem.self).where { $0.name == "x" && $0.rank > 1 }.filter("rank == 'x'")
        default: XCTFail("unknown scenario \(name)")
        }
        XCTFail("scenario \(name) should have stopped")
    }

    func stops(_ scenario: String, printing expected: String, line: UInt = #line) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["RealmLiteTests.QueryStopTests/testRunQueryScenario"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.variable] = scenario
        process.environment = environment
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = Pipe()
        try process.run()
        let output = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertFalse(process.terminationReason == .exit && process.terminationStatus == 0, scenario, line: line)
        XCTAssertTrue(output.contains(expected), "stderr should contain '\(expected)', got:\n\(output.suffix(1500))", line: line)
    }

    func testBadFormatStops() throws { try stops("badFormat", printing: "Invalid predicate 'rank >> 3'") }
    func testSortByListStops() throws { try stops("sortByList", printing: "Cannot sort on key path 'items'") }
    func testTypeMismatchStops() throws { try stops("typeMismatch", printing: "Cannot compare 'rank' (int) with 'x'") }
}

final class QueryFuzzTests: QueryTestCase {
    /// Random token soup: every format either evaluates or throws a
    /// Realm.Error; none may crash.
    func testRandomFormatsNeverCrash() throws {
        let realm = try openQueryRealm()
        try realm.write {
            let owner = QOwner()
            owner.id = 1
            let item = QItem()
            item.name = "x"
            item.owner = owner
            owner.items.append(item)
            realm.add(owner)
        }
        let vocabulary = ["name", "rank", "optRank", "score", "optScore", "when", "flag", "owner", "owner.name", "owner.items",
                          "owner.items.@count", "owner.items.@sum.rank", "owner.owned.rank", "@count", "@avg", ".", ",",
                          "==", "=", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "IN", "BETWEEN",
                          "[c]", "[cd]", "[", "]", "AND", "OR", "NOT", "!", "&&", "||", "(", ")", "{", "}", "ANY", "ALL", "NONE",
                          "SUBQUERY(", "$x", "$x.rank", "%@", "%K", "%d", "$0", "1", "-2.5", "0x10", "'a'", "\"b\"", "'", "nil",
                          "true", "FALSE", "TRUEPREDICATE", "oid(507f1f77bcf86cd799439011)", "uuid(x)", "1e400", "9223372036854775808", "é", "#"]
        let arguments: [Any] = [1, "name", 2.5, [1, 2], ["a"], Date(), Optional<Int>.none as Any, true, Data([1])]
        var generator = SplitMix(seed: UInt64.random(in: 0..<UInt64.max))
        var accepted = 0
        for _ in 0..<3000 {
            let length = Int(generator.next() % 8) + 1
            let format = (0..<length).map { _ in vocabulary[Int(generator.next() % UInt64(vocabulary.count))] }.joined(separator: " ")
            let args = (0..<Int(generator.next() % 3)).map { _ in arguments[Int(generator.next() % UInt64(arguments.count))] }
            do {
                let results = try realm.objects(QItem.self).checkedFilter(format, arguments: args)
                _ = results.count
                accepted += 1
            } catch let error as Realm.Error {
                XCTAssertFalse(error.message.isEmpty)
            }
        }
        // Structured: [quantifier] path op[options] value, combined with AND/OR/NOT.
        let paths = ["name", "rank", "optRank", "score", "optScore", "when", "flag", "owner", "owner.name", "owner.id",
                     "owner.items.rank", "owner.items.@count", "owner.items.@avg.score", "owner.owned.name", "plainTag"]
        let ops = ["==", "!=", "<", ">=", "BEGINSWITH", "CONTAINS[c]", "LIKE", "==[cd]", "IN", "BETWEEN"]
        let values = ["1", "'x'", "nil", "2.5", "true", "{1, 2}", "{'a', 'x'}", "%@", "rank", "SUBQUERY(owner.items, $i, $i.rank > 0).@count"]
        func pick(_ list: [String]) -> String { list[Int(generator.next() % UInt64(list.count))] }
        func comparison() -> String {
            let quantifier = generator.next() % 4 == 0 ? pick(["ANY ", "ALL ", "NONE "]) : ""
            return "\(quantifier)\(pick(paths)) \(pick(ops)) \(pick(values))"
        }
        var structured = 0
        for _ in 0..<3000 {
            var format = comparison()
            for _ in 0..<Int(generator.next() % 3) {
                format = generator.next() % 3 == 0 ? "NOT (\(format))" : "\(format) \(pick(["AND", "OR"])) \(comparison())"
            }
            let args = format.contains("%@") ? [arguments[Int(generator.next() % UInt64(arguments.count))]] : []
            do {
                let results = try realm.objects(QItem.self).checkedFilter(format, arguments: args)
                _ = results.count
                _ = try results.checkedSorted(byKeyPath: pick(paths)).count
                structured += 1
            } catch let error as Realm.Error {
                XCTAssertFalse(error.message.isEmpty)
            }
        }
        XCTAssertGreaterThan(accepted + structured, 0)
        print("QueryFuzz: \(accepted) of 3000 random and \(structured) of 3000 structured formats were valid")
    }
}
