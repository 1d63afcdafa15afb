import Foundation
import XCTest
@testable import RealmLite

// The literal forms of Realm's Query Language beyond plain values: every
// date form realm-core's lexer takes (and the ones it refuses), on the data
// of QueryLanguageTests (birthdays: Ann 1990-05-01, Bob 2001-01-01, Élodie
// 2000-01-01, all at midnight UTC).

extension QueryLanguageTests {
    func testDateLiteralForms() {
        XCTAssertEqual(people("birthday == 2000-1-1@0:0:0"), ["Élodie"], "fields of any width")
        XCTAssertEqual(people("birthday == 2000-01-01T00:00:00"), ["Élodie"], "T instead of @")
        XCTAssertEqual(people("birthday == 2000-01-01@00:00:00:0"), ["Élodie"], "with nanoseconds")
        XCTAssertEqual(people("birthday > 2000-01-01@00:00:00:500000000"), ["Bob"])
        XCTAssertEqual(people("birthday == 1999-12-32@00:00:00"), ["Élodie"], "day 32 carries over, as timegm")
        XCTAssertEqual(people("birthday == 1999-13-01@00:00:00"), ["Élodie"], "month 13 carries over")
        XCTAssertEqual(people("birthday == 1999-12-31@24:00:00"), ["Élodie"], "hour 24 carries over")
        XCTAssertEqual(people("birthday == T946684800:0"), ["Élodie"])
        XCTAssertEqual(people("birthday < T+946684801:+0"), ["Ann", "Élodie"], "signed T form")
        XCTAssertEqual(people("birthday > T-86400:-5"), ["Ann", "Bob", "Élodie"])
    }

    func testDateLiteralNegativeNanoseconds() {
        // Before 1970 the seconds give the nanoseconds their sign, as in
        // realm-core: 1969-12-31@23:59:59:500000000 is -1.5 s, not -0.5 s.
        XCTAssertEqual(people("ANY {1969-12-31@23:59:59:500000000} == ANY {T-1:-500000000}"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("ANY {1969-12-31@23:59:59:500000000} == ANY {T0:-500000000}"), [])
        XCTAssertEqual(people("ANY {1900-01-01@00:00:00} == ANY {T-2208988800:0}"), ["Ann", "Bob", "Élodie"])
    }

    func testDateLiteralRefusedForms() {
        let cases: [(String, String)] = [
            ("birthday == 2000-01-01", "a date without a time"),
            ("birthday == 2000-01-01@00:00:00Z", "take no time zone"),
            ("birthday == 2000-01-01T00:00:00+01:00", "take no time zone"),
            ("birthday == 2000-01-01@00:00:00-05:00", "take no time zone"),
            ("birthday > 1899-12-31@23:59:59", "dates before 1900 are not supported"),
            ("birthday == T-1:1", "must have the same sign"),
            ("birthday == T1:-1", "must have the same sign"),
            ("birthday == 2000-01-01@00:00", "incomplete date literal"),
            ("birthday == 2000-01-01@00:00:00:", "expected nanoseconds"),
            ("birthday == 1970-1-1@0:0:1:-1", "expected nanoseconds"),
            ("birthday == T1:1000000000", "not a valid timestamp"),
        ]
        for (format, expected) in cases {
            let message = error(format)
            XCTAssertTrue(message.contains(expected), "\(format): \(message)")
            XCTAssertTrue(message.contains("Invalid predicate"), "\(format): \(message)")
        }
        XCTAssertNotEqual(error("birthday == T1:"), "no error")
        XCTAssertNotEqual(error("birthday == T:1"), "no error")
    }
}

// Lists of constants and to-many paths with no ANY, ALL or NONE on either
// side compare element by element, as realm-core does. Ints: Ann [1, 5, 9],
// Bob [7], Élodie []; dogs: Ann [Rex, Fido], Bob [Fido], Élodie [].
extension QueryLanguageTests {
    func testListEqualityElementWise() {
        XCTAssertEqual(people("{1, 5, 9} == ints"), ["Ann"])
        XCTAssertEqual(people("ints == {1, 5, 9}"), ["Ann"])
        XCTAssertEqual(people("{9, 5, 1} == ints"), [], "order matters")
        XCTAssertEqual(people("{1, 5} == ints"), [], "so does the length")
        XCTAssertEqual(people("{7} IN ints"), ["Bob"], "IN means == here")
        XCTAssertEqual(people("ints IN {7}"), ["Bob"])
        XCTAssertEqual(people("{} == ints"), ["Élodie"])
        XCTAssertEqual(people("NOT {} == ints"), ["Ann", "Bob"])
        XCTAssertEqual(people("$0 == ints", [1, 5, 9]), ["Ann"], "a positional argument")
        XCTAssertEqual(people("%@ == ints", [1, 5, 9]), ["Ann"], "an array argument")
        XCTAssertEqual(people("dogs.name == {'Rex', 'Fido'}"), ["Ann"])
        XCTAssertEqual(people("dogs.name ==[c] {'rex', 'FIDO'}"), ["Ann"])
        XCTAssertEqual(people("dogs.name BEGINSWITH {'R', 'F'}"), ["Ann"])
        XCTAssertEqual(people("dogs.age == {2}"), ["Bob"])
    }

