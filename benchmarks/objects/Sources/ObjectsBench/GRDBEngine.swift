import Foundation
import GRDB
import PeerDatabases

// GRDB 7 as its documentation recommends: Codable records, a DatabaseQueue,
// WAL, statements from GRDB's query interface (cached by GRDB). Durability:
// synchronous = FULL, as for every engine here.

struct PersonRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "person"
    var id: Int
    var name: String
    var age: Int
    var score: Double
    var active: Bool
}

struct IntsRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "items"
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int
}

struct NamedRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "named"
    var indexedName: String
    var plainName: String
}

struct ProfileRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "profile"
    var id: Int
    var name: String
    var age: Int
    var score: Double
    var active: Bool
    var bio: String
}

extension PersonRecord {
    init(_ i: Int) {
        let v = PersonValues(i)
        self.init(id: v.id, name: v.name, age: v.age, score: v.score, active: v.active)
    }
}

final class GRDBEngine: Engine {
    static let name = "grdb"
    static let settings = "GRDB 7.10.0, Codable records, DatabaseQueue, WAL, synchronous=FULL, SQLite defaults otherwise"

    private let ints: DatabaseQueue
    private let people: DatabaseQueue
    private let peoplePath: String

    static func open(_ path: String) throws -> DatabaseQueue { try openGRDBQueue(path) }

    init(directory: URL) throws {
        ints = try Self.open(directory.appendingPathComponent("ints.sqlite").path)
        peoplePath = directory.appendingPathComponent("people.sqlite").path
        people = try Self.open(peoplePath)
        try ints.write { db in
            try db.create(table: "items") { t in
                for i in 0..<10 { t.column("i\(i)", .integer).notNull() }
            }
        }
        try people.write { db in
            try db.create(table: "person") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("age", .integer).notNull()
                t.column("score", .double).notNull()
                t.column("active", .boolean).notNull()
            }
            try db.create(table: "named") { t in
                t.column("indexedName", .text).notNull().indexed()
                t.column("plainName", .text).notNull()
            }
        }
    }

    func insertInts(_ range: Range<Int>) throws {
        try ints.write { db in
            for i in range {
                try IntsRecord(i0: i, i1: i + 1, i2: i + 2, i3: i + 3, i4: i + 4,
                               i5: i + 5, i6: i + 6, i7: i + 7, i8: i + 8, i9: i + 9).insert(db)
            }
        }
    }

    func fetchInts() throws -> Int {
        try ints.read { db in
            var sum = 0
            for r in try IntsRecord.fetchAll(db) {
                sum &+= r.i0 &+ r.i1 &+ r.i2 &+ r.i3 &+ r.i4 &+ r.i5 &+ r.i6 &+ r.i7 &+ r.i8 &+ r.i9
            }
            return sum
        }
    }

    func insertPeople(_ range: Range<Int>) throws {
        try people.write { db in
            for i in range { try PersonRecord(i).insert(db) }
        }
    }

    func peopleFileSize() throws -> Int {
        try people.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        return try FileManager.default.attributesOfItem(atPath: peoplePath)[.size] as? Int ?? 0
    }

    func countAgeOver50Active() throws -> Int {
        try people.read { db in
            try PersonRecord.filter(Column("age") > 50 && Column("active") == true).fetchCount(db)
        }
    }

    func enumeratePeople() throws -> Int {
        try people.read { db in
            var sum = 0
            let cursor = try PersonRecord.fetchCursor(db)
            while let p = try cursor.next() {
                sum = sum &+ p.id &+ p.name.utf8.count &+ p.age &+ Int(p.score) &+ (p.active ? 1 : 0)
            }
            return sum
        }
    }

    func lookupNames(ids: [Int]) throws -> Int {
        try people.read { db in
            var sum = 0
            for id in ids { sum &+= try PersonRecord.fetchOne(db, key: id)!.name.utf8.count }
            return sum
        }
    }

    func insertNamedItems(_ count: Int) throws {
        try people.write { db in
            for i in 0..<count { try NamedRecord(indexedName: "n\(i)", plainName: "n\(i)").insert(db) }
        }
    }

    func lookupNamed(_ names: [String], indexed: Bool) throws -> Int {
        let column = Column(indexed ? "indexedName" : "plainName")
        return try people.read { db in
            var found = 0
            for name in names where try NamedRecord.filter(column == name).fetchOne(db) != nil { found += 1 }
            return found
        }
    }

    func sortByScore() throws -> Double {
        try people.read { db in
            var scores = SortedScores()
            let cursor = try PersonRecord.order(Column("score")).fetchCursor(db)
            while let p = try cursor.next() { scores.add(p.score) }
            return scores.sum
        }
    }

    func durableTransactions(first: Int, updates: [Int]) throws {
        for k in updates.indices {
            try people.write { db in
                if k % 2 == 0 {
                    try PersonRecord(first + k).insert(db)
                } else {
                    var person = try PersonRecord.fetchOne(db, key: updates[k])!
                    person.score += 1
                    try person.update(db)
                }
            }
        }
    }

    func deleteAllPeople() throws -> Int {
        try people.write { db in try PersonRecord.deleteAll(db) }
    }

    func close() throws { try ints.close(); try people.close() }

    static func createBig(at directory: URL, count: Int, bioBytes: Int) throws {
        let queue = try open(directory.appendingPathComponent("big.sqlite").path)
        try queue.write { db in
            try db.create(table: "profile") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("age", .integer).notNull()
                t.column("score", .double).notNull()
                t.column("active", .boolean).notNull()
                t.column("bio", .text).notNull()
            }
        }
        for start in stride(from: 0, to: count, by: 100_000) {
            try queue.write { db in
                for i in start..<min(count, start + 100_000) {
                    let v = PersonValues(i)
                    try ProfileRecord(id: i, name: v.name, age: v.age, score: v.score, active: v.active,
                                      bio: bio(i, bytes: bioBytes)).insert(db)
                }
            }
        }
        try queue.close()
    }

    static func openBigAndLookup(at directory: URL, id: Int) throws -> String {
        let queue = try open(directory.appendingPathComponent("big.sqlite").path)
        return try queue.read { db in try ProfileRecord.fetchOne(db, key: id)?.name ?? "<missing>" }
    }
}
