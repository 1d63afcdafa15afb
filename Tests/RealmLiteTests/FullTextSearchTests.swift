import Foundation
import XCTest
@testable import RealmLite

// Full-text search: `@Persisted(indexed: .fullText)`, the TEXT operator and
// `where { $0.prop.fullTextSearch(...) }`: the tokenizer's rules, all-words,
// exclusion and prefix queries, refused queries, the index kept exact through
// updates, deletes, rollbacks, migrations and reopening, and a randomized
// comparison with a Swift evaluation of the same queries.

final class FTNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: .fullText) var body = ""
    @Persisted(indexed: .fullText) var summary: String?
    @Persisted var plain = ""
    @Persisted var tag = 0
}

final class FTShelf: Object {
    @Persisted var name = ""
    @Persisted var notes: List<FTNote>
    @Persisted var best: FTNote?
}

/// The same class as stored before and after its index changes (className()).
final class FTPaperV0: Object {
    override class func className() -> String { "FTPaper" }
    @Persisted var text = ""
}

final class FTPaperV1: Object {
    override class func className() -> String { "FTPaper" }
    @Persisted(indexed: .fullText) var text = ""
}

final class FTGeneral: Object {
    @Persisted(indexed: .general) var s = ""
}

/// The class of Tests/Fixtures/pre-fulltext.realm as it was written...
final class PlainNote: Object {
    override class func className() -> String { "PreFullTextNote" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var body: String?
}

/// ... and now with a full-text index.
final class PreFullTextNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted(indexed: .fullText) var body: String?
}

// MARK: - The rules, evaluated in Swift (the tests' oracle)

/// A text's tokens as docs/QUERIES.md states the rules.
func naiveTokens(_ text: String) -> [String] {
    let own: Set<Unicode.Scalar> = ["å", "æ", "ð", "ø", "þ", "ß"]
    func fold(_ s: Unicode.Scalar) -> Unicode.Scalar? {
        switch s.value {
        case 0x30...0x39, 0x61...0x7A: return s
        case 0x41...0x5A: return Unicode.Scalar(s.value + 0x20)
        case 0xC0...0xFF where s.value != 0xD7 && s.value != 0xF7:
            let lower = s.properties.lowercaseMapping.unicodeScalars.first!
            if own.contains(lower) { return lower }
            if s.value == 0xFF { return "y" }
            return String(lower).decomposedStringWithCanonicalMapping.unicodeScalars.first!
        default: return nil
        }
    }
    var tokens: [String] = []
    var current = String.UnicodeScalarView()
    var bytes = 0, building = false, full = false
    for scalar in text.unicodeScalars {
        guard let f = fold(scalar) else {
            if building { tokens.append(String(current)) }
            current = .init(); bytes = 0; building = false; full = false
            continue
        }
        building = true
        let width = f.value < 0x80 ? 1 : 2
        if !full && bytes + width <= 64 { current.append(f); bytes += width } else { full = true }
    }
    if building { tokens.append(String(current)) }
    return tokens
}

/// A query's terms, or nil when RealmLite must refuse it.
func naiveTerms(_ query: String) -> [(token: String, prefix: Bool, exclude: Bool)]? {
    var terms: [(token: String, prefix: Bool, exclude: Bool)] = []
    for word in query.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
        let exclude = word.hasPrefix("-")
        let body = exclude ? String(word.dropFirst()) : String(word)
        let tokens = naiveTokens(body)
        guard tokens.count == 1 else { return nil }
        let term = (token: tokens[0], prefix: body.hasSuffix("*"), exclude: exclude)
        if terms.contains(where: { $0.token == term.token && $0.prefix == term.prefix && $0.exclude != term.exclude }) { return nil }
        terms.append(term)
    }
    return terms.isEmpty ? nil : terms
}

func naiveMatch(_ text: String?, _ terms: [(token: String, prefix: Bool, exclude: Bool)]) -> Bool {
    let tokens = naiveTokens(text ?? "")
    return terms.allSatisfy { term in
        let found = tokens.contains { term.prefix ? $0.utf8.starts(with: term.token.utf8) : $0 == term.token }
        return found != term.exclude
    }
}

