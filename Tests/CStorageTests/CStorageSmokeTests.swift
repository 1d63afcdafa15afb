// Smoke tests of the CStorage C API as Swift sees it: open, put, zero-copy
// get, cursor scan, and the same data read back through LMDB (CLMDB).
import CLMDB
import CStorage
import Foundation
import XCTest

private let ok = Int32(CS_OK.rawValue)
private let notFound = Int32(CS_NOTFOUND.rawValue)

/// Borrow bytes as a cs_val for the duration of body.
private func withVal<R>(_ bytes: [UInt8], _ body: (cs_val) throws -> R) rethrows -> R {
    try bytes.withUnsafeBytes { try body(cs_val(data: $0.baseAddress, size: $0.count)) }
}

private func bytes(_ v: cs_val) -> [UInt8] {
    guard let p = v.data, v.size > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: p, count: v.size))
}

/// key i: "k" + 5 digits; value i: i's digits repeated i % 50 times.
private func key(_ i: Int) -> [UInt8] { Array(String(format: "k%05d", i).utf8) }
private func value(_ i: Int) -> [UInt8] {
    Array(String(repeating: String(i), count: i % 50).utf8)
}

final class CStorageSmokeTests: XCTestCase {
    private func tempPath(_ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("cstorage-smoke-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir.appendingPathComponent(name).path
    }

    /// Fill tree "smoke" with n entries in one write txn.
    private func fill(_ env: OpaquePointer, _ n: Int) throws -> cs_tree {
        var txn: OpaquePointer?
        var tree: cs_tree = 0
        XCTAssertEqual(cs_txn_begin(env, 0, &txn), ok)
        XCTAssertEqual(cs_tree_open(txn, "smoke", UInt32(CS_CREATE), &tree), ok)
        for i in 0..<n {
            withVal(key(i)) { k in
                withVal(value(i)) { v in XCTAssertEqual(cs_put(txn, tree, k, v, 0), ok) }
            }
        }
        XCTAssertEqual(cs_txn_commit(txn), ok)
        return tree
    }

    func testPutGetZeroCopyAndCursor() throws {
        let path = try tempPath("smoke.db")
        var env: OpaquePointer?
        XCTAssertEqual(cs_env_open(path, nil, &env), ok)
        let e = try XCTUnwrap(env)
        defer { XCTAssertEqual(cs_env_close(e), ok) }
        let n = 5000
        let tree = try fill(e, n)

        var txn: OpaquePointer?
        XCTAssertEqual(cs_txn_begin(e, UInt32(CS_TXN_RDONLY), &txn), ok)
        // zero-copy: two gets of one key return the same bytes in the map
        var v1 = cs_val(), v2 = cs_val()
        withVal(key(1234)) { k in
            XCTAssertEqual(cs_get(txn, tree, k, &v1), ok)
            XCTAssertEqual(cs_get(txn, tree, k, &v2), ok)
        }
        XCTAssertEqual(v1.data, v2.data)
        XCTAssertEqual(bytes(v1), value(1234))
        withVal(Array("nope".utf8)) { k in XCTAssertEqual(cs_get(txn, tree, k, &v1), notFound) }
        var count: UInt64 = 0
        XCTAssertEqual(cs_count(txn, tree, &count), ok)
        XCTAssertEqual(count, UInt64(n))

        // cursor: full scan in key order, then a lower-bound seek
        var cur: OpaquePointer?
        XCTAssertEqual(cs_cursor_open(txn, tree, &cur), ok)
        var k = cs_val(), v = cs_val()
        var i = 0
        var rc = cs_cursor_get(cur, &k, &v, CS_FIRST)
        while rc == ok {
            XCTAssertEqual(bytes(k), key(i))
            XCTAssertEqual(bytes(v), value(i))
            i += 1
            rc = cs_cursor_get(cur, &k, &v, CS_NEXT)
        }
        XCTAssertEqual(rc, notFound)
        XCTAssertEqual(i, n)
        let probe = Array("k00099x".utf8)  // between k00099 and k00100
        probe.withUnsafeBytes { buf in
            k = cs_val(data: buf.baseAddress, size: buf.count)
            XCTAssertEqual(cs_cursor_get(cur, &k, &v, CS_SEEK), ok)
        }
        XCTAssertEqual(bytes(k), key(100))
        var rank: UInt64 = 0
        XCTAssertEqual(cs_cursor_index(cur, &rank), ok)
        XCTAssertEqual(rank, 100)
        XCTAssertEqual(cs_cursor_close(cur), ok)
        XCTAssertEqual(cs_txn_abort(txn), ok)
    }

    func testSameContentsAsLMDB() throws {
        let n = 3000
        var env: OpaquePointer?
        XCTAssertEqual(cs_env_open(try tempPath("cmp.db"), nil, &env), ok)
        let e = try XCTUnwrap(env)
        defer { XCTAssertEqual(cs_env_close(e), ok) }
        // insert in a scrambled order on both sides
        let order = (0..<n).map { ($0 * 7919) % n }
        var csTxn: OpaquePointer?
        var tree: cs_tree = 0
        XCTAssertEqual(cs_txn_begin(e, 0, &csTxn), ok)
        XCTAssertEqual(cs_tree_open(csTxn, "cmp", UInt32(CS_CREATE), &tree), ok)

        var menv: OpaquePointer?
        XCTAssertEqual(mdb_env_create(&menv), 0)
        defer { mdb_env_close(menv) }
        XCTAssertEqual(mdb_env_set_maxdbs(menv, 4), 0)
        XCTAssertEqual(mdb_env_set_mapsize(menv, 1 << 30), 0)
        XCTAssertEqual(mdb_env_open(menv, try tempPath("cmp.mdb"), UInt32(MDB_NOSUBDIR), 0o644), 0)
        var mtxn: OpaquePointer?
        var dbi: MDB_dbi = 0
        XCTAssertEqual(mdb_txn_begin(menv, nil, 0, &mtxn), 0)
        XCTAssertEqual(mdb_dbi_open(mtxn, "cmp", UInt32(MDB_CREATE), &dbi), 0)

        for i in order {
            var kb = key(i), vb = value(i)
            withVal(kb) { k in withVal(vb) { v in XCTAssertEqual(cs_put(csTxn, tree, k, v, 0), ok) } }
            kb.withUnsafeMutableBytes { kp in
                vb.withUnsafeMutableBytes { vp in
                    var mk = MDB_val(mv_size: kp.count, mv_data: kp.baseAddress)
                    var mv = MDB_val(mv_size: vp.count, mv_data: vp.baseAddress)
                    XCTAssertEqual(mdb_put(mtxn, dbi, &mk, &mv, 0), 0)
                }
            }
        }
        XCTAssertEqual(cs_txn_commit(csTxn), ok)
        XCTAssertEqual(mdb_txn_commit(mtxn), 0)

        // scan both and compare entry by entry
        XCTAssertEqual(cs_txn_begin(e, UInt32(CS_TXN_RDONLY), &csTxn), ok)
        XCTAssertEqual(mdb_txn_begin(menv, nil, UInt32(MDB_RDONLY), &mtxn), 0)
        var cur: OpaquePointer?, mcur: OpaquePointer?
        XCTAssertEqual(cs_cursor_open(csTxn, tree, &cur), ok)
        XCTAssertEqual(mdb_cursor_open(mtxn, dbi, &mcur), 0)
        var k = cs_val(), v = cs_val()
        var mk = MDB_val(), mv = MDB_val()
        var rc = cs_cursor_get(cur, &k, &v, CS_FIRST)
        var mrc = mdb_cursor_get(mcur, &mk, &mv, MDB_FIRST)
        var seen = 0
        while rc == ok && mrc == 0 {
            XCTAssertEqual(bytes(k), bytes(cs_val(data: mk.mv_data, size: mk.mv_size)))
            XCTAssertEqual(bytes(v), bytes(cs_val(data: mv.mv_data, size: mv.mv_size)))
            seen += 1
            rc = cs_cursor_get(cur, &k, &v, CS_NEXT)
            mrc = mdb_cursor_get(mcur, &mk, &mv, MDB_NEXT)
        }
        XCTAssertEqual(rc, notFound)
        XCTAssertEqual(mrc, MDB_NOTFOUND)
        XCTAssertEqual(seen, n)
        mdb_cursor_close(mcur)
        mdb_txn_abort(mtxn)
        XCTAssertEqual(cs_cursor_close(cur), ok)
        XCTAssertEqual(cs_txn_abort(csTxn), ok)
    }
}
