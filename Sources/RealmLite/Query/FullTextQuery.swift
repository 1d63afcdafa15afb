// The TEXT operator: `bio TEXT 'cat dog -bird fish*'` on a property with a
// full-text index (`@Persisted(indexed: .fullText)`). Every word must be in
// the text, `-word` must not be, `word*` is any word starting so; words are
// compared as the engine tokenizes them (CStorage fts.c: case- and
// diacritic-insensitive). A query that is only `prop TEXT '...'` is answered
// by the index alone; anywhere else (OR, NOT, through links) each object's
// text is matched in the engine without the index.

extension QueryCompiler {
    /// The query text of a TEXT comparison, checked: the key path ends in a
    /// full-text indexed property and the query is well formed.
    func fullTextQuery(_ c: QueryComparison) throws -> (path: ResolvedPath, query: String) {
        guard case .keyPath(let components, let position) = c.left else {
            throw resolver.fail("TEXT needs a property name on its left", c.position)
        }
        let path = try resolver.resolve(components, position: position)
        var info = self.info
        for (i, name) in components.enumerated() {
            guard let index = info.descriptor.propertyIndex[name] else { break }
            let column = info.columns[index]
            if i == components.count - 1 {
                guard column.isFullText else {
                    throw resolver.fail("'\(path.text)' has no full-text index, which TEXT needs; declare it @Persisted(indexed: .fullText)", c.position)
                }
            } else if let target = column.target, column.type == .object {
                info = target
            } else {
                break
            }
        }
        if c.caseInsensitive || c.diacriticInsensitive {
            throw resolver.fail("TEXT takes no [c] or [d] options: it always ignores case and diacritics", c.position)
        }
        if c.quantifier == .all || c.quantifier == .none {
            throw resolver.fail("TEXT cannot follow ALL or NONE; use NOT (... TEXT ...) for objects without the words", c.position)
        }
        guard case .value(.string(let query), let at) = c.right else {
            throw resolver.fail("TEXT needs a string of words on its right", c.position)
        }
        if let problem = fullTextQueryProblem(query) {
            throw resolver.fail("Invalid full-text search '\(query)': \(problem)", at)
        }
        return (path, query)
    }

    /// The row filter of a TEXT comparison: the engine matches each text.
    func fullTextFilter(_ c: QueryComparison) throws -> RowFilter {
        let (path, query) = try fullTextQuery(c)
        let test: (QueryOperand) -> Bool = { operand in
            if case .raw(let text) = operand { return fullTextMatches(query, text) }
            return false
        }
        if let column = path.directColumn, !path.isMulti {
            let slot = info.slots[column.index], layout = info.layout
            return { _, record, _ in !record.isNull(slot) && fullTextMatches(query, record.field(slot, layout)) }
        }
        let source = path.source
        return { realm, record, key in !source(realm, record, key) { !test($0) } }
    }

    /// The index search answering `prop TEXT '...'` on a property of the
    /// queried class; nil for a TEXT through links (or a malformed one,
    /// which the filter reports).
    func fullTextProbe(_ c: QueryComparison) -> IndexProbe? {
        guard let (path, query) = try? fullTextQuery(c), let column = path.directColumn, !path.isMulti else { return nil }
        return IndexProbe(column: column, tree: column.fullTextTree, isPrimaryKey: false, keys: [], fullTextQuery: query)
    }
}