final class FullTextSearchTests: RealmTestCase {
    private let types: [ObjectBase.Type] = [FTNote.self, FTShelf.self]

    private func ids(_ results: Results<FTNote>) -> [Int] { results.map(\.id).sorted() }

    private func add(_ realm: Realm, _ texts: [String]) throws {
        try realm.write {
            for (i, text) in texts.enumerated() {
                let note = FTNote()
                note.id = i + 1
                note.body = text
                note.tag = i % 3
                realm.add(note)
            }
        }
    }

    /// The index holds exactly the distinct tokens of every object's texts.
    private func assertIndexExact(_ realm: Realm, file: StaticString = #filePath, line: UInt = #line) {
        let info = realm.core.classInfoOrStop(FTNote.self)
        for name in ["body", "summary"] {
            let column = info.columns.first { $0.name == name }!
            let want = realm.objects(FTNote.self).reduce(0) { total, note in
                total + Set(naiveTokens(name == "body" ? note.body : note.summary ?? "")).count
            }
            XCTAssertEqual(realm.core.txn.count(column.fullTextTree, "counting"), want, "entries of \(name)", file: file, line: line)
            var byToken: [String: Set<Int>] = [:]
            for note in realm.objects(FTNote.self) {
                for token in naiveTokens(name == "body" ? note.body : note.summary ?? "") { byToken[token, default: []].insert(note.id) }
            }
            for (token, owners) in byToken {
                XCTAssertEqual(Set(realm.objects(FTNote.self).filter("\(name) TEXT %@", token).map(\.id)), owners,
                               "'\(token)' in \(name)", file: file, line: line)
            }
        }
    }

    func testTokenizerRules() throws {
        let realm = try openRealm(types)
        try add(realm, [
            "An object-oriented DATABASE, in 1990s C++!",   // 1
            "Crème brûlée and NAÏVE café",                  // 2
            "Ål, ø og 你好世界Æbler",                         // 3
            "Ich wohne in Großarl; STRASSE",                 // 4
            String(repeating: "x", count: 70) + " end",     // 5
            "3×4÷2 equals six",                              // 6
        ])
        let notes = realm.objects(FTNote.self)
        XCTAssertEqual(ids(notes.filter("body TEXT 'oriented'")), [1], "'-' separates words")
        XCTAssertEqual(ids(notes.filter("body TEXT 'object database'")), [1])
        XCTAssertEqual(ids(notes.filter("body TEXT 'c 1990s'")), [1], "'+' separates; digits are letters")
        XCTAssertEqual(ids(notes.filter("body TEXT 'CREME brulee naive CAFÉ'")), [2], "case and diacritics are ignored")
        XCTAssertEqual(ids(notes.filter("body TEXT 'ål ø æbler'")), [3], "å ø æ are letters of their own; other scripts separate")
        XCTAssertEqual(ids(notes.filter("body TEXT 'al'")), [], "å is not a")
        XCTAssertEqual(ids(notes.filter("body TEXT 'großarl strasse'")), [4])
        XCTAssertEqual(ids(notes.filter("body TEXT 'grossarl'")), [], "ß is not ss")
        XCTAssertEqual(ids(notes.filter("body TEXT %@", String(repeating: "x", count: 64))), [5], "a token keeps 64 bytes")
        XCTAssertEqual(ids(notes.filter("body TEXT %@", String(repeating: "x", count: 80))), [5], "so does a search word")
        XCTAssertEqual(ids(notes.filter("body TEXT '3 4 2'")), [6], "× and ÷ separate")
        assertIndexExact(realm)
    }

