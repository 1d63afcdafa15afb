import Foundation
import XCTest
@testable import RealmLite

// @links through AnyRealmValue links: a mixed property, a List of mixed
// values and a Map of mixed values link like link properties do. Data of
// QueryLanguageTests plus: Bob.value = Lonely, Élodie.mixedList += Lonely,
// Élodie.mixedMap['p'] = Tom. Typed links before: Tom 1 (Ann's pets),
// Rex 3, Fido 4, Lonely 0.

extension QueryLanguageTests {
    private func linkThroughMixedValues() throws {
        let pets = realm.objects(RQLPet.self)
        let tom = pets.filter("name == 'Tom'").first!, lonely = pets.filter("name == 'Lonely'").first!
        let people = realm.objects(RQLPerson.self)
        try realm.write {
            people.filter("name == 'Bob'").first!.value = .object(lonely)
            let elodie = people.filter("name == 'Élodie'").first!
            elodie.mixedList.append(.object(lonely))
            elodie.mixedMap["p"] = .object(tom)
        }
    }

    func testLinksThroughAnyRealmValue() throws {
        try linkThroughMixedValues()
        XCTAssertEqual(pets("@links.RQLPerson.value.name == 'Bob'"), ["Lonely"])
        XCTAssertEqual(pets("@links.RQLPerson.value.@count == 1"), ["Lonely"])
        XCTAssertEqual(pets("@links.RQLPerson.mixedList.name == 'Élodie'"), ["Lonely"])
        XCTAssertEqual(pets("@links.RQLPerson.mixedMap.age == 40"), ["Tom"])
        XCTAssertEqual(pets("ANY @links.RQLPerson.value.age < 25"), ["Lonely"])
        XCTAssertEqual(pets("SUBQUERY(@links.RQLPerson.mixedList, $p, $p.age > 30).@count == 1"), ["Lonely"])
        XCTAssertEqual(pets("@links.RQLPerson.value.@count == 0"), ["Tom", "Rex", "Fido"])
    }

    func testLinksCountIncludesAnyRealmValueLinks() throws {
        try linkThroughMixedValues()
        XCTAssertEqual(pets("@links.@count == 0"), [])
        XCTAssertEqual(pets("@links.@count == 2"), ["Tom", "Lonely"], "Tom: Ann's pets and Élodie's mixedMap")
        XCTAssertEqual(pets("@links.@count == 3"), ["Rex"])
        XCTAssertEqual(pets("@links.@count == 4"), ["Fido"])
        try realm.write { realm.objects(RQLPerson.self).filter("name == 'Bob'").first!.value = .none }
        XCTAssertEqual(pets("@links.@count == 1"), ["Lonely"], "an unlinked value no longer counts")
    }
}
