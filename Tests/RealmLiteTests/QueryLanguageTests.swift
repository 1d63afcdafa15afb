import Foundation
import XCTest
@testable import RealmLite

// One test per operator family of Realm's Query Language that the older
// query tests do not cover: map subscripts, @keys/@values, list subscripts,
// @links, string @size, quantifiers on the right, string operators between
// properties, SUBQUERY paths, [c]/[d] on every operand kind, and the
// where {} forms. Expected results are worked out by hand from `fill`.

final class RQLPerson: Object {
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted var age = 0
    @Persisted var birthday = Date(timeIntervalSince1970: 0)
    @Persisted var scores: Map<String, Int>
    @Persisted var pets: Map<String, RQLPet?>
    @Persisted var ints: List<Int>
    @Persisted var tags: MutableSet<String>
    @Persisted var dogs: List<RQLPet>
    @Persisted var best: RQLPet?
    @Persisted var value: AnyRealmValue
    @Persisted var blob: Data?
    @Persisted var score = 0.0
    @Persisted var amount = Decimal128(0)
    @Persisted var mixedList: List<AnyRealmValue>
    @Persisted var mixedMap: Map<String, AnyRealmValue>
}

final class RQLPet: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<RQLPerson>
}

final class QueryLanguageTests: RealmTestCase {
    var realm: Realm!

    /// People (in this order):
    ///   Ann     nick "an"  30  birthday 1990-05-01  scores {math 5, art 2}  pets {cat Tom, dog Rex}
    ///           ints [1, 5, 9]  tags {a, b}  dogs [Rex, Fido]  best Rex   value .int(3)
    ///   Bob     nick nil   20  birthday 2001-01-01  scores {math 1}         pets {dog Fido}
    ///           ints [7]        tags {}      dogs [Fido]       best nil   value .string("x")
    ///   Élodie  nick "ELO" 40  birthday 2000-01-01  scores {}               pets {}
    ///           ints []         tags {b}     dogs []           best Fido  value .none
    /// blob: Ann "abc", Bob nil, Élodie [0xFF]; score: Ann 1.5, Bob +inf, Élodie NaN.
    /// amount (decimal128): Ann 10.5, Bob 0.1, Élodie 0.
    /// mixedList: Ann [1, "a"], Bob ["B"], Élodie []; mixedMap: Ann {k 2.5}, Bob {k "x"}, Élodie {}.
    /// Pets: Tom 3, Rex 35, Fido 2, Lonely 1 (linked by nobody).
    override func setUp() {
        super.setUp()
        do { try fill() } catch { XCTFail("\(error)") }
    }

    private func fill() throws {
        realm = try openRealm([RQLPerson.self, RQLPet.self])
        try realm.write {
            let tom = RQLPet(value: ["name": "Tom", "age": 3])
            let rex = RQLPet(value: ["name": "Rex", "age": 35])
            let fido = RQLPet(value: ["name": "Fido", "age": 2])
            let lonely = RQLPet(value: ["name": "Lonely", "age": 1])
            [tom, rex, fido, lonely].forEach { realm.add($0) }
            let utc = { (text: String) in ISO8601DateFormatter().date(from: text + "T00:00:00Z")! }
            let ann = RQLPerson(value: ["name": "Ann", "nickname": "an", "age": 30, "birthday": utc("1990-05-01")])
            ann.scores["math"] = 5
            ann.scores["art"] = 2
            ann.pets["cat"] = tom
            ann.pets["dog"] = rex
            ann.ints.append(objectsIn: [1, 5, 9])
            ann.tags.insert(objectsIn: ["a", "b"])
            ann.dogs.append(objectsIn: [rex, fido])
            ann.best = rex
            ann.value = .int(3)
            ann.blob = Data("abc".utf8)
            ann.score = 1.5
            ann.amount = try Decimal128(string: "10.5")
            ann.mixedList.append(objectsIn: [.int(1), .string("a")])
            ann.mixedMap["k"] = .double(2.5)
            let bob = RQLPerson(value: ["name": "Bob", "age": 20, "birthday": utc("2001-01-01")])
            bob.scores["math"] = 1
            bob.pets["dog"] = fido
            bob.ints.append(7)
            bob.dogs.append(fido)
            bob.value = .string("x")
            bob.score = .infinity
            bob.amount = try Decimal128(string: "0.1")
            bob.mixedList.append(.string("B"))
            bob.mixedMap["k"] = .string("x")
            let elodie = RQLPerson(value: ["name": "Élodie", "nickname": "ELO", "age": 40, "birthday": utc("2000-01-01")])
            elodie.tags.insert("b")
            elodie.best = fido
            elodie.blob = Data([0xFF])
            elodie.score = .nan
            [ann, bob, elodie].forEach { realm.add($0) }
        }
    }

