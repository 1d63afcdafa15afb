// @Projected: a projection's property, a key path on the root object. It
// holds no value; the enclosing-instance subscript reads and writes the
// projection's root through the key path, resolved once per key path
// (ProjectedAccess.swift). The subscript is @inlinable so that the storage
// key path, a literal at every use, folds into a direct field load.

/// Declares a property of a ``Projection``: `@Projected(\Person.firstName)
/// var name` reads and writes the root object's `firstName`. The key path
/// may go through to-one links (`\Person.address?.city`), end in a computed
/// value of a persisted property (`\Person.lastName.localizedUppercase`,
/// read-only), or map a list or set of objects to one of their properties
/// (`\Person.friends.projectTo.firstName`, a ``ProjectedCollection``).
@propertyWrapper
public struct Projected<T: ObjectBase, Value>: AnyProjected {
    @usableFromInline let access: ProjectedAccess<T, Value>
    var keyPath: KeyPath<T, Value> { access.keyPath }

    /// A property reading `projectedKeyPath` on the projection's root object.
    @inlinable
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        access = ProjectedAccess.of(projectedKeyPath)
    }

    /// Unavailable: the value is read through the enclosing projection.
    @available(*, unavailable, message: "@Projected can only be used as a property of a Projection")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("unavailable") }
    }

    /// Reads the root object through the key path; a write sets it there
    /// (in a write transaction for a managed object). Writing a key path
    /// that is not writable (an optional chain, a computed value) stops with
    /// ``Realm/Error/Code/invalidValue``.
    @inlinable
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        @inline(__always) get {
            projection[keyPath: storageKeyPath].access.read(projection.rootObject)
        }
        @inline(__always) set {
            projection[keyPath: storageKeyPath].access.write(projection.rootObject, newValue)
        }
    }

    var projectedKeyPath: AnyKeyPath { keyPath }

    func originName() throws -> String {
        try KeyPathRecorder.name(of: keyPath, root: T.self)
    }
}
