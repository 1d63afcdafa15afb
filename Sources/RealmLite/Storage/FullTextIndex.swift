// Full-text indexes (`@Persisted(indexed: .fullText)`): the fts:C.p tree of
// a property holds one entry per distinct word of each object's text
// (FileLayout.swift); the engine tokenizes and writes them (CStorage fts.c).

extension RealmCore {
    /// Moves object `key`'s entries in every full-text index of its class
    /// from the texts of record `old` to those of `new` (nil: no record).
    func indexFullText(_ info: ClassInfo, _ key: UInt64, old: RecordView?, new: RecordView?, in write: WriteTransaction) {
        for c in info.fullTextColumns {
            let column = info.columns[c], slot = info.slots[c]
            func text(_ record: RecordView?) -> UnsafeRawBufferPointer? {
                guard let record, !record.isNull(slot) else { return nil }
                return record.field(slot, info.layout)
            }
            write.updateFullText(column.fullTextTree, key: key, old: text(old), new: text(new),
                                 "Indexing the words of '\(info.name).\(column.name)'")
        }
    }
}
