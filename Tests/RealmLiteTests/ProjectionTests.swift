import Dispatch
import Foundation
import XCTest
@testable import RealmLite

// Projections as RealmSwift 10.21 has them: @Projected properties renamed,
// through links, computed, and projected collections; Results of
// projections; observation reporting the projection's names; freeze/thaw.

class ProjAddress: Object {
    @Persisted var city = ""
    @Persisted var street = ""
}

class ProjPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age = 0
    @Persisted var address: ProjAddress?
    @Persisted var friends: List<ProjPerson>
    @Persisted var tags: MutableSet<ProjTag>
    var notPersisted = 0
}

class ProjTag: Object {
    @Persisted var label = ""
}

final class PersonProjection: Projection<ProjPerson> {
    @Projected(\ProjPerson.firstName) var name
    @Projected(\ProjPerson.lastName) var lastName
    @Projected(\ProjPerson.lastName.localizedUppercase) var lastNameCaps
    @Projected(\ProjPerson.address?.city) var homeCity
    @Projected(\ProjPerson.friends.projectTo.firstName) var friendsFirstName: ProjectedCollection<String>
    @Projected(\ProjPerson.tags.projectTo.label) var tagLabels: ProjectedCollection<String>
}

final class AgeProjection: Projection<ProjPerson> {
    @Projected(\ProjPerson.age) var age1
    @Projected(\ProjPerson.age) var age2
}

/// Projects collections themselves and the whole linked object.
final class CollectionsProjection: Projection<ProjPerson> {
    @Projected(\ProjPerson.friends) var friends
    @Projected(\ProjPerson.tags) var tags
    @Projected(\ProjPerson.address) var address
}

/// Projects a property that is not persisted: observing it stops.
final class FailedProjection: Projection<ProjPerson> {
    @Projected(\ProjPerson.notPersisted) var plain
}

final class ProjectionTests: RealmTestCase {
    let types: [ObjectBase.Type] = [ProjPerson.self, ProjAddress.self, ProjTag.self]

    func populated() throws -> Realm {
        let realm = try Realm(configuration: configuration(types))
        try realm.write {
            let jon = ProjPerson(value: ["id": 1, "firstName": "Jon", "lastName": "Snow", "age": 20])
            jon.address = ProjAddress(value: ["city": "Winterfell", "street": "Main"])
            let dany = ProjPerson(value: ["id": 2, "firstName": "Daenerys", "lastName": "Targaryen", "age": 19])
            let arya = ProjPerson(value: ["id": 3, "firstName": "Arya", "lastName": "Stark", "age": 12])
            jon.friends.append(objectsIn: [dany, arya])
            jon.tags.insert(ProjTag(value: ["label": "crow"]))
            realm.add([jon, dany, arya])
        }
        return realm
    }

    func jon(_ realm: Realm) -> PersonProjection {
        realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
    }

