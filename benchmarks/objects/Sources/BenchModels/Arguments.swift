/// Walks a bench tool's command line (`arguments[first...]`): `handle` gets
/// each flag and a function that takes the flag's value, and returns false
/// for a flag it does not know. A missing value or an unknown flag ends the
/// program with a message naming where the options are described (`usage`).
public func parseArguments(_ arguments: [String], from first: Int = 1, usage: String = "the comment at the top of main.swift",
                           _ handle: (_ flag: String, _ value: () -> String) -> Bool) {
    var i = first
    while i < arguments.count {
        let flag = arguments[i]
        let known = handle(flag) {
            i += 1
            guard i < arguments.count else { fatalError("missing value for \(flag)") }
            return arguments[i]
        }
        guard known else { fatalError("unknown option \(flag); see \(usage)") }
        i += 1
    }
}
