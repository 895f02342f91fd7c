#if canImport(Glibc)
import Glibc
#endif

/// The faults the upstream and the relay say they injected: `ID<TAB>FAULT<TAB>DETAIL` lines.
struct FaultLog {
    private(set) var byID: [String: [String]] = [:]
    private(set) var counts: [String: Int] = [:]

    /// Reads the logs; a missing or unreadable one is an error (nothing could be matched).
    init(paths: [String]) throws(FaultLogError) {
        for path in paths {
            guard let file = fopen(path, "r") else { throw FaultLogError(path: path) }
            defer { fclose(file) }
            var line: UnsafeMutablePointer<CChar>? = nil
            var capacity = 0
            defer { free(line) }
            while getline(&line, &capacity, file) > 0, let line {
                let fields = String(cString: line).split(separator: "\t", omittingEmptySubsequences: false)
                guard fields.count >= 2 else { continue }
                let fault = String(fields[1]).trimmingNewline
                byID[String(fields[0]), default: []].append(fault)
                counts[fault, default: 0] += 1
            }
        }
    }

    func faults(for id: String) -> [String] { byID[id] ?? [] }

    /// How many of each fault hit requests whose id starts with `prefix` (one phase).
    func counts(prefix: String) -> [String: Int] {
        var result: [String: Int] = [:]
        for (id, faults) in byID where id.hasPrefix(prefix) {
            for fault in faults { result[fault, default: 0] += 1 }
        }
        return result
    }
}

struct FaultLogError: Error, CustomStringConvertible {
    var path: String
    var description: String { "cannot read the fault log \(path)" }
}

extension String {
    fileprivate var trimmingNewline: String {
        var text = self
        while text.last == "\n" || text.last == "\r" { text.removeLast() }
        return text
    }
}
