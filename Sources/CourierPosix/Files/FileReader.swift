#if canImport(Glibc)
import Glibc
#endif
import CourierCore

/// Reads one regular file from its start in pieces, with `pread(2)`: the one file reader for
/// request bodies (``FileReader/next(maximum:)``) and multipart file parts.
///
/// The size is taken when the file is opened, and reading stops there. A class so that the
/// descriptor is closed exactly once: by ``close()``, or when the reader goes away. Confined to
/// one thread at a time (the connection's event loop, or a caller writing a body to a file).
public final class FileReader {
    /// The file's path, for messages.
    public let path: String
    /// The file's size when it was opened.
    public let size: Int64
    /// How many bytes have been read.
    public private(set) var offset: Int64 = 0
    private var descriptor: FileDescriptor?

    /// Why a file cannot be read as a body.
    public enum OpenError: Error, Hashable, Sendable {
        /// `open` or `fstat` failed.
        case unreadable(PosixError)
        /// The path names a directory, device, socket or pipe.
        case notARegularFile
    }

    /// Opens `path` and reads its size; refuses anything but a regular file.
    public init(path: String) throws(OpenError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, .read)
        } catch {
            throw .unreadable(error)
        }
        let status: FileStatus
        do {
            status = try descriptor.status()
        } catch {
            try? descriptor.close()
            throw .unreadable(error)
        }
        guard status.isRegularFile else {
            try? descriptor.close()
            throw .notARegularFile
        }
        self.path = path
        self.size = status.size
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Whether every byte of ``size`` has been read.
    public var isFinished: Bool { offset >= size }

    /// The next piece of at most `maximum` (≥ 1) bytes, up to ``size``: an empty buffer once
    /// ``size`` bytes were read, or when the file ended early (it shrank since it was opened;
    /// compare ``offset`` with ``size``). After ``close()``, empty.
    public func next(maximum: Int) throws(PosixError) -> ByteBuffer {
        guard let descriptor, offset < size else { return ByteBuffer() }
        let count = Int(min(Int64(max(1, maximum)), size - offset))
        var piece = ByteBuffer(capacity: count)
        let n = try descriptor.read(into: &piece, count: count, at: offset)
        offset += Int64(n)
        return piece
    }

    /// The file's size now (`fstat(2)`), to tell whether it changed while being read.
    public func currentSize() throws(PosixError) -> Int64 {
        guard let descriptor else { throw PosixError(code: EBADF, call: "fstat") }
        return try descriptor.status().size
    }

    /// Closes the file (again: nothing).
    public func close() {
        guard let descriptor else { return }
        self.descriptor = nil
        try? descriptor.close()
    }
}
