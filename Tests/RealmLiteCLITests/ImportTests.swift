import CStorage
import Foundation
import RealmLite
import XCTest

// realmlite import: dump output read back into a new file with the same
// schema, values checked against the stored schema, batches, the write lock.

final class ImpDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<ImpPerson>
}

final class ImpPerson: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted(indexed: true) var age = 0
    @Persisted var nick: String?
    @Persisted var height = 0.0
    @Persisted var ratio: Float = 0
    @Persisted var alive = false
    @Persisted var born = Date(timeIntervalSince1970: 0)
    @Persisted var photo: Data?
    @Persisted var oid: ObjectId?
    @Persisted var uid: UUID?
    @Persisted var price: Decimal128?
    @Persisted var tags: List<String>
    @Persisted var maybe: List<Int?>
    @Persisted var codes: MutableSet<Int>
    @Persisted var scores: Map<String, Double?>
    @Persisted var dog: ImpDog?
    @Persisted var dogs: List<ImpDog>
    @Persisted var dogMap: Map<String, ImpDog?>
    @Persisted var friend: ImpPerson?
}

let importTypes: [ObjectBase.Type] = [ImpPerson.self, ImpDog.self]

extension CLITests {
    func importConfig(_ file: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: importTypes)
    }

    /// 6 dogs (keyed by Int id, one deleted) and 8 people (String keys, two
    /// deleted, so object keys have gaps) with every value shape and links
    /// to dogs and to earlier and later people.
    func makeImportSource() throws -> String {
        let source = directory.appendingPathComponent("source.realm").path
        let realm = try Realm(configuration: importConfig(source))
        try realm.write {
            var dogs: [ImpDog] = []
            for i in 0..<6 {
                let dog = ImpDog()
                dog.id = i * 10 - 20
                dog.name = i % 2 == 0 ? "rex" : "dog \"\(i)\", ok"
                realm.add(dog)
                dogs.append(dog)
            }
            var people: [ImpPerson] = []
            for i in 0..<8 {
                let p = ImpPerson()
                p.name = "p\(i)"
                p.age = 30 + i % 3
                p.nick = i % 2 == 0 ? nil : "nick,\n\(i)"
                p.height = i == 3 ? -.infinity : 1.5 + Double(i) / 3
                p.ratio = Float(i) / 7
                p.alive = i % 3 == 0
                p.born = Date(timeIntervalSince1970: 86_400.125 * Double(i))
                p.photo = i == 2 ? nil : Data([UInt8(i), 0, 255])
                p.oid = i == 4 ? nil : try ObjectId(string: String(format: "%024x", i + 1))
                p.uid = i == 5 ? nil : UUID(uuidString: String(format: "12345678-1234-5678-9ABC-%012X", i))
                p.price = i == 6 ? nil : try Decimal128(string: "\(i).25")
                p.tags.append(objectsIn: (0..<i % 4).map { "t\($0)" })
                p.maybe.append(objectsIn: [i, nil])
                p.codes.insert(objectsIn: [i, i + 1])
                p.scores["math"] = Double(i)
                p.scores["none"] = nil as Double?
                p.dog = i == 1 ? nil : dogs[i % 6]
                p.dogs.append(objectsIn: [dogs[0], dogs[i % 6], dogs[0]])
                p.dogMap["a"] = dogs[(i + 1) % 6]
                p.dogMap["b"] = nil as ImpDog?
                realm.add(p)
                people.append(p)
            }
            // Links to later objects of the same class (and back).
            for (i, p) in people.enumerated() { p.friend = people[(i + 3) % 8] }
        }
        try realm.write {
            realm.delete(realm.objects(ImpPerson.self).filter("name == 'p0' OR name == 'p5'"))
            realm.delete(realm.objects(ImpDog.self).filter("id == 30"))
        }
        return source
    }

    /// A new file with the same schema and no objects.
    func makeImportTarget(_ name: String) throws -> String {
        let target = directory.appendingPathComponent(name).path
        _ = try Realm(configuration: importConfig(target))
        return target
    }

    func write(_ text: String, _ name: String) throws -> String {
        let file = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// dump -> import into a new file -> dump is the same text, in JSON
    /// Lines (in batches of 2 rows), as one JSON array, and in CSV; the
    /// imported file checks clean and the library opens it, finds objects
    /// by primary key and index, follows links both ways and adds objects
    /// after the imported keys.
    func testImportRoundTripsADump() throws {
        let source = try makeImportSource()
        var dumps: [String: String] = [:]
        for cls in ["ImpDog", "ImpPerson"] {
            let d = try run(["dump", source, "--class", cls])
            XCTAssertEqual(d.status, 0, d.stderr)
            dumps[cls] = d.stdout
        }
        XCTAssertEqual(dumps["ImpPerson"]?.split(separator: "\n").count, 6)

        let target = try makeImportTarget("target.realm")
        for cls in ["ImpDog", "ImpPerson"] {
            let r = try run(["import", target, "--class", cls, "--batch", "2"], input: try write(dumps[cls]!, cls + ".jsonl"))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stdout, "\(target): imported \(cls == "ImpDog" ? 5 : 6) \(cls) objects\n")
            XCTAssertEqual(try run(["dump", target, "--class", cls]).stdout, dumps[cls], cls)
        }
        let check = try run(["check", target])
        XCTAssertEqual(check.status, 0, check.stdout)

        // One JSON array, pretty-printed over several lines.
        let arrayTarget = try makeImportTarget("array.realm")
        for cls in ["ImpDog", "ImpPerson"] {
            let rows = dumps[cls]!.split(separator: "\n").joined(separator: ",\n  ")
            let r = try run(["import", arrayTarget, "--class", cls, "-q"], input: try write("[\n  \(rows)\n]\n", cls + ".json"))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stdout, "")
            XCTAssertEqual(try run(["dump", arrayTarget, "--class", cls]).stdout, dumps[cls], cls)
        }

        // CSV: quoted fields with commas, quotes and line breaks; collections as JSON.
        let csvTarget = try makeImportTarget("csv.realm")
        for cls in ["ImpDog", "ImpPerson"] {
            let csv = try run(["dump", source, "--class", cls, "--format", "csv"]).stdout
            let r = try run(["import", csvTarget, "--class", cls, "--format", "csv"], input: try write(csv, cls + ".csv"))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try run(["dump", csvTarget, "--class", cls, "--format", "csv"]).stdout, csv, cls)
        }
        XCTAssertEqual(try run(["check", csvTarget]).status, 0)

        let realm = try Realm(configuration: importConfig(target))
        let p3 = try XCTUnwrap(realm.object(ofType: ImpPerson.self, forPrimaryKey: "p3"))
        XCTAssertEqual(p3.nick, "nick,\n3")
        XCTAssertEqual(p3.height, -.infinity)
        XCTAssertEqual(p3.friend?.name, "p6")
        XCTAssertEqual(p3.dog?.id, 10)
        XCTAssertEqual(p3.dogs.map(\.id), [-20, 10, -20])
        XCTAssertEqual(p3.dogMap["a"]??.id, 20)
        XCTAssertEqual(p3.tags.count, 3)
        XCTAssertEqual(Array(p3.codes).sorted(), [3, 4])
        XCTAssertNil(realm.object(ofType: ImpPerson.self, forPrimaryKey: "p5"))
        XCTAssertEqual(realm.object(ofType: ImpDog.self, forPrimaryKey: -20)?.name, "rex")
        XCTAssertEqual(Set(realm.objects(ImpPerson.self).filter("age == 31").map(\.name)), ["p1", "p4", "p7"])
        XCTAssertEqual(realm.objects(ImpDog.self).filter("name == 'rex'").count, 3)
        let rexOwners = try XCTUnwrap(realm.object(ofType: ImpDog.self, forPrimaryKey: -20)?.owners)
        XCTAssertEqual(Set(rexOwners.map(\.name)).count, 6)
        XCTAssertEqual(rexOwners.count, 13, "once per link (p3 lists rex twice, as do others)")
        // New objects take keys after the imported ones, even after the
        // last one is deleted (the stored key counter moved: keys are never reused).
        try realm.write { realm.delete(realm.object(ofType: ImpPerson.self, forPrimaryKey: "p7")!) }
        try realm.write {
            let p = ImpPerson()
            p.name = "new"
            p.friend = p3
            realm.add(p)
        }
        XCTAssertEqual(p3.friend?.name, "p6")
        let keys = try run(["dump", target, "--class", "ImpPerson"]).lines.compactMap { line -> Int? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["_key"] as? Int
        }
        XCTAssertEqual(keys.count, 6)
        XCTAssertGreaterThan(keys.last!, 8, "\(keys)")
        XCTAssertEqual(try run(["check", target]).status, 0)
    }

    /// Rows of the wrong shape: one stderr line naming the row and the
    /// property, exit 1, nothing of the failing batch committed (the file
    /// still checks clean); earlier batches stay.
    func testImportRefusesBadRowsWithOneLine() throws {
        let source = try makeImportSource()
        let target = try makeImportTarget("target.realm")
        let dogs = try run(["dump", source, "--class", "ImpDog"]).stdout
        XCTAssertEqual(try run(["import", target, "--class", "ImpDog"], input: try write(dogs, "dogs.jsonl")).status, 0)
        // The required properties besides name, age and born.
        let rest = #""height":0,"ratio":0,"alive":false"#
        let ok = #"{"name":"a","age":1,"born":"2024-01-01T00:00:00Z",\#(rest)}"#
        let cases: [(String, String)] = [
            (#"{"name":"x","age":"old","born":"2024-01-01T00:00:00Z",\#(rest)}"#, "row 2 (line 2): property age: expected a 64-bit integer, got the string \"old\""),
            (#"{"name":"x","age":null,"born":"2024-01-01T00:00:00Z",\#(rest)}"#, "row 2 (line 2): property age: null, but the property is not optional"),
            (#"{"name":"x","born":"2024-01-01T00:00:00Z",\#(rest)}"#, "row 2 (line 2): property age: no value (the property is required)"),
            (#"{"name":"x","age":1,"born":"yesterday",\#(rest)}"#, "row 2 (line 2): property born: expected an ISO 8601 date"),
            (#"{"name":"x","age":1,"born":"2024-01-01T00:00:00Z",\#(rest),"colour":"red"}"#, "row 2 (line 2): ImpPerson has no property colour"),
            (#"{"name":"a","age":2,"born":"2024-01-01T00:00:00Z",\#(rest)}"#, "row 2 (line 2): duplicate primary key: name the string \"a\" is already used by another ImpPerson object"),
            (#"{"name":"x","age":1,"born":"2024-01-01T00:00:00Z",\#(rest),"dog":99}"#, "row 2 (line 2): property dog: links to ImpDog object 99, which does not exist"),
            (#"{"name":"x","age":1,"born":"2024-01-01T00:00:00Z",\#(rest),"maybe":[1,"2"]}"#, "row 2 (line 2): property maybe: element 1: expected a 64-bit integer"),
            (#"{"name":"x","age":1,"born":"2024-01-01T00:00:00Z",\#(rest),"tags":[null]}"#, "row 2 (line 2): property tags: element 0: null, but the elements are not optional"),
            (#"{"_class":"ImpDog","name":"x"}"#, "row 2 (line 2): _class is the string \"ImpDog\", not \"ImpPerson\""),
            (#"{"name":"x","age":1,"born":"2024-01-01T00:00:00Z",\#(rest),"oid":"zz"}"#, "row 2 (line 2): property oid: expected an ObjectId"),
            (#"{"name":"x","age":1,"#, "line 3: the input ends inside an object"),
            (#"{"name":"x" "age":1}"#, "line 2: expected , or } in an object"),
            ("[1]", "line 2: a row must be a JSON object"),
        ]
        for (bad, expected) in cases {
            let r = try run(["import", target, "--class", "ImpPerson"], input: try write(ok + "\n" + bad + "\n", "bad.jsonl"))
            XCTAssertEqual(r.status, 1, bad)
            XCTAssertEqual(r.errorLines.count, 1, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("realmlite: \(target): ImpPerson: \(expected)"), "\(bad)\n\(r.stderr)")
            XCTAssertTrue(r.stderr.hasSuffix("; nothing was imported\n"), r.stderr)
            XCTAssertEqual(r.stdout, "")
        }
        XCTAssertEqual(try Realm(configuration: importConfig(target)).objects(ImpPerson.self).count, 0)
        XCTAssertEqual(try run(["check", target]).status, 0)

        // CSV: the header names properties; records match it.
        let csvCases: [(String, String)] = [
            ("", "no CSV header line"),
            ("id,name,bogus\n1,a,x\n", "row 1 (line 2): ImpDog has no property bogus"),
            ("id,name\n1,\"a\n", "line 2: a quoted field is not closed"),
            ("id,name\n1,a,b\n", "line 2: 3 fields where the header has 2"),
            ("id,name\nx,a\n", "row 1 (line 2): property id: the primary key must be an integer, not the string \"x\""),
        ]
        for (csv, expected) in csvCases {
            let r = try run(["import", target, "--class", "ImpDog", "--format", "csv"], input: try write(csv, "bad.csv"))
            XCTAssertEqual(r.status, 1, csv)
            XCTAssertEqual(r.errorLines, ["realmlite: \(target): ImpDog: \(expected); nothing was imported"], csv)
        }

        // A duplicate of the keyed (Int) primary key, within the input.
        let dup = try run(["import", target, "--class", "ImpDog"], input: try write(#"{"id":500,"name":"a"}"# + "\n" + #"{"id":500,"name":"b"}"#, "dup.jsonl"))
        XCTAssertEqual(dup.status, 1)
        XCTAssertTrue(dup.stderr.contains("ImpDog: row 2 (line 2): duplicate primary key: an object with this key exists (id 500)"), dup.stderr)

        // Batches of 2: rows 1-4 committed, row 5 is bad, row 6 never read.
        let rows = (1...6).map { i in i == 5 ? #"{"name":"r5","age":true}"# : #"{"name":"r\#(i)","age":\#(i),"born":"2024-01-01T00:00:00Z",\#(rest)}"# }
        let r = try run(["import", target, "--class", "ImpPerson", "--batch", "2"], input: try write(rows.joined(separator: "\n"), "batches.jsonl"))
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.errorLines, ["realmlite: \(target): ImpPerson: row 5 (line 5): property age: expected a 64-bit integer, got a boolean; the first 4 rows were imported (committed in batches of 2), nothing after them"])
        let realm = try Realm(configuration: importConfig(target))
        XCTAssertEqual(realm.objects(ImpPerson.self).map(\.name).sorted(), ["r1", "r2", "r3", "r4"])
        XCTAssertEqual(try run(["check", target]).status, 0)

        // A link to a later row of the class waits for it; one that never
        // comes fails the import and its batch.
        let later = (6...8).map { i in #"{"name":"f\#(i)","age":1,"born":"2024-01-01T00:00:00Z",\#(rest),"friend":\#(i)}"# } // f6 is key 5: each links to the next
        let waited = try run(["import", target, "--class", "ImpPerson", "--batch", "1"], input: try write(later.joined(separator: "\n"), "later.jsonl"))
        XCTAssertEqual(waited.status, 1)
        XCTAssertEqual(waited.errorLines, ["realmlite: \(target): ImpPerson: row 3: property friend: links to ImpPerson object 8, which is neither in the file nor in the input; nothing was imported"])
        let resolved = try run(["import", target, "--class", "ImpPerson", "--batch", "1"],
                               input: try write(later.dropLast().joined(separator: "\n") + "\n" + #"{"name":"f8","age":1,"born":"2024-01-01T00:00:00Z",\#(rest)}"#, "later2.jsonl"))
        XCTAssertEqual(resolved.status, 0, resolved.stderr)
        realm.refresh() // this thread's Realm (opened above) sees the other process's commits
        XCTAssertEqual(realm.object(ofType: ImpPerson.self, forPrimaryKey: "f6")?.friend?.friend?.name, "f8")
        XCTAssertEqual(try run(["check", target]).status, 0)

        // Kept object keys may not reuse a key: dumped rows go into a new file.
        let reuse = try run(["import", target, "--class", "ImpPerson"], input: try write(#"{"_key":2,"name":"k","age":1,"born":"2024-01-01T00:00:00Z",\#(rest)}"#, "reuse.jsonl"))
        XCTAssertEqual(reuse.status, 1)
        XCTAssertTrue(reuse.stderr.contains("row 1 (line 1): _key 2 is taken or was used before in ImpPerson (the next free key is 8)"), reuse.stderr)
    }

    /// Usage and refusals before any row is read.
    func testImportUsageAndRefusedClasses() throws {
        try makeFile()
        let input = try write("", "empty.jsonl")
        let noClass = try run(["import", path], input: input)
        XCTAssertEqual(noClass.status, 2)
        XCTAssertEqual(noClass.errorLines, ["realmlite: import needs --class C (realmlite --help for usage)"])
        XCTAssertEqual(try run(["import", path, "--class", "CLIPet", "--batch", "0"], input: input).status, 2)
        let embedded = try run(["import", path, "--class", "CLIAddress"], input: input)
        XCTAssertEqual(embedded.status, 1)
        XCTAssertEqual(embedded.errorLines, ["realmlite: \(path): CLIAddress is embedded: its objects belong to a parent object and are not imported on their own"])
        let toEmbedded = try run(["import", path, "--class", "CLIOwner"], input: input)
        XCTAssertEqual(toEmbedded.errorLines, ["realmlite: \(path): CLIOwner.address links to embedded CLIAddress objects, which import cannot create"])
        let unknown = try run(["import", path, "--class", "Nope"], input: input)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.hasPrefix("realmlite: \(path): no class Nope in the stored schema"), unknown.stderr)
        let empty = try run(["import", path, "--class", "CLIPet"], input: input)
        XCTAssertEqual(empty.status, 0, empty.stderr)
        XCTAssertEqual(empty.stdout, "\(path): imported 0 CLIPet objects\n")
        XCTAssertTrue(try run(["--help"]).stdout.contains("import FILE --class C"))
    }

    /// Import needs the write lock: with a writer in another process (here
    /// this one, through RealmLite) it fails at once with one line.
    func testImportFailsAtOnceWhileAnotherProcessWrites() throws {
        try makeFile()
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 7, objectTypes: cliTypes))
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let r = try run(["import", path, "--class", "CLIPet"], input: try write(#"{"name":"Max","weight":3}"#, "pet.jsonl"), timeout: 20)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.errorLines, ["realmlite: \(path): another process is writing to it (the write lock is held); try again when it is done; nothing was imported"])
    }

    /// Missing, foreign, empty, truncated and damaged files: one line, exit 1.
    func testImportOfBadFilesGivesOneLine() throws {
        try makeFileWrittenWhole()
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        let input = try write(#"{"name":"Max","weight":3}"#, "pet.jsonl")
        let missing = directory.appendingPathComponent("missing.realm").path
        let foreign = try write(String(repeating: "A", count: 20_000), "foreign.txt")
        let truncated = directory.appendingPathComponent("truncated.realm").path
        try whole.prefix(3 * 4096).write(to: URL(fileURLWithPath: truncated))
        let cases: [(String, String)] = [
            (missing, "realmlite: \(missing): No such file or directory"),
            (foreign, "realmlite: \(foreign): not a RealmLite file ("),
            (truncated, "realmlite: \(truncated): damaged file ("),
            (directory.path, "realmlite: \(directory.path): not a regular file"),
        ]
        for (file, expected) in cases {
            let r = try run(["import", file, "--class", "CLIPet"], input: input)
            XCTAssertEqual(r.status, 1, file)
            XCTAssertEqual(r.errorLines.count, 1, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix(expected), r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
    }
}
