// Realm.Error: every failure RealmLite reports, with a code to match on and
// a message that names the class/property involved and says what to do.

import Foundation

extension Realm {
    /// The error every RealmLite failure reports: a ``code`` to match on and a
    /// ``message`` that names the file, class or property involved and what to
    /// do. `catch Realm.Error.fileNotFound { }` matches by code, as in
    /// RealmSwift.
    ///
    /// Throwing APIs (opening a Realm, ``Realm/write(withoutNotifying:_:)``,
    /// ``Realm/commitWrite(withoutNotifying:)``) throw it. RealmSwift's
    /// non-throwing APIs (property setters,
    /// ``Realm/add(_:update:)-(Object,_)``,
    /// collection mutators) record it inside a write transaction, which then
    /// cancels and throws it from `write {}` or `commitWrite()`; outside a
    /// transaction they stop the program with its message, as RealmSwift raises
    /// an exception.
    public struct Error: Swift.Error, CustomStringConvertible, Equatable, Sendable {
        /// Codes follow RealmSwift's `Realm.Error.Code` where one exists; the
        /// rest cover what RealmSwift reports by raising an exception.
        public enum Code: Int, Sendable {
            /// An error with no more specific code: e.g.
            /// ``Realm/schemaVersionAtURL(_:encryptionKey:)`` on a file that
            /// was never opened as a Realm.
            case fail = 1
            /// The file cannot be opened, created or deleted (an I/O error, a
            /// directory that does not exist, a configuration with neither a
            /// file nor an in-memory identifier), or
            /// ``Realm/deleteFiles(for:)`` was called while the file is open in
            /// this process.
            case fileAccess = 2
            /// The operating system denied access to the file or its directory.
            case filePermissionDenied = 3
            /// Kept for RealmSwift compatibility (a file that must not exist
            /// already does); RealmLite reports no such case yet.
            case fileExists = 4
            /// A read-only open of a file that does not exist, or
            /// ``Realm/schemaVersionAtURL(_:encryptionKey:)`` on a missing
            /// file.
            case fileNotFound = 5
            /// The lock file beside the Realm (`<file>.lock`) could not be
            /// created, or it is not a valid RealmLite lock file.
            case incompatibleLockFile = 8
            /// The file is a RealmLite file whose format version (or whose
            /// stored schema's encoding) is one this library does not read.
            case fileFormatUpgradeRequired = 9
            /// The program's classes do not match the stored schema and no
            /// migration applies: a lower ``Realm/Configuration/schemaVersion``
            /// than the file's, a changed class at the same version, a
            /// read-only Realm that would need migrating, or a migration that
            /// cannot run while another process has the file open. The message
            /// lists each difference and the fix.
            case schemaMismatch = 10
            /// The file is not a Realm file at all (e.g. a text file or random
            /// bytes), or its header is damaged beyond recovery. Check the
            /// configuration's `fileURL`; if the file is a damaged Realm,
            /// restore it from a backup or delete it.
            case invalidDatabase = 20
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

        /// What went wrong, to match on (`error.code == .primaryKeyExists`).
        public let code: Code
        /// A sentence naming the file, class or property involved and how to
        /// fix the call; the same text the program stops with when there is no
        /// transaction to throw from.
        public let message: String
        /// The file the failing open was for (RealmSwift's `fileURL`): set
        /// on every error thrown while opening a Realm in a file, nil
        /// otherwise.
        public internal(set) var fileURL: URL?

        /// An error with `code` and `message`; RealmLite's own failures are
        /// built this way, and a migration or write block may throw one to
        /// cancel.
        public init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        public var description: String { "Realm.Error(\(code)): \(message)" }
        /// The ``message``, as Foundation's error bridging would show it.
        public var localizedDescription: String { message }

        /// ``Code/fail``, so that `catch Realm.Error.fail` reads as in
        /// RealmSwift.
        public static var fail: Code { .fail }
        /// ``Code/fileAccess``, so that `catch Realm.Error.fileAccess` reads as
        /// in RealmSwift.
        public static var fileAccess: Code { .fileAccess }
        /// ``Code/filePermissionDenied``, so that `catch
        /// Realm.Error.filePermissionDenied` reads as in RealmSwift.
        public static var filePermissionDenied: Code { .filePermissionDenied }
        /// ``Code/fileExists``, so that `catch Realm.Error.fileExists` reads as
        /// in RealmSwift.
        public static var fileExists: Code { .fileExists }
        /// ``Code/fileNotFound``, so that `catch Realm.Error.fileNotFound`
        /// reads as in RealmSwift.
        public static var fileNotFound: Code { .fileNotFound }
        /// ``Code/incompatibleLockFile``, so that `catch
        /// Realm.Error.incompatibleLockFile` reads as in RealmSwift.
        public static var incompatibleLockFile: Code { .incompatibleLockFile }
        /// ``Code/fileFormatUpgradeRequired``, so that `catch
        /// Realm.Error.fileFormatUpgradeRequired` reads as in RealmSwift.
        public static var fileFormatUpgradeRequired: Code { .fileFormatUpgradeRequired }
        /// ``Code/schemaMismatch``, so that `catch Realm.Error.schemaMismatch`
        /// reads as in RealmSwift.
        public static var schemaMismatch: Code { .schemaMismatch }
        /// ``Code/invalidDatabase``, so that `catch Realm.Error.invalidDatabase`
        /// reads as in RealmSwift.
        public static var invalidDatabase: Code { .invalidDatabase }
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
