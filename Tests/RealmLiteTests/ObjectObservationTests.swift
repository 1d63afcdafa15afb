import Dispatch
import Foundation
import XCTest
@testable import RealmLite

// Object.observe as RealmSwift types it: generic over the ObjectChange the
// block takes, Swift key paths, and misuse (bad key paths, unmanaged or
// invalidated objects) stopping with a message that names it.

final class ObjectObservationTests: RealmTestCase {
    func testUnannotatedBlockGetsTheObjectsOwnClass() throws {
        let realm = try openRealm()
        let dog = Dog(value: ["name": "Rex", "age": 1])
        try realm.write { realm.add(dog) }
        var names: [String] = []
        // `object.name` compiles only if the change is ObjectChange<Dog>.
        let token = dog.observe { change in
            if case .change(let object, _) = change { names.append(object.name) }
        }
        nextTurn()
        try realm.write { dog.name = "Max" }
        nextTurn()
        XCTAssertEqual(names, ["Max"])
        token.invalidate()
    }

    func testGenericBlockTakesAnObjectBaseChange() throws {
        let realm = try openRealm()
        let dog = Dog(value: ["name": "Rex", "age": 1])
        try realm.write { realm.add(dog) }
        var seen: [(ObjectBase, [String], [Int?], [Int?])] = []
        let block: (ObjectChange<ObjectBase>) -> Void = { change in
            if case .change(let object, let properties) = change {
                seen.append((object, properties.map(\.name), properties.map { $0.oldValue as? Int }, properties.map { $0.newValue as? Int }))
            }
        }
        let token = dog.observe(block)
        nextTurn()
        try realm.write { dog.age = 5 }
        nextTurn()
        XCTAssertEqual(seen.count, 1)
        XCTAssertTrue(seen.first?.0 === dog)
        XCTAssertEqual(seen.first?.1, ["age"])
        XCTAssertEqual(seen.first?.2, [1])
        XCTAssertEqual(seen.first?.3, [5])
        token.invalidate()
    }

    func testSwiftKeyPathsLimitTheObservedProperties() throws {
        let realm = try openRealm()
        let dog = Dog(value: ["name": "Rex", "age": 1])
        try realm.write { realm.add(dog) }
        var changed: [[String]] = []
        let token = dog.observe(keyPaths: [\Dog.age]) { change in
            if case .change(let object, let properties) = change {
                XCTAssertEqual(object.name, dog.name) // ObjectChange<Dog>
                changed.append(properties.map(\.name))
            }
        }
        nextTurn()
        try realm.write { dog.name = "Max" }
        nextTurn()
        XCTAssertEqual(changed, [], "name is not observed")
        try realm.write { dog.age = 2; dog.name = "Bo" }
        nextTurn()
        XCTAssertEqual(changed, [["age"]], "only the observed property is reported")
        token.invalidate()
    }

    func testStringKeyPathsThroughLinksAreAccepted() throws {
        let realm = try openRealm()
        let person = Person()
        try realm.write { realm.add(person) }
        // Valid paths, including through a List link and linking objects.
        person.observe(keyPaths: ["dogs.name", "name"]) { _ in }.invalidate()
        let dog = Dog()
        try realm.write { realm.add(dog) }
        dog.observe(keyPaths: ["owners.name"]) { _ in }.invalidate()
    }

    /// "dogs.age" reports the `dogs` property when a listed dog's age
    /// changes (and when the list itself changes), not when its name does.
    func testKeyPathsThroughLinksReportTheLinkProperty() throws {
        let realm = try openRealm()
        let person = Person(), rex = Dog(value: ["name": "Rex", "age": 1])
        let owner = Owner(value: ["id": 1]), pet = Pet(value: ["name": "Tom"])
        try realm.write {
            realm.add(person)
            person.dogs.append(rex)
            realm.add(owner)
            owner.best = pet
            owner.address = Address(value: ["city": "Oslo"])
        }
        var log: [String] = []
        let tokens = [
            person.observe(keyPaths: ["dogs.age"]) { change in
                if case .change(_, let properties) = change { log.append("person \(properties.map(\.name))") }
            },
            owner.observe(keyPaths: ["best.name", "address.city"]) { change in
                if case .change(_, let properties) = change { log.append("owner \(properties.map(\.name))") }
            },
            rex.observe(keyPaths: ["owners.name"]) { change in
                if case .change(_, let properties) = change { log.append("rex \(properties.map(\.name))") }
            },
        ]
        nextTurn()
        try realm.write { rex.name = "Max"; pet.kind = "cat"; owner.address!.street = "Main" }
        nextTurn()
        XCTAssertEqual(log, [], "properties not on the key paths")
        try realm.write { rex.age = 2 }
        nextTurn()
        XCTAssertEqual(log, ["person [\"dogs\"]"])
        try realm.write { pet.name = "Tim" }
        nextTurn()
        try realm.write { owner.address!.city = "Bergen" }
        nextTurn()
        try realm.write { person.name = "Ann" }
        nextTurn()
        XCTAssertEqual(log, ["person [\"dogs\"]", "owner [\"best\"]", "owner [\"address\"]", "rex [\"owners\"]"])
        tokens.forEach { $0.invalidate() }
    }

