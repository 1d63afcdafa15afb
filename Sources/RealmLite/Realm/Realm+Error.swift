// Realm.Error: every failure RealmLite reports, with a code to match on and
// a message that names the class/property involved and says what to do.

extension Realm {
    public struct Error: Swift.Error, CustomStringConvertible, Equatable, Sendable {
        /// Codes follow RealmSwift's `Realm.Error.Code` where one exists; the
        /// rest cover what RealmSwift reports by raising an exception.
        public enum Code: Int, Sendable {
            case fail = 1
            case fileAccess = 2
            case filePermissionDenied = 3
            case fileExists = 4
            case fileNotFound = 5
            case incompatibleLockFile = 8
            case fileFormatUpgradeRequired = 9
            case schemaMismatch = 10
            /// A mutation outside a write transaction, or a nested write.
            case wrongTransactionState = 100
            /// An object with this primary key already exists (`update: .error`).
            case primaryKeyExists = 101
            /// The primary key of a managed object cannot change.
            case primaryKeyChange = 102
            /// The class is not part of this Realm's schema (`objectTypes`).
            case objectTypeNotInSchema = 103
            /// A value of the wrong type or shape (e.g. in `create(_:value:)`).
            case invalidValue = 104
            /// The object belongs to a different Realm (or was deleted).
            case wrongRealm = 105
            /// The object was deleted or its write transaction was cancelled.
            case invalidatedObject = 106
            /// The class definition cannot be stored (unsupported type...).
            case invalidSchema = 107
            /// The Realm was opened read-only.
            case readOnly = 108
            /// The storage engine failed (I/O, corruption, limits).
            case storage = 109
            /// A confined Realm, object or collection was used outside the
            /// thread, queue or actor it belongs to.
            case incorrectThread = 110
            /// A write to, or an observation of, a frozen Realm, object or
            /// collection.
            case frozen = 111
            /// Configuration.maximumNumberOfActiveVersions was exceeded.
            case tooManyActiveVersions = 112
            /// A ThreadSafeReference was resolved a second time.
            case referenceAlreadyResolved = 113
        }

        public let code: Code
        public let message: String

        public init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        public var description: String { "Realm.Error(\(code)): \(message)" }
        public var localizedDescription: String { message }

        public static var fail: Code { .fail }
        public static var fileAccess: Code { .fileAccess }
        public static var filePermissionDenied: Code { .filePermissionDenied }
        public static var fileExists: Code { .fileExists }
        public static var fileNotFound: Code { .fileNotFound }
        public static var incompatibleLockFile: Code { .incompatibleLockFile }
        public static var fileFormatUpgradeRequired: Code { .fileFormatUpgradeRequired }
        public static var schemaMismatch: Code { .schemaMismatch }
    }
}

/// `catch Realm.Error.fileNotFound { }`, as with RealmSwift.
public func ~= (code: Realm.Error.Code, error: any Swift.Error) -> Bool {
    (error as? Realm.Error)?.code == code
}

/// Stops the program with a Realm.Error's message: used where RealmSwift's
/// API is non-throwing (property accessors, collection mutators, ...) and
/// there is no transaction to defer the error to.
@usableFromInline
func realmFatal(_ error: Realm.Error, file: StaticString = #file, line: UInt = #line) -> Never {
    // fatalError, not preconditionFailure: -O builds drop the latter's message.
    fatalError("RealmLite: \(error.message)", file: file, line: line)
}

@usableFromInline
func realmFatal(_ code: Realm.Error.Code, _ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
    realmFatal(Realm.Error(code, message), file: file, line: line)
}

extension Realm.Error {
    static func outsideWrite(_ what: String) -> Realm.Error {
        Realm.Error(.wrongTransactionState,
                    "Cannot \(what) outside of a write transaction: wrap it in realm.write { } or call realm.beginWrite() first.")
    }

    static func invalidated(_ className: String) -> Realm.Error {
        Realm.Error(.invalidatedObject,
                    "Object of type '\(className)' has been deleted or invalidated; re-fetch it (e.g. realm.object(ofType:forPrimaryKey:)) before using it.")
    }
}

extension Realm.Error {
    /// `error` itself if it is a Realm.Error, else wrapped with `code`.
    init(_ error: Swift.Error, otherwise code: Code = .fail) {
        self = error as? Realm.Error ?? Realm.Error(code, "\(error)")
    }
}

/// Runs a throwing operation inside a non-throwing RealmSwift API: stops
/// with the Realm.Error's message (another error is wrapped with `code`).
@discardableResult
func orStop<R>(otherwise code: Realm.Error.Code = .fail, _ body: () throws -> R) -> R {
    do { return try body() } catch { realmFatal(Realm.Error(error, otherwise: code)) }
}
