import Foundation
import XCTest
@testable import RealmLite

/// Misuse that RealmSwift answers with an exception stops the program with a
/// clear message. Each scenario runs in a child process (assertStops).
final class StopScenarioTests: RealmTestCase {
    /// The child-process entry point; does nothing in a normal test run.
    func testRunScenario() throws {
        guard let name = ProcessInfo.processInfo.environment[stopScenarioVariable] else { return }
        let realm = try openRealm()
        switch name {
        case "addOutsideWrite":
            realm.add(Dog())
        case "setOutsideWrite":
            let dog = Dog()
            try realm.write { realm.add(dog) }
            dog.name = "x"
        case "listAppendOutsideWrite":
            let person = Person()
            try realm.write { realm.add(person) }
            person.dogs.append(Dog())
        case "readDeletedObject":
            let dog = Dog()
            try realm.write { realm.add(dog) }
            try realm.write { realm.delete(dog) }
            _ = dog.name
        case "objectsOfUnknownType":
            let limited = try Realm(configuration: configuration([Dog.self], file: "limited.realm"))
            _ = limited.objects(StringKeyed.self)
        case "nestedBeginWrite":
            realm.beginWrite()
            realm.beginWrite()
        default:
            XCTFail("unknown scenario \(name)")
        }
        XCTFail("scenario \(name) should have stopped")
    }

    func testAddOutsideWriteStops() { assertStops("addOutsideWrite", printing: "Cannot add an object of type 'Dog' outside of a write transaction") }
    func testPropertySetOutsideWriteStops() { assertStops("setOutsideWrite", printing: "Cannot modify property 'Dog.name' outside of a write transaction") }
    func testReadingADeletedObjectStops() { assertStops("readDeletedObject", printing: "Object of type 'Dog' has been deleted or invalidated") }
    func testObjectsOfAnUnknownTypeStops() { assertStops("objectsOfUnknownType", printing: "Object type 'StringKeyed' is not managed by this Realm") }
    func testNestedBeginWriteStops() { assertStops("nestedBeginWrite", printing: "already in a write transaction") }
}
