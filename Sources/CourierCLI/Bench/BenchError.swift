#if canImport(Glibc)
import Glibc
#endif

/// Why `courier bench` could not run (exit status 1, one line on stderr).
enum BenchError: Error, CustomStringConvertible {
    case file(String, Int32)
    case setup(String)

    var description: String {
        switch self {
        case .file(let path, let code): "courier bench: \(path): \(String(cString: strerror(code)))"
        case .setup(let message): "courier bench: \(message)"
        }
    }
}
