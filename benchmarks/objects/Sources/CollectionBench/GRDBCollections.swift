import Foundation
import GRDB
import PeerDatabases

// GRDB 7 as its documentation recommends: Codable records written and read
// through the query interface, a DatabaseQueue; the join tables of
// JoinTables.swift. A List of objects is read through an SQL request of
// records (the join), decoding each Item whole, as an app would.

struct OwnerRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "owner"
    var id: Int
}

struct ListIntRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "list_int"
    var owner: Int
    var position: Int
    var value: Int
}

struct ItemRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var id: Int
    var number: Int
    var name: String
}

struct ListItemRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "list_item"
    var owner: Int
    var position: Int
    var item: Int
}

struct SetIntRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "set_int"
    var owner: Int
    var value: Int
}

struct MapIntRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "map_int"
    var owner: Int
    var key: String
    var value: Int
}

final class GRDBCollections: CollectionEngine {
    static let name = "grdb"
    static let settings = "GRDB 7.10.0, Codable records, DatabaseQueue; in memory, or a file with WAL and synchronous=FULL"

    private let queue: DatabaseQueue

    init(path: String?) throws {
        queue = try openGRDBQueue(path)
        try queue.write { db in try db.execute(sql: joinTableSchema) }
    }

    func createOwner(_ id: Int, ints size: Int, scale: Int) throws {
        try queue.write { db in try OwnerRecord(id: id).insert(db) }
        try inBatches(size) { range in
            try queue.write { db in
                for i in range { try ListIntRecord(owner: id, position: i, value: i &* scale).insert(db) }
            }
        }
    }

    /// One append: the next position from the index, then the record.
    private func append(_ db: Database, _ owner: Int, _ value: Int) throws {
        let last = try ListIntRecord.filter(Column("owner") == owner)
            .select(max(Column("position")), as: Int?.self).fetchOne(db) ?? nil
        try ListIntRecord(owner: owner, position: last.map { $0 + 1 } ?? 0, value: value).insert(db)
    }

    func appendInOwnWrites(_ owner: Int, _ values: Range<Int>) throws {
        for v in values { try queue.write { db in try append(db, owner, v) } }
    }

    func appendInOneWrite(_ owner: Int, _ values: Range<Int>) throws {
        try queue.write { db in for v in values { try append(db, owner, v) } }
    }

    func intsCountAndLast(_ owner: Int) throws -> (count: Int, last: Int?) {
        try queue.read { db in
            let list = ListIntRecord.filter(Column("owner") == owner)
            return (try list.fetchCount(db), try list.order(Column("position").desc).fetchOne(db)?.value)
        }
    }

    func sumInts(_ owner: Int, at positions: [Int]) throws -> Int {
        try queue.read { db in
            var sum = 0
            let list = ListIntRecord.filter(Column("owner") == owner)
            for p in positions { sum &+= try list.filter(Column("position") == p).fetchOne(db)!.value }
            return sum
        }
    }

    func iterateInts(_ owner: Int) throws -> (count: Int, sum: Int) {
        try queue.read { db in
            var count = 0, sum = 0
            let cursor = try ListIntRecord.filter(Column("owner") == owner).order(Column("position")).fetchCursor(db)
            while let r = try cursor.next() { count += 1; sum &+= r.value }
            return (count, sum)
        }
    }

    func addItems(_ owner: Int, count: Int) throws {
        try inBatches(count) { range in
            try queue.write { db in
                for i in range {
                    try ItemRecord(id: i, number: i, name: itemName(i)).insert(db)
                    try ListItemRecord(owner: owner, position: i, item: i).insert(db)
                }
            }
        }
    }

    func iterateItems(_ owner: Int) throws -> (count: Int, sum: Int) {
        try queue.read { db in
            var count = 0, sum = 0
            let cursor = try ItemRecord.fetchCursor(db, sql: itemsInOrderSQL, arguments: [owner])
            while let item = try cursor.next() { count += 1; sum &+= item.number }
            return (count, sum)
        }
    }

    func fillSetAndMap(_ owner: Int, count: Int) throws {
        try inBatches(count) { range in
            try queue.write { db in
                for i in range { try SetIntRecord(owner: owner, value: i).insert(db) }
                for i in range { try MapIntRecord(owner: owner, key: mapKey(i), value: i).insert(db) }
            }
        }
    }

    func containsCount(_ owner: Int, _ probes: [Int]) throws -> Int {
        try queue.read { db in
            var found = 0
            let set = SetIntRecord.filter(Column("owner") == owner)
            for p in probes where try !set.filter(Column("value") == p).isEmpty(db) { found += 1 }
            return found
        }
    }

    func lookupSum(_ owner: Int, _ keys: [String]) throws -> Int {
        try queue.read { db in
            var sum = 0
            let map = MapIntRecord.filter(Column("owner") == owner)
            for k in keys { sum &+= try map.filter(Column("key") == k).fetchOne(db)!.value }
            return sum
        }
    }

    /// VACUUM, then a WAL checkpoint (TRUNCATE): the main file alone holds it all.
    func compactedFileBytes() throws -> Int {
        try queue.vacuum()
        try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        return try FileManager.default.attributesOfItem(atPath: queue.path)[.size] as! Int
    }

    func close() throws { try queue.close() }
}
