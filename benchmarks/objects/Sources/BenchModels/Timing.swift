import Foundation

// Timing shared by the bench programs.

/// Monotonic seconds.
public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Seconds taken by body, and its result.
public func timed<R>(_ body: () throws -> R) rethrows -> (Double, R) {
    let start = now()
    let result = try body()
    return (now() - start, result)
}

/// The middle value (the upper one of an even count); 0 for none.
public func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}
