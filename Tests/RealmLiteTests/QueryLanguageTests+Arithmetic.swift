import Foundation
import XCTest
@testable import RealmLite

// Arithmetic where realm-core allows it beyond single-valued numbers:
// decimal128 operands, to-many key paths (each value with the other side's
// one value) and lists of constants; and its refusals (dates, two to-many
// sides). Data of QueryLanguageTests: ints Ann [1, 5, 9], Bob [7], Élodie
// []; amount Ann 10.5, Bob 0.1, Élodie 0; dogs' ages Ann [35, 2], Bob [2].

extension QueryLanguageTests {
    func testArithmeticOnDecimal128() {
        XCTAssertEqual(people("amount * 2 == 21"), ["Ann"])
        XCTAssertEqual(people("amount + 0.2 == 0.3"), ["Bob"], "decimal, not binary, arithmetic")
        XCTAssertEqual(people("amount / 3 > 3.49"), ["Ann"])
        XCTAssertEqual(people("age + amount > 40"), ["Ann"], "Élodie's 40 + 0 is not above 40")
        XCTAssertEqual(people("amount - 10.5 == 0"), ["Ann"])
        XCTAssertEqual(people("amount * 3 == 0.30000000000000000001 - 0.00000000000000000001"), ["Bob"],
                       "decimal constants keep their digits")
    }

    func testArithmeticOnToManyPaths() {
        XCTAssertEqual(people("ANY ints * 2 > 15"), ["Ann"])
        XCTAssertEqual(people("ints * 2 > 15"), ["Ann"], "ANY is implied")
        XCTAssertEqual(people("ALL ints * 2 > 1"), ["Ann", "Bob", "Élodie"])
        XCTAssertEqual(people("NONE ints + age > 30"), ["Bob", "Élodie"])
        XCTAssertEqual(people("ANY dogs.age * 2 > 10"), ["Ann"])
        XCTAssertEqual(people("dogs.age + 1 == 3"), ["Ann", "Bob"])
        XCTAssertEqual(people("scores.@values * 2 == 10"), ["Ann"])
        XCTAssertEqual(people("10 - ints == 3"), ["Bob"])
        XCTAssertEqual(people("ints * 2 == {2, 10, 18}"), ["Ann"], "element by element")
        XCTAssertEqual(people("ints.@sum + 1 == 16"), ["Ann"])
    }

    func testArithmeticOnConstantLists() {
        XCTAssertEqual(people("ALL {8, 10} / 2 >= ANY ints"), ["Ann"])
        XCTAssertEqual(people("ANY {1, 2, 3} + 4 == ANY ints"), ["Ann", "Bob"])
        XCTAssertEqual(people("NONE {1, 2, 3} * 3 == ANY ints"), ["Bob", "Élodie"])
    }

    func testArithmeticRefusals() {
        let cases: [(String, String)] = [
            ("birthday + 1 > 0", "takes int, float, double and decimal128 values only"),
            ("name + 1 == 2", "takes int, float, double and decimal128 values only"),
            ("age + 'x' == 2", "arithmetic takes numbers only"),
            ("ints * dogs.age > 1", "Operations involving two lists are not supported"),
            ("{1, 2} * {1, 2} == ints", "Operations involving two lists are not supported"),
            ("{1, 2} * age == 2", "between a list of constants and a property"),
        ]
        for (format, expected) in cases {
            let message = error(format)
            XCTAssertTrue(message.contains(expected), "\(format): \(message)")
        }
    }
}
