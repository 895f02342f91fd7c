#if canImport(Glibc)
import Glibc
#endif

/// Where one transfer's body (and, with `-i`, its heads) goes: stdout or a file opened on first
/// write, as curl opens it (a failed transfer that got no body leaves no file behind).
final class OutputFile {
    enum Target: Equatable {
        case standardOutput
        case file(path: String, append: Bool)
    }

    let target: Target
    private var descriptor: Int32 = -1
    /// Bytes written so far.
    private(set) var written: Int64 = 0
    /// The first write error (curl's exit 23), with errno's text.
    private(set) var failure: String?

    init(_ target: Target) { self.target = target }

    /// Opens the file now (an empty body still makes an empty file, as curl's does when the
    /// transfer succeeds).
    func open() -> Bool {
        if descriptor >= 0 || failure != nil { return failure == nil }
        switch target {
        case .standardOutput:
            descriptor = 1
        case .file(let path, let append):
            let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
            descriptor = Glibc.open(path, flags, 0o644)
            if descriptor < 0 {
                failure = "cannot open \(path): \(String(cString: strerror(errno)))"
                return false
            }
        }
        return true
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, open() else { return }
        var offset = 0
        while offset < bytes.count {
            // The rest of the caller's buffer, valid for this call.
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let count = Glibc.write(descriptor, rest.baseAddress, rest.count)
            if count < 0 {
                if errno == EINTR { continue }
                failure = "failed writing body: \(String(cString: strerror(errno)))"
                return
            }
            offset += count
        }
        written += Int64(bytes.count)
    }

    func write(_ bytes: [UInt8]) { bytes.withUnsafeBytes { write($0) } }
    func write(_ text: String) { write(Array(text.utf8)) }

    func close() {
        if descriptor > 2 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }
}

/// One write to stderr (the C `stderr` global is shared mutable state to Swift 6).
enum StandardError {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
            if count < 0 { if errno == EINTR { continue }; return }
            bytes = bytes.dropFirst(count)
        }
    }

    static var isTerminal: Bool { isatty(2) == 1 }
}