    func testProjectionsAreSectionedByAProjectedProperty() throws {
        let realm = try populated()
        try realm.write { realm.create(ProjPerson.self, value: ["id": 4, "firstName": "Sansa", "lastName": "Stark", "age": 14]) }
        let byLastName = realm.objects(PersonProjection.self).sectioned(by: \.lastName)
        XCTAssertEqual(byLastName.allKeys, ["Snow", "Stark", "Targaryen"])
        XCTAssertEqual(Set(byLastName[1].map(\.name)), ["Arya", "Sansa"])
        let sorted = realm.objects(PersonProjection.self)
            .sectioned(by: \.lastName, sortDescriptors: ["lastName", SortDescriptor(keyPath: "firstName", ascending: false)])
        XCTAssertEqual(sorted[1].map(\.name), ["Sansa", "Arya"])
        let byInitial = realm.objects(PersonProjection.self).sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: ["firstName"])
        XCTAssertEqual(byInitial.allKeys, ["A", "D", "J", "S"])
        try realm.write { realm.delete(realm.objects(ProjPerson.self).filter("lastName == 'Snow'")) }
        XCTAssertEqual(byLastName.allKeys, ["Stark", "Targaryen"], "live")
    }

    func testReadsRenamedLinkedComputedAndCollectionProperties() throws {
        let realm = try populated()
        let jon = jon(realm)
        XCTAssertEqual(jon.name, "Jon")
        XCTAssertEqual(jon.lastNameCaps, "SNOW")
        XCTAssertEqual(jon.homeCity, "Winterfell")
        XCTAssertEqual(Array(jon.friendsFirstName), ["Daenerys", "Arya"])
        XCTAssertEqual(jon.friendsFirstName.count, 2)
        XCTAssertEqual(jon.friendsFirstName.index(of: "Arya"), 1)
        XCTAssertEqual(Array(jon.tagLabels), ["crow"])
        XCTAssertEqual(jon.rootObject.firstName, "Jon")
        XCTAssertNil(realm.objects(PersonProjection.self).filter("id == 2").first!.homeCity)
    }

    func testManualInitProjectsAnObject() throws {
        let realm = try populated()
        let object = realm.object(ofType: ProjPerson.self, forPrimaryKey: 2)!
        let projection = PersonProjection(projecting: object)
        XCTAssertEqual(projection.name, "Daenerys")
        XCTAssertTrue(projection.rootObject === object)
        XCTAssertEqual(projection.realm, realm)
        XCTAssertFalse(projection.isInvalidated)
        // An unmanaged object can be projected too.
        let unmanaged = PersonProjection(projecting: ProjPerson(value: ["firstName": "Sam"]))
        XCTAssertEqual(unmanaged.name, "Sam")
        XCTAssertNil(unmanaged.realm)
    }

    func testWritesGoToTheRootObject() throws {
        let realm = try populated()
        let jon = jon(realm)
        try realm.write {
            jon.name = "Aegon"
            jon.friendsFirstName[1] = "Arya Stark"
        }
        XCTAssertEqual(realm.object(ofType: ProjPerson.self, forPrimaryKey: 1)!.firstName, "Aegon")
        XCTAssertEqual(realm.object(ofType: ProjPerson.self, forPrimaryKey: 3)!.firstName, "Arya Stark")
        XCTAssertEqual(jon.name, "Aegon")
        // A write elsewhere is seen through the projection (it stores nothing).
        try realm.write { jon.rootObject.lastName = "Targaryen" }
        XCTAssertEqual(jon.lastNameCaps, "TARGARYEN")
    }

    func testResultsOfProjectionsFilterSortAndEnumerate() throws {
        let realm = try populated()
        let all = realm.objects(PersonProjection.self)
        XCTAssertEqual(all.count, 3)
        XCTAssertEqual(all.map(\.name), ["Jon", "Daenerys", "Arya"])
        var names: [String] = []
        for projection in all { names.append(projection.name) }
        XCTAssertEqual(names, ["Jon", "Daenerys", "Arya"])
        XCTAssertEqual(all.sorted(byKeyPath: "firstName").map(\.name), ["Arya", "Daenerys", "Jon"])
        XCTAssertEqual(all.sorted(byKeyPath: "age", ascending: false).first?.name, "Jon")
        XCTAssertEqual(all.filter("age < %@", 20).sorted(byKeyPath: "age").map(\.name), ["Arya", "Daenerys"])
        XCTAssertEqual(all.filter("address.city == 'Winterfell'").map(\.name), ["Jon"])
        XCTAssertEqual(all.last?.name, "Arya")
        XCTAssertEqual(all[1].name, "Daenerys")
        XCTAssertEqual(all.index(of: jon(realm)), 0)
        // Elements are equal when they project the same object.
        XCTAssertEqual(all.first, jon(realm))
        XCTAssertNotEqual(all[1], jon(realm))
        XCTAssertEqual(Set(all).count, 3)
        XCTAssertEqual(Set([all[0], jon(realm)]).count, 1)
    }

    func testDescriptionListsProjectedProperties() throws {
        let realm = try populated()
        let description = jon(realm).description
        XCTAssertTrue(description.hasPrefix("PersonProjection<ProjPerson>"), description)
        XCTAssertTrue(description.contains("name(\\.firstName) = \"Jon\";"), description)
        XCTAssertTrue(description.contains("homeCity(\\.address.city) = \"Winterfell\";"), description)
        XCTAssertFalse(description.contains("Optional("), description)
        XCTAssertTrue(description.contains("friendsFirstName(\\.friends.firstName)"), description)
    }

    func testObserveReportsProjectedNamesOnly() throws {
        let realm = try populated()
        let jon = jon(realm)
        var changes: [[String]] = []
        var values: [(Any?, Any?)] = []
        var deleted = false
        let token = jon.observe { change in
            switch change {
            case .change(let projection, let properties):
                XCTAssertTrue(projection === jon)
                changes.append(properties.map(\.name))
                values += properties.map { ($0.oldValue, $0.newValue) }
            case .deleted: deleted = true
            case .error(let error): XCTFail("\(error)")
            }
        }
        nextTurn()
        try realm.write { jon.rootObject.firstName = "Aegon" }
        nextTurn()
        XCTAssertEqual(changes, [["name"]])
        XCTAssertEqual(values.first?.0 as? String, "Jon")
        XCTAssertEqual(values.first?.1 as? String, "Aegon")
        // Not projected: no notification.
        try realm.write { jon.rootObject.age = 40 }
        nextTurn()
        XCTAssertEqual(changes.count, 1)
        // Through a link, with the old and new values read by the key path.
        try realm.write { jon.rootObject.address!.city = "Castle Black" }
        nextTurn()
        XCTAssertEqual(changes.last, ["homeCity"])
        XCTAssertEqual(values.last?.0 as? String, "Winterfell")
        XCTAssertEqual(values.last?.1 as? String, "Castle Black")
        // Two projected properties read lastName: both reported.
        try realm.write { jon.rootObject.lastName = "Stark" }
        nextTurn()
        XCTAssertEqual(changes.last, ["lastName", "lastNameCaps"])
        XCTAssertEqual(values.last?.0 as? String, "SNOW")
        XCTAssertEqual(values.last?.1 as? String, "STARK")
        // A friend's projected property.
        try realm.write { realm.object(ofType: ProjPerson.self, forPrimaryKey: 2)!.firstName = "Dany" }
        nextTurn()
        XCTAssertEqual(changes.last, ["friendsFirstName"])
        // A friend added: the projected collection changed.
        try realm.write { jon.rootObject.friends.append(ProjPerson(value: ["id": 4, "firstName": "Sam"])) }
        nextTurn()
        XCTAssertEqual(changes.last, ["friendsFirstName"])
        XCTAssertEqual((values.last?.1 as? ProjectedCollection<String>).map(Array.init), ["Dany", "Arya", "Sam"])
        XCTAssertEqual((values.last?.0 as? ProjectedCollection<String>).map(Array.init), ["Dany", "Arya"])
        // A friend's unprojected property: nothing.
        let before = changes.count
        try realm.write { realm.object(ofType: ProjPerson.self, forPrimaryKey: 2)!.age = 30 }
        nextTurn()
        XCTAssertEqual(changes.count, before)
        try realm.write { realm.delete(jon.rootObject) }
        nextTurn()
        XCTAssertTrue(deleted)
        XCTAssertTrue(jon.isInvalidated)
        token.invalidate()
    }

    func testObserveKeyPathsByProjectionNameRootPathOrSwiftKeyPath() throws {
        let realm = try populated()
        let jon = jon(realm)
        var byName: [[String]] = [], byRootPath: [[String]] = [], bySwiftKeyPath: [[String]] = []
        let tokens = [
            jon.observe(keyPaths: ["homeCity"]) { if case .change(_, let p) = $0 { byName.append(p.map(\.name)) } },
            jon.observe(keyPaths: ["firstName"]) { if case .change(_, let p) = $0 { byRootPath.append(p.map(\.name)) } },
            jon.observe(keyPaths: [\PersonProjection.friendsFirstName]) { if case .change(_, let p) = $0 { bySwiftKeyPath.append(p.map(\.name)) } },
        ]
        nextTurn()
        try realm.write { jon.rootObject.address!.city = "Castle Black" }
        nextTurn()
        try realm.write { jon.name = "Aegon" }
        nextTurn()
        try realm.write { jon.rootObject.friends[0].firstName = "Dany" }
        nextTurn()
        XCTAssertEqual(byName, [["homeCity"]])
        XCTAssertEqual(byRootPath, [["name"]])
        XCTAssertEqual(bySwiftKeyPath, [["friendsFirstName"]])
        XCTAssertEqual(PersonProjection.rootKeyPathName(\PersonProjection.homeCity), "address.city")
        XCTAssertEqual(PersonProjection.rootKeyPathName(\PersonProjection.friendsFirstName), "friends.firstName")
        tokens.forEach { $0.invalidate() }
    }

    func testProjectionsOfOneRootPropertyAreAllReported() throws {
        let realm = try populated()
        let projection = realm.objects(AgeProjection.self).first!
        var seen: [PropertyChange] = []
        let token = projection.observe { if case .change(_, let p) = $0 { seen += p } }
        nextTurn()
        try realm.write { projection.age1 = 21 }
        nextTurn()
        XCTAssertEqual(seen.map(\.name), ["age1", "age2"])
        XCTAssertEqual(seen.map { $0.oldValue as? Int }, [20, 20])
        XCTAssertEqual(seen.map { $0.newValue as? Int }, [21, 21])
        token.invalidate()
    }

    func testProjectedCollectionObserve() throws {
        let realm = try populated()
        let names = jon(realm).friendsFirstName
        var seen: [String] = []
        let token = names.observe { change in
            switch change {
            case .initial(let c): seen.append("initial \(Array(c))")
            case .update(let c, let deletions, let insertions, let modifications):
                seen.append("update \(Array(c)) \(deletions) \(insertions) \(modifications)")
            case .error(let error): XCTFail("\(error)")
            }
        }
        nextTurn()
        try realm.write { realm.object(ofType: ProjPerson.self, forPrimaryKey: 1)!.friends.remove(at: 0) }
        nextTurn()
        XCTAssertEqual(seen, ["initial [\"Daenerys\", \"Arya\"]", "update [\"Arya\"] [0] [] []"])
        token.invalidate()
    }

    func testFreezeAndThaw() throws {
        let realm = try populated()
        let live = jon(realm)
        XCTAssertFalse(live.isFrozen)
        XCTAssertTrue(live.thaw() === live)
        let frozen = live.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertTrue(frozen.freeze() === frozen)
        XCTAssertTrue(frozen.friendsFirstName.isFrozen)
        try realm.write { live.name = "Aegon" }
        XCTAssertEqual(frozen.name, "Jon")
        XCTAssertEqual(live.name, "Aegon")
        // Readable on another thread.
        let frozenName = UncheckedBox(value: frozen)
        let read = onOtherThread(returning: { frozenName.value.name + "/" + frozenName.value.friendsFirstName.joined(separator: ",") })
        XCTAssertEqual(read, "Jon/Daenerys,Arya")
        let thawed = frozen.thaw()
        XCTAssertEqual(thawed?.name, "Aegon")
        XCTAssertFalse(thawed?.isFrozen ?? true)
        XCTAssertEqual(thawed, live)
        let frozenNames = live.friendsFirstName.freeze()
        XCTAssertTrue(frozenNames.isFrozen)
        XCTAssertEqual(Array(frozenNames.thaw()!), ["Daenerys", "Arya"])
        // Results of projections freeze too.
        let frozenResults = realm.objects(PersonProjection.self).freeze()
        XCTAssertTrue(frozenResults.first!.isFrozen)
        try realm.write { realm.delete(live.rootObject) }
        XCTAssertNil(frozen.thaw())
        XCTAssertEqual(frozenResults.count, 3)
    }

    func testProjectedKeyPathNames() throws {
        XCTAssertEqual(_name(for: \ProjPerson.friends.projectTo.firstName), "friends.firstName")
        XCTAssertEqual(_name(for: \ProjPerson.address?.city), "address.city")
    }
}


