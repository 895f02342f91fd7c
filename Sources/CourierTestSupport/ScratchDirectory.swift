#if canImport(Glibc)
import Glibc
#endif

/// A fresh, empty directory for one test or one server under test:
/// `$TMPDIR/courier-<name>-XXXXXX` (mkdtemp), else under the C library's default temporary
/// directory. The one way the tests and the support code make one.
public struct ScratchDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// `$TMPDIR`, else the C library's default temporary directory (`P_tmpdir`).
    public static var base: String {
        if let directory = getenv("TMPDIR").map({ String(cString: $0) }), !directory.isEmpty { return directory }
        return P_tmpdir
    }

    /// Makes the directory; `name` goes into its name, to tell whose it is.
    public init(_ name: String = "test") throws(ChildProcessError) {
        var template = Array((Self.base + "/courier-\(name)-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ChildProcessError("mkdtemp failed: errno \(errno)") }
        path = String(cString: made)
    }

    /// Writes `bytes` to the file `name` inside the directory (replacing it) and returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws(ChildProcessError) -> String {
        let file = path + "/" + name
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ChildProcessError("cannot create \(file): errno \(errno)") }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer -> Int in
                guard let start = buffer.baseAddress else { return 0 }
                return Glibc.write(descriptor, start + offset, buffer.count - offset)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw ChildProcessError("cannot write \(file): errno \(errno)") }
            offset += count
        }
        return file
    }

    /// Removes the directory and everything in it (depth first, links not followed).
    public func remove() {
        Self.removeTree(path)
    }

    private static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            unlink(path)
            return
        }
        // The names first, then the removals: readdir's view of a directory changed meanwhile
        // is unspecified.
        var names: [String] = []
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
        }
        for name in names { removeTree(path + "/" + name) }
        rmdir(path)
    }
}
