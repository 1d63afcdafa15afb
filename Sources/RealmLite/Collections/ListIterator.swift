extension List {
    /// Iterates the elements present when iteration started: appending to
    /// the list while iterating it does not extend the iteration (and
    /// removing stops it early rather than reading past the end).
    public func makeIterator() -> ListIterator<Element> { ListIterator(list: self) }
}

/// A List's iterator. The work is in ListTreeWalker (non-generic): a list
/// in the lists tree is read a leaf at a time, and a list of objects reads
/// its targets with a cursor of their own (LinkedObjectReader.swift).
/// `next()` is inlined into the caller's loop, so a loop over a List of
/// objects calls no generic code per element.
public struct ListIterator<Element: RealmCollectionValue>: IteratorProtocol {
    let list: List<Element>
    @usableFromInline var walker: ListTreeWalker

    init(list: List<Element>) {
        self.list = list
        guard let field = list.field else {
            walker = ListTreeWalker(unmanagedCount: list.unmanaged.count)
            return
        }
        // A DynamicObject needs the column's class, which its type does not say: decoded by the field.
        var targets = Element.self as? ObjectBase.Type
        if let type = targets, type is DynamicObject.Type { targets = nil }
        walker = ListTreeWalker(field: field, targets: targets)
    }

    @inlinable
    public mutating func next() -> Element? {
        if walker.readsObjects, let object = walker.nextObject() { return unsafeBitCast(object, to: Element.self) }
        return nextElement()
    }

    /// Every element that is not an object read by the walker: unmanaged
    /// lists, lists in the owner's record, lists of values, DynamicObjects,
    /// and a list that left the tree while it was iterated.
    @usableFromInline
    mutating func nextElement() -> Element? {
        let index = walker.index
        guard index < walker.end else { return nil }
        guard let field = list.field else {
            guard index < list.unmanaged.count else { return nil }
            walker.index = index + 1
            return list.unmanaged[index]
        }
        if walker.inTree {
            if let element = walker.nextElementBytes() {
                return field.decode(Element.self, element, at: .index(index), in: walker.realm)
            }
            // The end, unless the list just left the tree (emptied and refilled in the loop).
            if walker.inTree || walker.index >= walker.end { return nil }
        }
        guard index < list.count else { return nil }
        walker.index = index + 1
        return list[index]
    }
}
