import Foundation
import XCTest
@testable import RealmLite

// Two versions of each model live in one program: the new versions map to
// the old stored class names with className().

final class MPersonV0: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age = 0
}

final class MPersonV1: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var fullName = ""
    @Persisted var age = 0
}

/// _realmObjectName() maps a class to a stored name, as className() does.
final class MPersonV2: Object {
    override class func _realmObjectName() -> String? { "MPerson" }
    @Persisted var fullName = ""
    @Persisted var age = 0
    @Persisted var email: String? = nil
}

final class MNoteV0: Object {
    override class func className() -> String { "MNote" }
    @Persisted var title = ""
    @Persisted var size: Int? = nil
    @Persisted var owner: MDog?
}

final class MNoteV1: Object {
    override class func className() -> String { "MNote" }
    @Persisted var title = ""
    @Persisted var pinned = true
    @Persisted(indexed: true) var rank = 7
    @Persisted var size: Int = -1 // was Int?: nil becomes the default
    @Persisted var owner: MDogV1?
}

final class MNoteRenamed: Object {
    override class func className() -> String { "MNote" }
    @Persisted var heading = ""
    @Persisted var size: Int? = nil // (owner removed)
}

final class MNoteKeyed: Object {
    override class func className() -> String { "MNote" }
    @Persisted(primaryKey: true) var title = ""
    @Persisted var size: Int? = nil
}

final class MDog: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "owner") var notes: LinkingObjects<MNoteV0>
}

final class MDogV1: Object {
    override class func className() -> String { "MDog" }
    @Persisted var name = ""
    @Persisted(originProperty: "owner") var notes: LinkingObjects<MNoteV1>
}

final class MTagV0: Object {
    override class func className() -> String { "MTag" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
    @Persisted var scores = List<Int>()
    @Persisted var aliases = MutableSet<String>()
    @Persisted var weights = Map<String, Int?>()
}

final class MTagV1: Object {
    override class func className() -> String { "MTag" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var scores = List<Int>()
    @Persisted var color = "red"
    @Persisted var aliases = MutableSet<String>()
    @Persisted var label = ""
}

final class MSoloV0: Object {
    override class func className() -> String { "MSolo" }
    @Persisted var name = ""
}

final class MSoloV1: Object {
    override class func className() -> String { "MSolo" }
    @Persisted var name = ""
    @Persisted var extra = 5
}

final class MTagNoKey: Object {
    override class func className() -> String { "MTag" }
    @Persisted var id = 0
    @Persisted var label = ""
}

final class MTagStringKey: Object {
    override class func className() -> String { "MTag" }
    @Persisted(primaryKey: true) var id = ""
    @Persisted var label = ""
}

final class MPetV0: Object {
    override class func className() -> String { "MPet" }
    @Persisted var name = ""
}

final class MOwnerV0: Object {
    override class func className() -> String { "MOwner" }
    @Persisted var name = ""
    @Persisted var pet: MPetV0?
}

final class MPetV1: EmbeddedObject {
    override class func className() -> String { "MPet" }
    @Persisted var name = ""
}

final class MOwnerV1: Object {
    override class func className() -> String { "MOwner" }
    @Persisted var name = ""
    @Persisted var pet: MPetV1?
}

typealias MigrationLog = LockedLog<String>

final class MigrationTests: RealmTestCase {
    func config(_ types: [ObjectBase.Type], version: UInt64 = 0, block: MigrationBlock? = nil) -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: fileURL, schemaVersion: version, migrationBlock: block, objectTypes: types)
        config.schemaVersion = version
        return config
    }

    private func seedPeople() throws {
        let realm = try Realm(configuration: config([MPersonV0.self]))
        try realm.write {
            realm.create(MPersonV0.self, value: ["firstName": "Ada", "lastName": "Lovelace", "age": 36])
            realm.create(MPersonV0.self, value: ["firstName": "Alan", "lastName": "Turing", "age": 41])
        }
    }

    private func seedNotes(_ count: Int = 3) throws {
        let realm = try Realm(configuration: config([MNoteV0.self]))
        try realm.write {
            let dog = realm.create(MDog.self, value: ["name": "Rex"])
            for i in 0..<count {
                realm.create(MNoteV0.self, value: ["title": "n\(i)", "size": i == 0 ? NSNull() as Any : i * 10 as Any, "owner": dog])
            }
        }
    }

    // MARK: - Automatic migration

