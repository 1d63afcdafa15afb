import Foundation
import RealmLite
import XCTest

// The tool on a file whose long Lists live in the lists tree: check is
// clean and counts their links, dump prints their elements in order.

final class CLITreeList: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: List<Int>
    @Persisted var pets: List<CLITreePet>
}

final class CLITreePet: Object {
    @Persisted var name = ""
}

final class CLITreeSetMap: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var tags: MutableSet<String>
    @Persisted var pets: MutableSet<CLITreePet>
    @Persisted var scores: Map<String, Int>
}

extension CLITests {
    func testListsInTheListsTreeCheckCleanAndDumpInOrder() throws {
        let url = URL(fileURLWithPath: path)
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [CLITreeList.self, CLITreePet.self]))
            try realm.write {
                let owner = realm.create(CLITreeList.self, value: ["id": 1])
                owner.numbers.append(objectsIn: 0..<200)
                owner.numbers.insert(-1, at: 100)
                for i in 0..<100 { owner.pets.append(realm.create(CLITreePet.self, value: ["name": "p\(i)"])) }
            }
        }
        let check = try run(["check", path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        let dump = try run(["dump", path, "--class", "CLITreeList"])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let numbers = (0..<100).map(String.init) + ["-1"] + (100..<200).map(String.init)
        XCTAssertTrue(dump.stdout.contains(#""numbers":["# + numbers.joined(separator: ",") + "]"), dump.stdout)
    }

    func testSetsAndMapsInTheTreeCheckCleanAndDump() throws {
        let url = URL(fileURLWithPath: path)
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [CLITreeSetMap.self, CLITreePet.self]))
            try realm.write {
                let owner = realm.create(CLITreeSetMap.self, value: ["id": 1])
                owner.tags.insert(objectsIn: (0..<100).map { "t\($0)" })
                for i in 0..<100 { owner.pets.insert(realm.create(CLITreePet.self, value: ["name": "p\(i)"])) }
                for i in 0..<100 { owner.scores["k\(i)"] = i }
            }
        }
        let check = try run(["check", path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        let dump = try run(["dump", path, "--class", "CLITreeSetMap"])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        XCTAssertTrue(dump.stdout.contains(#""t42""#), dump.stdout)
        XCTAssertTrue(dump.stdout.contains(#""k99":99"#), dump.stdout)
    }
}

final class CLITreeInts: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: List<Int?>
    @Persisted var set: MutableSet<Int>
    @Persisted var scores: Map<String, Int?>
}

extension CLITests {
    /// Int elements in the tree are varints (one byte up to ±64, ten for
    /// Int.min): check is clean and dump prints the numbers.
    func testIntsInTheTreeCheckCleanAndDumpAsNumbers() throws {
        let url = URL(fileURLWithPath: path)
        let edges: [Int?] = [Int.min, -65, -64, -1, nil, 0, 63, 64, 8191, 8192, Int.max]
        let values = (0..<80).map { edges[$0 % edges.count] }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [CLITreeInts.self]))
            try realm.write {
                let owner = realm.create(CLITreeInts.self, value: ["id": 1])
                owner.numbers.append(objectsIn: values)
                owner.set.insert(objectsIn: (0..<100).map { $0 * 1_000_003 - 50_000_000 } + [Int.min, Int.max])
                for (i, value) in values.enumerated() { owner.scores["k\(i)"] = value }
            }
        }
        let check = try run(["check", path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        let dump = try run(["dump", path, "--class", "CLITreeInts"])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let numbers = values.map { $0.map(String.init) ?? "null" }
        XCTAssertTrue(dump.stdout.contains(#""numbers":["# + numbers.joined(separator: ",") + "]"), dump.stdout)
        XCTAssertTrue(dump.stdout.contains("\(Int.min)") && dump.stdout.contains("\(-50_000_000 + 99 * 1_000_003)"), dump.stdout)
        XCTAssertTrue(dump.stdout.contains(#""k79":-64,"k8":8191"#), dump.stdout)
    }
}

extension CLITests {
    /// Files whose tree collections hold Ints as 8 bytes (pre-intcompact)
    /// and as zigzag varints (pre-orderedints): check is clean and dump
    /// prints the numbers; the ordered form is the test above.
    func testEveryFormOfTreeIntsChecksCleanAndDumps() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        for (name, cls) in [("pre-intcompact.realm", "IntTreeOwner"), ("pre-orderedints.realm", "TreeIntWidths")] {
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: URL(fileURLWithPath: path))
            let check = try run(["check", path])
            XCTAssertEqual(check.status, 0, name + check.stdout + check.stderr)
            let dump = try run(["dump", path, "--class", cls])
            XCTAssertEqual(dump.status, 0, name + dump.stderr)
            XCTAssertTrue(dump.stdout.contains("\(Int.min),") && dump.stdout.contains("\(Int.max)"), name + dump.stdout)
            XCTAssertTrue(dump.stdout.contains(",-8193,") && dump.stdout.contains(",null,"), name + dump.stdout)
        }
    }
}
