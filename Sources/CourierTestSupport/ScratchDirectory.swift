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

    /// Removes the directory and everything in it, depth first. Entries are opened relative to
    /// their directory's descriptor and never through a link (`O_NOFOLLOW`, `unlinkat`), and
    /// names are used as the bytes they are.
    public func remove() {
        Self.empty(AT_FDCWD, path)
        rmdir(path)
    }

    /// Removes everything inside the directory `name`, relative to `parent`.
    private static func empty(_ parent: Int32, _ name: UnsafePointer<CChar>) {
        let descriptor = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        guard let directory = fdopendir(descriptor) else {
            close(descriptor)
            return
        }
        // Closes `descriptor` too.
        defer { closedir(directory) }
        // The names first, then the removals: readdir's view of a directory changed meanwhile
        // is unspecified.
        var names: [[CChar]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                raw.prefix { $0 != 0 }.map { CChar(bitPattern: $0) } + [0]
            }
            if name != [46, 0] && name != [46, 46, 0] { names.append(name) }
        }
        for name in names {
            name.withUnsafeBufferPointer { bytes in
                guard let entry = bytes.baseAddress else { return }
                // A directory refuses a plain unlink (EISDIR): empty it, then remove it.
                if unlinkat(descriptor, entry, 0) != 0 && errno == EISDIR {
                    empty(descriptor, entry)
                    unlinkat(descriptor, entry, AT_REMOVEDIR)
                }
            }
        }
    }
}
