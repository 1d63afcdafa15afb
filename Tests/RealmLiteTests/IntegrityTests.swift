import CStorage
import Foundation
import XCTest
@testable import RealmLite

/// Random mixes of operations, after which the secondary trees (primary
/// keys, indexes, backlinks) must agree exactly with the records, and the
/// engine's checker must find the file clean.
final class IntegrityTests: RealmTestCase {
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }

    func testRandomOperationsKeepSecondaryTreesConsistent() throws {
        var rng = SeededGenerator(state: 0x9E37_79B9_7F4A_7C15)
        let realm = try openRealm()
        var nextId = 0
        for round in 0..<30 {
            try realm.write {
                for _ in 0..<20 {
                    let owners = realm.objects(Owner.self)
                    let pets = realm.objects(Pet.self)
                    switch Int.random(in: 0..<10, using: &rng) {
                    case 0, 1:
                        let owner = Owner()
                        owner.id = nextId
                        nextId += 1
                        owner.name = "o\(owner.id)"
                        if Bool.random(using: &rng) { owner.address = Address() }
                        realm.add(owner)
                    case 2, 3:
                        let pet = Pet()
                        pet.name = "p"
                        pet.kind = ["cat", "dog", "fish"].randomElement(using: &rng)!
                        if let owner = owners.randomElement(using: &rng) { owner.pets.append(pet) } else { realm.add(pet) }
                    case 4 where !owners.isEmpty && !pets.isEmpty:
                        let owner = owners.randomElement(using: &rng)!
                        let pet = pets.randomElement(using: &rng)!
                        switch Int.random(in: 0..<4, using: &rng) {
                        case 0: owner.best = pet
                        case 1: owner.petSet.insert(pet)
                        case 2: owner.petMap["k\(Int.random(in: 0..<3, using: &rng))"] = pet
                        default: owner.pets.insert(pet, at: Int.random(in: 0...owner.pets.count, using: &rng))
                        }
                    case 5 where !pets.isEmpty:
                        realm.delete(pets.randomElement(using: &rng)!)
                    case 6 where !owners.isEmpty:
                        realm.delete(owners.randomElement(using: &rng)!)
                    case 7 where !owners.isEmpty:
                        let owner = owners.randomElement(using: &rng)!
                        if owner.pets.count > 1 { owner.pets.move(from: 0, to: owner.pets.count - 1) }
                        if !owner.pets.isEmpty { owner.pets.remove(at: Int.random(in: 0..<owner.pets.count, using: &rng)) }
                        let past = Address()
                        past.street = "s"
                        owner.pastAddresses.append(past)
                    case 8 where !pets.isEmpty:
                        pets.randomElement(using: &rng)!.kind = ["cat", "dog", "bird"].randomElement(using: &rng)!
                    case 9 where !owners.isEmpty:
                        let existing = owners.randomElement(using: &rng)!
                        realm.create(Owner.self, value: ["id": existing.id, "name": "upserted", "address": ["street": "u"]],
                                     update: .modified)
                    default:
                        break
                    }
                }
            }
            try assertConsistent(realm, "round \(round)")
        }
        // The mix must have exercised links and indexes.
        let pets = realm.core.schemaState.byName["Pet"]!, owners = realm.core.schemaState.byName["Owner"]!
        XCTAssertGreaterThan(realm.core.count(of: owners), 5)
        XCTAssertGreaterThan(realm.core.count(of: pets), 5)
        let backlinkEntries = owners.linkColumns.map { (entries(realm, owners.columns[$0].backlinkTree) as [(key: [UInt8], value: [UInt8])]).count }
        XCTAssertTrue(backlinkEntries.allSatisfy { $0 > 0 }, "backlinks of every link kind: \(backlinkEntries)")
    }

}

