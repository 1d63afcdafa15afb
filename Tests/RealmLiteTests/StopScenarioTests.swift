import Foundation
import XCTest
@testable import RealmLite

/// Misuse that RealmSwift answers with an exception stops the program with a
/// clear message. Each scenario runs in a child process (assertStops).
final class StopScenarioTests: RealmTestCase {
    /// The child-process entry point of assertStops; skipped in a normal
    /// test run (it checks nothing there, so it must not count as passed).
    func testRunScenario() throws {
        guard let name = ProcessInfo.processInfo.environment[stopScenarioVariable] else {
            throw XCTSkip("the child-process entry point of assertStops: runs only with \(stopScenarioVariable) set")
        }
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
        case "wrongThreadRealm":
            onAnotherThread(realm) { realm in _ = realm.objects(Dog.self) }
        case "wrongThreadResults":
            try realm.write { realm.add(Dog()) }
            onAnotherThread(realm.objects(Dog.self)) { results in _ = results.count }
        case "wrongThreadObject":
            let dog = Dog()
            try realm.write { realm.add(dog) }
            onAnotherThread(dog) { dog in _ = dog.name }
        case "wrongThreadObjectSetter":
            let dog = Dog()
            try realm.write { realm.add(dog) }
            onAnotherThread(dog) { dog in dog.name = "x" }
        case "wrongThreadList":
            let owner = Owner()
            try realm.write { realm.add(owner) }
            onAnotherThread(owner.pets) { pets in _ = pets.count }
        case "wrongThreadMutableSet":
            let owner = Owner()
            try realm.write { realm.add(owner) }
            onAnotherThread(owner.petSet) { set in _ = set.count }
        case "wrongThreadMap":
            let owner = Owner()
            try realm.write { realm.add(owner) }
            onAnotherThread(owner.petMap) { map in _ = map.count }
        case "wrongThreadLinkingObjects":
            let pet = Pet()
            try realm.write { realm.add(pet) }
            onAnotherThread(pet.listedBy) { owners in _ = owners.count }
        case "writeFrozenObject":
            let dog = Dog()
            try realm.write { realm.add(dog) }
            let frozen = dog.freeze()
            try realm.write { frozen.name = "x" }
        case "appendFrozenList":
            let person = Person()
            try realm.write { realm.add(person) }
            let frozen = person.dogs.freeze()
            try realm.write { frozen.append(Dog()) }
        case "observeFrozen":
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self).freeze().observe { _ in }
        case "resolveTwice":
            let dog = Dog()
            try realm.write { realm.add(dog) }
            let reference = ThreadSafeReference(to: dog)
            _ = realm.resolve(reference)
            _ = realm.resolve(reference)
        case "objectsOfObject":
            _ = realm.objects(Object.self)
        case "objectsAtOutOfBounds":
            let person = Person()
            try realm.write {
                realm.add(person)
                person.dogs.append(objectsIn: [Dog(), Dog(), Dog()])
            }
            _ = person.dogs.objects(at: IndexSet([0, 9]))
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

    // Every confined type detects use from another thread.
    func testRealmOnWrongThreadStops() { assertStops("wrongThreadRealm", printing: "Realm accessed from incorrect thread.") }
    func testResultsOnWrongThreadStops() { assertStops("wrongThreadResults", printing: "Realm accessed from incorrect thread.") }
    func testObjectOnWrongThreadStops() { assertStops("wrongThreadObject", printing: "Realm accessed from incorrect thread.") }
    func testObjectSetterOnWrongThreadStops() { assertStops("wrongThreadObjectSetter", printing: "Realm accessed from incorrect thread.") }
    func testListOnWrongThreadStops() { assertStops("wrongThreadList", printing: "Realm accessed from incorrect thread.") }
    func testMutableSetOnWrongThreadStops() { assertStops("wrongThreadMutableSet", printing: "Realm accessed from incorrect thread.") }
    func testMapOnWrongThreadStops() { assertStops("wrongThreadMap", printing: "Realm accessed from incorrect thread.") }
    func testLinkingObjectsOnWrongThreadStops() { assertStops("wrongThreadLinkingObjects", printing: "Realm accessed from incorrect thread.") }

    // Frozen values are read-only; references resolve once.
    func testWritingAFrozenObjectStops() { assertStops("writeFrozenObject", printing: "Cannot modify property 'Dog.name' of a frozen object") }
    func testAppendingToAFrozenListStops() { assertStops("appendFrozenList", printing: "of a frozen object or collection") }
    func testObservingFrozenResultsStops() { assertStops("observeFrozen", printing: "Cannot observe a frozen Results") }
    func testResolvingTwiceStops() { assertStops("resolveTwice", printing: "already resolved") }
}

/// Runs body with value on a new thread and waits (the value crosses
/// unchecked on purpose: the point is to misuse it there).
private func onAnotherThread<T>(_ value: T, _ body: @escaping (T) -> Void) {
    let box = UncheckedBox(value: (value, body))
    let done = DispatchSemaphore(value: 0)
    Thread {
        box.value.1(box.value.0)
        done.signal()
    }.start()
    done.wait()
}

struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
}
