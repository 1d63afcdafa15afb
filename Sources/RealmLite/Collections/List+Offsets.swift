import Foundation

// RealmSwift's IndexSet forms of remove and move (the shapes SwiftUI's
// onDelete and onMove hand over), built on the single-element calls.

extension List {
    /// Removes the elements at `offsets` (the objects stay in the Realm).
    /// An offset outside `0..<count` stops with
    /// ``Realm/Error/Code/invalidValue``. A managed list: inside a write
    /// transaction.
    public func remove(atOffsets offsets: IndexSet) {
        checkOffsets(offsets)
        for index in offsets.reversed() { remove(at: index) }
    }

    /// Moves the elements at `offsets`, keeping their order, to just before
    /// the element that was at `destination` (`count`: to the end), as
    /// `Array.move(fromOffsets:toOffset:)` does. A managed list: inside a
    /// write transaction; offsets outside `0..<count` or a destination
    /// outside `0...count` stop with ``Realm/Error/Code/invalidValue``.
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        checkOffsets(offsets)
        guard (0...count).contains(destination) else {
            realmFatal(.invalidValue, "Destination \(destination) is out of bounds (count \(count)).")
        }
        // The final order as original positions, then moves that build it
        // front to back: each only touches the range still out of place.
        let staying = (0..<count).filter { !offsets.contains($0) }
        let split = staying.firstIndex { $0 >= destination } ?? staying.count
        let target = Array(staying[..<split]) + Array(offsets) + Array(staying[split...])
        var current = Array(0..<count)
        for position in target.indices where current[position] != target[position] {
            let from = current[position...].firstIndex(of: target[position])!
            move(from: from, to: position)
            current.insert(current.remove(at: from), at: position)
        }
    }

    private func checkOffsets(_ offsets: IndexSet) {
        if let last = offsets.last, last >= count || offsets.first! < 0 {
            realmFatal(.invalidValue, "Index \(last >= count ? last : offsets.first!) is out of bounds (count \(count)).")
        }
    }
}
