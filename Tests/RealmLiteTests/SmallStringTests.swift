import Foundation
import XCTest
@testable import RealmLite

// Short ASCII strings are read by assembling the standard library's inline
// form (SmallString.swift). The result must be the very String that
// String(decoding:) makes, bit for bit, and anything else (non-ASCII,
// longer) must be left to String(decoding:).

final class SmallText: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var optionalText: String?
}

final class SmallStringTests: RealmTestCase {
    private func words(_ string: String) -> (UInt64, UInt64) { unsafeBitCast(string, to: (UInt64, UInt64).self) }

    /// ASCII of every length the fast path takes, from a buffer with other
    /// bytes around it (a load past either end would show in the result).
    func testAssemblesTheStandardLibrarysInlineStringForEveryLength() throws {
        XCTAssertNotEqual(_SmallASCII.flags, 0, "this platform's inline strings were not recognised")
        let padded = Array("\u{7F}~0123456789abcdefXYZ~\u{7F}".utf8)
        try padded.withUnsafeBytes { all in
            for start in [1, 2] {
                for count in 0...15 {
                    let bytes = UnsafeRawBufferPointer(rebasing: all[start..<start + count])
                    let made = try XCTUnwrap(_SmallASCII.string(bytes), "length \(count)")
                    let expected = String(decoding: bytes, as: UTF8.self)
                    XCTAssertEqual(made, expected)
                    XCTAssertTrue(words(made) == words(expected), "length \(count): not the standard library's form")
                    XCTAssertEqual(Array(made.utf8), Array(bytes))
                    XCTAssertEqual(made.count, count)
                    XCTAssertEqual(made.hashValue, expected.hashValue)
                    XCTAssertEqual(made + "!", expected + "!")
                }
            }
        }
    }

    func testLeavesLongAndNonASCIITextToTheDecoder() {
        for text in ["0123456789abcdef", "é", "abcdefghijklmné", "\u{80}", "naïve", "日本", String(repeating: "x", count: 40)] {
            Array(text.utf8).withUnsafeBytes { XCTAssertNil(_SmallASCII.string($0), text) }
        }
        // NUL and other control bytes are ASCII: kept inline.
        Array("a\0b\u{1}".utf8).withUnsafeBytes { XCTAssertEqual(_SmallASCII.string($0), "a\0b\u{1}") }
    }

    /// Managed reads of every kind of text give back what was written.
    func testManagedReadsRoundTrip() throws {
        let realm = try openRealm([SmallText.self])
        var texts = (0...20).map { String(repeating: "k", count: $0) }
        texts += ["a\0b", "name12345", "0123456789abcde", "0123456789abcdef", "é", "naïve café", "日本語のテキスト", "🙂", "x🙂"]
        try realm.write {
            for (i, text) in texts.enumerated() {
                realm.add(SmallText(value: ["id": i, "text": text, "optionalText": i % 2 == 0 ? text : nil]))
            }
        }
        for (i, text) in texts.enumerated() {
            let object = try XCTUnwrap(realm.object(ofType: SmallText.self, forPrimaryKey: i))
            XCTAssertEqual(object.text, text)
            // Inline strings (up to 15 UTF-8 bytes) must match the standard
            // library's bit for bit; longer ones hold a heap pointer, so their
            // words can be compared only by chance (a freed buffer reused).
            if text.utf8.count <= 15 {
                XCTAssertTrue(words(object.text) == words(String(decoding: Array(text.utf8), as: UTF8.self)), text)
            }
            XCTAssertEqual(object.optionalText, i % 2 == 0 ? text : nil)
        }
        XCTAssertEqual(realm.objects(SmallText.self).map(\.text), texts)
        XCTAssertEqual(realm.objects(SmallText.self).filter("text == %@", "name12345").first?.id, texts.firstIndex(of: "name12345"))
    }
}