    func testSingleMultipleExcludedAndPrefixWords() throws {
        let realm = try openRealm(types)
        try add(realm, [
            "one two three",             // 1
            "one three",                 // 2
            "one",                       // 3
            "Manage your managers",      // 4
            "database management",       // 5
            "Abby Abba Ada Bellamy",     // 6
            "Abigail Abba Bella Blake",  // 7
        ])
        let notes = realm.objects(FTNote.self)
        XCTAssertEqual(ids(notes.filter("body TEXT 'one'")), [1, 2, 3])
        XCTAssertEqual(ids(notes.filter("body TEXT 'three one'")), [1, 2], "every word, in any order")
        XCTAssertEqual(ids(notes.filter("body TEXT 'one two three four'")), [])
        XCTAssertEqual(ids(notes.filter("body TEXT 'one -three'")), [3])
        XCTAssertEqual(ids(notes.filter("body TEXT '-three one'")), [3])
        XCTAssertEqual(ids(notes.filter("body TEXT '-one'")), [4, 5, 6, 7], "only exclusions: every other object")
        XCTAssertEqual(ids(notes.filter("body TEXT '-one -abba'")), [4, 5])
        XCTAssertEqual(ids(notes.filter("body TEXT 'manage*'")), [4, 5], "a prefix")
        XCTAssertEqual(ids(notes.filter("body TEXT 'manage'")), [4], "a whole word")
        XCTAssertEqual(ids(notes.filter("body TEXT 'manage* -managers'")), [5])
        XCTAssertEqual(ids(notes.filter("body TEXT 'bel* abba -ada'")), [7])
        XCTAssertEqual(ids(notes.filter("body TEXT 'ab* -abb*'")), [])
        XCTAssertEqual(ids(notes.filter("body TEXT '  one\t two  '")), [1], "any white space separates words")
        // Inside larger predicates; through links.
        XCTAssertEqual(ids(notes.filter("body TEXT 'one' AND tag == 0")), [1], "tags: 0 1 2 0 1 2 0")
        XCTAssertEqual(ids(notes.filter("body TEXT 'one' OR tag == 2")), [1, 2, 3, 6])
        XCTAssertEqual(ids(notes.filter("NOT body TEXT 'one'")), [4, 5, 6, 7])
        XCTAssertEqual(ids(notes.filter("body TEXT 'one' AND id == 2")), [2])
        XCTAssertEqual(ids(notes.filter("body TEXT 'one' SORT(id DESC) LIMIT(2)")), [2, 3])
        try realm.write {
            let shelf = realm.create(FTShelf.self, value: ["name": "s"])
            shelf.notes.append(objectsIn: notes.filter("id IN {1, 4, 6}"))
            shelf.best = notes.filter("id == 5").first
        }
        let shelf = try XCTUnwrap(realm.objects(FTShelf.self).first)
        XCTAssertEqual(ids(shelf.notes.filter("body TEXT 'one'")), [1], "on a list's objects")
        XCTAssertEqual(realm.objects(FTShelf.self).filter("ANY notes.body TEXT 'abba'").count, 1)
        XCTAssertEqual(realm.objects(FTShelf.self).filter("notes.body TEXT 'three'").count, 1)
        XCTAssertEqual(realm.objects(FTShelf.self).filter("notes.body TEXT 'blake'").count, 0)
        XCTAssertEqual(realm.objects(FTShelf.self).filter("best.body TEXT 'database'").count, 1)
        XCTAssertEqual(realm.objects(FTShelf.self).filter("best.body TEXT 'one'").count, 0)
    }

    func testWhereForm() throws {
        let realm = try openRealm(types)
        try add(realm, ["one two three", "one three", "one", "two"])
        let notes = realm.objects(FTNote.self)
        XCTAssertEqual(ids(notes.where { $0.body.fullTextSearch("one -two") }), [2, 3])
        XCTAssertEqual(ids(notes.where { $0.body.fullTextSearch("thr*") && $0.tag == 1 }), [2])
        XCTAssertEqual(ids(notes.where { $0.body.fullTextSearch("two") || $0.id == 3 }), [1, 3, 4])
        XCTAssertEqual(ids(notes.where { !$0.body.fullTextSearch("one") }), [4])
        try realm.write { notes.filter("id == 4").first!.summary = "Summary of Two" }
        XCTAssertEqual(ids(notes.where { $0.summary.fullTextSearch("summary") }), [4])
    }

