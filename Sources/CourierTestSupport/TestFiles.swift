#if canImport(Glibc)
import Glibc
#endif

/// Whole-file reads for tests, with the C library only (the modules under test do not use
/// Foundation, and neither do their tests).
public enum TestFiles {
    /// The bytes of the file at `path`, unchanged, or nil when it cannot be opened.
    public static func bytes(at path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    /// The file at `path` decoded as UTF-8, or nil when it cannot be opened.
    public static func text(at path: String) -> String? {
        bytes(at: path).map { String(decoding: $0, as: UTF8.self) }
    }
}
