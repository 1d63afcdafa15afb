import Synchronization

// How a @Projected property reads its root, resolved once per key path: a
// key path that is exactly one persisted property reads the object's column
// the way its @Persisted accessor does (no key-path runtime on each read);
// any other (links, computed values, projectTo) applies the key path.

/// One @Projected key path, resolved. Shared by every projection whose
/// property reads that key path; immutable, so any thread may use it.
@usableFromInline
final class ProjectedAccess<T: ObjectBase, Value>: @unchecked Sendable {
    @usableFromInline let keyPath: KeyPath<T, Value>
    /// Reads a managed root's column directly; nil for the key-path path.
    private let direct: ((T) -> Value)?

    init(_ keyPath: KeyPath<T, Value>) {
        self.keyPath = keyPath
        direct = plainPropertyReader(keyPath)
    }

    /// True if reads go to the column directly (the key path is one property).
    var readsColumn: Bool { direct != nil }

    /// The value `keyPath` reads on `root`.
    @usableFromInline
    func read(_ root: T) -> Value {
        if let direct { return direct(root) }
        return root[keyPath: keyPath]
    }

    /// Sets the value through `keyPath`, which must be writable.
    @usableFromInline
    func write(_ root: T, _ value: Value) {
        guard let writable = keyPath as? ReferenceWritableKeyPath<T, Value> else {
            realmFatal(.invalidValue, "Cannot set projected property through key path \(keyPath) of \(T.className()): it is not writable (an optional chain or a computed value).")
        }
        root[keyPath: writable] = value
    }

    /// The resolved access of `keyPath`, made once per key path object
    /// (inlined into each projection's initializer, where T and Value are
    /// known, so no generic metadata is looked up per projection).
    /// Key path literals are unique per declaration, so the table stays as
    /// small as the projections' properties; key paths made at run time
    /// (with subscript arguments) resolve afresh once the table is full.
    @usableFromInline
    static func of(_ keyPath: KeyPath<T, Value>) -> ProjectedAccess {
        let id = ObjectIdentifier(keyPath)
        if let known = projectedAccesses.withLock({ $0[id] }) { return unsafeDowncast(known, to: ProjectedAccess.self) }
        let made = ProjectedAccess(keyPath)
        // The entry holds its key path, so the identifier is not reused while it is stored.
        return projectedAccesses.withLock { table in
            if let raced = table[id] { return unsafeDowncast(raced, to: ProjectedAccess.self) }
            if table.count < projectedAccessLimit { table[id] = made }
            return made
        }
    }
}

private let projectedAccessLimit = 4096
private let projectedAccesses = Mutex<[ObjectIdentifier: AnyObject]>([:])

/// A reader of `keyPath`'s column if the key path is exactly one @Persisted
/// property of T (not a link chain, nor a value computed from it); nil
/// otherwise. A computed value of the same type is told apart by reading a
/// sample value through the key path on an unmanaged object, so only types
/// with a sample qualify (the others keep the key path).
private func plainPropertyReader<T: ObjectBase, Value>(_ keyPath: KeyPath<T, Value>) -> ((T) -> Value)? {
    guard let persistable = Value.self as? any _Persistable.Type,
          let sample = plainPropertySamples.lazy.compactMap({ $0 as? Value }).first,
          let names = try? KeyPathRecorder.components(of: keyPath, root: T.self), names.count == 1,
          let descriptor = try? SchemaDiscovery.descriptor(for: T.self),
          let index = descriptor.propertyIndex[names[0]] else { return nil }
    let accessor = descriptor.properties[index].accessor
    guard accessor.valueType == Value.self else { return nil }
    let probe = T()
    guard (try? accessor.setValue(sample, on: probe, realm: nil)) != nil,
          let read = probe[keyPath: keyPath] as? AnyHashable, read == sample as? AnyHashable else { return nil }
    return columnReader(persistable, offset: accessor.columnFieldOffset, keyPath: keyPath)
}

/// Values that any computed property of their type would change (case,
/// whitespace, sign, fraction), one per type with such properties.
private let plainPropertySamples: [any Sendable] = [
    "aB c-1 ", Int(-3), Int8(-3), Int16(-3), Int32(-3), Int64(-3), Double(-1.5), Float(-1.5), true,
    Optional<String>.some("aB c-1 "), Optional<Int>.some(-3), Optional<Double>.some(-1.5), Optional<Bool>.some(true),
]

/// Reads P (which is Value) from the Persisted<P> whose column is at
/// `offset` in T's instances, as the @Persisted getter does; an unmanaged
/// root (column -1) or a key-path recording prototype applies the key path.
private func columnReader<T: ObjectBase, Value, P: _Persistable>(_: P.Type, offset: Int, keyPath: KeyPath<T, Value>) -> (T) -> Value {
    { root in
        let column = (UnsafeRawPointer(Unmanaged.passUnretained(root).toOpaque()) + offset).load(as: Int32.self)
        guard column >= 0 else { return root[keyPath: keyPath] }
        return unsafeBitCast(P._rlmGet(root, Int(column)), to: Value.self)
    }
}