    func testEmbeddedObjectObservation() throws {
        let realm = try openRealm()
        let owner = Owner(value: ["id": 1])
        try realm.write { realm.add(owner); owner.address = Address(value: ["city": "Oslo"]) }
        let address = owner.address!
        var log: [String] = []
        let token = address.observe { change in
            switch change {
            case .change(let address, let properties):
                log.append("\(address.city) \(properties.map(\.name)) \(properties.map { $0.oldValue as? String ?? "-" })")
            case .deleted: log.append("deleted")
            case .error(let error): log.append("\(error)")
            }
        }
        nextTurn()
        try realm.write { address.city = "Bergen" }
        nextTurn()
        try realm.write { owner.address = Address(value: ["city": "Paris"]) }
        nextTurn()
        XCTAssertEqual(log, ["Bergen [\"city\"] [\"Oslo\"]", "deleted"])
        token.invalidate()
    }

    func testEmbeddedObjectObservedOnAQueue() throws {
        let realm = try openRealm()
        let owner = Owner(value: ["id": 1])
        try realm.write { realm.add(owner); owner.address = Address(value: ["city": "Oslo"]) }
        let changed = expectation(description: "change on the queue")
        changed.assertForOverFulfill = false
        let cities = LockedLog<String>()
        let token = owner.address!.observe(on: DispatchQueue(label: "embedded")) { change in
            if case .change(let address, _) = change {
                cities.add(address.city) // read through the queue's Realm
                changed.fulfill()
            }
        }
        // The observer registers on the queue asynchronously: keep writing until it reports.
        var attempts = 0
        while cities.entries.isEmpty && attempts < 50 {
            try realm.write { owner.address!.city = "c\(attempts)" }
            attempts += 1
            Thread.sleep(forTimeInterval: 0.02)
        }
        wait(for: [changed], timeout: 10)
        XCTAssertTrue(cities.entries.first?.hasPrefix("c") ?? false)
        token.invalidate()
    }

    // MARK: misuse

    func testRunScenario() throws {
        guard let name = ProcessInfo.processInfo.environment[stopScenarioVariable] else {
            throw XCTSkip("the child-process entry point of the observation stop tests")
        }
        let realm = try openRealm()
        let dog = Dog()
        try realm.write { realm.add(dog) }
        switch name {
        case "unknownProperty": _ = dog.observe(keyPaths: ["nmae"]) { _ in }
        case "unknownLinkedProperty":
            let person = Person()
            try realm.write { realm.add(person) }
            _ = person.observe(keyPaths: ["dogs.colour"]) { _ in }
        case "pathThroughNonLink": _ = dog.observe(keyPaths: ["name.count"]) { _ in }
        case "unmanaged": _ = Dog().observe { _ in }
        case "invalidated":
            try realm.write { realm.delete(dog) }
            _ = dog.observe { _ in }
        case "frozen": _ = dog.freeze().observe { _ in }
        default: XCTFail("unknown scenario \(name)")
        }
        XCTFail("scenario \(name) should have stopped")
    }

    private func assertObservationStops(_ scenario: String, printing expected: String, line: UInt = #line) {
        assertStops(scenario, printing: expected, runner: "RealmLiteTests.ObjectObservationTests/testRunScenario", line: line)
    }

    func testUnknownPropertyStopsNamingIt() {
        assertObservationStops("unknownProperty", printing: "Cannot observe key path 'nmae': property 'nmae' not found in object of type 'Dog'")
    }
    func testUnknownLinkedPropertyStopsNamingIt() {
        assertObservationStops("unknownLinkedProperty", printing: "property 'colour' not found in object of type 'Dog'")
    }
    func testPathThroughANonLinkStops() {
        assertObservationStops("pathThroughNonLink", printing: "'name' is not a link")
    }
    func testObservingAnUnmanagedObjectStops() {
        assertObservationStops("unmanaged", printing: "Only managed objects can be observed: this 'Dog' is unmanaged")
    }
    func testObservingAnInvalidatedObjectStops() {
        assertObservationStops("invalidated", printing: "Cannot observe an invalidated object of type 'Dog'")
    }
    func testObservingAFrozenObjectStops() {
        assertObservationStops("frozen", printing: "Cannot observe a frozen object")
    }
}