extension RealmTestCase {
    /// Recomputes every secondary tree from the records and compares.
    func assertConsistent(_ realm: Realm, _ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var report = cs_check_report()
        XCTAssertEqual(cs_check(realm.core.env.handle, &report), 0, "\(label): \(withUnsafeBytes(of: report.first_error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })", file: file, line: line)
        var expectedBacklinks: [cs_tree: [UInt64: [UInt64: UInt32]]] = [:]
        for info in realm.core.schemaState.classes {
            let records = records(realm, info.objectsTree)
            if let pk = info.primaryKeyColumn, info.keyedByPrimaryKey {
                // Keyed by the primary key: no pk: tree, and the key is the value.
                XCTAssertEqual(info.primaryKeyTree, absentTree, "\(label): \(info.name) has no pk: tree", file: file, line: line)
                XCTAssertFalse(info.storageOrder.contains(pk), "\(label): \(info.name) records omit the key", file: file, line: line)
            } else if let pk = info.primaryKeyColumn {
                var expected = Set<[UInt8]>()
                for (key, record) in records {
                    let view = record.withUnsafeBytes { RecordView(base: $0.baseAddress!, size: $0.count) }
                    _ = key
                    expected.insert(indexKey(info.columns[pk].type, isNull: view.isNull(info.slots[pk]), view.field(info.slots[pk], info.layout)))
                }
                XCTAssertEqual(Set(entries(realm, info.primaryKeyTree).map(\.key)), expected, "\(label): pk:\(info.name)", file: file, line: line)
            }
            for c in info.indexedColumns {
                let column = info.columns[c]
                let expected = Set(records.map { key, record in
                    record.withUnsafeBytes { raw -> [UInt8] in
                        let view = RecordView(base: raw.baseAddress!, size: raw.count)
                        return realm.core.indexEntry(column, view.isNull(info.slots[c]), view.field(info.slots[c], info.layout), key)
                    }
                })
                XCTAssertEqual(Set(entries(realm, column.indexTree).map(\.key)), expected, "\(label): idx:\(info.name).\(column.name)", file: file, line: line)
            }
            for c in info.linkColumns {
                let column = info.columns[c]
                var links: [UInt64: [UInt64: UInt32]] = [:]
                for (key, record) in records {
                    record.withUnsafeBytes { raw in
                        let view = RecordView(base: raw.baseAddress!, size: raw.count)
                        for target in realm.core.resolvedLinkTargets(column, isNull: view.isNull(info.slots[c]), view.field(info.slots[c], info.layout)) {
                            links[target, default: [:]][key, default: 0] += 1
                            XCTAssertNotNil(realm.core.loadRecord(column.target!, target), "\(label): \(info.name).\(column.name) links to a missing object", file: file, line: line)
                        }
                    }
                }
                expectedBacklinks[column.backlinkTree] = links
            }
            if info.isEmbedded {
                // Every embedded object has exactly one owner.
                let owners = realm.core.schemaState.incoming[ObjectIdentifier(info)] ?? []
                for (key, _) in records {
                    let count = owners.reduce(0) { $0 + realm.core.backlinkSources($1.0.columns[$1.1], target: key).count }
                    XCTAssertEqual(count, 1, "\(label): embedded \(info.name) \(key) has \(count) owners", file: file, line: line)
                }
            }
        }
        // Every entry of the collections tree belongs to one marker (List, MutableSet or Map), with its count.
        var listed = 0
        let listsTree = realm.core.listsTree()
        for info in realm.core.schemaState.classes {
            for (_, record) in records(realm, info.objectsTree) {
                record.withUnsafeBytes { raw in
                    let view = RecordView(base: raw.baseAddress!, size: raw.count)
                    for c in info.treeColumns {
                        guard let list = SpilledList(view.field(info.slots[c], info.layout), type: TreeElementEncoding(info.columns[c])) else { continue }
                        XCTAssertEqual(realm.core.listElements(list).count, list.count, "\(label): \(info.name).\(info.columns[c].name) list \(list.id)", file: file, line: line)
                        if info.columns[c].collection == .set, let cursor = realm.core.cursor(listsTree) {
                            // Short elements are keyed by their stored bytes: lookups build that key.
                            list.prefix.withUnsafeBytes { prefix in
                                cursor.forEach(prefix: prefix) { key, value in
                                    let stored = bytes(of: value)
                                    if !EntryKey.isLong(stored) {
                                        XCTAssertTrue(bytes(of: key).dropFirst(8).elementsEqual(stored), "\(label): \(info.name).\(info.columns[c].name) set \(list.id) keyed by its element", file: file, line: line)
                                    }
                                    return true
                                }
                            }
                        }
                        listed += list.count
                    }
                }
            }
        }
        XCTAssertEqual(listsTree == absentTree ? 0 : entries(realm, listsTree).count, listed, "\(label): lists tree entries", file: file, line: line)
        for (tree, links) in expectedBacklinks {
            var actual: [UInt64: [UInt64: UInt32]] = [:]
            for (key, value) in entries(realm, tree) {
                key.withUnsafeBytes { k in
                    let target = UInt64(bigEndian: k.loadUnaligned(as: UInt64.self))
                    let source = UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                    actual[target, default: [:]][source] = value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                }
            }
            XCTAssertEqual(actual, links, "\(label): backlink tree \(tree)", file: file, line: line)
        }
    }

    func entries(_ realm: Realm, _ tree: cs_tree) -> [(key: [UInt8], value: [UInt8])] {
        var result: [(key: [UInt8], value: [UInt8])] = []
        var cursor: OpaquePointer?
        guard cs_cursor_open(realm.core.txn.handle, tree, &cursor) == 0, let cursor else { return [] }
        defer { cs_cursor_close(cursor) }
        var key = cs_val(), value = cs_val()
        var rc = cs_cursor_get(cursor, &key, &value, CS_FIRST)
        while rc == 0 {
            result.append((Array(bytes(of: key)), Array(bytes(of: value))))
            rc = cs_cursor_get(cursor, &key, &value, CS_NEXT)
        }
        return result
    }

    func records(_ realm: Realm, _ tree: cs_tree) -> [(key: UInt64, record: [UInt8])] {
        let raw: [(key: [UInt8], value: [UInt8])] = entries(realm, tree)
        return raw.map { entry in (entry.key.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }, entry.value) }
    }
}
