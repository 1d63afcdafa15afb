import CStorage
import Foundation

// MARK: - copy

/// Writes the newest snapshot of `path` to a new file `out`, tree by tree in
/// key order: a consistent copy taken while writers go on (it holds one
/// read snapshot), and compact (no free pages). Commits every 32 MiB so
/// memory stays bounded; `out` is checked with cs_check before it is kept.
func copy(_ path: String, to out: String) throws {
    let source = try RealmFile(path: path)
    if FileManager.default.fileExists(atPath: out) { throw CLIError("\(out): exists; copy writes a new file") }
    var sourceInfo = cs_env_info()
    try source.check(cs_env_get_info(source.env, &sourceInfo))
    let names = try source.treeNames()
    var options = cs_options()
    options.page_size = sourceInfo.page_size
    var env: OpaquePointer?
    var rc = cs_env_open(out, &options, &env)
    guard rc == 0, let env else { throw RealmFile.error(rc, path: out, opening: true) }
    var kept = false
    defer {
        cs_env_close(env)
        try? FileManager.default.removeItem(atPath: out + ".lock") // rebuilt by the next open
        if !kept { try? FileManager.default.removeItem(atPath: out) }
    }
    func fail(_ rc: Int32) -> CLIError { RealmFile.error(rc, path: out) }
    var txn: OpaquePointer?
    rc = cs_txn_begin(env, 0, &txn)
    guard rc == 0 else { throw fail(rc) }
    var pending = 0, entries: UInt64 = 0
    var total: UInt64 = 0
    for name in names { total += try source.tree(name).map { try source.treeStat($0).entries } ?? 0 }
    let progress = Progress("copy", total: total)
    defer { progress.finish() }
    do {
        for name in names {
            guard let from = try source.tree(name) else { continue }
            var to: cs_tree = 0
            rc = cs_tree_open(txn, name, UInt32(CS_CREATE), &to)
            guard rc == 0 else { throw fail(rc) }
            try source.forEach(from) { key, value in
                let rc = cs_put(txn, to, cs_val(data: key.baseAddress, size: key.count), cs_val(data: value.baseAddress, size: value.count), 0)
                guard rc == 0 else { throw fail(rc) }
                entries += 1
                progress.advance()
                pending += key.count + value.count
                if pending >= 32 << 20 {
                    var rc = cs_txn_commit(txn)
                    txn = nil
                    guard rc == 0 else { throw fail(rc) }
                    rc = cs_txn_begin(env, 0, &txn)
                    guard rc == 0 else { throw fail(rc) }
                    pending = 0
                }
            }
        }
        rc = cs_txn_commit(txn)
        txn = nil
        guard rc == 0 else { throw fail(rc) }
    } catch {
        if let txn { cs_txn_abort(txn) }
        throw error
    }
    progress.finish()
    var report = cs_check_report()
    rc = cs_check(env, &report)
    guard rc == 0 else { throw CLIError("\(out): the copy does not pass check (\(String(cString: cs_last_error_detail()))); removed") }
    var info = cs_env_info()
    rc = cs_env_get_info(env, &info)
    guard rc == 0 else { throw fail(rc) }
    kept = true
    if Progress.quiet { return }
    print("\(out): \(names.count) trees, \(entries) entries, \(info.next_pgno * UInt64(info.page_size)) bytes used (\(path): \((sourceInfo.next_pgno - sourceInfo.free_pages - sourceInfo.pending_pages) * UInt64(sourceInfo.page_size)) used of \(sourceInfo.file_size))")
}
