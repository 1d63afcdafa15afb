import Foundation
import XCTest
@testable import RealmLite

// Sectioned results: sections by key path or block, live, frozen and
// thawed, and observed with changes by section and row.

final class SectionedResultsTests: RealmTestCase {
    func path(_ section: Int, _ row: Int) -> IndexPath { IndexPath(indexes: [section, row]) }

    func seed(_ realm: Realm) throws {
        try realm.write {
            for (name, age) in [("Ace", 3), ("Bob", 1), ("Abe", 3), ("Cat", 2), ("Bea", 1)] {
                realm.create(Dog.self, value: ["name": name, "age": age])
            }
        }
    }

    func testSectionsByKeyPathAndBlock() throws {
        let realm = try openRealm()
        try seed(realm)
        let byAge = realm.objects(Dog.self).sectioned(by: \.age, ascending: false)
        XCTAssertEqual(byAge.allKeys, [3, 2, 1])
        XCTAssertEqual(byAge.count, 3)
        XCTAssertEqual(byAge[0].key, 3)
        XCTAssertEqual(Set(byAge[0].map(\.name)), ["Ace", "Abe"])
        XCTAssertEqual(byAge[1].map(\.name), ["Cat"])
        XCTAssertEqual(byAge.map(\.count), [2, 1, 2])

        let byLetter = realm.objects(Dog.self).sectioned(by: { String($0.name.prefix(1)) },
                                                         sortDescriptors: [SortDescriptor(keyPath: "name")])
        XCTAssertEqual(byLetter.allKeys, ["A", "B", "C"])
        XCTAssertEqual(byLetter[0].map(\.name), ["Abe", "Ace"])
        XCTAssertEqual(byLetter[path(1, 1)].name, "Bob")
        XCTAssertEqual(byLetter[1].id, "B")

        let sorted = realm.objects(Dog.self).sectioned(by: \.age, sortDescriptors: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")])
        XCTAssertEqual(sorted[2].map(\.name), ["Abe", "Ace"], "the second sort orders within a section")
    }

    func testSectionsAreLiveFrozenAndThawed() throws {
        let realm = try openRealm()
        try seed(realm)
        let sections = realm.objects(Dog.self).sectioned(by: \.age)
        let frozen = sections.freeze()
        try realm.write { realm.create(Dog.self, value: ["name": "Dot", "age": 9]) }
        XCTAssertEqual(sections.allKeys, [1, 2, 3, 9], "live sections follow the Realm")
        XCTAssertEqual(frozen.allKeys, [1, 2, 3], "frozen ones do not")
        XCTAssertTrue(frozen.isFrozen)
        let done = expectation(description: "read on another thread")
        let box = UncheckedSendable(value: frozen)
        Thread { XCTAssertEqual(box.value[2].count, 2); done.fulfill() }.start()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(frozen.thaw()?.allKeys, [1, 2, 3, 9])
        XCTAssertEqual(frozen[0].thaw()?.count, 2)
    }

    /// RealmSwift's sectioned results on primitives: a collection of values
    /// sorted by the values themselves, sectioned by a block, live and observed.
    func testCollectionsOfValuesAreSectioned() throws {
        let realm = try openRealm(allTestTypes + [EveryCollection.self])
        let owner = try realm.write {
            realm.create(EveryCollection.self, value: ["strings": ["pear", "apple", "plum", "avocado", "fig"], "intSet": [5, 12, 7, 30, 2]])
        }
        let byLetter = owner.strings.sectioned(by: { String($0.prefix(1)) })
        XCTAssertEqual(byLetter.allKeys, ["a", "f", "p"])
        XCTAssertEqual(byLetter.map { Array($0) }, [["apple", "avocado"], ["fig"], ["pear", "plum"]])
        XCTAssertEqual(byLetter[path(2, 1)], "plum")

        let descending = owner.strings.sectioned(by: { $0.count }, ascending: false)
        // plum, pear, fig, avocado, apple: sections in the order of their first value.
        XCTAssertEqual(descending.allKeys, [4, 3, 7, 5])
        XCTAssertEqual(descending.map { Array($0) }, [["plum", "pear"], ["fig"], ["avocado"], ["apple"]])

        let byTens = owner.intSet.sectioned(sortDescriptors: [SortDescriptor(keyPath: "self")]) { $0 / 10 }
        XCTAssertEqual(byTens.allKeys, [0, 1, 3])
        XCTAssertEqual(byTens.map { Array($0) }, [[2, 5, 7], [12], [30]])

        var changes: [SectionedResultsChange<SectionedResults<String, String>>] = []
        let token = byLetter.observe { changes.append($0) }
        defer { token.invalidate() }
        nextTurn()
        try realm.write { owner.strings.append(objectsIn: ["banana", "apricot"]) }
        nextTurn()
        XCTAssertEqual(byLetter.allKeys, ["a", "b", "f", "p"], "live")
        XCTAssertEqual(byLetter[0].map { $0 }, ["apple", "apricot", "avocado"])
        guard case .update(_, _, let insertions, _, let insertedSections, _)? = changes.last else { return XCTFail("no update") }
        XCTAssertEqual(insertedSections, IndexSet(integer: 1), "banana's section is new")
        XCTAssertEqual(insertions, [path(0, 1)], "apricot joins the first section")
        XCTAssertEqual(Array(byLetter.freeze()[1]), ["banana"])
    }

    func testObservedChangesBySectionAndRow() throws {
        let realm = try openRealm()
        try seed(realm)
        let sections = realm.objects(Dog.self).sectioned(by: \.age, sortDescriptors: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")])
        // Sections: 1 [Bea, Bob], 2 [Cat], 3 [Abe, Ace]
        var changes: [SectionedResultsChange<SectionedResults<Int, Dog>>] = []
        let token = sections.observe { changes.append($0) }
        defer { token.invalidate() }
        nextTurn()
        guard case .initial(let initial)? = changes.first else { return XCTFail("no initial call") }
        XCTAssertEqual(initial.allKeys, [1, 2, 3])

        func lastUpdate() -> (deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath], inserted: IndexSet, deleted: IndexSet)? {
            guard case .update(_, let d, let i, let m, let si, let sd)? = changes.last else { return nil }
            return (d, i, m, si, sd)
        }

        // A row joins an existing section.
        try realm.write { realm.create(Dog.self, value: ["name": "Bud", "age": 1]) }
        nextTurn()
        var update = try XCTUnwrap(lastUpdate())
        XCTAssertEqual(update.insertions, [path(0, 2)], "Bea, Bob, Bud")
        XCTAssertEqual(update.deletions, [])
        XCTAssertTrue(update.inserted.isEmpty && update.deleted.isEmpty)

        // A new key makes a new section; its row is not listed again.
        try realm.write { realm.create(Dog.self, value: ["name": "Max", "age": 7]) }
        nextTurn()
        update = try XCTUnwrap(lastUpdate())
        XCTAssertEqual(update.inserted, IndexSet(integer: 3))
        XCTAssertEqual(update.insertions, [])

        // A modification stays in its section.
        try realm.write { realm.objects(Dog.self).filter("name == 'Cat'").first!.name = "Cat" + "s" }
        nextTurn()
        update = try XCTUnwrap(lastUpdate())
        XCTAssertEqual(update.modifications, [path(1, 0)])

        // Deleting a section's last row deletes the section, not the row.
        try realm.write { realm.delete(realm.objects(Dog.self).filter("age == 2")) }
        nextTurn()
        update = try XCTUnwrap(lastUpdate())
        XCTAssertEqual(update.deleted, IndexSet(integer: 1))
        XCTAssertEqual(update.deletions, [])

        // A row moving between sections: deleted from one, inserted in the other.
        // Now: 1 [Bea, Bob, Bud], 3 [Abe, Ace], 7 [Max]
        try realm.write { realm.objects(Dog.self).filter("name == 'Bob'").first!.age = 3 }
        nextTurn()
        update = try XCTUnwrap(lastUpdate())
        XCTAssertEqual(update.deletions, [path(0, 1)])
        XCTAssertEqual(update.insertions, [path(1, 2)])
        XCTAssertEqual(sections.allKeys, [1, 3, 7])
        XCTAssertEqual(sections[1].map(\.name), ["Abe", "Ace", "Bob"])
    }

    @MainActor
    func testChangesAsAnAsyncSequence() async throws {
        let realm = try openRealm()
        try seed(realm)
        let sections = realm.objects(Dog.self).sectioned(by: \.age)
        var seen: [(keys: [Int], inserted: IndexSet)] = []
        for await change in sections.changes {
            switch change {
            case .initial(let initial):
                seen.append((initial.allKeys, []))
                try realm.write { realm.create(Dog.self, value: ["name": "Eve", "age": 5]) }
            case .update(let now, _, _, _, let inserted, _):
                seen.append((now.allKeys, inserted))
            }
            if seen.count == 2 { break }
        }
        XCTAssertEqual(seen.map(\.keys), [[1, 2, 3], [1, 2, 3, 5]])
        XCTAssertEqual(seen.last?.inserted, IndexSet(integer: 3))
    }

    func testASectionObservesItsOwnRows() throws {
        let realm = try openRealm()
        try seed(realm)
        let sections = realm.objects(Dog.self).sectioned(by: \.age, sortDescriptors: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")])
        let ones = sections[0] // age 1: [Bea, Bob]
        var log: [String] = []
        let token = ones.observe { change in
            switch change {
            case .initial(let section): log.append("initial \(section.count)")
            case .update(let section, let d, let i, let m, let si, let sd):
                log.append("update \(section.count) d\(d.map { $0[1] }) i\(i.map { $0[1] }) m\(m.map { $0[1] }) si\(Array(si)) sd\(Array(sd))")
            }
        }
        defer { token.invalidate() }
        nextTurn()
        try realm.write { realm.create(Dog.self, value: ["name": "Zed", "age": 3]) } // another section: no call
        nextTurn()
        try realm.write { realm.create(Dog.self, value: ["name": "Bud", "age": 1]) }
        nextTurn()
        try realm.write { realm.delete(realm.objects(Dog.self).filter("age == 1")) }
        nextTurn()
        XCTAssertEqual(log, ["initial 2", "update 3 d[] i[2] m[] si[] sd[]", "update 0 d[0, 1, 2] i[] m[] si[] sd[0]"])
    }

    func testListsSetsAndLinkingObjectsAreSectioned() throws {
        let realm = try openRealm()
        try seed(realm)
        let person = try realm.write {
            realm.create(Person.self, value: ["dogs": Array(realm.objects(Dog.self))])
        }
        let byAge = person.dogs.sectioned(by: \.age)
        XCTAssertEqual(byAge.allKeys, [1, 2, 3])
        XCTAssertEqual(Set(byAge[0].map(\.name)), ["Bob", "Bea"])
        let rex = realm.objects(Dog.self).first!
        XCTAssertEqual(rex.owners.sectioned(by: { _ in "all" }, sortDescriptors: ["name"]).map(\.count), [1])
        let any = AnyRealmCollection(person.dogs)
        XCTAssertEqual(any.sectioned(by: \.name, ascending: false).allKeys, ["Cat", "Bob", "Bea", "Ace", "Abe"])
        try realm.write { person.dogs.removeAll() }
        XCTAssertEqual(byAge.count, 0, "live: the list's sections follow it")
    }

    func testKeyPathFormsLimitModifications() throws {
        let realm = try openRealm()
        try seed(realm)
        let sections = realm.objects(Dog.self).sectioned(by: \.age, sortDescriptors: ["age", "name"])
        var log: [String] = [], sectionLog: [String] = []
        let token = sections.observe(keyPaths: [\Dog.age]) { change in
            if case .update(_, _, _, let m, _, _) = change { log.append("m\(m.map { [$0[0], $0[1]] })") }
        }
        let sectionToken = sections[0].observe(keyPaths: [\Dog.name]) { change in
            if case .update(_, _, _, let m, _, _) = change { sectionLog.append("m\(m.map { $0[1] })") }
        }
        defer { token.invalidate(); sectionToken.invalidate() }
        nextTurn()
        // Bea (section 0, row 0): a name change is reported to the section
        // observer only, an age change moves her and counts for both.
        try realm.write { realm.objects(Dog.self).filter("name == 'Bea'").first!.name = "Bea2" }
        nextTurn()
        try realm.write { realm.objects(Dog.self).filter("name == 'Bob'").first!.age = 1 }
        nextTurn()
        XCTAssertEqual(log, [], "age written to its own value and a name change are not age modifications")
        XCTAssertEqual(sectionLog, ["m[0]"])
    }

    @MainActor
    func testASectionObservedOnAnActor() async throws {
        let realm = try openRealm()
        try seed(realm)
        let ones = realm.objects(Dog.self).sectioned(by: \.age, sortDescriptors: ["age", "name"])[0]
        let watcher = Watcher()
        let initial = expectation(description: "initial"), update = expectation(description: "update")
        let token = await ones.observe(on: watcher) { watcher, change in
            watcher.assertIsolated()
            switch change {
            case .initial(let section):
                watcher.note("initial \(section.map(\.name))")
                initial.fulfill()
            case .update(let section, _, let insertions, _, _, _):
                watcher.note("update \(section.map(\.name)) i\(insertions.map { $0[1] })")
                update.fulfill()
            }
        }
        await fulfillment(of: [initial], timeout: 10)
        try realm.write { realm.create(Dog.self, value: ["name": "Bud", "age": 1]) }
        await fulfillment(of: [update], timeout: 10)
        let entries = await watcher.entries
        XCTAssertEqual(entries, ["initial [\"Bea\", \"Bob\"]", "update [\"Bea\", \"Bob\", \"Bud\"] i[2]"])
        token.invalidate()
    }
}
