import Foundation

/// A progress line on stderr for work that takes more than a second, shown
/// only when stderr is a terminal and --quiet was not given; cleared at the
/// end, so output to pipes and files never carries it.
final class Progress: @unchecked Sendable {
    // @unchecked: used by one thread (the command's).
    nonisolated(unsafe) static var quiet = false

    private let label: String
    private let total: UInt64
    private let enabled: Bool
    private let start = Date()
    private var last = Date.distantPast
    private var shown = false
    private var calls: UInt64 = 0
    private(set) var done: UInt64 = 0
    /// Seconds before the first redraw. REALMLITE_PROGRESS_AFTER overrides
    /// it, so that tests can see the line without a slow run.
    private static let delay: TimeInterval = ProcessInfo.processInfo.environment["REALMLITE_PROGRESS_AFTER"].flatMap(Double.init) ?? 1

    /// `streaming`: the command writes its output to stdout as it goes
    /// (dump), so there is no line when stdout is the same terminal.
    init(_ label: String, total: UInt64, streaming: Bool = false) {
        self.label = label
        self.total = total
        enabled = !Progress.quiet && isatty(STDERR_FILENO) == 1 && !(streaming && isatty(STDOUT_FILENO) == 1)
    }

    /// Counts `n` more units; redraws at most ten times a second, from the
    /// first second on.
    @inline(__always)
    func advance(_ n: UInt64 = 1) {
        set(done + n)
    }

    /// Sets the units done (import counts input bytes).
    @inline(__always)
    func set(_ value: UInt64) {
        done = value
        calls &+= 1
        guard enabled, calls & 1023 == 0 else { return }
        draw()
    }

    private func draw() {
        let now = Date()
        guard now.timeIntervalSince(start) >= Progress.delay, now.timeIntervalSince(last) >= 0.1 else { return }
        last = now
        shown = true
        guard total > 0 else { // size unknown (import from a pipe): the count only
            FileHandle.standardError.write(Data("\r\(label) \(done)".utf8))
            return
        }
        let percent = min(100, done * 100 / total)
        let width = 30, filled = Int(percent) * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(percent)% \(done)/\(total)".utf8))
    }

    /// Clears the line; call before printing to stdout.
    func finish() {
        guard shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        shown = false
    }
}
