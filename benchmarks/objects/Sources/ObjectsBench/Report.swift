import BenchModels
import Foundation

// Results: per workload and engine, the value of each run; medians, ratios
// against GRDB and SQLite, the bar set by Realm's own engine (issue 8), the
// console/markdown table and the JSON file.

enum Unit: String, Codable {
    case opsPerSecond = "ops/s", milliseconds = "ms", bytes, kibibytes = "KiB"
    /// I/O per durable transaction: bytes written, write calls, flushes.
    case bytesPerTxn = "B/txn", callsPerTxn = "per txn"
    var lowerIsBetter: Bool { self != .opsPerSecond }
}

/// The bar: Realm's engine (realm-core 14.14, C++ API, full durability)
/// measured on this machine kind, as a ratio to GRDB, or an absolute limit.
enum Goal: Codable {
    case ratioToGRDB(Double, realmCore: String, grdb: String)
    case atLeast(Double, String)
    case atMost(Double, String)
}

struct WorkloadSpec {
    let name: String
    let unit: Unit
    let what: String
    var goal: Goal? = nil
    /// Also at least raw SQLite's median (durable transactions).
    var atLeastSQLite = false
}

final class Report {
    let specs: [WorkloadSpec]
    private(set) var results: [String: [String: [Double]]] = [:]
    let engines: [(name: String, settings: String)]

    init(specs: [WorkloadSpec], engines: [(name: String, settings: String)]) {
        self.specs = specs
        self.engines = engines
    }

    func record(_ workload: String, _ engine: String, _ value: Double) {
        precondition(specs.contains { $0.name == workload }, "unknown workload \(workload)")
        results[workload, default: [:]][engine, default: []].append(value)
    }

    func medianOf(_ workload: String, _ engine: String) -> Double? {
        guard let runs = results[workload]?[engine], !runs.isEmpty else { return nil }
        return median(runs)
    }

    /// How many times better RealmLite is than `other` (above 1: better).
    func ratio(_ spec: WorkloadSpec, to other: String) -> Double? {
        guard let mine = medianOf(spec.name, "realmlite"), let theirs = medianOf(spec.name, other),
              mine > 0, theirs > 0 else { return nil }
        return spec.unit.lowerIsBetter ? theirs / mine : mine / theirs
    }

    /// "met"/"below" against the bar, with the numbers.
    func verdict(_ spec: WorkloadSpec) -> (met: Bool, text: String)? {
        guard let goal = spec.goal, let mine = medianOf(spec.name, "realmlite") else { return nil }
        var met: Bool, text: String
        switch goal {
        case let .ratioToGRDB(target, _, _):
            guard let r = ratio(spec, to: "grdb") else { return nil }
            met = r >= target
            text = String(format: "%.1f× GRDB (Realm %.1f×)", r, target)
        case let .atLeast(limit, label):
            met = mine >= limit
            text = "\(human(mine, spec.unit)) (≥ \(label))"
        case let .atMost(limit, label):
            met = mine <= limit
            text = "\(human(mine, spec.unit)) (≤ \(label))"
        }
        if spec.atLeastSQLite, let r = ratio(spec, to: "sqlite") {
            met = met && r >= 1
            text += String(format: ", %.2f× SQLite (≥ 1)", r)
        }
        return (met, (met ? "met: " : "**below**: ") + text)
    }

    func human(_ value: Double, _ unit: Unit) -> String {
        switch unit {
        case .bytes: return String(format: "%.2f MiB", value / 1_048_576)
        case .kibibytes: return String(format: "%.1f MiB", value / 1024)
        case .bytesPerTxn: return value < 10_240 ? String(format: "%.0f B", value) : String(format: "%.1f KiB", value / 1024)
        case .callsPerTxn: return String(format: "%.2f", value)
        case .milliseconds: return value < 10 ? String(format: "%.2f ms", value) : String(format: "%.0f ms", value)
        case .opsPerSecond:
            if value >= 1e6 { return String(format: "%.2fM", value / 1e6) }
            if value >= 1e3 { return String(format: "%.1fk", value / 1e3) }
            return String(format: "%.0f", value)
        }
    }

    func cell(_ workload: WorkloadSpec, _ engine: String) -> String {
        guard let runs = results[workload.name]?[engine], !runs.isEmpty else { return "—" }
        let med = human(median(runs), workload.unit)
        guard let lo = runs.min(), let hi = runs.max(), lo != hi else { return med }
        return "\(med) (\(human(lo, workload.unit))–\(human(hi, workload.unit)))"
    }

    func realmColumn(_ spec: WorkloadSpec) -> String {
        switch spec.goal {
        case let .ratioToGRDB(r, core, grdb)?: return String(format: "%.1f× (%@ vs %@)", r, core, grdb)
        case let .atLeast(_, label)?, let .atMost(_, label)?: return label
        case nil: return ""
        }
    }

    /// The results table in markdown (also what the console shows).
    func table() -> String {
        let names = engines.map(\.name)
        var lines = ["| workload | " + names.joined(separator: " | ") + " | RL/GRDB | RL/SQLite | Realm (bar) | verdict |",
                     "|---|" + String(repeating: "---|", count: names.count + 4)]
        for spec in specs where results[spec.name] != nil {
            let g = ratio(spec, to: "grdb").map { String(format: "%.2f×", $0) } ?? ""
            let s = ratio(spec, to: "sqlite").map { String(format: "%.2f×", $0) } ?? ""
            let row = ["\(spec.name) (\(spec.unit.rawValue))"] + names.map { cell(spec, $0) }
                + [g, s, realmColumn(spec), verdict(spec)?.text ?? ""]
            lines.append("| " + row.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    func json(config: [String: Any], machine: [String: String], quick: Bool, sourceRev: String, markdown: String) -> Data {
        var workloads: [[String: Any]] = []
        for spec in specs where results[spec.name] != nil {
            var entry: [String: Any] = ["name": spec.name, "unit": spec.unit.rawValue, "what": spec.what,
                                        "lower_is_better": spec.unit.lowerIsBetter]
            var perEngine: [String: Any] = [:]
            for (engine, runs) in results[spec.name]! {
                perEngine[engine] = ["median": median(runs), "min": runs.min()!, "max": runs.max()!, "runs": runs]
            }
            entry["results"] = perEngine
            var ratios: [String: Double] = [:]
            for other in ["grdb", "sqlite"] { if let r = ratio(spec, to: other) { ratios["realmlite/\(other)"] = r } }
            entry["ratios"] = ratios
            if let v = verdict(spec) { entry["goal"] = ["met": v.met, "text": v.text] }
            workloads.append(entry)
        }
        let run: [String: Any] = [
            "tier": "objects", "date": ISO8601DateFormatter().string(from: Date()), "quick": quick,
            "source_rev": sourceRev, "machine": machine, "config": config,
            "engines": engines.map { ["name": $0.name, "settings": $0.settings] },
            "workloads": workloads, "markdown": markdown,
        ]
        return (try? JSONSerialization.data(withJSONObject: run, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    }
}