    func testVersionBumpWithoutBlockAddsDefaultsDropsRemovedAndKeepsValues() throws {
        try seedNotes()
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 0)
        let realm = try Realm(configuration: config([MNoteV1.self, MDogV1.self], version: 1))
        let notes = realm.objects(MNoteV1.self)
        XCTAssertEqual(notes.map(\.title), ["n0", "n1", "n2"])
        XCTAssertEqual(notes.map(\.pinned), [true, true, true], "added property gets the class's default")
        XCTAssertEqual(notes.map(\.rank), [7, 7, 7])
        XCTAssertEqual(notes.map(\.size), [-1, 10, 20], "nil becomes the default of the now required property")
        XCTAssertEqual(notes.map { $0.owner?.name }, ["Rex", "Rex", "Rex"], "links survive")
        XCTAssertEqual(realm.objects(MDogV1.self).first?.notes.count, 3, "backlinks survive")
        XCTAssertEqual(notes.filter("rank == 7").count, 3, "the index of an added indexed property is built")
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 1)
        // The new objects can be written as usual.
        try realm.write {
            notes[0].rank = 1
            notes[1].pinned = false
            realm.create(MNoteV1.self, value: ["title": "new"])
        }
        XCTAssertEqual(notes.filter("rank == 7").count, 3)
        XCTAssertEqual(notes.filter("rank == 1").first?.title, "n0")
        XCTAssertEqual(notes.filter("pinned == false").first?.title, "n1")
    }

    func testTheMigratedFileReopensAtTheNewVersionWithoutMigratingAgain() throws {
        try seedNotes()
        let log = MigrationLog()
        let block: MigrationBlock = { _, old in log.add("migrated from \(old)") }
        _ = try Realm(configuration: config([MNoteV1.self, MDogV1.self], version: 2, block: block))
        _ = try Realm(configuration: config([MNoteV1.self, MDogV1.self], version: 2, block: block))
        XCTAssertEqual(log.entries, ["migrated from 0"])
        XCTAssertThrowsRealmError(.schemaMismatch, mentioning: ["less than last set version 2"]) {
            _ = try Realm(configuration: config([MNoteV1.self, MDogV1.self], version: 1))
        }
    }

    func testVersionBumpWithTheSameSchemaRunsTheBlock() throws {
        try seedPeople()
        let log = MigrationLog()
        _ = try Realm(configuration: config([MPersonV0.self], version: 5) { migration, old in
            migration.enumerateObjects(ofType: "MPerson") { oldObject, newObject in
                newObject!["age"] = (oldObject!["age"] as! Int) + 1
            }
            log.add("\(old)")
        })
        XCTAssertEqual(log.entries, ["0"])
        let realm = try Realm(configuration: config([MPersonV0.self], version: 5))
        XCTAssertEqual(realm.objects(MPersonV0.self).map(\.age), [37, 42])
    }

    func testAClassKeyedByItsIntPrimaryKeyKeepsKeysAndCollections() throws {
        do {
            let realm = try Realm(configuration: config([MTagV0.self]))
            try realm.write {
                for id in [5, -3, 9] {
                    realm.create(MTagV0.self, value: ["id": id, "label": "t\(id)", "scores": [id, id * 2], "aliases": ["a\(id)"],
                                                      "weights": ["w": id, "none": NSNull()]])
                }
            }
        }
        let realm = try Realm(configuration: config([MTagV1.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MTag") { oldObject, newObject in
                let id = oldObject!["id"] as! Int
                XCTAssertEqual(newObject!["id"] as? Int, id)
                XCTAssertEqual((oldObject!["scores"] as? [Any])?.compactMap { $0 as? Int }, [id, id * 2], "old lists read as arrays")
                XCTAssertEqual((oldObject!["aliases"] as? [Any])?.compactMap { $0 as? String }, ["a\(id)"])
                let weights = oldObject!["weights"] as? [String: Any]
                XCTAssertEqual(weights?["w"] as? Int, id, "old maps read as dictionaries")
                XCTAssertEqual(weights?.keys.sorted(), ["none", "w"])
                if id == 9 { newObject!["color"] = "blue" }
            }
        })
        let tags = realm.objects(MTagV1.self)
        XCTAssertEqual(tags.map(\.id), [-3, 5, 9])
        XCTAssertEqual(tags.map(\.label), ["t-3", "t5", "t9"], "properties reordered in code keep their values")
        XCTAssertEqual(tags.map { Array($0.scores) }, [[-3, -6], [5, 10], [9, 18]])
        XCTAssertEqual(tags.map { Array($0.aliases) }, [["a-3"], ["a5"], ["a9"]])
        XCTAssertEqual(tags.map(\.color), ["red", "red", "blue"])
        XCTAssertEqual(realm.object(ofType: MTagV1.self, forPrimaryKey: 5)?.label, "t5")
    }

    func testLinksInAMigrationBlock() throws {
        try seedNotes()
        let log = MigrationLog()
        let realm = try Realm(configuration: config([MNoteV1.self, MDogV1.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MNote") { oldObject, newObject in
                let oldOwner = oldObject!["owner"] as? MigrationObject
                log.add("\(oldOwner?["name"] ?? "none")")
                if (oldObject!["title"] as! String) == "n1" { newObject!["owner"] = nil }
                if (oldObject!["title"] as! String) == "n2" {
                    newObject!["owner"] = migration.create("MDog", value: ["name": "Fido"])
                }
            }
        })
        XCTAssertEqual(log.entries, ["Rex", "Rex", "Rex"])
        XCTAssertEqual(realm.objects(MNoteV1.self).map { $0.owner?.name }, ["Rex", nil, "Fido"])
        XCTAssertEqual(realm.objects(MDogV1.self).map(\.notes.count), [1, 1], "backlinks follow links set in the block")
    }

    /// RealmSwift's MigrationObject is a DynamicObject: member syntax,
    /// key-value coding and identity work on it.
    func testMigrationObjectsTakeDynamicObjectCalls() throws {
        try seedNotes()
        let log = MigrationLog()
        let realm = try Realm(configuration: config([MNoteV1.self, MDogV1.self], version: 1) { migration, _ in
            var owners: [MigrationObject] = []
            migration.enumerateObjects(ofType: "MNote") { oldObject, newObject in
                let old = oldObject!, new = newObject!
                log.add("\(old.title ?? "-")/\(old.value(forKeyPath: "owner.name") ?? "-")/\(old.value(forKey: "size") ?? "nil")")
                if let owner = old["owner"] as? MigrationObject { owners.append(owner) }
                XCTAssertNil(old.realm, "old objects read the snapshot from before the migration")
                XCTAssertNotNil(new.realm)
                XCTAssertFalse(old.isInvalidated)
                XCTAssertTrue(new.isSameObject(as: new))
                XCTAssertFalse(new.isSameObject(as: old))
                new.rank = (old.size as? Int ?? 0) + 1
                new.setValue(false, forKey: "pinned")
            }
            XCTAssertEqual(owners.count, 3)
            XCTAssertTrue(owners[0].isSameObject(as: owners[2]), "the notes share one owner")
        })
        XCTAssertEqual(log.entries, ["n0/Rex/nil", "n1/Rex/10", "n2/Rex/20"])
        XCTAssertEqual(realm.objects(MNoteV1.self).map(\.rank), [1, 11, 21])
        XCTAssertEqual(realm.objects(MNoteV1.self).map(\.pinned), [false, false, false])
    }

    func testAFileWhoseSchemaPredatesSwiftTypeStillOpens() throws {
        do {
            let realm = try Realm(configuration: config([MSoloV0.self]))
            try realm.write {
                realm.add(MSoloV0(value: ["name": "old"]))
                let core = realm.core
                var schema = try XCTUnwrap(try core.readStoredSchema())
                for i in schema.classes.indices { schema.classes[i].swiftType = nil }
                let json = String(decoding: schema.encoded(), as: UTF8.self)
                XCTAssertFalse(json.contains("swiftType"), json)
                try schema.encoded().withUnsafeBytes {
                    try core.write!.txn.store(try core.metaTreeHandle(), Array(MetaKey.schema.utf8), $0, "test")
                }
            }
        }
        let lazy = try Realm(configuration: Realm.Configuration(fileURL: fileURL))
        XCTAssertEqual(lazy.objects(MSoloV0.self).first?.name, "old")
    }

    private func seedTags() throws {
        let realm = try Realm(configuration: config([MTagV0.self]))
        try realm.write {
            for id in [5, -3, 9] { realm.create(MTagV0.self, value: ["id": id, "label": "t\(id)"]) }
        }
    }

    func testRemovingTheIntPrimaryKeyOfAKeyedClass() throws {
        try seedTags()
        let realm = try Realm(configuration: config([MTagNoKey.self], version: 1))
        let tags = realm.objects(MTagNoKey.self)
        XCTAssertEqual(Set(tags.map(\.id)), [5, -3, 9], "the key's values become an ordinary column")
        XCTAssertEqual(Set(tags.map(\.label)), ["t5", "t-3", "t9"])
        try realm.write {
            realm.create(MTagNoKey.self, value: ["id": 5, "label": "another 5"])
            tags.filter("label == 't9'").first!.id = 10
        }
        XCTAssertEqual(tags.filter("id == 5").count, 2, "no longer unique")
        XCTAssertEqual(tags.filter("id == 10").first?.label, "t9")
    }

    func testChangingThePrimaryKeyType() throws {
        try seedTags()
        let realm = try Realm(configuration: config([MTagStringKey.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MTag") { oldObject, newObject in
                newObject!["id"] = "tag-\(oldObject!["id"]!)"
            }
        })
        XCTAssertEqual(realm.object(ofType: MTagStringKey.self, forPrimaryKey: "tag-9")?.label, "t9")
        XCTAssertEqual(realm.objects(MTagStringKey.self).count, 3)
        XCTAssertThrowsRealmError(.primaryKeyExists) {
            try realm.write { _ = realm.create(MTagStringKey.self, value: ["id": "tag-5"]) }
        }
    }

    func testTreesANewClassNoLongerUsesAreEmptied() throws {
        do {
            let realm = try Realm(configuration: config([MTagStringKey.self]))
            try realm.write {
                realm.create(MTagStringKey.self, value: ["id": "a", "label": "x"])
                realm.create(MTagStringKey.self, value: ["id": "b", "label": "y"])
            }
        }
        let realm = try Realm(configuration: config([MTagNoKey.self], version: 1))
        let core = realm.core
        let pkTree = try core.txn.openTree(TreeName.primaryKey("MTag"), create: false)
        XCTAssertNotEqual(pkTree, absentTree, "the tree existed")
        XCTAssertEqual(core.txn.count(pkTree, "test"), 0, "the removed primary key's entries are gone")
        XCTAssertEqual(realm.objects(MTagNoKey.self).map(\.label), ["x", "y"])
    }

    private func seedPets(sharing: Bool) throws {
        let realm = try Realm(configuration: config([MOwnerV0.self]))
        try realm.write {
            let rex = realm.create(MPetV0.self, value: ["name": "Rex"])
            realm.create(MPetV0.self, value: ["name": "stray"])
            realm.create(MOwnerV0.self, value: ["name": "Ann", "pet": rex])
            realm.create(MOwnerV0.self, value: ["name": "Bob", "pet": sharing ? rex : realm.create(MPetV0.self, value: ["name": "Tom"])])
        }
    }

    func testAClassBecomingEmbeddedLosesItsOrphans() throws {
        try seedPets(sharing: false)
        let realm = try Realm(configuration: config([MOwnerV1.self], version: 1))
        XCTAssertEqual(realm.objects(MOwnerV1.self).map { $0.pet?.name }, ["Rex", "Tom"])
        XCTAssertEqual(realm.schema["MPet"]?.isEmbedded, true)
        let pets = try realm.core.txn.openTree(TreeName.objects("MPet"), create: false)
        XCTAssertEqual(realm.core.txn.count(pets, "test"), 2, "the object no one linked to is deleted")
    }

    func testAClassBecomingEmbeddedWithASharedObjectFails() throws {
        try seedPets(sharing: true)
        XCTAssertThrowsRealmError(.schemaMismatch, mentioning: ["'MPet' to an embedded class", "linked 2 times", "migration block"]) {
            _ = try Realm(configuration: config([MOwnerV1.self], version: 1))
        }
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 0)
        // The block can fix it: each owner gets its own pet.
        let realm = try Realm(configuration: config([MOwnerV1.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MOwner") { oldObject, newObject in
                if (oldObject!["name"] as! String) == "Bob" { newObject!["pet"] = ["name": "Rex II"] }
            }
        })
        XCTAssertEqual(realm.objects(MOwnerV1.self).map { $0.pet?.name }, ["Rex", "Rex II"])
    }

    // MARK: - Errors

    func testChangedSchemaWithTheSameVersionListsEveryDifferenceAndSaysToBump() throws {
        try seedNotes()
        XCTAssertThrowsRealmError(.schemaMismatch, mentioning: [
            "Property 'MNote.pinned' has been added.",
            "Property 'MNote.rank' has been added.",
            "Property 'MNote.size' has been changed from 'int?' to 'int'.",
            "Increase Realm.Configuration.schemaVersion (now 0)",
            "deleteRealmIfMigrationNeeded",
        ]) {
            _ = try Realm(configuration: config([MNoteV1.self, MDogV1.self]))
        }
    }

    /// A file whose 'MSolo' was stored by MSoloV0 with MSoloV1's properties:
    /// what a file looks like after MSoloV0's properties changed in code.
    private func storeSoloContradictingTheProgram() throws {
        let realm = try Realm(configuration: config([MSoloV1.self]))
        try realm.write {
            realm.add(MSoloV1())
            let core = realm.core
            var schema = try XCTUnwrap(try core.readStoredSchema())
            let index = try XCTUnwrap(schema.classes.firstIndex { $0.name == "MSolo" })
            XCTAssertEqual(schema.classes[index].swiftType, _mangledTypeName(MSoloV1.self))
            schema.classes[index].swiftType = _mangledTypeName(MSoloV0.self)
            try schema.encoded().withUnsafeBytes {
                try core.write!.txn.store(try core.metaTreeHandle(), Array(MetaKey.schema.utf8), $0, "test")
            }
        }
    }

    func testWithoutObjectTypesAContradictedStoredSchemaThrowsAtOpen() throws {
        try storeSoloContradictingTheProgram()
        // Before: the open succeeded and the first use of MSoloV0 stopped.
        XCTAssertThrowsRealmError(.schemaMismatch, mentioning: ["'MSolo.extra' has been removed", "objectTypes"]) {
            _ = try Realm(configuration: Realm.Configuration(fileURL: fileURL))
        }
    }

    func testWithoutObjectTypesAVersionBumpMigratesTheStoredClasses() throws {
        try storeSoloContradictingTheProgram()
        let log = MigrationLog()
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MSolo") { oldObject, newObject in
                log.add("extra \(oldObject!["extra"]!)")
                newObject!["name"] = "was \(oldObject!["extra"]!)"
            }
        })
        XCTAssertEqual(log.entries, ["extra 5"])
        XCTAssertEqual(realm.objects(MSoloV0.self).map(\.name), ["was 5"])
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 1)
    }

    func testAReadOnlyRealmCannotBeMigrated() throws {
        try seedPeople()
        var config = config([MPersonV0.self], version: 1)
        config.readOnly = true
        XCTAssertThrowsRealmError(.schemaMismatch, mentioning: ["read-only Realm cannot be migrated to version 1", "without readOnly"]) {
            _ = try Realm(configuration: config)
        }
        config.schemaVersion = 0
        XCTAssertEqual(try Realm(configuration: config).objects(MPersonV0.self).count, 2)
    }

    // MARK: - The documentation's examples

    func testComputeFullNameFromFirstAndLastName() throws {
        try seedPeople()
        let log = MigrationLog()
        let realm = try Realm(configuration: config([MPersonV1.self], version: 1) { migration, oldSchemaVersion in
            log.add("old \(oldSchemaVersion)")
            log.add("oldSchema \(migration.oldSchema["MPerson"]?.properties.map(\.name) ?? [])")
            log.add("newSchema \(migration.newSchema["MPerson"]?.properties.map(\.name) ?? [])")
            if oldSchemaVersion < 1 {
                migration.enumerateObjects(ofType: "MPerson") { oldObject, newObject in
                    let firstName = oldObject!["firstName"] as! String
                    let lastName = oldObject!["lastName"] as! String
                    newObject!["fullName"] = "\(firstName) \(lastName)"
                    log.add("new age \(newObject!["age"] as! Int)")
                }
            }
        })
        XCTAssertEqual(realm.objects(MPersonV1.self).map(\.fullName), ["Ada Lovelace", "Alan Turing"])
        XCTAssertEqual(realm.objects(MPersonV1.self).map(\.age), [36, 41])
        XCTAssertEqual(log.entries, ["old 0", "oldSchema [\"firstName\", \"lastName\", \"age\"]", "newSchema [\"fullName\", \"age\"]",
                                     "new age 36", "new age 41"])
        XCTAssertNil(realm.schema["MPerson"]?["firstName"], "removed properties are gone")
    }

    func testRealmObjectNameMapsTheClassToAStoredName() throws {
        try seedPeople()
        XCTAssertEqual(MPersonV2.className(), "MPerson")
        let realm = try Realm(configuration: config([MPersonV2.self], version: 2) { migration, _ in
            migration.enumerateObjects(ofType: "MPerson") { oldObject, newObject in
                newObject!["fullName"] = oldObject!["firstName"]
                newObject!["email"] = "\(oldObject!["lastName"]!)@example.com"
            }
        })
        XCTAssertEqual(realm.objects(MPersonV2.self).map(\.fullName), ["Ada", "Alan"])
        XCTAssertEqual(realm.objects(MPersonV2.self).map(\.email), ["Lovelace@example.com", "Turing@example.com"])
    }

    func testRenameProperty() throws {
        try seedNotes()
        let realm = try Realm(configuration: config([MNoteRenamed.self], version: 1) { migration, _ in
            migration.renameProperty(onType: "MNote", from: "title", to: "heading")
        })
        XCTAssertEqual(realm.objects(MNoteRenamed.self).map(\.heading), ["n0", "n1", "n2"])
        XCTAssertEqual(realm.objects(MNoteRenamed.self).map(\.size), [nil, 10, 20])
    }

    func testRenameWithoutTheBlockCallLosesTheValues() throws {
        // Without renameProperty a rename is a remove plus an add.
        try seedNotes()
        let realm = try Realm(configuration: config([MNoteRenamed.self], version: 1))
        XCTAssertEqual(realm.objects(MNoteRenamed.self).map(\.heading), ["", "", ""])
    }

    // MARK: - Create, delete, deleteData

    func testCreateAndDeleteInAMigration() throws {
        try seedPeople()
        let realm = try Realm(configuration: config([MPersonV1.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MPerson") { oldObject, newObject in
                if (oldObject!["firstName"] as! String) == "Alan" { migration.delete(newObject!) }
            }
            let created = migration.create("MPerson", value: ["fullName": "Grace Hopper", "age": 85])
            XCTAssertEqual(created["fullName"] as? String, "Grace Hopper")
            // Later enumerations skip deleted objects and those created in the
            // migration, as Realm's do; a class in neither schema has none.
            var seen: [String?] = []
            migration.enumerateObjects(ofType: "MPerson") { oldObject, newObject in
                XCTAssertEqual(oldObject?.objectSchema.className, "MPerson")
                XCTAssertNotNil(oldObject?.objectSchema["firstName"], "the old object has the old schema")
                XCTAssertNil(newObject?.objectSchema["firstName"])
                seen.append(newObject?["age"].map { "\($0)" })
            }
            XCTAssertEqual(seen, ["36"])
            migration.enumerateObjects(ofType: "NoSuchClass") { _, _ in XCTFail("no objects") }
        })
        XCTAssertEqual(realm.objects(MPersonV1.self).map(\.fullName), ["", "Grace Hopper"])
    }

    func testDeleteDataOfAClassNoLongerInTheSchema() throws {
        try seedPeople()
        try seedNotes()
        let log = MigrationLog()
        let realm = try Realm(configuration: config([MNoteV0.self], version: 1) { migration, _ in
            log.add("\(migration.deleteData(forType: "MPerson"))")
            log.add("\(migration.deleteData(forType: "NoSuchClass"))")
            migration.create("MNote", value: ["title": "made in the migration"])
            log.add("\(migration.deleteData(forType: "MNote"))")
            migration.enumerateObjects(ofType: "MNote") { _, _ in log.add("enumerated MNote after deleteData") }
            migration.create("MNote", value: ["title": "kept"])
            migration.enumerateObjects(ofType: "MPerson") { _, _ in log.add("enumerated a deleted class") }
        })
        XCTAssertEqual(log.entries, ["true", "false", "true"])
        XCTAssertNil(realm.schema["MPerson"])
        XCTAssertEqual(realm.objects(MNoteV0.self).map(\.title), ["kept"], "deleteData of a class in the new schema empties it")
        // The class is gone from the file: it comes back empty.
        let again = try Realm(configuration: config([MNoteV0.self, MPersonV0.self], version: 1))
        XCTAssertEqual(again.objects(MPersonV0.self).count, 0)
    }

    // MARK: - Primary keys

    func testAddingAPrimaryKeyNeedsDistinctValues() throws {
        do {
            let realm = try Realm(configuration: config([MNoteV0.self]))
            try realm.write {
                realm.create(MNoteV0.self, value: ["title": "same"])
                realm.create(MNoteV0.self, value: ["title": "same"])
            }
        }
        XCTAssertThrowsRealmError(.schemaMismatch, mentioning: ["'MNote.title' has duplicate values", "same"]) {
            _ = try Realm(configuration: config([MNoteKeyed.self], version: 1))
        }
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 0, "a failed migration leaves the old version")
        let migrated = try Realm(configuration: config([MNoteKeyed.self], version: 1) { migration, _ in
            var i = 0
            migration.enumerateObjects(ofType: "MNote") { _, newObject in
                newObject!["title"] = "title \(i)"
                i += 1
            }
        })
        XCTAssertEqual(migrated.object(ofType: MNoteKeyed.self, forPrimaryKey: "title 1")?.title, "title 1")
        XCTAssertNil(migrated.object(ofType: MNoteKeyed.self, forPrimaryKey: "same"))
        XCTAssertThrowsRealmError(.primaryKeyExists) {
            try migrated.write { _ = migrated.create(MNoteKeyed.self, value: ["title": "title 0"]) }
        }
    }

    // MARK: - All or nothing

    func testAFailureInTheBlockLeavesTheFileAtTheOldVersion() throws {
        try seedPeople()
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["fullName"]) {
            _ = try Realm(configuration: config([MPersonV1.self], version: 1) { migration, _ in
                migration.enumerateObjects(ofType: "MPerson") { _, newObject in
                    newObject!["fullName"] = 42 // not a String
                }
            })
        }
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 0)
        let old = try Realm(configuration: config([MPersonV0.self]))
        XCTAssertEqual(old.objects(MPersonV0.self).map(\.firstName), ["Ada", "Alan"], "the old data is intact")
    }

    // MARK: - deleteRealmIfMigrationNeeded

    func testDeleteRealmIfMigrationNeeded() throws {
        try seedNotes()
        var config = config([MNoteV1.self, MDogV1.self])
        config.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: config)
        XCTAssertEqual(realm.objects(MNoteV1.self).count, 0)
        XCTAssertEqual(realm.objects(MDogV1.self).count, 0)
        try realm.write { realm.create(MNoteV1.self, value: ["title": "fresh"]) }
        XCTAssertEqual(realm.objects(MNoteV1.self).first?.pinned, true)
    }

    func testDeleteRealmIfMigrationNeededOnAVersionChangeAloneWithoutRunningTheBlock() throws {
        try seedPeople()
        let log = MigrationLog()
        var config = config([MPersonV0.self], version: 2) { _, _ in log.add("block ran") }
        config.deleteRealmIfMigrationNeeded = true
        XCTAssertEqual(try Realm(configuration: config).objects(MPersonV0.self).count, 0, "a higher version resets")
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 2)
        do {
            let realm = try Realm(configuration: self.config([MPersonV0.self], version: 2))
            try realm.write { realm.create(MPersonV0.self, value: ["firstName": "Ada"]) }
        }
        config.schemaVersion = 1
        XCTAssertEqual(try Realm(configuration: config).objects(MPersonV0.self).count, 0, "a lower version resets too")
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 1)
        XCTAssertEqual(log.entries, [], "the migration block never runs")
    }

    // MARK: - File management

    func testFileExistsAndDeleteFiles() throws {
        let config = config([MPersonV0.self])
        XCTAssertFalse(Realm.fileExists(for: config))
        XCTAssertFalse(try Realm.deleteFiles(for: config))
        do {
            let realm = try Realm(configuration: config)
            XCTAssertTrue(Realm.fileExists(for: config))
            XCTAssertThrowsRealmError(.fileAccess, mentioning: ["open in this process"]) {
                try Realm.deleteFiles(for: config)
            }
            XCTAssertEqual(realm.objects(MPersonV0.self).count, 0)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: fileURL.path + ".lock"))
        XCTAssertTrue(try Realm.deleteFiles(for: config))
        XCTAssertFalse(Realm.fileExists(for: config))
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileURL.path + ".lock"))
    }

    func testSchemaVersionAtURL() throws {
        XCTAssertThrowsRealmError(.fileNotFound) { _ = try Realm.schemaVersionAtURL(fileURL) }
        let realm = try Realm(configuration: config([MPersonV0.self], version: 3))
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 3, "also while the file is open")
        XCTAssertEqual(try schemaVersionAtURL(fileURL), 3, "RealmSwift's free function")
        _ = realm
    }
}

