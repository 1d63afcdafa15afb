import CStorage
import Foundation
import XCTest
@testable import RealmLite

class Tag: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var uses = 0

    convenience init(_ name: String, uses: Int) {
        self.init()
        self.name = name
        self.uses = uses
    }
}

class Post: Object {
    @Persisted var title = ""
    @Persisted var tag: Tag?
}

/// Makes every data-file write fail with ENOSPC while `failing` is set.
final class DiskFault: @unchecked Sendable {
    var failing = false
    private(set) var failed = 0
    private var hooks = cs_io_hooks()

    init() {
        hooks.ctx = Unmanaged.passUnretained(self).toOpaque()
        hooks.write = { ctx, fd, buf, len, off in
            let fault = Unmanaged<DiskFault>.fromOpaque(ctx!).takeUnretainedValue()
            if fault.failing {
                fault.failed += 1
                return ENOSPC
            }
            var done = 0
            while done < len {
                let n = pwrite(fd, buf! + done, len - done, off_t(off) + off_t(done))
                if n < 0 { if errno == EINTR { continue }; return errno }
                done += n
            }
            return 0
        }
    }

    /// Runs body with files opened in it using these hooks.
    func install<R>(_ body: () throws -> R) rethrows -> R {
        try withUnsafePointer(to: &hooks) { pointer in
            ioHooksForTesting = pointer
            defer { ioHooksForTesting = nil }
            return try body()
        }
    }
}

/// What belongs to one write transaction stays with it.
final class WriteTransactionTests: RealmTestCase {
    func testUpdatePolicyOfAnAddAppliesToWhatItLinksAndEndsWithIt() throws {
        let realm = try openRealm([Post.self, Tag.self])
        try realm.write { realm.add(Tag("swift", uses: 1)) }
        let post = Post()
        post.tag = Tag("swift", uses: 2)
        try realm.write { realm.add(post, update: .modified) }
        XCTAssertEqual(realm.objects(Tag.self).count, 1, "add(update: .modified) updates the linked object with that key")
        XCTAssertEqual(realm.object(ofType: Tag.self, forPrimaryKey: "swift")?.uses, 2)

        // A later write: a setter adds an unmanaged object as RealmSwift does, with .error.
        XCTAssertThrowsRealmError(.primaryKeyExists, mentioning: ["Tag", "swift"]) {
            try realm.write { post.tag = Tag("swift", uses: 3) }
        }
        // The same write as an add(update: .modified): the add's policy ended with it.
        XCTAssertThrowsRealmError(.primaryKeyExists, mentioning: ["Tag", "swift"]) {
            try realm.write {
                realm.add(Tag("other", uses: 0), update: .modified)
                post.tag = Tag("swift", uses: 4)
            }
        }
        XCTAssertEqual(realm.object(ofType: Tag.self, forPrimaryKey: "swift")?.uses, 2)
        XCTAssertNil(realm.object(ofType: Tag.self, forPrimaryKey: "other"), "the failed write was cancelled")
    }

    func testACommitThatFailsForgetsTheClassesItRegistered() throws {
        let fault = DiskFault()
        try fault.install {
            let realm = try openRealm(nil) // classes join the schema on first use
            try realm.write { realm.add(Dog()) }
            fault.failing = true
            XCTAssertThrowsError(try realm.write { realm.add(Tag("swift", uses: 1)) }) { error in
                XCTAssertTrue("\(error)".contains("Committing"), "\(error)")
            }
            XCTAssertGreaterThan(fault.failed, 0, "the commit met the full disk")
            fault.failing = false
            // Tag's trees were never committed: the next write registers it afresh.
            try realm.write { realm.add(Tag("swift", uses: 2)) }
            XCTAssertEqual(realm.objects(Tag.self).count, 1)
            XCTAssertEqual(realm.object(ofType: Tag.self, forPrimaryKey: "swift")?.uses, 2)
            XCTAssertEqual(realm.objects(Dog.self).count, 1, "the commit before the full disk stands")
        }
    }
}