    func testRefusedQueries() throws {
        let realm = try openRealm(types)
        try add(realm, ["one"])
        let notes = realm.objects(FTNote.self)
        for (query, words) in [("", ["no words"]), ("   ", ["no words"]), ("object-oriented", ["object-oriented", "not a letter"]),
                               ("#", ["no letter"]), ("one -one", ["both searched for and excluded"]),
                               ("C# -c++", ["both searched for and excluded"])] {
            XCTAssertThrowsRealmError(.invalidValue, mentioning: ["Invalid full-text search"] + words) {
                _ = try notes.checkedFilter("body TEXT %@", query)
            }
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["'plain' has no full-text index", "indexed: .fullText"]) {
            _ = try notes.checkedFilter("plain TEXT 'one'")
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["no [c] or [d]"]) { _ = try notes.checkedFilter("body TEXT[c] 'one'") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["string of words"]) { _ = try notes.checkedFilter("body TEXT 3") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["ALL or NONE"]) {
            _ = try realm.objects(FTShelf.self).checkedFilter("ALL notes.body TEXT 'one'")
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["no words"]) { _ = try notes.checkedWhere { $0.body.fullTextSearch(" ") } }
    }

    func testSchemaDescribesTheIndexes() throws {
        let realm = try Realm(configuration: configuration([FTGeneral.self, FTNote.self]))
        let general = try XCTUnwrap(realm.schema["FTGeneral"]?.properties.first { $0.name == "s" })
        XCTAssertTrue(general.isIndexed, "indexed: .general is indexed: true")
        XCTAssertFalse(general.isFullTextIndexed)
        let body = try XCTUnwrap(realm.schema["FTNote"]?.properties.first { $0.name == "body" })
        XCTAssertTrue(body.isFullTextIndexed)
        XCTAssertFalse(body.isIndexed)
        XCTAssertTrue(body.description.contains("fullTextIndexed = YES"))
        try realm.write { realm.add(FTGeneral(value: ["s": "x y"])) }
        XCTAssertEqual(realm.objects(FTGeneral.self).filter("s == 'x y'").count, 1)
    }

    func testIndexFollowsUpdatesDeletesAndRollbacks() throws {
        let realm = try openRealm(types)
        try add(realm, ["red fox", "blue fox", "red dog"])
        let notes = realm.objects(FTNote.self)
        let red = notes.filter("body TEXT 'red'")
        XCTAssertEqual(ids(red), [1, 3])
        try realm.write {
            notes.filter("id == 1").first!.body = "green fox"
            notes.filter("id == 2").first!.summary = "Red summary"
        }
        XCTAssertEqual(ids(red), [3], "live results follow the update")
        XCTAssertEqual(ids(notes.filter("body TEXT 'green'")), [1])
        XCTAssertEqual(ids(notes.filter("summary TEXT 'red'")), [2], "each property has its own index")
        assertIndexExact(realm)
        try realm.write {
            notes.filter("id == 2").first!.summary = nil
            realm.delete(notes.filter("id == 3").first!)
        }
        XCTAssertEqual(ids(red), [])
        XCTAssertEqual(ids(notes.filter("summary TEXT 'red'")), [])
        XCTAssertEqual(ids(notes.filter("body TEXT 'fox'")), [1, 2])
        assertIndexExact(realm)
        // A cancelled write leaves the index as it was.
        realm.beginWrite()
        notes.filter("id == 1").first!.body = "purple cat"
        realm.add(FTNote(value: ["id": 9, "body": "purple fox"]))
        XCTAssertEqual(ids(notes.filter("body TEXT 'purple'")), [1, 9], "seen inside the write")
        realm.cancelWrite()
        XCTAssertEqual(ids(notes.filter("body TEXT 'purple'")), [])
        XCTAssertEqual(ids(notes.filter("body TEXT 'green fox'")), [1])
        assertIndexExact(realm)
        // Upserts by primary key, then deleting everything.
        try realm.write { realm.add(FTNote(value: ["id": 2, "body": "yellow"]), update: .modified) }
        XCTAssertEqual(ids(notes.filter("body TEXT 'fox'")), [1])
        XCTAssertEqual(ids(notes.filter("body TEXT 'yellow'")), [2])
        assertIndexExact(realm)
        try realm.write { realm.deleteAll() }
        XCTAssertEqual(ids(notes.filter("body TEXT '-nothing'")), [])
        assertIndexExact(realm)
    }

