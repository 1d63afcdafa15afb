// A lookup (`where { $0.name == x }`, `filter("name == %@", x)`) is the
// query an app runs most, once per value: the general compiler's closures,
// normalizations and path checks were a quarter of its cost. The shape
// "indexed String or Int property of the class == constant of its type"
// compiles here to one filter and one index key; every other predicate, and
// every other shape of this one (nil, [c], a primary key, a mixed or
// optional-typed constant), goes through the general compiler, whose
// results these must equal (QueryLookupTests compares the two).

extension QueryCompiler {
    /// The compiled query of `property == constant` on an indexed String or
    /// Int property of the class itself, or nil for any other predicate.
    func indexedEquality(_ predicate: QueryPredicate) -> CompiledQuery? {
        guard useIndexes, selfPath == nil, case .comparison(let c) = predicate, c.op == .equal,
              c.quantifier == .implicit, c.listQuantifier == .implicit, !c.listUnquantified,
              !c.caseInsensitive, !c.diacriticInsensitive,
              case .keyPath(let components, _) = c.left, components.count == 1,
              case .value(let value, _) = c.right,
              let index = info.descriptor.propertyIndex[components[0]] else { return nil }
        let column = info.columns[index]
        guard column.collection == .none, column.isIndexed, !column.isPrimary else { return nil }
        let slot = info.slots[column.index], layout = info.layout
        let filter: RowFilter
        switch (column.type, value) {
        case (.string, .string(let s)):
            let bytes = Array(s.utf8)
            filter = { _, record, _ in
                guard !record.isNull(slot) else { return false }
                let field = record.field(slot, layout)
                return field.count == bytes.count && bytesEqual(field, 0, bytes)
            }
        case (.int, .int(let v)):
            filter = { _, record, _ in
                !record.isNull(slot) && Int64(littleEndian: record.fixed(slot).loadUnaligned(as: Int64.self)) == v
            }
        default:
            return nil
        }
        guard let key = indexKeyOf(value, column) else { return nil }
        return CompiledQuery(filter: filter, probe: IndexProbe(column: column, tree: column.indexTree, isPrimaryKey: false, keys: [key]),
                             test: nil)
    }
}
