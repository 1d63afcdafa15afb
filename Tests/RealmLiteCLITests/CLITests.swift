import CStorage
import Foundation
import RealmLite
import XCTest

// The realmlite command-line tool, run as the built executable (it sits in
// the build products directory next to the test bundle) on files made with
// the RealmLite API in each test.

final class CLIOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var age: Int?
    @Persisted var born = Date(timeIntervalSince1970: 0)
    @Persisted var tags: List<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var pets: List<CLIPet>
    @Persisted var best: CLIPet?
    @Persisted var address: CLIAddress?
}

final class CLIPet: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var weight = 0.0
    @Persisted(originProperty: "pets") var owners: LinkingObjects<CLIOwner>
}

final class CLIAddress: EmbeddedObject {
    @Persisted var city = ""
}

let cliTypes: [ObjectBase.Type] = [CLIOwner.self, CLIPet.self, CLIAddress.self]

/// Every value and collection shape the record format has.
final class CLIBag: Object {
    @Persisted var flag = false
    @Persisted var float: Float = 0
    @Persisted var data = Data()
    @Persisted var optData: Data?
    @Persisted var uuid = UUID()
    @Persisted var oid = ObjectId()
    @Persisted var dec = Decimal128()
    @Persisted var optInts: List<Int?>
    @Persisted var flags: List<Bool>
    @Persisted var words: MutableSet<String>
    @Persisted var petMap: Map<String, CLIPet?>
    @Persisted var dates: Map<String, Date?>
}

/// A small seeded generator (SplitMix64), so damage is the same every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
    var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

final class CLITests: XCTestCase {
    var directory: URL!
    var path: String { directory.appendingPathComponent("cli.realm").path }

