// Key-value coding on objects, as RealmSwift's (NSObject's) value(forKey:),
// setValue(_:forKey:) and subscript: properties read and written by name.
// RealmSwift raises NSUnknownKeyException for an unknown key; RealmLite
// stops with invalidValue naming the class and key, as for other misuse.

extension ObjectBase {
    /// Reads or writes a property by name (key-value coding): `dog["age"]`
    /// is `dog.age` as `Any?` (nil for a nil optional). An unknown name or
    /// a value of the wrong type stops with ``Realm/Error/Code/invalidValue``;
    /// writing a managed object's property needs a write transaction, as a
    /// setter does.
    public subscript(key: String) -> Any? {
        get {
            let (descriptor, index) = kvcProperty(key)
            let value = descriptor.properties[index].accessor.value(of: self)
            // An optional property gives its value or nil, not a nested Optional.
            if let optional = value as? any AnyOptional { return optional.anyWrapped }
            return value
        }
        set {
            let (descriptor, index) = kvcProperty(key)
            let item: Any = newValue ?? (Optional<Any>.none as Any) // the value itself, not wrapped in Optional
            orStop(otherwise: .invalidValue) { try descriptor.properties[index].accessor.setValue(item, on: self, realm: _realm) }
        }
    }

    /// The value of the property named `key` (`dog.value(forKey: "age")` is
    /// `dog.age` as `Any?`); the same as ``subscript(_:)``. An unknown key
    /// stops with ``Realm/Error/Code/invalidValue`` naming the class and key.
    public func value(forKey key: String) -> Any? { self[key] }

    /// The value at a dotted key path: `"owner.name"` follows the `owner`
    /// link (a nil link gives nil); a collection on the way gives an array
    /// of each element's value, as RealmSwift does; `self` names the object.
    public func value(forKeyPath keyPath: String) -> Any? {
        var current: Any? = self
        for name in keyPath.split(separator: ".").map(String.init) where name != "self" {
            switch current {
            case let object as ObjectBase: current = object[name]
            case let collection as any RealmCollection: current = collection.value(forKey: name)
            case nil: return nil
            default:
                realmFatal(.invalidValue, "Cannot read '\(name)' of \(type(of: current!)) in key path '\(keyPath)': key paths go through objects.")
            }
        }
        return current
    }

    /// Sets the property named `key` to `value` (converted as
    /// `create(_:value:)` converts it). A managed object needs a write
    /// transaction (``Realm/Error/Code/wrongTransactionState``); an unknown
    /// key or a value of the wrong type stops with
    /// ``Realm/Error/Code/invalidValue``.
    public func setValue(_ value: Any?, forKey key: String) { self[key] = value }
}

extension ObjectBase {
    /// The class's descriptor and the index of the property `name`; stops
    /// naming both when there is none.
    private func kvcProperty(_ name: String) -> (ClassDescriptor, Int) {
        guard let descriptor = _info?.descriptor ?? (self as? DynamicObject)?.unmanagedInfo?.descriptor
                ?? (try? SchemaDiscovery.descriptor(for: type(of: self))),
              let index = descriptor.propertyIndex[name] else {
            let className = _className
            realmFatal(.invalidValue, "'\(className)' has no property named '\(name)': key-value coding takes the name of a persisted property.")
        }
        return (descriptor, index)
    }
}