let holdOpenVariable = "REALMLITE_HOLD_OPEN"
let acrossMigrationVariable = "REALMLITE_ACROSS_MIGRATION"

/// Starts a child process that opens `fileURL` (registering MPersonV0 in it)
/// and keeps it open until `input` is closed; returns once it has opened
/// the file, with what it printed ("HOLDING <MPerson count>").
func holdOpenInChildProcess(_ fileURL: URL) throws -> (child: Process, input: Pipe, seen: String) {
    let child = childTestProcess("RealmLiteTests.MigrationAcrossProcessesTests/testHoldTheFileOpen",
                                 [holdOpenVariable: fileURL.path])
    let input = Pipe(), output = Pipe()
    child.standardInput = input
    child.standardOutput = output
    try child.run()
    var seen = ""
    while !seen.contains("HOLDING") {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        seen += String(decoding: chunk, as: UTF8.self)
    }
    return (child, input, seen)
}

/// A migration rewrites records in place, so it waits for no one: while
/// another process has the file open (reading it with the old schema), it is
/// refused with an error, and the file stays as it was.
final class MigrationAcrossProcessesTests: RealmTestCase {
    /// The child-process entry point: opens the file with the old classes,
    /// says so, and keeps it open until its standard input closes.
    func testHoldTheFileOpen() throws {
        guard let path = ProcessInfo.processInfo.environment[holdOpenVariable] else {
            throw XCTSkip("the child-process entry point of MigrationAcrossProcessesTests: runs only with \(holdOpenVariable) set")
        }
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [MPersonV0.self])
        let realm = try Realm(configuration: configuration)
        FileHandle.standardOutput.write(Data("HOLDING \(realm.objects(MPersonV0.self).count)\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        exit(0)
    }

    /// The child-process entry point of the next test: opens the file with
    /// the old classes, says so, waits for "GO" (the parent migrated the
    /// file meanwhile), then tries a write and a refresh.
    func testUseTheFileAcrossAMigration() throws {
        guard let path = ProcessInfo.processInfo.environment[acrossMigrationVariable] else {
            throw XCTSkip("the child-process entry point of MigrationAcrossProcessesTests: runs only with \(acrossMigrationVariable) set")
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [MPersonV0.self]))
        FileHandle.standardOutput.write(Data("HOLDING \(realm.objects(MPersonV0.self).first!.firstName)\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        do {
            try realm.write { realm.objects(MPersonV0.self).first!.age = 1 }
            FileHandle.standardOutput.write(Data("WROTE\n".utf8))
        } catch {
            FileHandle.standardOutput.write(Data("WRITE THREW: \(error)\n".utf8))
        }
        realm.refresh() // stops: the records are no longer this program's
        FileHandle.standardOutput.write(Data("READ \(realm.objects(MPersonV0.self).first!.firstName)\n".utf8))
        exit(0)
    }

    /// A process that opened the file just before another's migration
    /// committed (the moment the migration's checks cannot cover) gets a
    /// clear error when it moves to the migrated version, never misread
    /// records: its write throws, its refresh stops with the reason.
    func testAProcessThatMissedTheMigrationFailsCleanly() throws {
        let old = Realm.Configuration(fileURL: fileURL, objectTypes: [MPersonV0.self])
        do {
            let realm = try Realm(configuration: old)
            try realm.write { realm.create(MPersonV0.self, value: ["firstName": "Ada", "lastName": "Lovelace", "age": 36]) }
        }
        let child = childTestProcess("RealmLiteTests.MigrationAcrossProcessesTests/testUseTheFileAcrossAMigration",
                                     [acrossMigrationVariable: fileURL.path])
        let input = Pipe(), output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        child.standardError = output
        try child.run()
        var seen = ""
        while !seen.contains("HOLDING") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertTrue(seen.contains("HOLDING Ada"), seen)

        migrationsIgnoreOtherProcessesForTesting = true
        defer { migrationsIgnoreOtherProcessesForTesting = false }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 1, migrationBlock: { migration, _ in
                migration.enumerateObjects(ofType: "MPerson") { old, new in
                    new!["fullName"] = "\(old!["firstName"] as! String) \(old!["lastName"] as! String)"
                }
            }, objectTypes: [MPersonV1.self]))
            XCTAssertEqual(realm.objects(MPersonV1.self).first?.fullName, "Ada Lovelace")
        }
        try input.fileHandleForWriting.close()
        seen += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertTrue(seen.contains("WRITE THREW: Realm.Error(schemaMismatch): Another process migrated"), seen)
        XCTAssertTrue(seen.contains("changing class 'MPerson'"), seen)
        XCTAssertFalse(seen.contains("READ "), "the child must not read on: \(seen)")
        XCTAssertNotEqual(child.terminationStatus, 0, seen)
    }

    func testAMigrationIsRefusedWhileAnotherProcessHasTheFileOpen() throws {
        let old = Realm.Configuration(fileURL: fileURL, objectTypes: [MPersonV0.self])
        do {
            let realm = try Realm(configuration: old)
            try realm.write { realm.create(MPersonV0.self, value: ["firstName": "Ada", "lastName": "Lovelace", "age": 36]) }
        }
        XCTAssertFalse(SharedEnv.isOpen(path: fileURL.path))

        let (child, input, seen) = try holdOpenInChildProcess(fileURL)
        XCTAssertTrue(seen.contains("HOLDING 1"), "the child opened the file: \(seen)")

        let new = Realm.Configuration(fileURL: fileURL, schemaVersion: 1, objectTypes: [MPersonV1.self])
        XCTAssertThrowsRealmError(.schemaMismatch, mentioning: ["another process", "has the file open"]) {
            _ = try Realm(configuration: new)
        }
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 0, "the file is as it was")

        try input.fileHandleForWriting.close()
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0)
        let realm = try Realm(configuration: new)
        XCTAssertEqual(realm.objects(MPersonV1.self).count, 1, "with the other process gone, it migrates")
        XCTAssertEqual(try Realm.schemaVersionAtURL(fileURL), 1)
    }
}
