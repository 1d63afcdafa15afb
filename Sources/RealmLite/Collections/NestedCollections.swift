// Lists and dictionaries nested in AnyRealmValues, read from managed objects,
// are live: a CollectionField with a path of steps from its column's value
// (MixedCodec.swift stores a nested collection as a tag byte and an element
// array or map field inside its parent). Reads walk the path in the record;
// a mutation rebuilds the parents along the path and writes the column's
// field once, through RealmCore.updateColumn (which keeps the index and the
// mixed backlinks in step).

/// A step from a collection of mixed values to one of its elements.
enum MixedStep: Equatable {
    case index(Int)
    /// A dictionary key's UTF-8 bytes.
    case key([UInt8])
}

extension CollectionField {
    func child(_ step: MixedStep) -> CollectionField {
        CollectionField(owner: owner, column: column, path: path + [step], rootIsValue: rootIsValue)
    }

    /// Element `bytes` of this collection, found at `step`: a nested list or
    /// dictionary in an AnyRealmValue is returned live.
    @inline(__always)
    func decode<E: _RealmElement>(_: E.Type, _ bytes: UnsafeRawBufferPointer, at step: @autoclosure () -> MixedStep,
                                  in realm: RealmCore? = nil) -> E {
        if _slowPath(E.self == AnyRealmValue.self) { return decodeMixed(bytes, realm ?? self.realm, asField: child(step())) as! E }
        return decode(bytes, in: realm)
    }

    /// The element array (or map field) of the nested collection in the
    /// column's `field`; nil once the path leads to no list or dictionary
    /// (the value was replaced).
    func nestedArray(in field: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var current = field
        if rootIsValue {
            guard let payload = collectionPayload(current) else { return nil }
            current = payload
        }
        for step in path {
            guard let element = nestedElement(of: current, step), let payload = collectionPayload(element) else { return nil }
            current = payload
        }
        return current
    }

    /// Replaces the nested collection's elements with `array` (an element
    /// array or map field) and writes the column.
    func writeNested(_ array: [UInt8]) {
        let info = owner._info.unsafelyUnwrapped
        let field = owner._currentRecord().field(info.slots[column], info.layout)
        var rebuilt: [UInt8]?
        if rootIsValue {
            if let tag = field.first, let payload = collectionPayload(field) {
                rebuilt = replacingNested(payload, path[...], array).map { [tag] + $0 }
            }
        } else {
            rebuilt = replacingNested(field, path[...], array)
        }
        guard let rebuilt else {
            realm.fail(Realm.Error(.invalidValue, "The collection nested in '\(name)' no longer exists: its AnyRealmValue was replaced."))
            return
        }
        rebuilt.withUnsafeBytes { realm.updateColumn(owner, column, isNull: false, $0) }
    }
}

/// The element array of a stored mixed list or dictionary value.
private func collectionPayload(_ tagged: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
    guard let view = MixedView(tagged), view.tag == .list || view.tag == .dictionary else { return nil }
    return view.payload
}

private func nestedElement(of array: UnsafeRawBufferPointer, _ step: MixedStep) -> UnsafeRawBufferPointer? {
    let view = ElementArrayView(bytes: array)
    switch step {
    case .index(let i):
        return i >= 0 && i < view.count ? view.element(i) : nil
    case .key(let key):
        let search = key.withUnsafeBytes { mapSearch(view, $0) }
        return search.found ? MapEntry.split(view.element(search.index)).value : nil
    }
}

/// `array` with the collection at `path` inside it replaced by `leaf`.
private func replacingNested(_ array: UnsafeRawBufferPointer, _ path: ArraySlice<MixedStep>, _ leaf: [UInt8]) -> [UInt8]? {
    guard let step = path.first else { return leaf }
    guard let element = nestedElement(of: array, step), let tag = element.first, let payload = collectionPayload(element),
          let inner = replacingNested(payload, path.dropFirst(), leaf) else { return nil }
    let view = ElementArrayView(bytes: array)
    let replaced = [tag] + inner
    switch step {
    case .index(let i):
        return spliceElementArray(view, i..<(i + 1), [replaced])
    case .key(let key):
        let index = key.withUnsafeBytes { mapSearch(view, $0) }.index
        return spliceElementArray(view, index..<(index + 1), [MapEntry(key: key, value: replaced).encoded])
    }
}
