import CStorage
import Foundation
import XCTest
@testable import RealmLite

// Classes with a required Int primary key are keyed by it: the object key is
// the primary key (no `pk:` tree, no copy of the key in the record; see
// docs/OBJECTS.md). Everything a primary key does must work the same, and an
// accessor of a deleted object must stay invalid when its key is reused
// (ObjectLifetime.swift).

final class Ledger: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var balance = 0.0
}

final class KeyedClassTests: RealmTestCase {
    private let types: [ObjectBase.Type] = [Ledger.self, StringKeyed.self, OptionalIntKeyed.self]
    private let ids = [Int.min, -300, -1, 0, 1, 2, 255, 256, 1 << 40, Int.max]

    private func fill(_ realm: Realm) throws {
        try realm.write {
            for id in ids.shuffled() { realm.create(Ledger.self, value: ["id": id, "name": "a\(id)", "balance": Double(id % 7)]) }
        }
    }

    func testOnlyRequiredIntKeysKeyTheClass() throws {
        let realm = try openRealm(types)
        let account = try realm.core.classInfo(for: Ledger.self)
        XCTAssertTrue(account.keyedByPrimaryKey)
        XCTAssertEqual(account.primaryKeyTree, absentTree)
        XCTAssertFalse(account.storageOrder.contains(account.primaryKeyColumn!), "the record omits the key")
        XCTAssertNotEqual(account.deletedTree, absentTree)
        for type in [StringKeyed.self, OptionalIntKeyed.self] as [ObjectBase.Type] {
            let info = try realm.core.classInfo(for: type)
            XCTAssertFalse(info.keyedByPrimaryKey, "\(type)")
            XCTAssertNotEqual(info.primaryKeyTree, absentTree, "\(type)")
        }
        XCTAssertEqual(realm.core.schemaState.stored?.class(named: "Ledger")?.keyedByPrimaryKey, true)
    }

