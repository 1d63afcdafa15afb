import Foundation

// What collection-bench measured: per row and engine, wall time and this
// thread's CPU time (steadier than wall time on a shared machine); the
// table with RealmLite's ratios to the peers.

/// This thread's CPU time, in seconds.
func threadCPU() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

struct Timing {
    let wall, cpu: Double
}

/// The wall and CPU seconds `body` took, and its result.
func seconds<R>(_ body: () throws -> R) rethrows -> (Timing, R) {
    let start = DispatchTime.now().uptimeNanoseconds, cpuStart = threadCPU()
    let result = try body()
    let cpu = threadCPU() - cpuStart
    return (Timing(wall: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpu: cpu), result)
}

enum RowUnit {
    /// Time per operation (lower is better).
    case micros
    /// Operations per second, of what the string names (higher is better).
    case perSecond(String)
    /// Bytes (lower is better); no CPU time.
    case bytes

    var higherIsBetter: Bool { if case .perSecond = self { true } else { false } }

    func text(_ value: Double) -> String {
        switch self {
        case .micros: return String(format: "%.3g µs", value)
        case .bytes: return String(format: "%.3g", value)
        case let .perSecond(what):
            // Thresholds just under the powers: 999.7k prints as 1M, not 1e+03k.
            let number = value >= 999.5e3 ? String(format: "%.3gM", value / 1e6)
                : value >= 999.5 ? String(format: "%.3gk", value / 1e3) : String(format: "%.3g", value)
            return what.isEmpty ? "\(number)/s" : "\(number) \(what)/s"
        }
    }
}

/// One measurement in the row's unit: from wall time, and from CPU time.
struct Measured {
    let wall: Double
    let cpu: Double?
}

final class Results {
    let engines: [String]
    private(set) var rows: [(label: String, unit: RowUnit)] = []
    private var values: [String: [String: Measured]] = [:]

    init(engines: [String]) { self.engines = engines }

    private func record(_ label: String, _ unit: RowUnit, _ engine: String, _ value: Measured) {
        if values[label] == nil { rows.append((label, unit)) }
        values[label, default: [:]][engine] = value
        print("  \(engine.padding(toLength: 10, withPad: " ", startingAt: 0)) \(label): \(cell(value, unit))")
        fflush(nil)
    }

    /// `count` operations that took `time`: µs per operation.
    func perOperation(_ label: String, _ engine: String, _ time: Timing, count: Int) {
        let n = Double(count)
        record(label, .micros, engine, Measured(wall: time.wall / n * 1e6, cpu: time.cpu / n * 1e6))
    }

    /// `count` operations that took `time`: operations per second.
    func rate(_ label: String, of what: String, _ engine: String, _ time: Timing, count: Int) {
        let n = Double(count)
        record(label, .perSecond(what), engine, Measured(wall: n / time.wall, cpu: n / time.cpu))
    }

    func bytes(_ label: String, _ engine: String, _ value: Double) {
        record(label, .bytes, engine, Measured(wall: value, cpu: nil))
    }

    func value(_ label: String, _ engine: String) -> Measured? { values[label]?[engine] }

    private func cell(_ m: Measured, _ unit: RowUnit) -> String {
        guard let cpu = m.cpu else { return unit.text(m.wall) }
        return "\(unit.text(m.wall)) (cpu \(unit.text(cpu)))"
    }

    /// How many times better RealmLite is than `other` (above 1: better),
    /// by wall time and by CPU time.
    private func ratio(_ label: String, _ unit: RowUnit, to other: String) -> String {
        guard let mine = value(label, "realmlite"), let theirs = value(label, other) else { return "" }
        func times(_ a: Double?, _ b: Double?) -> Double? {
            guard let a, let b, a > 0, b > 0 else { return nil }
            return unit.higherIsBetter ? a / b : b / a
        }
        guard let wall = times(mine.wall, theirs.wall) else { return "" }
        let cpu = times(mine.cpu, theirs.cpu).map { String(format: " (cpu %.2f×)", $0) } ?? ""
        return String(format: "%.2f×", wall) + cpu
    }

    /// The markdown table: a column per engine, then the ratios.
    func table() -> String {
        let peers = ["grdb", "sqlite"].filter { engines.contains($0) && engines.contains("realmlite") }
        var lines = ["| row | " + (engines + peers.map { "RL/\($0 == "grdb" ? "GRDB" : "SQLite")" }).joined(separator: " | ") + " |",
                     "|---|" + String(repeating: "---|", count: engines.count + peers.count)]
        for (label, unit) in rows {
            let cells = engines.map { e in value(label, e).map { cell($0, unit) } ?? "—" }
                + peers.map { ratio(label, unit, to: $0) }
            lines.append("| \(label) | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}
