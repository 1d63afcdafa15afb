import Foundation
import XCTest
@testable import RealmLite

// Iterating all objects of a class reads a leaf of rows ahead
// (ResultsIterator + cs_cursor_next_batch). Others moving the shared cursor
// and writes during the iteration must not change what it yields.

final class IterationBatchTests: RealmTestCase {
    private func addDogs(_ realm: Realm, _ ages: Range<Int>) throws {
        try realm.write {
            for age in ages {
                let dog = Dog()
                dog.name = "d\(age)"
                dog.age = age
                realm.add(dog)
            }
        }
    }

    func testOtherCursorUsersDuringIteration() throws {
        let realm = try openRealm()
        try addDogs(realm, 0..<2000)
        let dogs = realm.objects(Dog.self)
        var seen: [Int] = []
        for dog in dogs {
            seen.append(dog.age)
            if dog.age % 97 == 0 {
                // Rank access, edges and a nested iteration move the shared cursor.
                XCTAssertEqual(dogs[1500].age, 1500)
                XCTAssertEqual(dogs.last?.age, 1999)
                XCTAssertEqual(dogs.prefix(3).map(\.age), [0, 1, 2])
            }
        }
        XCTAssertEqual(seen, Array(0..<2000))
    }

    func testNestedIterationOfTheSameClass() throws {
        // The inner loop reads batches through the same shared cursor; the
        // outer loop's batch must not depend on the cursor's key buffer.
        let realm = try openRealm()
        try addDogs(realm, 0..<2000)
        let dogs = realm.objects(Dog.self)
        var seen: [Int] = []
        for dog in dogs {
            seen.append(dog.age)
            if dog.age % 97 == 5 {
                var inner = 0
                for other in dogs where other.age == inner { inner += 1 }
                XCTAssertEqual(inner, 2000)
            }
        }
        XCTAssertEqual(seen, Array(0..<2000))
    }

    func testWritesDuringIteration() throws {
        let realm = try openRealm()
        try addDogs(realm, 0..<1000)
        let dogs = realm.objects(Dog.self)
        var seen: [Int] = []
        try realm.write {
            for dog in dogs {
                seen.append(dog.age)
                if dog.age % 10 == 0, dog.age < 1000 {
                    // The next object goes away; a new one joins at the end.
                    if let next = dogs.first(where: { $0.age == dog.age + 1 }) { realm.delete(next) }
                    let added = Dog()
                    added.age = 1000 + dog.age
                    realm.add(added)
                }
                if dog.age == 505 { dog.age = 505 } // a write without a structural change
            }
        }
        var expected = (0..<1000).filter { $0 % 10 != 1 }
        expected += (0..<1000).filter { $0 % 10 == 0 }.map { 1000 + $0 }
        XCTAssertEqual(seen, expected)
        XCTAssertEqual(dogs.count, expected.count)
    }
}
