// Sectioned results of projections (RealmSwift's `sectioned` on
// `Results<some Projection>`): the section key is a projected property,
// sorted by the root key path it reads.

extension Results where Element: ProjectionObservable {
    /// Sorts by the projected property at `keyPath` and sections by its
    /// value: `realm.objects(PersonProjection.self).sectioned(by: \.lastName)`.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true)
        -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: Element.rootKeyPathName(keyPath), ascending: ascending)]) {
            $0[keyPath: keyPath]
        }
    }

    /// Sorts by `sortDescriptors` (root key paths) and sections by the
    /// projected property at `keyPath`, whose root key path must be the first
    /// sort (else a stop with ``Realm/Error/Code/invalidValue``, as RealmSwift
    /// raises).
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor])
        -> SectionedResults<Key, Element> {
        checkSectionSort(sectionKeyPath: Element.rootKeyPathName(keyPath), sortDescriptors)
        return sectioned(sortDescriptors: sortDescriptors) { $0[keyPath: keyPath] }
    }

    /// Sorts by `sortDescriptors` and sections by the key `block` computes
    /// for each projection.
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor])
        -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }

    /// Sorts, then sections by `keyBlock`.
    public func sectioned<Key: _Persistable & Hashable>(sortDescriptors: [SortDescriptor], _ keyBlock: @escaping (Element) -> Key)
        -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(by: sortDescriptors), key: keyBlock)
    }
}
