import Foundation

/// Memory of this process from /proc/self/status, in KiB: `VmHWM` is the
/// high-water mark of this address space (getrusage's ru_maxrss would
/// include the parent's before exec, which Linux carries over), `VmRSS`
/// the resident set now.
public func processMemoryKiB(_ field: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
}

/// The child side of the memory and cold-open measurement: runs `open`,
/// prints one JSON object (time, name read, RSS before and peak) and exits.
public func reportOpen(_ open: () throws -> String) -> Never {
    let before = processMemoryKiB("VmRSS")
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let faultsBefore = usage.ru_minflt, majorBefore = usage.ru_majflt
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    let start = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    var result: [String: Any] = ["rss_before_kib": before]
    do {
        result["name"] = try open()
    } catch {
        FileHandle.standardError.write("child: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
    clock_gettime(CLOCK_MONOTONIC, &ts)
    result["ms"] = (Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 - start) * 1000
    getrusage(RUSAGE_SELF.rawValue, &usage)
    result["minor_faults"] = usage.ru_minflt - faultsBefore // in the timed region
    result["major_faults"] = usage.ru_majflt - majorBefore
    result["rss_kib"] = processMemoryKiB("VmHWM")
    FileHandle.standardOutput.write(try! JSONSerialization.data(withJSONObject: result))
    exit(0)
}