    override func setUp() {
        super.setUp()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("realmlite-cli-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    /// The built executable: in the products directory beside the test bundle.
    static let executable: URL = {
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("realmlite")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.appendingPathComponent("realmlite")
    }()

    /// Runs realmlite with `arguments`; fails the test if it takes more than
    /// `timeout` seconds (a read-only command must never wait for a writer).
    /// `input`: a file read as standard input (import).
    func run(_ arguments: [String], input: String? = nil, timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) throws -> RunResult {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input ?? "/dev/null"))
        let out = directory.appendingPathComponent("out-\(UUID().uuidString)")
        let err = directory.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            XCTFail("realmlite \(arguments.joined(separator: " ")) did not finish in \(timeout) s", file: file, line: line)
        }
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus,
                         stdout: try String(contentsOf: out, encoding: .utf8),
                         stderr: try String(contentsOf: err, encoding: .utf8))
    }

    /// A file with 3 owners (keyed by Int id), 2 pets (String keys), links,
    /// collections and an embedded address; schema version 7.
    func makeFile() throws {
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 7, objectTypes: cliTypes)
        let realm = try Realm(configuration: config)
        try realm.write {
            let rex = CLIPet(), tom = CLIPet()
            rex.name = "Rex"
            rex.weight = 12.5
            tom.name = "Tom \"the cat\", 2"
            tom.weight = 4
            for i in 0..<3 {
                let owner = CLIOwner()
                owner.id = i - 1
                owner.name = "owner\(i)"
                owner.age = i == 1 ? nil : 30 + i
                owner.born = Date(timeIntervalSince1970: 86_400 * Double(i))
                owner.tags.append(objectsIn: (0..<i).map { "t\($0)" })
                owner.scores["math"] = 10 * i
                if i == 2 {
                    owner.pets.append(rex)
                    owner.pets.append(tom)
                    owner.best = tom
                    let address = CLIAddress()
                    address.city = "Lyon"
                    owner.address = address
                }
                realm.add(owner)
            }
        }
    }

    /// makeFile, then two more sessions of one write each. A small write is
    /// logged and written into the file when its Realm closes, so both meta
    /// pages then name commits that need the whole file: a copy cut short
    /// has no older commit to fall back to and is refused as truncated.
    func makeFileWrittenWhole() throws {
        try makeFile()
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 7, objectTypes: cliTypes)
        for session in 0..<2 {
            do { // the Realm closes at the end of the scope
                let realm = try Realm(configuration: config)
                try realm.write { realm.objects(CLIPet.self).first!.weight += Double(session) }
            }
        }
    }

    // MARK: info

    func testInfoReportsVersionsSizesAndClasses() throws {
        try makeFile()
        let r = try run(["info", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        let out = r.stdout
        XCTAssertTrue(out.contains("file format:       \(CSTORAGE_FORMAT_VERSION) "), out)
        XCTAssertTrue(out.contains("object format:     12\n"), out)
        XCTAssertTrue(out.contains("schema version:    7\n"), out)
        XCTAssertTrue(out.contains("page size:         4096\n"), out)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)
        XCTAssertTrue(out.contains("file bytes:        \(size.uint64Value)\n"), out)
        XCTAssertTrue(out.contains("readers:           0 of "), out)
        XCTAssertTrue(out.contains("  CLIOwner: 3 objects, depth 1 (keyed by id)\n"), out)
        XCTAssertTrue(out.contains("  CLIPet: 2 objects, depth 1\n"), out)
        XCTAssertTrue(out.contains("  CLIAddress: 1 objects, depth 1 (embedded)\n"), out)
        XCTAssertTrue(out.contains("  pk:CLIPet: 2 entries, depth 1, pages 0 branch / 1 leaf / 0 overflow\n"), out)
        XCTAssertTrue(out.contains("  idx:CLIOwner.name: 3 entries, depth 1"), out)
        // used + free = file size
        func number(after label: String) -> UInt64? {
            out.split(separator: "\n").first { $0.hasPrefix(label) }
                .flatMap { UInt64($0.dropFirst(label.count).split(separator: " ").first ?? "") }
        }
        let used = try XCTUnwrap(number(after: "used bytes:        "))
        let free = try XCTUnwrap(number(after: "free bytes:        "))
        XCTAssertEqual(used + free, size.uint64Value)
        XCTAssertGreaterThan(used, 2 * 4096)
    }

    /// info lists each reader's pid and snapshot: a frozen Realm of this
    /// process pins the version before the last commit.
    func testInfoNamesReadersAndHowFarBehind() throws {
        try makeFile()
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 7, objectTypes: cliTypes)
        let realm = try Realm(configuration: config)
        let frozen = realm.freeze()
        XCTAssertEqual(frozen.objects(CLIPet.self).count, 2)
        try realm.write {
            let pet = CLIPet()
            pet.name = "new"
            realm.add(pet)
        }
        let info = try run(["info", path])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("  pid \(getpid()): snapshot "), info.stdout)
        XCTAssertTrue(info.stdout.contains(" (1 commits behind)\n"), info.stdout)
        XCTAssertTrue(info.stdout.contains("versions held:     "), info.stdout)
        withExtendedLifetime(frozen) {}
    }

    // MARK: check

    func testCheckCleanFileExitsZero() throws {
        try makeFile()
        let r = try run(["check", path])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.lines.count, 1)
        XCTAssertTrue(r.stdout.hasPrefix("\(path): ok ("), r.stdout)
    }

    /// Flips one byte in the middle of every page after the metas: the
    /// engine's checker finds page checksums broken (I2) and check exits 1,
    /// each problem line naming its invariant. (Open falls back to the commit
    /// before the last, whose pages the flips damaged too: hence a second
    /// commit, so that the fallback still has the objects' pages.)
    func testCheckDamagedPagesNamesTheInvariant() throws {
        try makeFile()
        try commitElsewhere()
        let pages = try usedPages()
        try flip(pages: Array(2..<pages), in: path)
        let r = try run(["check", path])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertFalse(r.lines.isEmpty)
        for line in r.lines { XCTAssertNotNil(line.range(of: #"^.*: I\d+ "#, options: .regularExpression), line) }
        XCTAssertTrue(r.lines.first?.contains(": I2 page checksum: ") == true, r.stdout)
    }

    /// check prints every problem the engine's checker finds, one line each,
    /// as many as the engine counts: two damaged tree pages (found by
    /// damaging pages one at a time until two of them give two problems; a
    /// damaged catalog page stops the engine's walk at its first problem).
    func testCheckPrintsEveryProblemTheEngineCounts() throws {
        try makeFile()
        try commitElsewhere()
        let pages = try usedPages()
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        let probe = directory.appendingPathComponent("probe.realm").path
        var single: [UInt64] = []
        for page in 2..<pages {
            try whole.write(to: URL(fileURLWithPath: probe))
            try flip(pages: [page], in: probe)
            let (errors, first) = try engineCheck(probe)
            if errors == 1 && first.hasPrefix("I2 ") { single.append(page) }
        }
        var found: (pages: [UInt64], errors: UInt64)?
        search: for (i, p) in single.enumerated() {
            for q in single[(i + 1)...] {
                try whole.write(to: URL(fileURLWithPath: probe))
                try flip(pages: [p, q], in: probe)
                let (errors, _) = try engineCheck(probe)
                if errors >= 2 {
                    found = ([p, q], errors)
                    break search
                }
            }
        }
        let (damaged, errors) = try XCTUnwrap(found, "no two pages whose damage gives two problems (pages \(single))")
        try flip(pages: damaged, in: path)
        let r = try run(["check", path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(UInt64(r.lines.count), errors, r.stdout)
        for page in damaged {
            XCTAssertTrue(r.lines.contains("\(path): I2 page checksum: page \(page): checksum mismatch"), r.stdout)
        }
    }

    /// A record too short for its class's layout: the engine's trees are
    /// sound, the object-layer check (R3) finds it; dump refuses it.
    func testCheckFindsADamagedRecord() throws {
        try makeFile()
        try engineWrite { txn in
            var tree: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, "obj:CLIPet", 0, &tree), 0)
            var cursor: OpaquePointer?
            XCTAssertEqual(cs_cursor_open(txn, tree, &cursor), 0)
            var key = cs_val(), value = cs_val()
            XCTAssertEqual(cs_cursor_get(cursor, &key, &value, CS_FIRST), 0)
            let keyBytes = Array(UnsafeRawBufferPointer(start: key.data, count: key.size))
            cs_cursor_close(cursor)
            let short: [UInt8] = [0, 1, 2]
            keyBytes.withUnsafeBytes { k in
                short.withUnsafeBytes { v in
                    XCTAssertEqual(cs_put(txn, tree, cs_val(data: k.baseAddress, size: k.count), cs_val(data: v.baseAddress, size: v.count), 0), 0)
                }
            }
        }
        let r = try run(["check", path])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertEqual(r.lines, ["\(path): R3 record layout: obj:CLIPet: object 1: 3 bytes, the layout needs at least 10"])
        let d = try run(["dump", path, "--class", "CLIPet"])
        XCTAssertEqual(d.status, 1)
        XCTAssertEqual(d.errorLines, ["realmlite: \(path): damaged record 1 of CLIPet: 3 bytes, the layout needs at least 10; run realmlite check"])
    }

    /// A record that fits its layout but not its types: a String that is
    /// not UTF-8 (R3).
    func testCheckFindsValuesThatDoNotDecode() throws {
        try makeFile()
        try engineWrite { txn in
            var pets: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, "obj:CLIPet", 0, &pets), 0)
            // CLIPet: generation (1), null bitmap (1), weight (8), name (its
            // end is the record's: no end offset)
            var record: [UInt8] = [0, 0]
            withUnsafeBytes(of: (2.5).bitPattern.littleEndian) { record += $0 }
            record += [0xFF, 0xFE]
            var key: [UInt8] = []
            withUnsafeBytes(of: UInt64(1).bigEndian) { key += $0 }
            key.withUnsafeBytes { k in
                record.withUnsafeBytes { v in
                    XCTAssertEqual(cs_put(txn, pets, cs_val(data: k.baseAddress, size: k.count), cs_val(data: v.baseAddress, size: v.count), 0), 0)
                }
            }
        }
        let r = try run(["check", path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.lines, ["\(path): R3 record layout: obj:CLIPet: object 1: property name: not valid UTF-8"])
    }

    /// Every value and collection shape: check is clean (no rule misreads a
    /// valid record) and dump decodes each value.
    func testEveryShapeChecksCleanAndDumps() throws {
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [CLIBag.self, CLIPet.self, CLIOwner.self, CLIAddress.self])
        let realm = try Realm(configuration: config)
        let id = UUID(uuidString: "12345678-1234-5678-9ABC-DEF012345678")!
        try realm.write {
            let pet = CLIPet()
            pet.name = "Rex"
            let bag = CLIBag()
            bag.flag = true
            bag.float = 1.5
            bag.data = Data([1, 2, 3])
            bag.uuid = id
            bag.dec = try Decimal128(string: "12.25")
            bag.optInts.append(objectsIn: [1, nil, -3])
            bag.flags.append(objectsIn: [true, false])
            bag.words.insert("b")
            bag.words.insert("a")
            bag.petMap["rex"] = pet
            bag.petMap["none"] = nil as CLIPet?
            bag.dates["epoch"] = Date(timeIntervalSince1970: 0)
            bag.dates["never"] = nil as Date?
            realm.add(bag)
            realm.add(CLIBag())
        }
        let c = try run(["check", path])
        XCTAssertEqual(c.status, 0, c.stdout + c.stderr)
        let r = try run(["dump", path, "--class", "CLIBag"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.lines.count, 2)
        let bag = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(bag["flag"] as? Bool, true)
        XCTAssertEqual(bag["float"] as? Double, 1.5)
        XCTAssertEqual(bag["data"] as? String, "AQID")
        XCTAssertTrue(bag["optData"] is NSNull)
        XCTAssertEqual(bag["uuid"] as? String, id.uuidString)
        XCTAssertEqual((bag["oid"] as? String)?.count, 24)
        XCTAssertEqual(bag["dec"] as? String, "12.25")
        XCTAssertEqual((bag["optInts"] as? [Any]).map { $0.map { $0 as? Int } }, [1, nil, -3])
        XCTAssertEqual(bag["flags"] as? [Bool], [true, false])
        XCTAssertEqual(Set(bag["words"] as? [String] ?? []), ["a", "b"])
        let petMap = try XCTUnwrap(bag["petMap"] as? [String: Any])
        XCTAssertEqual(petMap["rex"] as? Int, 1)
        XCTAssertTrue(petMap["none"] is NSNull)
        let dates = try XCTUnwrap(bag["dates"] as? [String: Any])
        XCTAssertEqual(dates["epoch"] as? String, "1970-01-01T00:00:00.000Z")
        XCTAssertTrue(dates["never"] is NSNull)
        let schema = try run(["schema", path]).stdout
        for line in ["@Persisted var optInts: List<Int?>", "@Persisted var words: MutableSet<String>",
                     "@Persisted var petMap: Map<String, CLIPet?>", "@Persisted var dates: Map<String, Date?>",
                     "@Persisted var optData: Data?", "@Persisted var dec: Decimal128", "@Persisted var oid: ObjectId"] {
            XCTAssertTrue(schema.contains(line), "\(line)\n\(schema)")
        }
    }

    /// Index and backlink trees out of step with the records (entries
    /// removed, a backlink to objects that do not exist): R5 and R6 name
    /// each, in trees the engine finds sound.
    func testCheckFindsIndexAndBacklinkDamage() throws {
        try makeFile()
        XCTAssertEqual(try run(["check", path]).status, 0)
        try engineWrite { txn in
            func deleteFirst(_ name: String) {
                var tree: cs_tree = 0
                XCTAssertEqual(cs_tree_open(txn, name, 0, &tree), 0)
                var cursor: OpaquePointer?
                XCTAssertEqual(cs_cursor_open(txn, tree, &cursor), 0)
                var key = cs_val()
                XCTAssertEqual(cs_cursor_get(cursor, &key, nil, CS_FIRST), 0)
                XCTAssertEqual(cs_cursor_del(cursor), 0)
                cs_cursor_close(cursor)
            }
            deleteFirst("idx:CLIOwner.name")
            deleteFirst("bl:CLIOwner.pets")
            var best: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, "bl:CLIOwner.best", 0, &best), 0)
            var key: [UInt8] = []
            for part in [UInt64(999), UInt64(998)] { withUnsafeBytes(of: part.bigEndian) { key += $0 } }
            let count = withUnsafeBytes(of: UInt32(1).littleEndian) { Array($0) }
            key.withUnsafeBytes { k in
                count.withUnsafeBytes { v in
                    XCTAssertEqual(cs_put(txn, best, cs_val(data: k.baseAddress, size: k.count), cs_val(data: v.baseAddress, size: v.count), 0), 0)
                }
            }
        }
        let r = try run(["check", path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.lines, [
            "\(path): R5 index: idx:CLIOwner.name has 2 entries for 3 objects",
            "\(path): R6 backlinks: bl:CLIOwner.pets counts 1 links, the records of CLIOwner hold 2",
            "\(path): R6 backlinks: bl:CLIOwner.best: entry 999 <- 998 names an object that does not exist",
            "\(path): R6 backlinks: bl:CLIOwner.best counts 2 links, the records of CLIOwner hold 1",
        ])
    }

    /// A CStorage file that RealmLite never wrote (no realm:meta): info
    /// shows the engine's figures, check runs the engine's checker, schema
    /// and dump say there is no schema. A schema of a newer object format
    /// is refused in one line rather than misread.
    func testBareEngineFileAndNewerFormat() throws {
        var env: OpaquePointer?
        XCTAssertEqual(cs_env_open(path, nil, &env), 0)
        XCTAssertEqual(cs_env_close(env), 0)
        try engineWrite { txn in
            var tree: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, "plain", UInt32(CS_CREATE), &tree), 0)
            let key = Array("k".utf8)
            key.withUnsafeBytes { k in XCTAssertEqual(cs_put(txn, tree, cs_val(data: k.baseAddress, size: 1), cs_val(data: k.baseAddress, size: 1), 0), 0) }
        }
        let info = try run(["info", path])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("object format:     none (a CStorage file without a RealmLite schema)\n"), info.stdout)
        XCTAssertTrue(info.stdout.contains("  plain: 1 entries, depth 1"), info.stdout)
        XCTAssertEqual(try run(["check", path]).status, 0)
        for command in ["schema", "dump"] {
            let r = try run([command, path])
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.errorLines, ["realmlite: \(path): no RealmLite schema (a CStorage file without the realm:meta tree)"])
        }
        try engineWrite { txn in
            var meta: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, "realm:meta", UInt32(CS_CREATE), &meta), 0)
            let key = Array("schema".utf8), value = Array(#"{"version":1,"classes":[],"format":13}"#.utf8)
            key.withUnsafeBytes { k in
                value.withUnsafeBytes { v in
                    XCTAssertEqual(cs_put(txn, meta, cs_val(data: k.baseAddress, size: k.count), cs_val(data: v.baseAddress, size: v.count), 0), 0)
                }
            }
        }
        let newer = try run(["schema", path])
        XCTAssertEqual(newer.status, 1)
        XCTAssertEqual(newer.errorLines, ["realmlite: \(path): written by a newer RealmLite (object format 13; this tool reads up to 12)"])
    }

    /// The stored schema scribbled over: one clear line and exit 1 from
    /// every command that needs it; check names R1.
    func testScribbledSchemaGivesOneLine() throws {
        try makeFile()
        try engineWrite { txn in
            var meta: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, "realm:meta", 0, &meta), 0)
            let key = Array("schema".utf8), junk = Array("{\"version\": 1, \"classes\": [{\"name\": 3".utf8)
            key.withUnsafeBytes { k in
                junk.withUnsafeBytes { v in
                    XCTAssertEqual(cs_put(txn, meta, cs_val(data: k.baseAddress, size: k.count), cs_val(data: v.baseAddress, size: v.count), 0), 0)
                }
            }
        }
        for command in ["info", "schema", "dump"] {
            let r = try run([command, path])
            XCTAssertEqual(r.status, 1, command)
            XCTAssertEqual(r.errorLines.count, 1, "\(command): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("realmlite: \(path): damaged file (the stored schema in realm:meta cannot be read"), r.stderr)
        }
        let c = try run(["check", path])
        XCTAssertEqual(c.status, 1)
        XCTAssertEqual(c.lines.count, 1, c.stdout)
        XCTAssertTrue(c.stdout.hasPrefix("\(path): R1 stored schema: damaged file"), c.stdout)
    }

    // MARK: schema

    func testSchemaPrintsModelDeclarations() throws {
        try makeFile()
        let r = try run(["schema", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = r.stdout
        XCTAssertTrue(out.contains("schema version 7, object format 12"), out)
        XCTAssertTrue(out.contains("""
            class CLIOwner: Object {
                @Persisted(primaryKey: true) var id: Int
                @Persisted(indexed: true) var name: String
                @Persisted var age: Int?
                @Persisted var born: Date
                @Persisted var tags: List<String>
                @Persisted var scores: Map<String, Int>
                @Persisted var pets: List<CLIPet>
                @Persisted var best: CLIPet?
                @Persisted var address: CLIAddress?
            }
            """), out)
        XCTAssertTrue(out.contains("""
            class CLIPet: Object {
                @Persisted(primaryKey: true) var name: String
                @Persisted var weight: Double
                @Persisted(originProperty: "pets") var owners: LinkingObjects<CLIOwner>
            }
            """), out)
        XCTAssertTrue(out.contains("class CLIAddress: EmbeddedObject {\n    @Persisted var city: String\n}"), out)
    }

    // MARK: dump

    func testDumpJSONLines() throws {
        try makeFile()
        let r = try run(["dump", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let objects = try r.lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(objects.count, 6) // 3 owners, 2 pets, 1 address
        let owners = objects.filter { $0["_class"] as? String == "CLIOwner" }
        XCTAssertEqual(owners.map { $0["id"] as? Int }, [-1, 0, 1]) // keyed: primary-key order
        XCTAssertEqual(owners.map { $0["name"] as? String }, ["owner0", "owner1", "owner2"])
        XCTAssertTrue(owners[1]["age"] is NSNull)
        XCTAssertEqual(owners[2]["age"] as? Int, 32)
        XCTAssertEqual(owners[2]["tags"] as? [String], ["t0", "t1"])
        XCTAssertEqual(owners[2]["scores"] as? [String: Int], ["math": 20])
        XCTAssertEqual(owners[1]["born"] as? String, "1970-01-02T00:00:00.000Z")
        let pets = objects.filter { $0["_class"] as? String == "CLIPet" }
        XCTAssertEqual(Set(pets.compactMap { $0["name"] as? String }), ["Rex", "Tom \"the cat\", 2"])
        let tomKey = try XCTUnwrap(pets.first { $0["name"] as? String == "Rex" }.flatMap { _ in pets.first { ($0["name"] as? String)?.hasPrefix("Tom") == true }?["_key"] as? Int })
        XCTAssertEqual(owners[2]["best"] as? Int, tomKey)
        XCTAssertEqual((owners[2]["pets"] as? [Int])?.count, 2)
        XCTAssertTrue(owners[0]["best"] is NSNull)
        let address = try XCTUnwrap(objects.first { $0["_class"] as? String == "CLIAddress" })
        XCTAssertEqual(address["city"] as? String, "Lyon")
        XCTAssertEqual(owners[2]["address"] as? Int, address["_key"] as? Int)
    }

    func testDumpCSVOfOneClass() throws {
        try makeFile()
        let r = try run(["dump", path, "--class", "CLIPet", "--format", "csv"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.lines, ["_key,name,weight", "1,Rex,12.5", "2,\"Tom \"\"the cat\"\", 2\",4.0"])
        let owners = try run(["dump", path, "--class", "CLIOwner", "--format", "csv"])
        XCTAssertEqual(owners.lines.first, "id,name,age,born,tags,scores,pets,best,address")
        XCTAssertEqual(owners.lines[2], "0,owner1,,1970-01-02T00:00:00.000Z,\"[\"\"t0\"\"]\",\"{\"\"math\"\":10}\",[],,")
    }

    func testDumpRefusesUnknownClassAndCSVOfAll() throws {
        try makeFile()
        let unknown = try run(["dump", path, "--class", "Nope"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertEqual(unknown.errorLines, ["realmlite: \(path): no class Nope in the stored schema (classes: CLIAddress, CLIPet, CLIOwner)"])
        let csv = try run(["dump", path, "--format", "csv"])
        XCTAssertEqual(csv.status, 1)
        XCTAssertEqual(csv.errorLines, ["realmlite: csv needs --class (one header per class)"])
    }

    // MARK: bad input

    func testBadFilesGiveOneLineAndExitOne() throws {
        let missing = directory.appendingPathComponent("missing.realm").path
        let foreign = directory.appendingPathComponent("foreign.txt").path
        try Data(repeating: 0x41, count: 20_000).write(to: URL(fileURLWithPath: foreign))
        let empty = directory.appendingPathComponent("empty.realm").path
        _ = FileManager.default.createFile(atPath: empty, contents: nil)
        try makeFileWrittenWhole()
        let truncated = directory.appendingPathComponent("truncated.realm").path
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(3 * 4096).write(to: URL(fileURLWithPath: truncated))
        let scribbled = directory.appendingPathComponent("scribbled.realm").path
        var bytes = whole
        for page in 0..<2 { for i in (page * 4096 + 64)..<(page * 4096 + 128) { bytes[i] ^= 0xA5 } } // past the magic
        try bytes.write(to: URL(fileURLWithPath: scribbled))
        let cases: [(String, String)] = [
            (scribbled, "realmlite: \(scribbled): damaged file (\(scribbled): both meta pages are damaged)"),
            (missing, "realmlite: \(missing): No such file or directory"),
            (foreign, "realmlite: \(foreign): not a RealmLite file ("),
            (empty, "realmlite: \(empty): not a RealmLite file ("),
            (truncated, "realmlite: \(truncated): damaged file (\(truncated) is truncated"),
            (directory.path, "realmlite: \(directory.path): not a regular file"),
        ]
        for (file, expected) in cases {
            for command in ["info", "check", "schema", "dump"] {
                let r = try run([command, file])
                XCTAssertEqual(r.status, 1, "\(command) \(file)")
                XCTAssertEqual(r.errorLines.count, 1, "\(command) \(file): \(r.stderr)")
                XCTAssertTrue(r.stderr.hasPrefix(expected), "\(command): \(r.stderr)")
                XCTAssertEqual(r.stdout, "", command)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing + ".lock"), "a missing file gets no lock file")
        for file in [foreign, empty, truncated, scribbled] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: file + ".lock"), "\(file): a refused file keeps no lock file of ours")
        }
    }

    /// Read-only commands run while another process... here this one, through
    /// RealmLite, holds the write transaction: they finish and see the last commit.
    func testCommandsDoNotWaitForAWriter() throws {
        try makeFile()
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 7, objectTypes: cliTypes)
        let realm = try Realm(configuration: config)
        realm.beginWrite()
        let pet = CLIPet()
        pet.name = "uncommitted"
        realm.add(pet)
        defer { realm.cancelWrite() }
        for command in ["info", "check", "schema", "dump"] {
            let r = try run([command, path], timeout: 20)
            XCTAssertEqual(r.status, 0, "\(command): \(r.stderr)")
        }
        let info = try run(["info", path], timeout: 20)
        XCTAssertTrue(info.stdout.contains("  CLIPet: 2 objects"), info.stdout)
        XCTAssertFalse(try run(["dump", path, "--class", "CLIPet"], timeout: 20).stdout.contains("uncommitted"))
    }

    // MARK: damage corpus

    /// Seeded damage of every kind to a real file (bytes flipped in one page,
    /// a page zeroed, a page copied over another, both metas scribbled, the
    /// file truncated at a page): no command crashes or hangs; each failure
    /// is one stderr line and exit 1; check agrees with the engine's own
    /// checker run in-process (open fails: one line; problems: the same
    /// first problem, exit 1; clean: exit 0 or object-layer R lines).
    func testDamageCorpusThroughCheckDumpAndInfo() throws {
        try makeFile()
        try commitElsewhere()
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        let pages = Int(try usedPages())
        var rng = SplitMix(seed: 19)
        var kinds: [String: Int] = [:]
        for round in 0..<40 {
            var image = whole
            let page = 2 + Int(rng.next() % UInt64(pages - 2))
            let kind: String
            switch round % 5 {
            case 0:
                kind = "flip"
                for _ in 0..<(1 + rng.next() % 8) { image[page * 4096 + Int(rng.next() % 4096)] ^= UInt8(1 + rng.next() % 255) }
            case 1:
                kind = "zero"
                image.replaceSubrange((page * 4096)..<((page + 1) * 4096), with: Data(count: 4096))
            case 2:
                kind = "copy"
                let other = 2 + Int(rng.next() % UInt64(pages - 2))
                image.replaceSubrange((page * 4096)..<((page + 1) * 4096), with: whole[(other * 4096)..<((other + 1) * 4096)])
            case 3:
                kind = "meta" // both: with one damaged, open takes the other (clean)
                for meta in [0, 4096] {
                    for _ in 0..<(1 + rng.next() % 4) { image[meta + 40 + Int(rng.next() % 200)] ^= UInt8(1 + rng.next() % 255) }
                }
            default:
                kind = "truncate"
                image = image.prefix(page * 4096)
            }
            let file = directory.appendingPathComponent("damaged-\(round).realm").path
            try image.write(to: URL(fileURLWithPath: file))
            let engine = engineCheckReadOnly(file)
            let c = try run(["check", file], timeout: 30)
            XCTAssertTrue(c.status == 0 || c.status == 1, "\(kind) \(round): check exit \(c.status)")
            switch engine {
            case .cannotOpen:
                XCTAssertEqual(c.status, 1, "\(kind) \(round)")
                XCTAssertEqual(c.errorLines.count, 1, "\(kind) \(round): \(c.stderr)")
                XCTAssertEqual(c.stdout, "")
            case .problems(let first):
                XCTAssertEqual(c.status, 1, "\(kind) \(round)")
                XCTAssertEqual(c.lines.first, "\(file): \(first)", "\(kind) \(round)")
            case .clean:
                if c.status == 1 {
                    XCTAssertFalse(c.lines.isEmpty)
                    for line in c.lines { XCTAssertNotNil(line.range(of: #": R\d "#, options: .regularExpression), "\(kind) \(round): \(line)") }
                } else {
                    XCTAssertTrue(c.stdout.contains(": ok ("), c.stdout)
                }
            }
            for command in ["dump", "info", "schema"] {
                let r = try run([command, file], timeout: 30)
                XCTAssertTrue(r.status == 0 || r.status == 1, "\(kind) \(round): \(command) exit \(r.status) \(r.stderr)")
                if r.status == 1 {
                    XCTAssertEqual(r.errorLines.count, 1, "\(kind) \(round): \(command): \(r.stderr)")
                    XCTAssertTrue(r.stderr.hasPrefix("realmlite: \(file): "), r.stderr)
                }
            }
            if c.status == 1 { kinds[kind, default: 0] += 1 }
        }
        // every kind of damage was found at least once
        XCTAssertEqual(Set(kinds.keys), ["flip", "zero", "copy", "meta", "truncate"], "\(kinds)")
    }

    // MARK: copy

    /// copy writes the newest snapshot to a new, compact file: same objects
    /// (dump output identical), check clean, no free pages, readable by
    /// RealmLite; taken while a writer holds the write transaction.
    func testCopyWritesACompactCheckedFile() throws {
        try makeFile()
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 7, objectTypes: cliTypes)
        do {
            // Churn: free pages in the source.
            let realm = try Realm(configuration: config)
            for round in 0..<20 {
                try realm.write {
                    let pet = CLIPet()
                    pet.name = "tmp\(round)"
                    realm.add(pet)
                }
                try realm.write { realm.delete(realm.objects(CLIPet.self).filter("name == %@", "tmp\(round)")) }
            }
        }
        let realm = try Realm(configuration: config)
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let out = directory.appendingPathComponent("copy.realm").path
        let r = try run(["copy", path, out], timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("\(out): 10 trees, 18 entries, "), r.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + ".lock"))
        XCTAssertEqual(try run(["dump", out]).stdout, try run(["dump", path]).stdout)
        XCTAssertEqual(try run(["check", out]).status, 0)
        let info = try run(["info", out]).stdout
        XCTAssertTrue(info.contains("(reusable 0, pending 0, "), info)
        let copied = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: out), schemaVersion: 7, objectTypes: cliTypes))
        XCTAssertEqual(copied.objects(CLIOwner.self).count, 3)
        XCTAssertEqual(copied.object(ofType: CLIOwner.self, forPrimaryKey: 1)?.pets.map(\.name), ["Rex", "Tom \"the cat\", 2"])
    }

    func testCopyRefusesAnExistingOutputAndADamagedSource() throws {
        try makeFile()
        let out = directory.appendingPathComponent("exists.realm").path
        _ = FileManager.default.createFile(atPath: out, contents: Data("keep me".utf8))
        let r = try run(["copy", path, out])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.errorLines, ["realmlite: \(out): exists; copy writes a new file"])
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "keep me")
        let foreign = directory.appendingPathComponent("foreign.bin").path
        try Data(repeating: 7, count: 9000).write(to: URL(fileURLWithPath: foreign))
        let out2 = directory.appendingPathComponent("new.realm").path
        let f = try run(["copy", foreign, out2])
        XCTAssertEqual(f.status, 1)
        XCTAssertEqual(f.errorLines.count, 1, f.stderr)
        XCTAssertTrue(f.stderr.hasPrefix("realmlite: \(foreign): not a RealmLite file"), f.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out2))
        XCTAssertEqual(try run(["copy", path]).status, 2)
        // compact --to is copy
        let compacted = directory.appendingPathComponent("compacted.realm").path
        let c = try run(["compact", path, "--to", compacted])
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertEqual(try run(["dump", compacted]).stdout, try run(["dump", path]).stdout)
    }

    // MARK: usage

    func testUsageErrorsExitTwoAndHelpExitsZero() throws {
        try makeFile()
        for (arguments, message) in [
            (["frobnicate", path], "realmlite: unknown command frobnicate (realmlite --help for usage)"),
            (["info"], "realmlite: no FILE given (realmlite --help for usage)"),
            (["info", path, path], "realmlite: one FILE expected, got 2 (realmlite --help for usage)"),
            (["info", path, "--class", "X"], "realmlite: unknown option --class (realmlite --help for usage)"),
            (["dump", path, "--format", "xml"], "realmlite: --format must be json or csv, not xml (realmlite --help for usage)"),
            (["dump", path, "--class"], "realmlite: --class needs a value (realmlite --help for usage)"),
        ] {
            let r = try run(arguments)
            XCTAssertEqual(r.status, 2, arguments.joined(separator: " "))
            XCTAssertEqual(r.errorLines, [message])
            XCTAssertEqual(r.stdout, "")
        }
        let help = try run(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("USAGE: realmlite <command> FILE [options]"), help.stdout)
        let checkHelp = try run(["help", "check"])
        XCTAssertTrue(checkHelp.stdout.contains("R3 record layout"), checkHelp.stdout)
        let version = try run(["--version"])
        XCTAssertEqual(version.lines, ["realmlite: RealmLite engine \(CSTORAGE_VERSION_STRING), file format \(CSTORAGE_FORMAT_VERSION)"])
        // --quiet: no ok line from check, no summary from copy; no progress
        // line on a pipe either way
        let quiet = try run(["check", "--quiet", path])
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stdout + quiet.stderr, "")
        let copied = directory.appendingPathComponent("quiet-copy.realm").path
        let copy = try run(["copy", "-q", path, copied])
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(copy.stdout + copy.stderr, "")
        XCTAssertTrue(FileManager.default.fileExists(atPath: copied))
        let dumped = try run(["dump", path])
        XCTAssertEqual(dumped.stderr, "")
        // --name=value works too
        let pets = try run(["dump", "--class=CLIPet", "--format=csv", path])
        XCTAssertEqual(pets.status, 0, pets.stderr)
        XCTAssertEqual(pets.lines.first, "_key,name,weight")
    }

    // MARK: helpers

    /// One more commit, of the meta tree only: open verifies the pages of
    /// the last commit (and falls back to the one before if they are
    /// damaged), so the objects' pages are then an older commit's.
    func commitElsewhere() throws {
        try engineWrite { txn in
            var meta: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, "realm:meta", 0, &meta), 0)
            let key = Array("cli-test".utf8)
            key.withUnsafeBytes { k in XCTAssertEqual(cs_put(txn, meta, cs_val(data: k.baseAddress, size: k.count), cs_val(data: k.baseAddress, size: k.count), 0), 0) }
        }
    }

    /// Pages in use (next_pgno) of the file at `path`.
    func usedPages() throws -> UInt64 {
        var env: OpaquePointer?
        XCTAssertEqual(cs_env_open(path, nil, &env), 0)
        var info = cs_env_info()
        XCTAssertEqual(cs_env_get_info(env, &info), 0)
        XCTAssertEqual(cs_env_close(env), 0)
        XCTAssertEqual(info.page_size, 4096)
        return info.next_pgno
    }

    /// Flips one byte in the middle of each page.
    func flip(pages: [UInt64], in file: String) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
        for page in pages {
            try handle.seek(toOffset: page * 4096 + 2048)
            let byte = try handle.read(upToCount: 1)?.first ?? 0
            try handle.seek(toOffset: page * 4096 + 2048)
            try handle.write(contentsOf: Data([byte ^ 0x5A]))
        }
        try handle.close()
    }

    enum EngineVerdict { case cannotOpen, problems(String), clean }

    /// The engine's checker on `file`, opened read-only as the tool does.
    func engineCheckReadOnly(_ file: String) -> EngineVerdict {
        var options = cs_options()
        options.flags = UInt32(CS_ENV_RDONLY)
        var env: OpaquePointer?
        guard cs_env_open(file, &options, &env) == 0 else { return .cannotOpen }
        defer { cs_env_close(env) }
        var report = cs_check_report()
        let rc = cs_check(env, &report)
        if rc != 0 && rc != Int32(CS_ECORRUPT.rawValue) { return .cannotOpen }
        if report.errors == 0 { return .clean }
        return .problems(withUnsafeBytes(of: report.first_error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }

    /// The engine's own checker on `file`: problems counted and the first.
    func engineCheck(_ file: String) throws -> (UInt64, String) {
        var env: OpaquePointer?
        guard cs_env_open(file, nil, &env) == 0 else { return (0, "") }
        defer { cs_env_close(env) }
        var report = cs_check_report()
        _ = cs_check(env, &report)
        let first = withUnsafeBytes(of: report.first_error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return (report.errors, first)
    }

    /// One write transaction straight on the engine (to damage a file).
    func engineWrite(_ body: (OpaquePointer) throws -> Void) throws {
        var env: OpaquePointer?
        XCTAssertEqual(cs_env_open(path, nil, &env), 0)
        var txn: OpaquePointer?
        XCTAssertEqual(cs_txn_begin(env, 0, &txn), 0)
        try body(txn!)
        XCTAssertEqual(cs_txn_commit(txn), 0)
        XCTAssertEqual(cs_env_close(env), 0)
    }
}