    override func tearDown() {
        realm = nil
        super.tearDown()
    }

    func people(_ format: String, _ args: Any..., file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            return try realm.objects(RQLPerson.self).checkedFilter(format, arguments: args).map(\.name)
        } catch {
            XCTFail("\(format): \(error)", file: file, line: line)
            return []
        }
    }

    func pets(_ format: String, _ args: Any..., file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            return try realm.objects(RQLPet.self).checkedFilter(format, arguments: args).map(\.name)
        } catch {
            XCTFail("\(format): \(error)", file: file, line: line)
            return []
        }
    }

    func people(where query: (Query<RQLPerson>) -> Query<Bool>, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            return try realm.objects(RQLPerson.self).checkedWhere(query).map(\.name)
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return []
        }
    }

    func error(_ format: String, _ args: Any...) -> String {
        do {
            _ = try realm.objects(RQLPerson.self).checkedFilter(format, arguments: args).count
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    // MARK: Maps

    func testMapSubscriptOfValues() {
        XCTAssertEqual(people("scores['math'] > 2"), ["Ann"])
        XCTAssertEqual(people("scores['math'] == 1"), ["Bob"])
        XCTAssertEqual(people("scores[\"art\"] == nil"), ["Bob", "Élodie"], "an absent key gives nil")
        XCTAssertEqual(people("scores['art'] != 2"), ["Bob", "Élodie"])
        XCTAssertEqual(people("scores['math'] BETWEEN {1, 4}"), ["Bob"])
        XCTAssertEqual(people("scores['math'] IN {5, 6}"), ["Ann"])
        XCTAssertEqual(people("scores[%@] == 5", "math"), ["Ann"], "the key as an argument")
        XCTAssertEqual(people("scores[$0] == $1", "math", 1), ["Bob"])
    }

    func testMapSubscriptOfObjects() {
        XCTAssertEqual(people("pets['dog'].age > 3"), ["Ann"])
        XCTAssertEqual(people("pets['dog'].name == 'Fido'"), ["Bob"])
        XCTAssertEqual(people("pets['cat'] == nil"), ["Bob", "Élodie"])
        XCTAssertEqual(people("pets['cat'].name == nil"), ["Bob", "Élodie"])
        let rex = realm.objects(RQLPet.self).filter("name == 'Rex'").first!
        XCTAssertEqual(people("pets['dog'] == %@", rex), ["Ann"])
    }

    func testMapKeys() {
        XCTAssertEqual(people("ANY scores.@keys == 'art'"), ["Ann"])
        XCTAssertEqual(people("scores.@keys == 'math'"), ["Ann", "Bob"], "implicit ANY")
        XCTAssertEqual(people("NONE scores.@keys == 'math'"), ["Élodie"])
        XCTAssertEqual(people("ALL scores.@keys == 'math'"), ["Bob", "Élodie"], "ALL of no keys is true")
        XCTAssertEqual(people("ANY scores.@keys BEGINSWITH 'ar'"), ["Ann"])
        XCTAssertEqual(people("ANY pets.@keys IN {'cat', 'bird'}"), ["Ann"])
    }

    func testMapValues() {
        XCTAssertEqual(people("scores.@values > 3"), ["Ann"])
        XCTAssertEqual(people("ALL scores.@values > 1"), ["Ann", "Élodie"])
        XCTAssertEqual(people("pets.@values.age > 4"), ["Ann"])
        XCTAssertEqual(people("ANY pets.@values.name == 'Fido'"), ["Bob"])
        XCTAssertEqual(people("scores.@values.@sum == 7"), ["Ann"], "@values then an aggregate")
        XCTAssertEqual(people("scores == 1"), ["Bob"], "a map compares its values")
    }

    func testMapOfObjectsFilter() throws {
        let ann = realm.objects(RQLPerson.self).filter("name == 'Ann'").first!
        XCTAssertEqual(ann.pets.filter("age > 3").map { $0!.name }, ["Rex"])
        XCTAssertEqual(ann.pets.where { $0.name.starts(with: "T") }.map { $0!.name }, ["Tom"])
    }

    // MARK: Sizes

    func testCollectionSizes() {
        XCTAssertEqual(people("scores.@count == 2"), ["Ann"])
        XCTAssertEqual(people("scores.@size == 0"), ["Élodie"])
        XCTAssertEqual(people("ints.@count >= 1"), ["Ann", "Bob"])
        XCTAssertEqual(people("ints[SIZE] == 1"), ["Bob"])
        XCTAssertEqual(people("tags.@size == 1"), ["Élodie"])
        XCTAssertEqual(people("dogs.@count == 2"), ["Ann"])
        XCTAssertEqual(people("pets.@count == 1"), ["Bob"])
    }

    func testStringSize() {
        XCTAssertEqual(people("name.@size == 3"), ["Ann", "Bob"])
        XCTAssertEqual(people("name.@count == 7"), ["Élodie"], "UTF-8 bytes, as Realm counts: É is two")
        XCTAssertEqual(people("nickname.@size == 2"), ["Ann"])
        XCTAssertEqual(people("nickname.@size == nil"), ["Bob"])
        XCTAssertEqual(people("best.name.@size > 3"), ["Élodie"], "through a link")
        XCTAssertEqual(people("name.@size > age"), [], "compared with a property")
        XCTAssertEqual(people("name.@size > ints.@count"), ["Bob", "Élodie"], "a size on each side")
    }

    // MARK: Lists

    func testListSubscripts() {
        XCTAssertEqual(people("ints[0] == 1"), ["Ann"])
        XCTAssertEqual(people("ints[1] == 5"), ["Ann"])
        XCTAssertEqual(people("ints[FIRST] == 7"), ["Bob"])
        XCTAssertEqual(people("ints[LAST] == 9"), ["Ann"])
        XCTAssertEqual(people("ints[last] > 6"), ["Ann", "Bob"])
        XCTAssertEqual(people("ints[5] == nil"), ["Ann", "Bob", "Élodie"], "past the end is nil")
        XCTAssertEqual(people("ints[FIRST] == nil"), ["Élodie"])
        XCTAssertEqual(people("ints[*] == 5"), ["Ann"], "[*] is every element")
        XCTAssertEqual(people("dogs[0].name == 'Fido'"), ["Bob"])
        XCTAssertEqual(people("dogs[LAST].age < 3"), ["Ann", "Bob"])
        XCTAssertEqual(people("dogs[1] == nil"), ["Bob", "Élodie"])
        XCTAssertEqual(people("ints[%@] == 7", 0), ["Bob"])
    }

    func testSubscriptErrors() {
        XCTAssertTrue(error("tags[0] == 'a'").contains("a set has no order"), error("tags[0] == 'a'"))
        XCTAssertTrue(error("scores[0] == 1").contains("subscripted by a key"), error("scores[0] == 1"))
        XCTAssertTrue(error("ints['a'] == 1").contains("subscripted by an index"), error("ints['a'] == 1"))
        XCTAssertTrue(error("ints.@keys == 1").contains("applies to Map properties"), error("ints.@keys == 1"))
    }

    // MARK: Backlinks

    func testLinksThroughAProperty() {
        XCTAssertEqual(pets("@links.RQLPerson.dogs.@count == 2"), ["Fido"])
        XCTAssertEqual(pets("@links.RQLPerson.dogs.name == 'Ann'"), ["Rex", "Fido"])
        XCTAssertEqual(pets("ANY @links.RQLPerson.dogs.age < 25"), ["Fido"])
        XCTAssertEqual(pets("ALL @links.RQLPerson.dogs.age > 25"), ["Tom", "Rex", "Lonely"], "ALL of none is true")
        XCTAssertEqual(pets("@links.RQLPerson.best.age > 35"), ["Fido"])
        XCTAssertEqual(pets("@links.RQLPerson.pets.@size == 1"), ["Tom", "Rex", "Fido"], "links from map values")
        XCTAssertEqual(pets("@links.RQLPerson.dogs.@max.age == 30"), ["Rex", "Fido"])
        XCTAssertEqual(pets("SUBQUERY(@links.RQLPerson.dogs, $p, $p.age < 25).@count == 1"), ["Fido"])
        XCTAssertEqual(pets("owners.@count == 2"), ["Fido"], "the LinkingObjects property says the same")
    }

    func testLinksCount() {
        // Fido: dogs of Ann and Bob, Bob's pets, Élodie's best = 4; Rex: Ann's dogs, pets, best = 3; Tom: 1.
        XCTAssertEqual(pets("@links.@count == 0"), ["Lonely"])
        XCTAssertEqual(pets("@links.@count > 2"), ["Rex", "Fido"])
        XCTAssertEqual(pets("@links.@size == 4"), ["Fido"])
        let message = "\(String(describing: try? realm.objects(RQLPet.self).checkedFilter("@links.Nobody.dogs.@count > 0", arguments: [])))"
        XCTAssertEqual(message, "nil")
        do {
            _ = try realm.objects(RQLPet.self).checkedFilter("@links.RQLPerson.name == 'x'", arguments: [])
            XCTFail("name is no link")
        } catch {
            XCTAssertTrue("\(error)".contains("No property 'RQLPerson.name' links to class 'RQLPet'"), "\(error)")
        }
    }

    // MARK: Comparisons

    func testQuantifierOnTheRight() {
        XCTAssertEqual(people("'Rex' == ANY dogs.name"), ["Ann"])
        XCTAssertEqual(people("age < ANY dogs.age"), ["Ann"], "Rex is 35")
        XCTAssertEqual(people("age > ALL dogs.age"), ["Bob", "Élodie"])
        XCTAssertEqual(people("age < NONE dogs.age"), ["Bob", "Élodie"])
        XCTAssertEqual(people("7 IN ANY ints"), ["Bob"])
        XCTAssertTrue(error("name BEGINSWITH ANY dogs.name").contains("put the collection on the left"))
    }

    func testStringOperatorsBetweenProperties() {
        XCTAssertEqual(people("name BEGINSWITH nickname"), [])
        XCTAssertEqual(people("name BEGINSWITH[c] nickname"), ["Ann"])
        XCTAssertEqual(people("name BEGINSWITH[cd] nickname"), ["Ann", "Élodie"])
        XCTAssertEqual(people("name ENDSWITH[c] 'N'"), ["Ann"])
        XCTAssertEqual(people("name CONTAINS[c] nickname"), ["Ann"])
        XCTAssertEqual(people("name ==[c] nickname"), [])
        XCTAssertEqual(people("nickname !=[c] name"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("name LIKE[c] nickname"), [])
        XCTAssertEqual(people("ANY dogs.name CONTAINS[c] 'E'"), ["Ann"])
        XCTAssertEqual(people("ANY dogs.name ENDSWITH best.name"), ["Ann"], "Rex ends with Rex")
    }

    func testListOfConstantsAgainstACollection() {
        XCTAssertEqual(people("ANY {1, 7} IN ints"), ["Ann", "Bob"])
        XCTAssertEqual(people("ALL {1, 5} IN ints"), ["Ann"])
        XCTAssertEqual(people("ALL {} IN ints"), ["Ann", "Bob", "Élodie"], "ALL of no constants is true")
        XCTAssertEqual(people("NONE {5, 7} IN ints"), ["Élodie"])
        XCTAssertEqual(people("ALL {0, 2} <= ALL ints"), ["Bob", "Élodie"], "Ann has 1 < 2")
        XCTAssertEqual(people("ANY {20, 40} == age"), ["Bob", "Élodie"])
        XCTAssertEqual(people("ANY {'rex', 'tom'} ==[c] ANY dogs.name"), ["Ann"])
        XCTAssertEqual(people("SOME %@ IN ints", [9, 100]), ["Ann"], "an array argument")
        XCTAssertEqual(people("age == ANY {20, 40}"), ["Bob", "Élodie"])
        XCTAssertEqual(people("age == {20, 40}"), ["Bob", "Élodie"], "ANY is implied")
        XCTAssertEqual(people("age == NONE {20, 40}"), ["Ann"])
        XCTAssertEqual(people("age > ALL {10, 25}"), ["Ann", "Élodie"])
        XCTAssertEqual(people("ANY ints > ALL {4, 8}"), ["Ann"])
        XCTAssertEqual(people("ALL ints < ANY {2, 8}"), ["Bob", "Élodie"], "Ann's 9 is below neither")
        XCTAssertEqual(people("name BEGINSWITH ANY {'A', 'É'}"), ["Ann", "Élodie"])
        XCTAssertEqual(people("name ==[c] {'ANN', 'bob'}"), ["Ann", "Bob"])
        XCTAssertEqual(people("age == %@", [20]), ["Bob"], "an array argument")
        XCTAssertTrue(error("ANY {'a'} BEGINSWITH name").contains("cannot compare a list of constants"), error("ANY {'a'} BEGINSWITH name"))
    }

    /// The table of Realm's documentation: two lists of constants match
    /// every object or none.
    func testTwoListsOfConstants() {
        let everyone = ["Ann", "Bob", "Élodie"]
        let table: [(String, Bool)] = [
            ("ANY {1, 2, 3} > ALL {1, 2}", true),
            ("ANY {1, 2, 3} == NONE {1, 2}", true),
            ("ANY {4, 8} == ANY {5, 9, 11}", false),
            ("ANY {1, 2, 7} <= NONE {1, 2}", true),
            ("ALL {1, 2} IN ANY {1, 2, 3}", true),
            ("ALL {3, 1, 4, 3} == NONE {1, 2}", false),
            ("ALL {} in ALL {1, 2}", true),
            ("NONE {1, 2, 3, 12} > ALL {5, 9, 11}", false),
            ("NONE {4, 8} > ALL {5, 9, 11}", true),
            ("NONE {0, 1} < NONE {1, 2}", true),
            ("ANY {'a', 'B'} ==[c] ANY {'b'}", true),
        ]
        for (query, match) in table {
            XCTAssertEqual(people(query), match ? everyone : [], query)
        }
        XCTAssertEqual(people("ANY {1, 2} > ALL {0} AND age < 25"), ["Bob"])
    }

    func testCaseAndDiacriticOptionsEverywhere() {
        XCTAssertEqual(people("name ==[d] 'Elodie'"), ["Élodie"])
        XCTAssertEqual(people("name ==[cd] 'ELODIE'"), ["Élodie"])
        XCTAssertEqual(people("name IN[c] {'ann', 'BOB'}"), ["Ann", "Bob"])
        XCTAssertEqual(people("ANY tags ==[c] 'A'"), ["Ann"])
        XCTAssertEqual(people("scores.@keys ==[c] 'MATH'"), ["Ann", "Bob"])
        XCTAssertEqual(people("pets['dog'].name ==[c] 'rex'"), ["Ann"])
        XCTAssertEqual(people("value ==[c] 'X'"), ["Bob"])
        XCTAssertEqual(people("ANY dogs.name LIKE[c] 'f*'"), ["Ann", "Bob"])
        XCTAssertEqual(people("nickname BEGINSWITH[cd] 'élo'"), ["Élodie"])
    }

    // MARK: Subqueries

    func testSubqueryPaths() {
        XCTAssertEqual(people("SUBQUERY(dogs, $d, $d.age > 30).@count == 1"), ["Ann"])
        XCTAssertEqual(people("SUBQUERY(dogs, $d, age > 30).@count == 1"), ["Ann"],
                       "as in Realm, a path without the variable is the element's, not the outer object's")
        XCTAssertEqual(people("SUBQUERY(dogs, $d, $d.age < 10 AND $d.name BEGINSWITH 'F').@size >= 1"), ["Ann", "Bob"])
        XCTAssertEqual(people("SUBQUERY(dogs, $d, SUBQUERY($d.owners, $o, $o.age > 25).@count > 0).@count == 2"), ["Ann"])
        XCTAssertEqual(people("SUBQUERY(dogs, $d, $d.age > 1).@count == ints.@count"), ["Bob", "Élodie"])
    }

    // MARK: Arithmetic

    func testArithmetic() {
        XCTAssertEqual(people("age * 2 > 50"), ["Ann", "Élodie"])
        XCTAssertEqual(people("age + 1 == 31"), ["Ann"])
        XCTAssertEqual(people("age - 1 == 19"), ["Bob"])
        XCTAssertEqual(people("age -1 == 19"), ["Bob"], "-1 after an operand subtracts")
        XCTAssertEqual(people("2 * (age - 10) >= 40"), ["Ann", "Élodie"])
        XCTAssertEqual(people("(age + 10) * 2 == 100"), ["Élodie"], "a parenthesized operand first")
        XCTAssertEqual(people("age / 4 > 7.4"), ["Élodie"], "ints divide as ints, as in realm-core: 7, 5, 10")
        XCTAssertEqual(people("age / 4 == 7"), ["Ann"])
        XCTAssertEqual(people("age / 4.0 == 7.5"), ["Ann"], "a double operand gives a double")
        XCTAssertEqual(people("age / 0 == 9223372036854775807"), ["Ann", "Bob", "Élodie"], "by 0: the largest int")
        XCTAssertEqual(people("-age / 0 < 0"), ["Ann", "Bob", "Élodie"], "or the smallest")
        XCTAssertEqual(people("-1 * age < -25"), ["Ann", "Élodie"])
        XCTAssertEqual(people("scores['math'] * 2 == 10"), ["Ann"])
        XCTAssertEqual(people("scores['art'] + 1 == nil"), ["Bob", "Élodie"], "nil on one side gives nil")
        XCTAssertEqual(people("age > ints.@sum * 2"), ["Bob", "Élodie"], "Ann: 30 > 30 is false")
        XCTAssertEqual(people("age == 3 * 10"), ["Ann"], "constants fold")
        XCTAssertEqual(people("ints.@count + dogs.@count == 5"), ["Ann"])
        XCTAssertEqual(people("(age > 25) AND (age * 1 < 35)"), ["Ann"], "groups of predicates still parse")
        XCTAssertTrue(error("name * 2 > 3").contains("takes int, float, double and decimal128 values only"), error("name * 2 > 3"))
        XCTAssertTrue(error("age * 'x' > 3").contains("arithmetic takes numbers only"), error("age * 'x' > 3"))
    }

    // MARK: Constants

    func testTrueAndFalsePredicates() {
        XCTAssertEqual(people("TRUEPREDICATE"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("FALSEPREDICATE"), [])
        XCTAssertEqual(people("truepredicate AND age > 25"), ["Ann", "Élodie"])
        XCTAssertEqual(people("NOT FALSEPREDICATE && age < 25"), ["Bob"])
    }

    func testSubscriptsOnCollectionsOfMixedValues() {
        XCTAssertEqual(people("mixedList[0] == 1"), ["Ann"])
        XCTAssertEqual(people("mixedList[FIRST].@type == 'string'"), ["Bob"])
        XCTAssertEqual(people("mixedList[LAST] ==[c] 'b'"), ["Bob"])
        XCTAssertEqual(people("mixedList[0] == nil"), ["Élodie"])
        XCTAssertEqual(people("mixedMap['k'] > 2"), ["Ann"], "2.5; a string is never ordered with a number")
        XCTAssertEqual(people("mixedMap['k'].@type == 'double'"), ["Ann"])
        XCTAssertEqual(people("ANY mixedMap.@keys == 'k'"), ["Ann", "Bob"])
        XCTAssertEqual(people("mixedMap.@values BEGINSWITH 'x'"), ["Bob"])
    }

    func testNumberAndBinaryLiterals() {
        XCTAssertEqual(people("score == inf"), ["Bob"])
        XCTAssertEqual(people("score == +infinity"), ["Bob"])
        XCTAssertEqual(people("score > 1e308"), ["Bob"])
        XCTAssertEqual(people("score > -inf"), ["Ann", "Bob"], "NaN is never ordered")
        XCTAssertEqual(people("score < -INF"), [])
        XCTAssertEqual(people("score == nan"), ["Élodie"], "== NaN finds NaN")
        XCTAssertEqual(people("score BETWEEN {1, inf}"), ["Ann", "Bob"])
        XCTAssertEqual(people("-score < -1"), ["Ann", "Bob"], "a sign before a property")
        XCTAssertEqual(people("blob == bin('abc')"), ["Ann"])
        XCTAssertEqual(people("blob == binary(\"abc\")"), ["Ann"])
        XCTAssertEqual(people("blob == B64\"YWJj\""), ["Ann"])
        XCTAssertEqual(people("blob == bin(B64\"/w==\")"), ["Élodie"])
        XCTAssertEqual(people("blob BEGINSWITH bin('ab')"), ["Ann"])
        XCTAssertEqual(people("blob == nil"), ["Bob"])
        XCTAssertEqual(people("blob.@size == 1"), ["Élodie"])
        XCTAssertEqual(people("age == 0x1E"), ["Ann"])
        XCTAssertEqual(people("age == -(-20)"), ["Bob"])
        XCTAssertTrue(error("blob == B64\"***\"").contains("is not valid binary data"), error("blob == B64\"***\""))
    }

    func testTypeOfMixed() {
        XCTAssertEqual(people("value.@type == 'int'"), ["Ann"])
        XCTAssertEqual(people("value.@type == 'null'"), ["Élodie"])
        XCTAssertEqual(people("value.@type IN {'string', 'numeric'}"), ["Ann", "Bob"])
        XCTAssertEqual(people("ANY mixedMap.@type == 'string'"), ["Bob"])
        XCTAssertEqual(people("ALL mixedMap.@type == 'double'"), ["Ann", "Élodie"])
    }

    func testTypeOfDeclaredTypes() {
        XCTAssertEqual(people("ANY scores.@type == 'int'"), ["Ann", "Bob"])
        XCTAssertEqual(people("scores.@type == 'numeric'"), ["Ann", "Bob"], "ANY is implied")
        XCTAssertEqual(people("ALL scores.@type == 'int'"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("NONE scores.@type == 'double'"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("age.@type == 'int'"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("nickname.@type == 'null'"), ["Bob"])
        XCTAssertEqual(people("nickname.@type == 'string'"), ["Ann", "Élodie"])
        XCTAssertEqual(people("ANY dogs.@type == 'object'"), ["Ann", "Bob"])
    }

    func testDateLiterals() {
        XCTAssertEqual(people("birthday == T946684800:0"), ["Élodie"])
        XCTAssertEqual(people("birthday > 2000-01-01@00:00:00"), ["Bob"])
        XCTAssertEqual(people("birthday <= 2000-01-01T00:00:00:0"), ["Ann", "Élodie"])
        XCTAssertEqual(people("birthday < 2000-01-01@00:00:01 AND birthday > 1990-04-30@23:59:59"), ["Ann", "Élodie"])
        XCTAssertEqual(people("birthday BETWEEN {T0:0, 1995-01-01@00:00:00}"), ["Ann"])
    }

    // MARK: where {}

    func testWhereMapForms() {
        XCTAssertEqual(people { $0.scores["math"] > 2 }, ["Ann"])
        XCTAssertEqual(people { $0.scores.keys == "art" }, ["Ann"])
        XCTAssertEqual(people { $0.scores.values > 3 }, ["Ann"])
        XCTAssertEqual(people { $0.pets["dog"].age > 3 }, ["Ann"])
        XCTAssertEqual(people { $0.pets.values.name == "Fido" }, ["Bob"])
        XCTAssertEqual(people { $0.scores.containsAny(in: [2, 1]) }, ["Ann", "Bob"])
        XCTAssertEqual(people { $0.scores.count == 0 }, ["Élodie"])
    }

    func testWhereCollectionForms() {
        XCTAssertEqual(people { $0.ints > 8 }, ["Ann"])
        XCTAssertEqual(people { $0.ints == 7 }, ["Bob"])
        XCTAssertEqual(people { $0.ints.containsAny(in: [7, 100]) }, ["Bob"])
        XCTAssertEqual(people { $0.ints.contains(6...8) }, ["Bob"])
        XCTAssertEqual(people { $0.ints.contains(5) }, ["Ann"])
        XCTAssertEqual(people { $0.age.in([20, 40]) }, ["Bob", "Élodie"])
        XCTAssertEqual(people { $0.age.contains(25...45) }, ["Ann", "Élodie"])
        XCTAssertEqual(people { $0.tags.contains("a") }, ["Ann"])
    }

    func testWhereSubqueryCount() {
        XCTAssertEqual(people { ($0.dogs.age > 30 && $0.dogs.name == "Rex").count == 1 }, ["Ann"])
        XCTAssertEqual(people { ($0.dogs.age < 10).count >= 1 }, ["Ann", "Bob"])
        XCTAssertEqual(people { ($0.dogs.age < 10).count == 0 }, ["Élodie"])
        XCTAssertEqual(people { ($0.dogs.name.starts(with: "F") || $0.dogs.age > 30).count == 2 && $0.age > 25 }, ["Ann"])
        do {
            _ = try realm.objects(RQLPerson.self).checkedWhere { ($0.dogs.age > 3 && $0.age > 3).count > 0 }.count
            XCTFail("two relationships in one subquery")
        } catch {
            XCTAssertTrue("\(error)".contains("must go through 'dogs'"), "\(error)")
        }
    }

    func testWherePropertyComparisons() {
        XCTAssertEqual(people { $0.name.starts(with: $0.nickname, options: [.caseInsensitive]) }, ["Ann"])
        XCTAssertEqual(people { $0.name.starts(with: $0.nickname, options: [.caseInsensitive, .diacriticInsensitive]) }, ["Ann", "Élodie"])
        XCTAssertEqual(people { $0.name.equals($0.nickname, options: [.caseInsensitive]) }, [])
        XCTAssertEqual(people { $0.name.contains($0.nickname) }, [])
        XCTAssertEqual(people { $0.age > $0.dogs.count }, ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people { $0.dogs.age > $0.age }, ["Ann"])
        XCTAssertEqual(people { $0.name == $0.name }, ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people { $0.name.notEquals($0.nickname) }, ["Ann", "Bob", "Élodie"])
    }
}
