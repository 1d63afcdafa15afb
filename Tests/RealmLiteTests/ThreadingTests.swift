import CStorage
import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import RealmLite

// The threading model (docs/THREADING.md): instances per context,
// confinement, versions (refresh, autorefresh, invalidate, freeze, pinning),
// ThreadSafeReference, async writes.

final class Account: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var balance = 0
}

/// An actor owning a Realm isolated to it.
actor AccountStore {
    private var realm: Realm?

    func open(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func deposit(_ id: Int, _ amount: Int) async throws {
        guard let realm else { return }
        try await realm.asyncWrite {
            let account = realm.object(ofType: Account.self, forPrimaryKey: id) ?? realm.create(Account.self, value: ["id": id])
            account.balance += amount
        }
    }

    func total() -> Int {
        realm?.objects(Account.self).sum(ofProperty: "balance") ?? 0
    }

    /// Hands the Realm out unchecked, to show that it refuses use elsewhere.
    func leakedRealm() -> UncheckedBox<Realm?> { UncheckedBox(value: realm) }
}

final class ThreadingTests: RealmTestCase {
    var accountConfiguration: Realm.Configuration { configuration([Account.self]) }

    func openAccounts() throws -> Realm { try Realm(configuration: accountConfiguration) }

    func seedAccounts(_ realm: Realm, count: Int = 20, balance: Int = 100) throws {
        try Self.seed(realm, count: count, balance: balance)
    }

    static func seed(_ realm: Realm, count: Int = 20, balance: Int = 100, from first: Int = 0) throws {
        try realm.write {
            for id in first..<(first + count) { realm.create(Account.self, value: ["id": id, "balance": balance]) }
        }
    }

    func total(_ results: Results<Account>) -> Int { results.reduce(0) { $0 + $1.balance } }

    // MARK: Instances and confinement

    func testEachThreadHasItsOwnInstance() throws {
        let main = try openAccounts()
        let mainIdentity = ObjectIdentifier(main.core)
        let config = accountConfiguration
        let seen = UncheckedBox(value: NSMutableArray())
        onOtherThread {
            let a = try Realm(configuration: config)
            let b = try Realm(configuration: config)
            XCTAssertEqual(a, b)
            seen.value.add(ObjectIdentifier(a.core) == mainIdentity)
        }
        XCTAssertEqual(seen.value.firstObject as? Bool, false, "another thread gets another instance")
        XCTAssertEqual(main, try openAccounts())
    }

    func testThrowingAPIsThrowOnAnotherThread() throws {
        let realm = try openAccounts()
        try seedAccounts(realm, count: 1)
        let box = UncheckedBox(value: realm)
        onOtherThread {
            let realm = box.value
            expectRealmError(.incorrectThread, mentioning: ["Realm accessed from incorrect thread."]) {
                try realm.write {}
            }
            expectRealmError(.incorrectThread) { try realm.commitWrite() }
            expectRealmError(.incorrectThread) { try realm.cancelAsyncWrite(1) }
        }
        XCTAssertEqual(realm.objects(Account.self).count, 1, "still usable on its own thread")
    }

    func testFrozenValuesAreUsableAnywhere() throws {
        let realm = try openAccounts()
        try seedAccounts(realm)
        let frozen = UncheckedBox(value: (realm.freeze(), realm.objects(Account.self).freeze(),
                                          realm.objects(Account.self).first!.freeze()))
        XCTAssertTrue(frozen.value.0.isFrozen && frozen.value.1.isFrozen && frozen.value.2.isFrozen)
        onOtherThread {
            let (frozenRealm, results, first) = frozen.value
            XCTAssertEqual(frozenRealm.objects(Account.self).count, 20)
            XCTAssertEqual(results.filter("balance == 100").count, 20)
            XCTAssertEqual(first.balance, 100)
            XCTAssertTrue(first.realm!.isFrozen)
        }
    }

    func testFrozenQueryResultsSharedByThreads() throws {
        let realm = try openAccounts()
        try seedAccounts(realm, count: 200)
        try realm.write { for account in realm.objects(Account.self) where account.id % 2 == 0 { account.balance = 5 } }
        let shared = UncheckedBox(value: realm.objects(Account.self).filter("balance < 50").sorted(byKeyPath: "id").freeze())
        let group = DispatchGroup()
        let mismatches = ManagedCounter()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<50 {
                    let results = shared.value
                    if results.count != 100 || results.first?.id != 0 || results.map(\.id).last != 198 { mismatches.increment() }
                }
            }
        }
        try realm.write { realm.deleteAll() } // the live Realm moves on meanwhile
        group.wait()
        XCTAssertEqual(mismatches.value, 0)
    }

    func testFreezeAndThawEveryCollectionKind() throws {
        let realm = try openRealm()
        let owner = Owner(value: ["id": 1, "name": "Olga"])
        let pet = Pet(value: ["name": "Rex"])
        try realm.write {
            realm.add(owner)
            owner.pets.append(pet)
            owner.petSet.insert(pet)
            owner.petMap["rex"] = pet
        }
        let pets = owner.pets.freeze(), set = owner.petSet.freeze(), map = owner.petMap.freeze()
        let listedBy = pet.listedBy.freeze()
        XCTAssertTrue(pets.isFrozen && set.isFrozen && map.isFrozen && listedBy.isFrozen)
        XCTAssertFalse(owner.pets.isFrozen)
        try realm.write { owner.pets.removeAll(); owner.petSet.removeAll(); owner.petMap.removeAll() }
        // Frozen: the version they were frozen at, from any thread.
        let frozen = UncheckedBox(value: (pets, set, map, listedBy))
        onOtherThread {
            let (pets, set, map, listedBy) = frozen.value
            XCTAssertEqual(pets.map(\.name), ["Rex"])
            XCTAssertEqual(set.count, 1)
            XCTAssertEqual(map["rex"]??.name, "Rex")
            XCTAssertEqual(listedBy.map(\.name), ["Olga"])
        }
        // Thawed: the live collections of the current version.
        XCTAssertEqual(pets.thaw()?.count, 0)
        XCTAssertEqual(set.thaw()?.count, 0)
        XCTAssertEqual(map.thaw()?.count, 0)
        XCTAssertEqual(listedBy.thaw()?.count, 0)
        XCTAssertFalse(pets.thaw()!.isFrozen)
        // Thawing after the owner was deleted gives nil.
        try realm.write { realm.delete(owner) }
        XCTAssertNil(pets.thaw())
        XCTAssertNil(map.thaw())
    }

    func testWriteWaitsForTheWriterOnAnotherThread() throws {
        let realm = try openAccounts()
        try seedAccounts(realm, count: 1, balance: 0)
        let config = accountConfiguration
        let inWrite = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: config)
            other.beginWrite()
            other.objects(Account.self).first!.balance = 1
            inWrite.signal()
            release.wait()
            try! other.commitWrite()
            done.signal()
        }.start()
        inWrite.wait()
        // Readers never wait: this thread reads while the other writes.
        XCTAssertEqual(realm.objects(Account.self).first!.balance, 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { release.signal() }
        try realm.write {
            // Begun only after the other writer committed: its change is here.
            XCTAssertEqual(realm.objects(Account.self).first!.balance, 1)
            realm.objects(Account.self).first!.balance += 1
        }
        done.wait()
        XCTAssertEqual(realm.objects(Account.self).first!.balance, 2)
    }

    // MARK: Serial queues and actors

    func testSerialQueueRealm() throws {
        let config = accountConfiguration
        let queue = DispatchQueue(label: "realm-queue")
        let leaked = UncheckedBox(value: NSMutableArray())
        let done = expectation(description: "queue work")
        queue.async {
            do {
                let realm = try Realm(configuration: config, queue: queue)
                try realm.write { realm.create(Account.self, value: ["id": 1, "balance": 5]) }
                leaked.value.add(UncheckedBox(value: realm))
                let box = UncheckedBox(value: realm)
                queue.async {
                    let realm = box.value
                    // A later block (maybe on another thread) uses the same Realm.
                    let same = try! Realm(configuration: config, queue: queue)
                    XCTAssertEqual(same, realm)
                    XCTAssertEqual(realm.objects(Account.self).first?.balance, 5)
                    done.fulfill()
                }
            } catch {
                XCTFail("\(error)")
            }
        }
        wait(for: [done], timeout: 10)
        let realm = (leaked.value.firstObject as! UncheckedBox<Realm>).value
        XCTAssertThrowsRealmError(.incorrectThread) { try realm.write {} }
        XCTAssertThrowsRealmError(.incorrectThread, mentioning: ["must be called from a block running on that queue"]) {
            _ = try Realm(configuration: config, queue: DispatchQueue(label: "other"))
        }
    }

    func testActorIsolatedRealm() async throws {
        let store = AccountStore()
        try await store.open(accountConfiguration)
        for i in 0..<10 { try await store.deposit(i % 3, 10) }
        let total = await store.total()
        XCTAssertEqual(total, 100)
        let leaked = await store.leakedRealm().value!
        XCTAssertThrowsRealmError(.incorrectThread) { try leaked.write {} }
        // Committed durably and visible to other Realms on the file.
        let config = accountConfiguration
        let box = UncheckedBox(value: NSMutableArray())
        onOtherThread { box.value.add(try Realm(configuration: config).objects(Account.self).count) }
        XCTAssertEqual(box.value.firstObject as? Int, 3)
    }

    @MainActor
    func testMainActorRealmAsyncWrite() async throws {
        let realm = try await Realm(configuration: accountConfiguration)
        let result = try await realm.asyncWrite {
            realm.create(Account.self, value: ["id": 7, "balance": 70]).balance
        }
        XCTAssertEqual(result, 70)
        XCTAssertEqual(realm.object(ofType: Account.self, forPrimaryKey: 7)?.balance, 70)
        let again = try await Realm(configuration: accountConfiguration)
        XCTAssertEqual(realm, again, "the main actor is the main thread")
    }

    // MARK: Versions

    func testAutorefreshOnTheMainThread() throws {
        let realm = try openAccounts()
        let accounts = realm.objects(Account.self)
        XCTAssertEqual(accounts.count, 0)
        let config = accountConfiguration
        onOtherThread { try ThreadingTests.seed(try Realm(configuration: config), count: 3) }
        XCTAssertEqual(accounts.count, 0, "the same turn still reads its version")
        spinMainQueue()
        XCTAssertEqual(accounts.count, 3, "advanced at the start of the next turn")

        realm.autorefresh = false
        onOtherThread { try ThreadingTests.seed(try Realm(configuration: config), count: 2, from: 3) }
        spinMainQueue()
        XCTAssertEqual(accounts.count, 3, "autorefresh off: stays until refresh()")
        XCTAssertTrue(realm.refresh())
        XCTAssertEqual(accounts.count, 5)
    }

    func testAutorefreshOnASerialQueue() throws {
        let config = accountConfiguration
        let queue = DispatchQueue(label: "autorefresh-queue")
        let state = UncheckedBox(value: NSMutableArray()) // [Results<Account>, counts...]
        let opened = DispatchSemaphore(value: 0)
        queue.async {
            let accounts = try! Realm(configuration: config, queue: queue).objects(Account.self)
            state.value.add(UncheckedBox(value: accounts))
            state.value.add(accounts.count)
            opened.signal()
        }
        opened.wait()
        onOtherThread { try ThreadingTests.seed(try Realm(configuration: config), count: 4) }
        // The next block on the queue starts a new turn: the same Results
        // (its Realm kept alive by it) has advanced without refresh().
        let checked = DispatchSemaphore(value: 0)
        queue.async {
            let accounts = (state.value[0] as! UncheckedBox<Results<Account>>).value
            state.value.add(accounts.count)
            state.value.removeObject(at: 0)
            checked.signal()
        }
        checked.wait()
        XCTAssertEqual(state.value as? [Int], [0, 4])
    }

    func spinMainQueue() {
        let turn = expectation(description: "next turn")
        DispatchQueue.main.async { turn.fulfill() }
        wait(for: [turn], timeout: 10)
    }

    func testInvalidateReleasesTheVersion() throws {
        let realm = try openAccounts()
        try seedAccounts(realm, count: 2)
        let account = realm.objects(Account.self).first!
        var pinned: UInt32 = 0
        cs_env_active_versions(realm.core.env.handle, &pinned)
        XCTAssertEqual(pinned, 1)
        realm.invalidate()
        cs_env_active_versions(realm.core.env.handle, &pinned)
        XCTAssertEqual(pinned, 0, "no snapshot held after invalidate()")
        XCTAssertTrue(account.isInvalidated, "objects read before invalidate() are invalidated, as in RealmSwift")
        XCTAssertEqual(realm.objects(Account.self).first?.balance, 100, "the next read takes the newest version")
        XCTAssertEqual(realm.objects(Account.self).count, 2)
    }

    /// Pages a frozen object's version uses stay allocated while it lives;
    /// once released, overwrites reuse pages and the file stops growing.
    func testFrozenVersionPinnedUntilReleased() throws {
        let realm = try openAccounts()
        try seedAccounts(realm, count: 400)
        func usedPages() -> UInt64 {
            var info = cs_env_info()
            cs_env_get_info(realm.core.env.handle, &info)
            return info.next_pgno
        }
        func overwriteAll(_ rounds: Int) throws {
            for _ in 0..<rounds {
                try realm.write { for account in realm.objects(Account.self) { account.balance += 1 } }
                // Small commits are logged, their pages kept in memory: the
                // fold writes them into the file, as a big write would.
                XCTAssertEqual(cs_env_sync(realm.core.env.handle), 0)
            }
        }
        var frozen: Account? = realm.objects(Account.self).first!.freeze()
        try overwriteAll(3)
        let pinnedStart = usedPages()
        try overwriteAll(10)
        XCTAssertGreaterThan(usedPages(), pinnedStart, "a pinned version keeps its pages")
        XCTAssertEqual(frozen?.balance, 100, "and reads them unchanged")
        frozen = nil
        try overwriteAll(3)
        let released = usedPages()
        try overwriteAll(10)
        XCTAssertEqual(usedPages(), released, "released: the file stops growing")
    }

    func testMaximumNumberOfActiveVersions() throws {
        var config = accountConfiguration
        config.maximumNumberOfActiveVersions = 2
        let realm = try Realm(configuration: config)
        try seedAccounts(realm, count: 1)
        var first: Realm? = realm.freeze()
        try realm.write { realm.objects(Account.self).first!.balance = 1 }
        let second = realm.freeze()
        XCTAssertThrowsRealmError(.tooManyActiveVersions, mentioning: ["exceeded the limit of 2"]) {
            try realm.write { realm.objects(Account.self).first!.balance = 2 }
        }
        XCTAssertEqual(realm.objects(Account.self).first!.balance, 1, "the failed write was cancelled")
        XCTAssertNotNil(first)
        first = nil
        try realm.write { realm.objects(Account.self).first!.balance = 2 }
        XCTAssertEqual(second.objects(Account.self).first!.balance, 1)
    }

    // MARK: ThreadSafeReference

    func testThreadSafeReferenceResolvesOnceAndPinsUntilThen() throws {
        let realm = try openAccounts()
        try seedAccounts(realm, count: 3)
        let reference = ThreadSafeReference(to: realm.objects(Account.self).first!)
        var pinned: UInt32 = 0
        realm.invalidate()
        cs_env_active_versions(realm.core.env.handle, &pinned)
        XCTAssertEqual(pinned, 1, "the unresolved reference pins its version")
        let config = accountConfiguration
        onOtherThread {
            let other = try Realm(configuration: config)
            XCTAssertEqual(other.resolve(reference)?.id, 0)
            XCTAssertTrue(reference.isInvalidated)
            expectRealmError(.referenceAlreadyResolved) { _ = try other.checkedResolve(reference) }
        }
        cs_env_active_versions(realm.core.env.handle, &pinned)
        XCTAssertEqual(pinned, 0, "resolved: the pin is gone")
    }

    func testReferenceToADeletedObjectResolvesToNil() throws {
        let realm = try openAccounts()
        try seedAccounts(realm, count: 1)
        let account = realm.objects(Account.self).first!
        let reference = ThreadSafeReference(to: account)
        try realm.write { realm.delete(account) }
        let config = accountConfiguration
        onOtherThread { XCTAssertNil(try Realm(configuration: config).resolve(reference)) }
    }

    func testReferenceToResultsRerunsTheQuery() throws {
        let realm = try openAccounts()
        try seedAccounts(realm, count: 10)
        let rich = realm.objects(Account.self).filter("balance >= 100").sorted(byKeyPath: "id")
        let reference = ThreadSafeReference(to: rich)
        try realm.write { realm.objects(Account.self).filter("id < 4").forEach { $0.balance = 0 } }
        let config = accountConfiguration
        onOtherThread {
            let resolved = try Realm(configuration: config).resolve(reference)!
            XCTAssertEqual(resolved.map(\.id), Array(4..<10), "evaluated at the resolving Realm's version")
        }
    }

    // Resolving in a Realm older than the reference advances it first
    // (RealmSwift refreshes the resolving Realm when the reference is newer):
    // the reference's object must be found, and everything committed up to
    // its version is visible.

    /// Commits on another thread while `realm` (autorefresh off) holds its
    /// version, and returns a reference made there after the commit.
    private func referenceFromNewerVersion<T: ThreadConfined & SendableMetatype>(
        _ configuration: Realm.Configuration, _ commit: @escaping @Sendable (Realm) throws -> T
    ) -> ThreadSafeReference<T>? {
        onOtherThread(returning: {
            let other = try Realm(configuration: configuration)
            var confined: T?
            try other.write { confined = try commit(other) }
            return ThreadSafeReference(to: confined!)
        })
    }

    func testResolveInAStaleRealmAdvancesItToTheReference() throws {
        let realm = try openAccounts()
        realm.autorefresh = false
        try seedAccounts(realm, count: 1) // account 0, balance 100
        let staleVersion = realm.core.version
        guard let reference = referenceFromNewerVersion(accountConfiguration, { other in
            other.objects(Account.self).first!.balance = 5
            other.create(Account.self, value: ["id": 2, "balance": 8])
            return other.create(Account.self, value: ["id": 1, "balance": 7])
        }) else { return }
        XCTAssertEqual(realm.objects(Account.self).count, 1, "precondition: the Realm still reads its old version")
        XCTAssertEqual(realm.core.version, staleVersion)

        let account = realm.resolve(reference)
        XCTAssertNotNil(account, "an object created after the resolving Realm's version resolves (the Realm advances)")
        XCTAssertEqual(account?.id, 1)
        XCTAssertEqual(account?.balance, 7)
        XCTAssertFalse(account?.isFrozen ?? true, "the resolved object is live")
        XCTAssertGreaterThan(realm.core.version, staleVersion, "the resolving Realm advanced")
        XCTAssertEqual(realm.objects(Account.self).sorted(byKeyPath: "id").map(\.balance), [5, 7, 8],
                       "what was committed with the object is visible too")
    }

    func testResolveOfAnUpdatedObjectInAStaleRealmReadsTheReferencesValues() throws {
        let realm = try openAccounts()
        realm.autorefresh = false
        try seedAccounts(realm, count: 1)
        let stale = realm.objects(Account.self).first!
        XCTAssertEqual(stale.balance, 100)
        guard let reference = referenceFromNewerVersion(accountConfiguration, { other in
            let account = other.objects(Account.self).first!
            account.balance = 42
            return account
        }) else { return }
        XCTAssertEqual(stale.balance, 100, "precondition: the Realm still reads its old version")
        XCTAssertEqual(realm.resolve(reference)?.balance, 42, "resolved at (at least) the reference's version")
        XCTAssertEqual(stale.balance, 42, "the Realm's other objects advanced with it")
    }

    func testResolveInAQueueRealmThatHasNotRefreshedYet() throws {
        // Autorefresh on, but the queue is busy: its refresh has not run when
        // the reference arrives.
        let config = accountConfiguration
        let queue = DispatchQueue(label: "stale-queue")
        let outcome = Handoff<[Int]>()
        let done = DispatchSemaphore(value: 0)
        queue.async {
            defer { done.signal() }
            do {
                let realm = try Realm(configuration: config, queue: queue)
                try Self.seed(realm, count: 1)
                let holder = Handoff<ThreadSafeReference<Account>>()
                let committed = DispatchSemaphore(value: 0)
                Thread {
                    defer { committed.signal() }
                    do {
                        let other = try Realm(configuration: config)
                        var account: Account?
                        try other.write { account = other.create(Account.self, value: ["id": 1, "balance": 7]) }
                        holder.value = ThreadSafeReference(to: account!)
                    } catch { XCTFail("\(error)") }
                }.start()
                committed.wait()
                let before = realm.objects(Account.self).count
                let resolved = holder.value.flatMap { realm.resolve($0) }
                outcome.value = [before, resolved?.id ?? -1, resolved?.balance ?? -1, realm.objects(Account.self).count]
            } catch { XCTFail("\(error)") }
        }
        done.wait()
        XCTAssertEqual(outcome.value, [1, 1, 7, 2],
                       "[count before resolving (stale), resolved id, resolved balance, count after (advanced)]")
    }

    func testResolveOfResultsInAStaleRealmSeesTheReferencesVersion() throws {
        let realm = try openAccounts()
        realm.autorefresh = false
        try seedAccounts(realm, count: 3) // ids 0..<3, balance 100
        XCTAssertEqual(realm.objects(Account.self).count, 3)
        guard let reference = referenceFromNewerVersion(accountConfiguration, { other in
            for id in 3..<5 { other.create(Account.self, value: ["id": id, "balance": 200]) }
            return other.objects(Account.self).filter("balance >= 100").sorted(byKeyPath: "id")
        }) else { return }
        XCTAssertEqual(realm.objects(Account.self).count, 3, "precondition: the Realm still reads its old version")
        let resolved = realm.resolve(reference)
        XCTAssertEqual(resolved?.map(\.id), [0, 1, 2, 3, 4], "the query runs at (at least) the reference's version")
        XCTAssertEqual(resolved?.isFrozen, false)
        XCTAssertEqual(realm.objects(Account.self).count, 5)
    }

    func testResolveOfAListInAStaleRealmFindsItsNewOwner() throws {
        let realm = try openRealm()
        realm.autorefresh = false
        XCTAssertTrue(realm.objects(Owner.self).isEmpty)
        guard let reference = referenceFromNewerVersion(configuration(), { other in
            let owner = other.create(Owner.self, value: ["id": 1, "name": "Olga"])
            owner.pets.append(objectsIn: [Pet(value: ["name": "Rex"]), Pet(value: ["name": "Tom"])])
            return owner.pets
        }) else { return }
        XCTAssertTrue(realm.objects(Owner.self).isEmpty, "precondition: the Realm still reads its old version")
        let pets = realm.resolve(reference)
        XCTAssertNotNil(pets, "a List whose owner is newer than the resolving Realm resolves (the Realm advances)")
        XCTAssertEqual(pets?.map(\.name), ["Rex", "Tom"])
        XCTAssertEqual(realm.objects(Owner.self).first?.name, "Olga")
    }

    func testThreadSafeWrapperFollowsTheObject() throws {
        let realm = try openAccounts()
        try seedAccounts(realm, count: 1)
        @ThreadSafe var account = realm.objects(Account.self).first
        let wrapper = _account
        let config = accountConfiguration
        onOtherThread {
            let other = try Realm(configuration: config)
            guard let account = wrapper.wrappedValue else { return XCTFail("resolves on another thread") }
            try other.write { account.balance = 42 }
        }
        realm.refresh()
        XCTAssertEqual(account?.balance, 42)
        try realm.write { realm.deleteAll() }
        XCTAssertNil(account, "nil once deleted")
    }

    // MARK: Async writes

    func testWriteAsyncRunsOnTheRealmsThreadAndGroupsCommits() throws {
        let realm = try openAccounts()
        var events: [String] = []
        let done = expectation(description: "all completions")
        done.expectedFulfillmentCount = 5
        for i in 0..<5 {
            realm.writeAsync({
                XCTAssertTrue(Thread.isMainThread)
                realm.create(Account.self, value: ["id": i, "balance": i])
                events.append("write\(i)")
            }, onComplete: { error in
                XCTAssertNil(error)
                XCTAssertTrue(Thread.isMainThread)
                events.append("done\(i)")
                done.fulfill()
            })
        }
        XCTAssertTrue(realm.isPerformingAsynchronousWriteOperations)
        XCTAssertEqual(events, [], "nothing runs before the next turn")
        wait(for: [done], timeout: 10)
        XCTAssertEqual(events, (0..<5).map { "write\($0)" } + (0..<5).map { "done\($0)" },
                       "back-to-back async writes share one flush: all commits, then all callbacks")
        XCTAssertFalse(realm.isPerformingAsynchronousWriteOperations)
        XCTAssertEqual(realm.objects(Account.self).count, 5)
    }

    func testAsyncWriteWaitsForTheLockWithoutBlocking() throws {
        let realm = try openAccounts()
        let config = accountConfiguration
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: config)
            other.beginWrite()
            other.create(Account.self, value: ["id": 1, "balance": 1])
            holding.signal()
            release.wait()
            try! other.commitWrite()
        }.start()
        holding.wait()
        let written = expectation(description: "async write done")
        realm.writeAsync({
            XCTAssertNotNil(realm.object(ofType: Account.self, forPrimaryKey: 1), "runs after the other writer")
            realm.create(Account.self, value: ["id": 2, "balance": 2])
        }, onComplete: { _ in written.fulfill() })
        // The main thread keeps turning while the lock is held elsewhere.
        spinMainQueue()
        spinMainQueue()
        XCTAssertTrue(realm.isPerformingAsynchronousWriteOperations)
        release.signal()
        wait(for: [written], timeout: 10)
        XCTAssertEqual(realm.objects(Account.self).count, 2)
    }

    func testBeginCommitAndCancelAsyncWrite() throws {
        let realm = try openAccounts()
        let committed = expectation(description: "commit")
        var ran: [Int] = []
        realm.beginAsyncWrite {
            ran.append(1)
            realm.create(Account.self, value: ["id": 1])
            realm.commitAsyncWrite { error in
                XCTAssertNil(error)
                committed.fulfill()
            }
        }
        let cancelled = realm.beginAsyncWrite { ran.append(2) }
        try realm.cancelAsyncWrite(cancelled)
        let rolledBack = expectation(description: "rolled back")
        var openId: AsyncTransactionId = 0
        openId = realm.beginAsyncWrite {
            ran.append(3)
            realm.create(Account.self, value: ["id": 3])
            try? realm.cancelAsyncWrite(openId)
            rolledBack.fulfill()
        }
        wait(for: [committed, rolledBack], timeout: 10)
        XCTAssertEqual(ran, [1, 3], "a cancelled queued write never runs")
        XCTAssertEqual(realm.objects(Account.self).map(\.id), [1], "a cancelled open write is rolled back")
        XCTAssertThrowsRealmError(.invalidValue) { try realm.cancelAsyncWrite(999) }
    }

    func testSynchronousWriteAndInvalidateRunQueuedAsyncWritesFirst() throws {
        let realm = try openAccounts()
        var order: [String] = []
        realm.writeAsync({ realm.create(Account.self, value: ["id": 1]); order.append("async") },
                         onComplete: { _ in order.append("async done") })
        try realm.write { order.append("sync") }
        XCTAssertEqual(order, ["async", "async done", "sync"])
        realm.writeAsync { realm.create(Account.self, value: ["id": 2]) }
        realm.invalidate()
        XCTAssertFalse(realm.isPerformingAsynchronousWriteOperations)
        XCTAssertEqual(realm.objects(Account.self).count, 2)
    }

    func testAsyncWriteNeedsASchedulableContext() throws {
        let config = accountConfiguration
        onOtherThread {
            let realm = try Realm(configuration: config)
            expectRealmError(.incorrectThread, mentioning: ["serial queue"]) {
                _ = try realm.core.beginAsyncWrite {}
            }
        }
    }

    // MARK: Stress

    /// Readers on their own Realms and on frozen snapshots always see a
    /// consistent version while a writer moves money between accounts.
    func testReadersAlwaysSeeAConsistentVersion() throws {
        let realm = try openAccounts()
        try seedAccounts(realm, count: 20, balance: 100)
        let config = accountConfiguration
        let stop = ManagedAtomicFlag()
        let failures = ManagedCounter(), reads = ManagedCounter()
        let frozenSnapshots = UncheckedBox(value: NSMutableArray())
        let snapshotLock = NSLock()
        var threads: [Thread] = []
        let finished = DispatchGroup()
        for reader in 0..<4 {
            finished.enter()
            let thread = Thread {
                defer { finished.leave() }
                let realm = try! Realm(configuration: config)
                let accounts = realm.objects(Account.self)
                while !stop.isSet {
                    realm.refresh()
                    if accounts.reduce(0, { $0 + $1.balance }) != 2000 { failures.increment() }
                    reads.increment()
                    if reader == 0 {
                        // Frozen snapshots made here are checked on other threads.
                        let frozen = accounts.freeze()
                        snapshotLock.lock()
                        frozenSnapshots.value.add(UncheckedBox(value: frozen))
                        if frozenSnapshots.value.count > 8 { frozenSnapshots.value.removeObject(at: 0) }
                        snapshotLock.unlock()
                    } else {
                        snapshotLock.lock()
                        let snapshot = (frozenSnapshots.value.lastObject as? UncheckedBox<Results<Account>>)?.value
                        snapshotLock.unlock()
                        if let snapshot, snapshot.reduce(0, { $0 + $1.balance }) != 2000 { failures.increment() }
                    }
                }
            }
            threads.append(thread)
            thread.start()
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            try realm.write {
                let accounts = realm.objects(Account.self)
                let from = accounts[Int.random(in: 0..<20, using: &generator)]
                let to = accounts[Int.random(in: 0..<20, using: &generator)]
                let amount = Int.random(in: 0...from.balance, using: &generator)
                from.balance -= amount
                to.balance += amount
            }
        }
        stop.set()
        finished.wait()
        XCTAssertEqual(failures.value, 0, "every read saw a whole version")
        XCTAssertGreaterThan(reads.value, 4)
        XCTAssertEqual(total(realm.objects(Account.self)), 2000)
    }
}

/// Small thread-safe helpers for the stress test.
final class ManagedCounter: Sendable {
    // An atomic rather than a Mutex: ThreadSanitizer does not model the
    // Linux Mutex's futex and reports its guarded value as racing.
    private let count = Atomic(0)
    func increment() { count.wrappingAdd(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

final class ManagedAtomicFlag: Sendable {
    private let flag = Atomic(false)
    func set() { flag.store(true, ordering: .releasing) }
    var isSet: Bool { flag.load(ordering: .acquiring) }
}