    func testListInequalityAndOrderingElementWise() {
        // realm-core: different lengths differ; one length differs only if every pair does.
        XCTAssertEqual(people("{1, 5, 9} != ints"), ["Bob", "Élodie"])
        XCTAssertEqual(people("{2, 6, 10} != ints"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("{1, 6, 10} != ints"), ["Bob", "Élodie"], "Ann's first pair is equal")
        XCTAssertEqual(people("{} != ints"), ["Ann", "Bob", "Élodie"], "two empty lists are also unequal")
        XCTAssertEqual(people("{0, 4, 8} < ints"), ["Ann"])
        XCTAssertEqual(people("ints >= {1, 5, 10}"), [])
        XCTAssertEqual(people("ints >= {1, 5, 9}"), ["Ann"])
        XCTAssertEqual(people("{8} < ints"), [], "Bob's 7 is not above 8")
    }

    func testUnquantifiedListWithQuantifiedPath() {
        // A quantifier on one side only: the list is ANY.
        XCTAssertEqual(people("{7, 9} IN ANY ints"), ["Ann", "Bob"])
        XCTAssertEqual(people("{1, 7} == ALL ints"), ["Bob", "Élodie"], "ALL of nothing holds")
        XCTAssertEqual(people("ANY ints == {5, 7}"), ["Ann", "Bob"])
        XCTAssertEqual(people("{20, 40} == age"), ["Bob", "Élodie"], "one value per object: ANY")
        XCTAssertEqual(people("age IN {20, 40}"), ["Bob", "Élodie"])
    }

    func testTwoUnquantifiedConstantLists() {
        XCTAssertEqual(people("{1, 2} == {1, 2}"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("{1, 2} == {2, 1}"), [])
        XCTAssertEqual(people("{1} != {1, 2}"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("{1, 2} < {2, 3}"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("{'a'} ==[c] {'A'}"), ["Ann", "Bob", "Élodie"])
        XCTAssertTrue(error("{'a'} BEGINSWITH {'a'}").contains("two lists of constants compare with"), error("{'a'} BEGINSWITH {'a'}"))
    }
}

// String order is realm-core's: unsigned bytes (UTF-8 code points), no
// locale collation, for comparisons and sorting alike.
extension QueryLanguageTests {
    func testStringOrderingIsByCodePoint() {
        XCTAssertEqual(people("name < 'a'"), ["Ann", "Bob"], "upper case sorts before lower case")
        XCTAssertEqual(people("name > 'z'"), ["Élodie"], "É (U+00C9) is above z")
        XCTAssertEqual(people("name BETWEEN {'B', 'C'}"), ["Bob"])
        XCTAssertEqual(realm.objects(RQLPerson.self).sorted(byKeyPath: "name", ascending: false).map(\.name), ["Élodie", "Bob", "Ann"])
        XCTAssertEqual(people("ANY {'Z'} < ANY {'a'}"), ["Ann", "Bob", "Élodie"])
    }
}
