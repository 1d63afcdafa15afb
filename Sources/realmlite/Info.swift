import CStorage
import Foundation

// MARK: - info

func info(_ path: String) throws {
    let file = try RealmFile(path: path)
    // Reader figures first, before this command pins a snapshot.
    var info = cs_env_info()
    try file.check(cs_env_get_info(file.env, &info))
    var versions: UInt32 = 0
    try file.check(cs_env_active_versions(file.env, &versions))
    final class Readers { var list: [(pid: UInt32, txnid: UInt64)] = [] }
    let readers = Readers()
    try file.check(cs_env_readers(file.env, { ctx, pid, txnid in
        Unmanaged<Readers>.fromOpaque(ctx!).takeUnretainedValue().list.append((pid, txnid))
        return 0
    }, Unmanaged.passUnretained(readers).toOpaque()))
    let names = try file.treeNames()
    let schema = names.contains("realm:meta") ? try file.schema() : nil
    let page = UInt64(info.page_size)
    let used = (info.next_pgno - info.free_pages - info.pending_pages) * page
    print("file:              \(path)")
    print("file format:       \(CSTORAGE_FORMAT_VERSION) (CStorage \(CSTORAGE_VERSION_STRING))")
    if let schema {
        print("object format:     \(schema.format ?? 1)")
        print("schema version:    \(schema.version)")
    } else {
        print("object format:     none (a CStorage file without a RealmLite schema)")
    }
    print("page size:         \(info.page_size)")
    print("file bytes:        \(info.file_size)")
    print("used bytes:        \(used)")
    print("free bytes:        \(info.file_size - used) (reusable \(info.free_pages * page), pending \(info.pending_pages * page), unallocated \(info.file_size - info.next_pgno * page))")
    print("last transaction:  \(info.last_txnid)")
    print("readers:           \(info.readers_used) of \(info.max_readers) slots")
    print("versions held:     \(versions)" + (info.oldest_reader != 0 ? " (oldest snapshot \(info.oldest_reader))" : ""))
    for reader in readers.list.sorted(by: { ($0.txnid, $0.pid) < ($1.txnid, $1.pid) }) {
        let behind = info.last_txnid - min(reader.txnid, info.last_txnid)
        print("  pid \(reader.pid): snapshot \(reader.txnid)" + (behind > 0 ? " (\(behind) commits behind)" : " (newest)"))
    }
    if let schema {
        print("classes:           \(schema.classes.count)")
        for cls in schema.classes {
            let tree = try file.tree("obj:" + cls.name)
            let st = try tree.map(file.treeStat)
            var kind: [String] = []
            if cls.embedded { kind.append("embedded") }
            if cls.isKeyed { kind.append("keyed by \(cls.primaryKey?.name ?? "?")") }
            let suffix = kind.isEmpty ? "" : " (\(kind.joined(separator: ", ")))"
            print("  \(cls.name): \(st?.entries ?? 0) objects, depth \(st?.depth ?? 0)\(suffix)")
        }
    }
    print("trees:             \(names.count)")
    for name in names {
        guard let tree = try file.tree(name) else { continue }
        let st = try file.treeStat(tree)
        print("  \(name): \(st.entries) entries, depth \(st.depth), pages \(st.branch_pages) branch / \(st.leaf_pages) leaf / \(st.overflow_pages) overflow")
    }
}
