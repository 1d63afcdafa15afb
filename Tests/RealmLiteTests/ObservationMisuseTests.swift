import Foundation
import XCTest
@testable import RealmLite

// Observing collections wrongly stops with a message that names what is
// wrong: a key path that is not a property of the elements, key paths on a
// collection of values, a collection of a deleted object, a frozen one
// (also through observe(on: actor) and changes).

final class ObservationMisuseTests: RealmTestCase {
    @MainActor
    func testRunScenario() async throws {
        guard let name = ProcessInfo.processInfo.environment[stopScenarioVariable] else {
            throw XCTSkip("the child-process entry point of the collection observation stop tests")
        }
        try await run(name)
        XCTFail("scenario \(name) should have stopped")
    }

    @MainActor
    private func run(_ name: String) async throws {
        let realm = try openRealm()
        let owner = Owner(), bag = Bag(), pet = Pet()
        try realm.write { realm.add(owner); realm.add(bag); realm.add(pet) }
        switch name {
        case "resultsKeyPath": _ = realm.objects(Dog.self).observe(keyPaths: ["agee"]) { _ in }
        case "listKeyPath": _ = owner.pets.observe(keyPaths: ["kind.x"]) { _ in }
        case "linkingObjectsKeyPath": _ = pet.listedBy.observe(keyPaths: ["pets.colour"]) { _ in }
        case "mapKeyPath": _ = owner.petMap.observe(keyPaths: ["nme"]) { _ in }
        case "valueListKeyPath": _ = bag.ints.observe(keyPaths: ["x"]) { _ in }
        case "deletedOwnersList":
            let pets = owner.pets
            try realm.write { realm.delete(owner) }
            _ = pets.observe { _ in }
        case "frozenList": _ = owner.pets.freeze().observe { _ in }
        case "frozenMap": _ = bag.scores.freeze().observe { _ in }
        case "frozenOnActor": _ = await realm.objects(Dog.self).freeze().observe(on: Watcher()) { _, _ in }
        case "frozenChanges":
            for await _ in owner.petSet.freeze().changes { break }
        case "unmanagedChanges":
            for await _ in Dog().changes { break }
        default: XCTFail("unknown scenario \(name)")
        }
    }

    private func assertMisuseStops(_ scenario: String, printing expected: String, line: UInt = #line) {
        assertStops(scenario, printing: expected, runner: "RealmLiteTests.ObservationMisuseTests/testRunScenario", line: line)
    }

    func testUnknownKeyPathsStopNamingThem() {
        assertMisuseStops("resultsKeyPath", printing: "Cannot observe key path 'agee': property 'agee' not found in object of type 'Dog'")
        assertMisuseStops("listKeyPath", printing: "Cannot observe key path 'kind.x': 'kind' is not a link")
        assertMisuseStops("linkingObjectsKeyPath", printing: "property 'colour' not found in object of type 'Pet'")
        assertMisuseStops("mapKeyPath", printing: "property 'nme' not found in object of type 'Pet'")
    }

    func testKeyPathsOfACollectionOfValuesStop() {
        assertMisuseStops("valueListKeyPath", printing: "Cannot observe key paths [\"x\"] of a List: key paths name properties of a collection's objects")
    }

    func testACollectionOfADeletedObjectStops() {
        assertMisuseStops("deletedOwnersList", printing: "Cannot observe a List of a deleted or invalidated object of type 'Owner'")
    }

    func testFrozenCollectionsStop() {
        assertMisuseStops("frozenList", printing: "Cannot observe a frozen List")
        assertMisuseStops("frozenMap", printing: "Cannot observe a frozen Map")
        assertMisuseStops("frozenOnActor", printing: "Cannot observe a frozen Results")
        assertMisuseStops("frozenChanges", printing: "Cannot observe a frozen MutableSet")
    }

    func testChangesOfAnUnmanagedObjectStop() {
        assertMisuseStops("unmanagedChanges", printing: "Only managed objects can be observed: this 'Dog' is unmanaged")
    }
}