    func testKeyOrderLookupsAndQueries() throws {
        try withRealm(types) { realm in try fill(realm) }
        try withRealm(types) { realm in // after a reopen: the flag and the keys come from the file
            let all = realm.objects(Ledger.self)
            XCTAssertEqual(all.map(\.id), ids, "objects are in primary-key order")
            XCTAssertEqual(all.map(\.name), ids.map { "a\($0)" })
            for id in ids {
                let account = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: id))
                XCTAssertEqual(account.id, id)
                XCTAssertEqual(account["id"] as? Int, id)
                XCTAssertEqual(realm.object(ofType: Ledger.self, forPrimaryKey: Int64(id))?.name, "a\(id)")
            }
            XCTAssertNil(realm.object(ofType: Ledger.self, forPrimaryKey: 3))
            XCTAssertNil(realm.object(ofType: Ledger.self, forPrimaryKey: Int.min + 1))
            XCTAssertEqual(all.filter("id == 256").map(\.name), ["a256"])
            XCTAssertEqual(all.filter("id IN {-1, 2, 3}").map(\.id), [-1, 2])
            let range = all.filter("id > 1 AND id < 1000")
            XCTAssertEqual(range.map(\.id), [2, 255, 256])
            guard case .query(let plan) = range.source else { return XCTFail("not a query") }
            XCTAssertEqual(plan.compiled?.probe?.objectKeys, true, "a range of object keys, not a scan")
            XCTAssertEqual(all.filter("id <= -1").map(\.id), [Int.min, -300, -1])
            XCTAssertEqual(all.filter("id >= %@", Int.max).map(\.id), [Int.max])
            XCTAssertEqual(all.filter("id BETWEEN {-300, 0}").count, 3)
            XCTAssertEqual(all.filter("id != 0 AND balance >= 0").count, ids.filter { $0 != 0 && $0 % 7 >= 0 }.count)
            XCTAssertEqual(all.where { $0.id < 0 }.count, 3)
            XCTAssertEqual(all.sorted(byKeyPath: "id", ascending: false).map(\.id), ids.reversed())
            XCTAssertEqual(all.max(ofProperty: "id") as Int?, Int.max)
            XCTAssertEqual(all.min(ofProperty: "id") as Int?, Int.min)
        }
    }

    func testPrimaryKeyRulesHold() throws {
        let realm = try openRealm(types)
        try fill(realm)
        XCTAssertThrowsRealmError(.primaryKeyExists, mentioning: ["Ledger", "256"]) {
            try realm.write { realm.add(Ledger(value: ["id": 256, "name": "again"])) }
        }
        try realm.write { realm.add(Ledger(value: ["id": 256, "name": "updated", "balance": 9.5]), update: .modified) }
        XCTAssertEqual(realm.object(ofType: Ledger.self, forPrimaryKey: 256)?.name, "updated")
        XCTAssertEqual(realm.objects(Ledger.self).count, ids.count)
        let account = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: 1))
        XCTAssertThrowsRealmError(.primaryKeyChange, mentioning: ["Ledger.id"]) {
            try realm.write { account.id = 5 }
        }
        try realm.write { account.id = 1 } // the same value: allowed, changes nothing
        XCTAssertEqual(account.id, 1)
    }

    func testAccessorOfADeletedKeyStaysInvalidWhenTheKeyIsReused() throws {
        let realm = try openRealm(types)
        try fill(realm)
        let old = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: 2))
        let other = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: 2))

        // Deleted through another accessor, re-added in the same write.
        try realm.write {
            realm.delete(other)
            realm.create(Ledger.self, value: ["id": 2, "name": "second"])
            let fresh = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: 2))
            XCTAssertEqual(fresh.name, "second", "an accessor made after the re-add sees the new object")
        }
        XCTAssertTrue(other.isInvalidated)
        XCTAssertTrue(old.isInvalidated, "the old accessor must not show the new object")
        let second = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: 2))
        XCTAssertFalse(second.isInvalidated)
        XCTAssertEqual(second.name, "second")

        // Deleted in one write, re-added in the next.
        try realm.write { realm.delete(realm.objects(Ledger.self).filter("id == 2")) }
        try realm.write { realm.create(Ledger.self, value: ["id": 2, "name": "third"]) }
        XCTAssertTrue(second.isInvalidated)
        XCTAssertEqual(realm.object(ofType: Ledger.self, forPrimaryKey: 2)?.name, "third")

        // Every object deleted at once (the class's trees are cleared), then re-added.
        let third = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: 2))
        let kept = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: 1))
        try realm.write {
            realm.delete(realm.objects(Ledger.self))
            realm.create(Ledger.self, value: ["id": 2, "name": "fourth"])
        }
        XCTAssertTrue(third.isInvalidated)
        XCTAssertTrue(kept.isInvalidated)
        XCTAssertEqual(realm.objects(Ledger.self).map(\.name), ["fourth"])
        XCTAssertThrowsRealmError(.invalidatedObject) { try realm.write { realm.add(third) } }

        // Not deleted: accessors stay valid across writes that delete other keys.
        let fourth = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: 2))
        try realm.write {
            realm.create(Ledger.self, value: ["id": 7, "name": "x"])
            realm.delete(realm.objects(Ledger.self).filter("id == 7"))
        }
        XCTAssertFalse(fourth.isInvalidated)
        XCTAssertEqual(fourth.name, "fourth")
    }

    func testAnotherThreadsAccessorIsInvalidatedByADeleteAndReAdd() throws {
        let realm = try openRealm(types)
        try fill(realm)
        let configuration = configuration(types)
        let ready = DispatchSemaphore(value: 0), changed = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            do {
                let mine = try Realm(configuration: configuration)
                let account = mine.object(ofType: Ledger.self, forPrimaryKey: 255)!
                XCTAssertEqual(account.name, "a255")
                ready.signal()
                changed.wait()
                mine.refresh()
                XCTAssertTrue(account.isInvalidated, "deleted and re-added by the other thread")
                XCTAssertEqual(mine.object(ofType: Ledger.self, forPrimaryKey: 255)?.name, "new")
            } catch {
                XCTFail("\(error)")
            }
        }.start()
        ready.wait()
        try realm.write { realm.delete(realm.object(ofType: Ledger.self, forPrimaryKey: 255)!) }
        try realm.write { realm.create(Ledger.self, value: ["id": 255, "name": "new"]) }
        changed.signal()
        done.wait()
    }

    /// An accessor made inside a write that was then cancelled: the next
    /// write reuses the transaction id (here from another Realm, whose
    /// delete count starts again at 0), and its delete must still count as
    /// later than the accessor.
    func testAccessorFromACancelledWriteSeesALaterDelete() throws {
        let realm = try openRealm(types)
        try fill(realm)
        realm.beginWrite()
        for id in [0, 1, 255, 256] { realm.delete(realm.object(ofType: Ledger.self, forPrimaryKey: id)!) }
        let made = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: 2))
        realm.cancelWrite()
        XCTAssertFalse(made.isInvalidated)
        let configuration = configuration(types)
        onOtherThread {
            let other = try Realm(configuration: configuration)
            try other.write {
                other.delete(other.object(ofType: Ledger.self, forPrimaryKey: 2)!)
                other.create(Ledger.self, value: ["id": 2, "name": "other"])
            }
        }
        realm.refresh()
        XCTAssertEqual(realm.object(ofType: Ledger.self, forPrimaryKey: 2)?.name, "other")
        XCTAssertTrue(made.isInvalidated, "deleted after the accessor was made, in a write that reused the cancelled write's id")
    }

    func testNotificationsAndThawSeeADeleteAndReAddAsAnotherObject() throws {
        let realm = try openRealm(types)
        try fill(realm)
        let all = realm.objects(Ledger.self)
        let index = try XCTUnwrap(ids.firstIndex(of: 2))
        var updates: [(deletions: [Int], insertions: [Int], modifications: [Int])] = []
        let token = all.observe { change in
            if case .update(_, let deletions, let insertions, let modifications) = change {
                updates.append((deletions, insertions, modifications))
            }
        }
        let observed = try XCTUnwrap(realm.object(ofType: Ledger.self, forPrimaryKey: 2))
        var objectEvents: [String] = []
        let objectToken = observed.observe { change in
            switch change {
            case .change: objectEvents.append("change")
            case .deleted: objectEvents.append("deleted")
            case .error: objectEvents.append("error")
            }
        }
        let frozen = observed.freeze()
        nextTurn()

        try realm.write {
            realm.delete(realm.objects(Ledger.self).filter("id == 2"))
            realm.create(Ledger.self, value: ["id": 2, "name": "again"])
            realm.object(ofType: Ledger.self, forPrimaryKey: 1)!.name = "renamed"
        }
        nextTurn()
        XCTAssertEqual(updates.count, 1)
        XCTAssertEqual(updates.last?.deletions, [index])
        XCTAssertEqual(updates.last?.insertions, [index])
        XCTAssertEqual(updates.last?.modifications, [index - 1], "id 1 is just before id 2")
        XCTAssertEqual(objectEvents, ["deleted"])
        XCTAssertNil(frozen.thaw(), "the frozen object's row is gone, whatever holds its key now")

        // Every object deleted, two added again: all old rows deleted, two inserted.
        try realm.write {
            realm.delete(realm.objects(Ledger.self))
            realm.create(Ledger.self, value: ["id": 0, "name": "zero"])
            realm.create(Ledger.self, value: ["id": 1, "name": "one"])
        }
        nextTurn()
        XCTAssertEqual(updates.last?.deletions, Array(ids.indices))
        XCTAssertEqual(updates.last?.insertions, [0, 1])
        XCTAssertEqual(updates.last?.modifications, [])

        // An ordinary change of a kept object is still a modification.
        try realm.write { realm.object(ofType: Ledger.self, forPrimaryKey: 1)!.balance = 3 }
        nextTurn()
        XCTAssertEqual(updates.last?.deletions, [])
        XCTAssertEqual(updates.last?.insertions, [])
        XCTAssertEqual(updates.last?.modifications, [1])
        token.invalidate()
        objectToken.invalidate()
    }

    /// A file whose stored schema predates keyed classes (no flag): its
    /// Int-keyed class keeps the `pk:` tree and the key in the record.
    func testFilesWithoutTheFlagKeepThePrimaryKeyTree() throws {
        try withRealm(types) { _ in }
        try rewriteStoredSchema { txn, schema in
            var pk: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, TreeName.primaryKey("Ledger"), UInt32(CS_CREATE), &pk), 0)
            let index = try XCTUnwrap(schema.classes.firstIndex { $0.name == "Ledger" })
            schema.classes[index].keyedByPrimaryKey = nil
        }

        try withRealm(types) { realm in
            let info = try realm.core.classInfo(for: Ledger.self)
            XCTAssertFalse(info.keyedByPrimaryKey)
            XCTAssertNotEqual(info.primaryKeyTree, absentTree)
            XCTAssertTrue(info.storageOrder.contains(info.primaryKeyColumn!))
            try fill(realm)
            XCTAssertThrowsRealmError(.primaryKeyExists) { try realm.write { _ = realm.create(Ledger.self, value: ["id": 0]) } }
            try realm.write { realm.delete(realm.objects(Ledger.self).filter("id == 2")) }
            var count: UInt64 = 0
            XCTAssertEqual(cs_count(realm.core.txn.handle, info.primaryKeyTree, &count), 0)
            XCTAssertEqual(count, UInt64(ids.count - 1))
        }
        try withRealm(types) { realm in
            XCTAssertEqual(Set(realm.objects(Ledger.self).map(\.id)), Set(ids.filter { $0 != 2 }))
            for id in ids where id != 2 {
                XCTAssertEqual(realm.object(ofType: Ledger.self, forPrimaryKey: id)?.name, "a\(id)")
            }
            XCTAssertNil(realm.object(ofType: Ledger.self, forPrimaryKey: 2))
            XCTAssertEqual(realm.objects(Ledger.self).filter("id IN {-1, 2, 256}").count, 2)
        }
    }

    /// A file of a newer object format is refused, not misread.
    func testANewerObjectFormatIsRefused() throws {
        try withRealm(types) { realm in
            XCTAssertEqual(realm.core.schemaState.stored?.format, StoredSchema.currentFormat)
        }
        try rewriteStoredSchema { _, schema in schema.format = StoredSchema.currentFormat + 1 }
        XCTAssertThrowsRealmError(.fileFormatUpgradeRequired, mentioning: ["newer version"]) { _ = try openRealm(types) }
    }

    /// Rewrites the file's stored schema through the engine (the file closed).
    private func rewriteStoredSchema(_ change: (OpaquePointer?, inout StoredSchema) throws -> Void) throws {
        var env: OpaquePointer?
        XCTAssertEqual(cs_env_open(fileURL.path, nil, &env), 0)
        var txn: OpaquePointer?
        XCTAssertEqual(cs_txn_begin(env, 0, &txn), 0)
        var meta: cs_tree = 0
        XCTAssertEqual(cs_tree_open(txn, TreeName.meta, 0, &meta), 0)
        var value = cs_val()
        XCTAssertEqual(withBytesKey(Array(MetaKey.schema.utf8)) { cs_get(txn, meta, $0, &value) }, 0)
        var schema = try StoredSchema.decode(bytes(of: value))
        try change(txn, &schema)
        let json = schema.encoded()
        XCTAssertEqual(withBytesKey(Array(MetaKey.schema.utf8)) { key in
            json.withUnsafeBytes { cs_put(txn, meta, key, cs_val(data: $0.baseAddress, size: $0.count), 0) }
        }, 0)
        XCTAssertEqual(cs_txn_commit(txn), 0)
        XCTAssertEqual(cs_env_close(env), 0)
    }
}
