import CStorage
import Foundation

// MARK: - copy and compact

/// Writes the newest snapshot of `path` to a new file `out` with the
/// engine's cs_env_copy: consistent while writers go on (one read
/// snapshot), compact (no free pages), checked before it gets its name.
func copy(_ path: String, to out: String) throws {
    let source = try RealmFile(path: path)
    if FileManager.default.fileExists(atPath: out) { throw CLIError("\(out): exists; copy writes a new file") }
    var sourceInfo = cs_env_info()
    try source.check(cs_env_get_info(source.env, &sourceInfo))
    let rc = cs_env_copy(source.env, out, 0)
    if rc == Int32(CS_EXISTS.rawValue) { throw CLIError("\(out): exists; copy writes a new file") }
    guard rc == 0 else { throw RealmFile.error(rc, path: out) }
    if Progress.quiet { return }
    // The summary reads the copy; its lock file is made again by the next open.
    let hadLock = FileManager.default.fileExists(atPath: out + ".lock")
    defer { if !hadLock { try? FileManager.default.removeItem(atPath: out + ".lock") } }
    let copied = try RealmFile(path: out)
    let names = try copied.treeNames()
    var entries: UInt64 = 0
    for name in names { entries += try copied.tree(name).map { try copied.treeStat($0).entries } ?? 0 }
    var info = cs_env_info()
    try copied.check(cs_env_get_info(copied.env, &info))
    let used = (sourceInfo.next_pgno - sourceInfo.free_pages - sourceInfo.pending_pages) * UInt64(sourceInfo.page_size)
    print("\(out): \(names.count) trees, \(entries) entries, \(info.next_pgno * UInt64(info.page_size)) bytes used (\(path): \(used) used of \(sourceInfo.file_size))")
}

/// Compacts `path` in place (cs_env_compact): only while no other process
/// has it open; a crash at any moment leaves the old or the compacted file.
func compactInPlace(_ path: String) throws {
    let file = try RealmFile(path: path, writable: true)
    var info = cs_env_info()
    try file.check(cs_env_get_info(file.env, &info))
    try file.compactInPlace()
    if Progress.quiet { return }
    let after = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    print("\(path): compacted in place, \(info.file_size) -> \(after) bytes")
}