extension ProjectionTests {
    func testSortBySwiftKeyPathOfTheProjection() throws {
        let realm = try populated()
        let all = realm.objects(PersonProjection.self)
        XCTAssertEqual(all.sorted(by: \PersonProjection.name).map(\.name), ["Arya", "Daenerys", "Jon"])
        XCTAssertEqual(all.sorted(by: \.lastName, ascending: false).map(\.lastName), ["Targaryen", "Stark", "Snow"])
        XCTAssertEqual(_name(for: \PersonProjection.homeCity), "address.city")
        try realm.write { realm.add(ProjPerson(value: ["id": 9, "firstName": "Benjen", "lastName": "Stark"])) }
        XCTAssertEqual(all.distinct(by: [\PersonProjection.lastName]).map(\.name), ["Jon", "Daenerys", "Arya"])
        XCTAssertEqual(all.distinct(by: ["lastName"]).count, 3)
    }

    @MainActor
    func testObserveOnAnActor() async throws {
        let realm = try populated()
        let projection = jon(realm)
        let watcher = Watcher()
        let done = expectation(description: "changed")
        done.assertForOverFulfill = false
        let token = await projection.observe(keyPaths: [\PersonProjection.name], on: watcher) { watcher, change in
            watcher.assertIsolated()
            if case .change(let p, let properties) = change {
                watcher.note("\(p.name) \(properties.map(\.name))") // reads the actor's Realm
                done.fulfill()
            }
        }
        // An unprojected property: never reported. Then the name, rewritten
        // until reported: an object observer on an actor can miss the first
        // commit after registering (it does for a plain Object too; see the
        // report of the projections branch), which is not what this tests.
        try realm.write { projection.rootObject.age = 3 }
        var attempt = 0
        while await watcher.entries.isEmpty, attempt < 50 {
            try realm.write { projection.name = "Aegon\(attempt)" }
            attempt += 1
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        await fulfillment(of: [done], timeout: 10)
        let entries = await watcher.entries
        XCTAssertTrue(entries.first?.hasPrefix("Aegon") ?? false, "\(entries)")
        XCTAssertTrue(entries.allSatisfy { $0.hasSuffix(" [\"name\"]") }, "\(entries)")
        token.invalidate()
    }

    func testResultsOfProjectionsObserveAndHandOver() throws {
        let realm = try populated()
        let young = realm.objects(PersonProjection.self).filter("age < 18")
        var seen: [String] = []
        let token = young.observe { change in
            switch change {
            case .initial(let r): seen.append("initial \(r.map(\.name))")
            case .update(let r, let deletions, let insertions, _): seen.append("update \(r.map(\.name)) \(deletions) \(insertions)")
            case .error(let error): XCTFail("\(error)")
            }
        }
        nextTurn()
        try realm.write { realm.object(ofType: ProjPerson.self, forPrimaryKey: 2)!.age = 15 }
        nextTurn()
        XCTAssertEqual(seen, ["initial [\"Arya\"]", "update [\"Daenerys\", \"Arya\"] [] [0]"])
        token.invalidate()
        // A projection is thread-confined like its object: hand it over.
        let reference = UncheckedBox(value: ThreadSafeReference(to: jon(realm)))
        let configuration = self.configuration(types)
        let name = onOtherThread(returning: {
            let other = try Realm(configuration: configuration)
            return other.resolve(reference.value)?.name
        })
        XCTAssertEqual(name, "Jon")
    }

    func testMisuseStops() {
        let runner = "RealmLiteTests.ProjectionTests/testRunProjectionStopScenario"
        assertStops("writeOutsideTransaction", printing: "Cannot modify property 'ProjPerson.firstName' outside of a write transaction", runner: runner)
        assertStops("notWritable", printing: "Cannot set projected property", runner: runner)
        assertStops("unknownKeyPath", printing: "Cannot observe key path 'age' of PersonProjection", runner: runner)
        assertStops("notPersisted", printing: "@Projected property 'plain' of FailedProjection must read a persisted property", runner: runner)
    }

    /// The child-process entry point of testMisuseStops.
    func testRunProjectionStopScenario() throws {
        guard let name = ProcessInfo.processInfo.environment[stopScenarioVariable] else {
            throw XCTSkip("the child-process entry point of testMisuseStops: runs only with \(stopScenarioVariable) set")
        }
        let realm = try populated()
        switch name {
        case "writeOutsideTransaction": jon(realm).name = "x"
        case "notWritable": try realm.write { jon(realm).homeCity = "x" }
        case "unknownKeyPath": _ = jon(realm).observe(keyPaths: ["age"]) { _ in }
        case "notPersisted": _ = realm.objects(FailedProjection.self).first!.description
        default: XCTFail("unknown scenario \(name)")
        }
    }

    func testObserveOnAQueue() throws {
        let realm = try populated()
        let jon = jon(realm)
        let changed = expectation(description: "change on the queue")
        changed.assertForOverFulfill = false
        let seen = LockedLog<String>()
        let token = jon.observe(keyPaths: ["homeCity"], on: DispatchQueue(label: "projection")) { change in
            if case .change(let projection, let properties) = change {
                // Read through the queue's Realm.
                seen.add("\(projection.homeCity ?? "-") \(properties.map(\.name))")
                changed.fulfill()
            }
        }
        // The observer registers on the queue asynchronously: keep writing until it reports.
        var attempts = 0
        while seen.entries.isEmpty && attempts < 50 {
            try realm.write { jon.rootObject.address!.city = "c\(attempts)" }
            attempts += 1
            Thread.sleep(forTimeInterval: 0.02)
        }
        wait(for: [changed], timeout: 10)
        XCTAssertTrue(seen.entries.first?.hasPrefix("c") ?? false, "\(seen.entries)")
        XCTAssertTrue(seen.entries.first?.hasSuffix("[\"homeCity\"]") ?? false, "\(seen.entries)")
        token.invalidate()
    }

    func testProjectedCollectionsAndLinksAreTheObjectsOwn() throws {
        let realm = try populated()
        let projection = realm.objects(CollectionsProjection.self).filter("id == 1").first!
        try realm.write {
            projection.friends.append(ProjPerson(value: ["id": 5, "firstName": "Gilly"]))
            projection.tags.insert(ProjTag(value: ["label": "lord"]))
            projection.address = ProjAddress(value: ["city": "Oldtown"])
        }
        let jon = realm.object(ofType: ProjPerson.self, forPrimaryKey: 1)!
        XCTAssertEqual(jon.friends.map(\.firstName), ["Daenerys", "Arya", "Gilly"])
        XCTAssertEqual(Set(jon.tags.map(\.label)), ["crow", "lord"])
        XCTAssertEqual(jon.address?.city, "Oldtown")
        XCTAssertTrue(projection.friends == jon.friends)
        XCTAssertEqual(self.jon(realm).friendsFirstName.count, 3)
    }
}
