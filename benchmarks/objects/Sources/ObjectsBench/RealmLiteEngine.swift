import Foundation
import BenchModels
import RealmLite

// RealmLite through its public API, as an app would use it: one Realm per
// file, default (full) durability, objects added unmanaged then `add`ed.

final class RealmLiteEngine: Engine {
    static let name = "realmlite"
    static let settings = "RealmLite (this tree, release), public Swift API; full durability (one flush per commit)"

    private let intsRealm: Realm
    private let peopleRealm: Realm
    private let peopleURL: URL

    init(directory: URL) throws {
        let configuration = Person.peopleConfiguration(directory)
        peopleURL = configuration.fileURL!
        intsRealm = try Realm(configuration: .init(fileURL: directory.appendingPathComponent("ints.realm"),
                                                   objectTypes: [IntsItem.self]))
        peopleRealm = try Realm(configuration: configuration)
    }

    func insertInts(_ range: Range<Int>) throws {
        try intsRealm.write {
            for i in range {
                let item = IntsItem()
                item.i0 = i; item.i1 = i + 1; item.i2 = i + 2; item.i3 = i + 3; item.i4 = i + 4
                item.i5 = i + 5; item.i6 = i + 6; item.i7 = i + 7; item.i8 = i + 8; item.i9 = i + 9
                intsRealm.add(item)
            }
        }
    }

    func fetchInts() throws -> Int {
        var sum = 0
        for item in intsRealm.objects(IntsItem.self) {
            sum &+= item.i0 &+ item.i1 &+ item.i2 &+ item.i3 &+ item.i4
            sum &+= item.i5 &+ item.i6 &+ item.i7 &+ item.i8 &+ item.i9
        }
        return sum
    }

    func insertPeople(_ range: Range<Int>) throws {
        try peopleRealm.write {
            for i in range { peopleRealm.add(Self.person(i)) }
        }
    }

    private static func person(_ i: Int) -> Person {
        let values = PersonValues(i)
        let person = Person()
        person.id = values.id; person.name = values.name; person.age = values.age
        person.score = values.score; person.active = values.active
        return person
    }

    func peopleFileSize() throws -> Int {
        try FileManager.default.attributesOfItem(atPath: peopleURL.path)[.size] as? Int ?? 0
    }

    func countAgeOver50Active() throws -> Int {
        peopleRealm.objects(Person.self).filter("age > 50 AND active == true").count
    }

    func enumeratePeople() throws -> Int {
        var sum = 0
        for p in peopleRealm.objects(Person.self) {
            sum = sum &+ p.id &+ p.name.utf8.count &+ p.age &+ Int(p.score) &+ (p.active ? 1 : 0)
        }
        return sum
    }

    func lookupNames(ids: [Int]) throws -> Int {
        var sum = 0
        for id in ids { sum &+= peopleRealm.object(ofType: Person.self, forPrimaryKey: id)!.name.utf8.count }
        return sum
    }

    func insertNamedItems(_ count: Int) throws {
        try peopleRealm.write {
            for i in 0..<count {
                let item = NamedItem()
                item.indexedName = "n\(i)"
                item.plainName = "n\(i)"
                peopleRealm.add(item)
            }
        }
    }

    func lookupNamed(_ names: [String], indexed: Bool) throws -> Int {
        let items = peopleRealm.objects(NamedItem.self)
        var found = 0
        for name in names {
            let hit = indexed ? items.where { $0.indexedName == name }.first : items.where { $0.plainName == name }.first
            if hit != nil { found += 1 }
        }
        return found
    }

    func sortByScore() throws -> Double {
        var scores = SortedScores()
        for p in peopleRealm.objects(Person.self).sorted(byKeyPath: "score") { scores.add(p.score) }
        return scores.sum
    }

    func durableTransactions(first: Int, updates: [Int]) throws {
        for k in updates.indices {
            try peopleRealm.write {
                if k % 2 == 0 {
                    peopleRealm.add(Self.person(first + k))
                } else {
                    peopleRealm.object(ofType: Person.self, forPrimaryKey: updates[k])!.score += 1
                }
            }
        }
    }

    func deleteAllPeople() throws -> Int {
        let people = peopleRealm.objects(Person.self)
        let count = people.count
        try peopleRealm.write { peopleRealm.delete(people) }
        return count
    }

    func close() throws { intsRealm.invalidate(); peopleRealm.invalidate() }

    static func createBig(at directory: URL, count: Int, bioBytes: Int) throws {
        let realm = try Realm(configuration: Profile.bigConfiguration(directory))
        for start in stride(from: 0, to: count, by: 100_000) {
            try realm.write {
                for i in start..<min(count, start + 100_000) {
                    let values = PersonValues(i)
                    let profile = Profile()
                    profile.id = i; profile.name = values.name; profile.age = values.age
                    profile.score = values.score; profile.active = values.active
                    profile.bio = bio(i, bytes: bioBytes)
                    realm.add(profile)
                }
            }
        }
    }

    static func openBigAndLookup(at directory: URL, id: Int) throws -> String {
        try Profile.openAndLookup(directory, id: id)
    }
}
