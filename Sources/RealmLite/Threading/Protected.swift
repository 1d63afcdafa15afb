import Foundation

/// A value behind an NSLock, with Mutex's `withLock` shape. For state that
/// threads share under ThreadSanitizer: on Linux, TSan does not see
/// Synchronization.Mutex's futex lock and reports its critical sections as
/// races; NSLock (a pthread mutex) it understands.
final class Protected<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `lock` held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
