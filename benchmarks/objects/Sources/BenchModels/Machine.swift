import Foundation

/// What a benchmark prints about where it ran.
public enum Machine {
    public static var cpu: String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = info.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        return "\(model) (\(ProcessInfo.processInfo.activeProcessorCount) CPUs online)"
    }

    public static var kernel: String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    public static var loadAverage: String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "")
            .split(separator: " ").prefix(3).joined(separator: " ")
    }
}