    func testReopenAndFormat() throws {
        try withRealm(types) { realm in
            try add(realm, ["kept after closing", "another text"])
        }
        try withRealm(types) { realm in
            XCTAssertEqual(ids(realm.objects(FTNote.self).filter("body TEXT 'closing'")), [1])
            assertIndexExact(realm)
            let stored = try XCTUnwrap(realm.core.readStoredSchema())
            XCTAssertEqual(stored.format, StoredSchema.currentFormat, "a full-text index needs format 4 or later")
            XCTAssertEqual(stored.class(named: "FTNote")?.properties.first { $0.name == "body" }?.fullText, true)
        }
        // Every file this version writes is of the current format (a List
        // may move into the lists tree in any write).
        let other = try Realm(configuration: configuration([Dog.self, Person.self], file: "plain.realm"))
        XCTAssertEqual(try other.core.readStoredSchema()?.format, StoredSchema.currentFormat)
    }

    func testMigrationAddsAndRemovesTheIndex() throws {
        func open(_ type: ObjectBase.Type, _ version: UInt64) throws -> Realm {
            try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: version, objectTypes: [type]))
        }
        try autoreleasepool {
            let realm = try open(FTPaperV0.self, 0)
            try realm.write {
                realm.add(FTPaperV0(value: ["text": "alpha beta"]))
                realm.add(FTPaperV0(value: ["text": "beta gamma"]))
            }
        }
        XCTAssertThrowsRealmError(.schemaMismatch, mentioning: ["full-text index"]) { _ = try open(FTPaperV1.self, 0) }
        try autoreleasepool {
            let realm = try open(FTPaperV1.self, 1)
            XCTAssertEqual(realm.objects(FTPaperV1.self).filter("text TEXT 'beta'").count, 2, "built from the existing objects")
            XCTAssertEqual(realm.objects(FTPaperV1.self).filter("text TEXT 'gamma'").map(\.text), ["beta gamma"])
            let column = realm.core.classInfoOrStop(FTPaperV1.self).columns[0]
            XCTAssertEqual(realm.core.txn.count(column.fullTextTree, "counting"), 4)
            XCTAssertEqual(try realm.core.readStoredSchema()?.format, StoredSchema.currentFormat)
        }
        try autoreleasepool {
            let realm = try open(FTPaperV0.self, 2)
            XCTAssertEqual(realm.objects(FTPaperV0.self).count, 2)
            XCTAssertThrowsRealmError(.invalidValue, mentioning: ["no full-text index"]) {
                _ = try realm.objects(FTPaperV0.self).checkedFilter("text TEXT 'beta'")
            }
            let tree = try realm.core.txn.openTree(TreeName.fullText("FTPaper", "text"), create: false)
            XCTAssertEqual(realm.core.txn.count(tree, "counting"), 0, "the dropped index is emptied")
            XCTAssertEqual(try realm.core.readStoredSchema()?.format, StoredSchema.currentFormat)
        }
    }

    /// Tests/Fixtures/pre-fulltext.realm was written by RealmLite before
    /// full-text indexes existed (Tests/Fixtures/make-pre-fulltext.swift.txt):
    /// it opens as it was, and a migration indexes its texts.
    func testFileWrittenBeforeFullTextIndexes() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pre-fulltext.realm")
        try FileManager.default.copyItem(at: fixture, to: fileURL)
        try autoreleasepool {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: [PlainNote.self]))
            XCTAssertEqual(realm.objects(PlainNote.self).sorted(byKeyPath: "id").map { $0.body ?? "nil" },
                           ["The quick brown fox", "Crème brûlée for the fox", "Lazy dogs sleep", "nil"])
            XCTAssertEqual(try realm.core.readStoredSchema()?.format, StoredSchema.currentFormat, "marked current on open")
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 1, objectTypes: [PreFullTextNote.self]))
        XCTAssertEqual(realm.objects(PreFullTextNote.self).filter("body TEXT 'fox'").map(\.id).sorted(), [1, 2])
        XCTAssertEqual(realm.objects(PreFullTextNote.self).filter("body TEXT 'creme -quick'").map(\.id), [2])
        XCTAssertEqual(realm.objects(PreFullTextNote.self).filter("body TEXT '-fox'").map(\.id).sorted(), [3, 4])
    }

    /// Random texts and writes; random queries compared with the Swift
    /// evaluation, answered from the index and (useIndexes: false) by
    /// matching each text, alone and inside an OR.
    func testRandomizedAgainstSwift() throws {
        let vocabulary = ["Crème", "creme", "CAFÉ", "cafe", "Ærø", "aero", "straße", "strasse", "naïve", "NAIVE",
                          "über", "uber", "fox", "foxes", "fo", "dog", "dogma", "do", "42", "4x4", "object-oriented",
                          "你好", "a", "ab", "abc", String(repeating: "long", count: 20), "Ÿ", "ÿes", "-", "x*y"]
        let queryWords = ["creme", "cafe", "ærø", "aero", "strasse", "straße", "naive", "uber", "über", "fox", "fox*", "fo*",
                          "dog", "do*", "dogm*", "42", "4x4", "object", "oriented", "a", "ab*", "abc", "c*", "yes",
                          String(repeating: "long", count: 16) + "more", "zzz", "e*"]
        var rng = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 0...UInt64.max, using: &rng)
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        let start = seed
        let realm = try openRealm(types)
        var texts: [Int: String] = [:]
        for round in 0..<4 {
            try realm.write {
                for _ in 0..<(round == 0 ? 120 : 40) {
                    let id = next(150)
                    if round > 0 && next(4) == 0 {
                        if let note = realm.object(ofType: FTNote.self, forPrimaryKey: id) { realm.delete(note) }
                        texts[id] = nil
                        continue
                    }
                    let text = (0..<next(7)).map { _ in vocabulary[next(vocabulary.count)] }.joined(separator: next(2) == 0 ? " " : ", ")
                    realm.add(FTNote(value: ["id": id, "body": text, "tag": next(3)]), update: .modified)
                    texts[id] = text
                }
            }
            assertIndexExact(realm)
            let notes = realm.objects(FTNote.self)
            for _ in 0..<150 {
                let query = (0..<(1 + next(3))).map { _ in (next(3) == 0 ? "-" : "") + queryWords[next(queryWords.count)] }.joined(separator: " ")
                guard let terms = naiveTerms(query) else {
                    XCTAssertThrowsRealmError(.invalidValue) { _ = try notes.checkedFilter("body TEXT %@", query) }
                    continue
                }
                let want = texts.filter { naiveMatch($0.value, terms) }.keys.sorted()
                XCTAssertEqual(ids(notes.filter("body TEXT %@", query)), want, "query '\(query)', seed \(start)")
                XCTAssertEqual(notes.filter("body TEXT %@", query).count, want.count, "count of '\(query)', seed \(start)")
                XCTAssertEqual(ids(try notes.checkedFilter("body TEXT %@", arguments: [query], useIndexes: false)), want,
                               "query '\(query)' without the index, seed \(start)")
                let orTag = texts.filter { naiveMatch($0.value, terms) || notes.filter("id == %@", $0.key).first!.tag == 1 }.keys.sorted()
                XCTAssertEqual(ids(notes.filter("body TEXT %@ OR tag == 1", query)), orTag, "query '\(query)' OR, seed \(start)")
            }
        }
    }
}
