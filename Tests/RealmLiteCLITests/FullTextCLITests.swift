import CStorage
import Foundation
import RealmLite
import XCTest

// realmlite and full-text indexes: check verifies fts:C.p (R7), import keeps
// it, and the library searches an imported file.

final class CLIArticle: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: .fullText) var text = ""
    @Persisted(indexed: .fullText) var note: String?
}

extension CLITests {
    func testCheckAndImportKeepTheFullTextIndex() throws {
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [CLIArticle.self])
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                realm.add(CLIArticle(value: ["id": 1, "text": "Red fox, red dog", "note": "Crème"]))
                realm.add(CLIArticle(value: ["id": 2, "text": "blue whale"]))
            }
        }
        XCTAssertEqual(try run(["check", path]).status, 0)
        let dump = try run(["dump", path, "--class", "CLIArticle"])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        // dump -> import into a new file: the index is built as the library builds it.
        let target = directory.appendingPathComponent("imported.realm").path
        do { _ = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: target), objectTypes: [CLIArticle.self])) }
        let imported = try run(["import", target, "--class", "CLIArticle"], input: try write(dump.stdout, "articles.jsonl"))
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try run(["check", target]).status, 0)
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: target), objectTypes: [CLIArticle.self]))
            XCTAssertEqual(realm.objects(CLIArticle.self).filter("text TEXT 'red -whale'").map(\.id), [1])
            XCTAssertEqual(realm.objects(CLIArticle.self).filter("note TEXT 'creme'").map(\.id), [1])
        }
        // An entry removed and one for a word no text holds: R7 names both.
        try engineWrite { txn in
            var tree: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, "fts:CLIArticle.text", 0, &tree), 0)
            var cursor: OpaquePointer?
            XCTAssertEqual(cs_cursor_open(txn, tree, &cursor), 0)
            var key = cs_val()
            XCTAssertEqual(cs_cursor_get(cursor, &key, nil, CS_FIRST), 0) // "blue" of object 2
            XCTAssertEqual(cs_cursor_del(cursor), 0)
            cs_cursor_close(cursor)
            var noted: cs_tree = 0
            XCTAssertEqual(cs_tree_open(txn, "fts:CLIArticle.note", 0, &noted), 0)
            let stray = Array("zebra".utf8) + [0] + withUnsafeBytes(of: (UInt64(2) ^ (1 << 63)).bigEndian) { Array($0) }
            stray.withUnsafeBytes { XCTAssertEqual(cs_put(txn, noted, cs_val(data: $0.baseAddress, size: $0.count), cs_val(), 0), 0) }
        }
        let r = try run(["check", path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.lines, [
            "\(path): R7 full-text index: fts:CLIArticle.text lacks the word 'blue' of object \(UInt64(2) ^ (1 << 63))",
            "\(path): R7 full-text index: fts:CLIArticle.text has 4 entries for the 5 words of the texts",
            "\(path): R7 full-text index: fts:CLIArticle.note has 2 entries for the 1 words of the texts",
        ])
    }
}
