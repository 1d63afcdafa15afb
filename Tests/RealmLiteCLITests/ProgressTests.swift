import Foundation
import XCTest

// The progress line: on stderr only when stderr is a terminal (a pseudo-
// terminal here) and -q is not given; never in pipes or files. The tool's
// one-second delay is set to 0 through REALMLITE_PROGRESS_AFTER, so the
// line shows without a slow run.

extension CLITests {
    struct TerminalRun {
        var status: Int32
        /// What the command wrote to the terminal (its stderr).
        var terminal: String
        var stdout: String
    }

    /// Runs realmlite with stderr on a new pseudo-terminal, stdout to a file.
    /// `inputOnTerminal`: standard input is the terminal too (else `input` or /dev/null).
    func runOnTerminal(_ arguments: [String], input: String? = nil, inputOnTerminal: Bool = false) throws -> TerminalRun {
        // posix_openpt/unlockpt are not imported into Swift here: the
        // Linux ioctls they wrap (TIOCSPTLCK, TIOCGPTN) instead.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        XCTAssertGreaterThanOrEqual(master, 0)
        defer { close(master) }
        var unlock: CInt = 0, number: CUnsignedInt = 0
        XCTAssertEqual(ioctl(master, 0x4004_5431, &unlock), 0)
        XCTAssertEqual(ioctl(master, 0x8004_5430, &number), 0)
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        XCTAssertGreaterThanOrEqual(slave, 0)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["REALMLITE_PROGRESS_AFTER": "0"]) { $1 }
        process.standardInput = inputOnTerminal ? FileHandle(fileDescriptor: slave, closeOnDealloc: false)
            : try FileHandle(forReadingFrom: URL(fileURLWithPath: input ?? "/dev/null"))
        let out = directory.appendingPathComponent("out-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        try process.run()
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        func drain() {
            while true {
                let n = read(master, &chunk, chunk.count)
                if n <= 0 { return }
                bytes += chunk[0..<n]
            }
        }
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline {
            drain()
            usleep(5_000)
        }
        process.waitUntilExit()
        close(slave)
        drain()
        return TerminalRun(status: process.terminationStatus, terminal: String(decoding: bytes, as: UTF8.self),
                           stdout: try String(contentsOf: out, encoding: .utf8))
    }

    func testProgressOnlyOnATerminalAndNotWithQuiet() throws {
        let file = try makeImportTarget("many.realm")
        let rows = (0..<3000).map { #"{"id":\#($0),"name":"dog \#($0 % 7)"}"# }.joined(separator: "\n")
        let input = try write(rows, "dogs.jsonl")

        let imported = try runOnTerminal(["import", file, "--class", "ImpDog"], input: input)
        XCTAssertEqual(imported.status, 0, imported.terminal)
        XCTAssertTrue(imported.terminal.contains("\rimport ["), imported.terminal)
        XCTAssertTrue(imported.terminal.hasSuffix("\r\u{1B}[K"), "the line is cleared at the end: \(imported.terminal.debugDescription)")
        XCTAssertEqual(imported.stdout, "\(file): imported 3000 ImpDog objects\n")

        for (command, label) in [(["check", file], "check"), (["dump", file], "dump")] {
            let shown = try runOnTerminal(command)
            XCTAssertEqual(shown.status, 0, shown.terminal)
            XCTAssertTrue(shown.terminal.contains("\r\(label) ["), "\(label): \(shown.terminal.debugDescription)")
            XCTAssertTrue(shown.terminal.hasSuffix("\r\u{1B}[K"), shown.terminal.debugDescription)
            XCTAssertFalse(shown.stdout.contains("["), "\(label): stdout never carries the line")
            let quiet = try runOnTerminal(command + ["-q"])
            XCTAssertEqual(quiet.status, 0)
            XCTAssertEqual(quiet.terminal, "", "\(label) -q")
        }
        let quietImport = try runOnTerminal(["import", try makeImportTarget("quiet.realm"), "--class", "ImpDog", "--quiet"], input: input)
        XCTAssertEqual(quietImport.status, 0)
        XCTAssertEqual(quietImport.terminal, "")
        XCTAssertEqual(quietImport.stdout, "")

        // stderr to a file: nothing, with the same zero delay.
        setenv("REALMLITE_PROGRESS_AFTER", "0", 1)
        defer { unsetenv("REALMLITE_PROGRESS_AFTER") }
        for command in [["check", file], ["dump", file], ["import", try makeImportTarget("piped.realm"), "--class", "ImpDog"]] {
            let r = try run(command, input: input)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr, "", command[0])
        }
    }

    /// import with standard input on a terminal (no `< FILE`): a usage
    /// error at once, not a wait for typed rows.
    func testImportRefusesATerminalAsInput() throws {
        let file = try makeImportTarget("tty.realm")
        let r = try runOnTerminal(["import", file, "--class", "ImpDog"], inputOnTerminal: true)
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.terminal, "realmlite: import reads rows from standard input: redirect a file (realmlite import FILE --class C < rows.jsonl) (realmlite --help for usage)\r\n")
    }
}
