#if canImport(Glibc)
import Glibc
#endif
import CourierCore

/// An open file's descriptor, with the few file calls the library makes (open, fstat, pread,
/// write, ftruncate, lseek, close), each through ``Syscall`` so that `EINTR` is retried and
/// `errno` is captured at once. The caller closes it exactly once.
public struct FileDescriptor: Hashable, Sendable {
    /// The kernel's descriptor number.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// How a file is opened. Every descriptor is opened with `O_CLOEXEC`.
    public enum Access: Hashable, Sendable {
        /// `O_RDONLY`.
        case read
        /// `O_WRONLY | O_CREAT`, plus `O_TRUNC` when `truncate`; a new file gets `permissions`.
        case write(truncate: Bool, permissions: UInt32)
    }

    /// Opens `path` (`open(2)`).
    public static func open(_ path: String, _ access: Access) throws(PosixError) -> FileDescriptor {
        let fd: Int32
        switch access {
        case .read:
            fd = try Syscall.blocking("open", Glibc.open(path, O_RDONLY | O_CLOEXEC))
        case .write(let truncate, let permissions):
            let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0)
            fd = try Syscall.blocking("open", Glibc.open(path, flags, mode_t(permissions)))
        }
        return FileDescriptor(rawValue: fd)
    }

    /// The open file's type and size (`fstat(2)`).
    public func status() throws(PosixError) -> FileStatus {
        var info = stat()
        try Syscall.blocking("fstat", fstat(rawValue, &info))
        return FileStatus(info)
    }

    /// Reads up to `count` bytes at `offset` (`pread(2)`) onto the end of `buffer`; returns how
    /// many were read (0 at the end of the file).
    public func read(into buffer: inout ByteBuffer, count: Int, at offset: Int64) throws(PosixError) -> Int {
        let fd = rawValue
        return try buffer.withUnsafeMutableWritableBytes(minimumCapacity: count) { region throws(PosixError) -> Int in
            // Safe: pread writes at most `count` bytes, and the region has at least `count`.
            try Syscall.blocking("pread", pread(fd, region.baseAddress, count, off_t(offset)))
        }
    }

    /// Writes every readable byte of `buffer` (`write(2)` until done).
    public func writeAll(_ buffer: ByteBuffer) throws(PosixError) {
        let fd = rawValue
        try buffer.withUnsafeReadableBytes { bytes throws(PosixError) in
            var offset = 0
            while offset < bytes.count {
                // Safe: `bytes` is valid for the closure's duration and offset < count.
                offset += try Syscall.blocking("write", Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset))
            }
        }
    }

    /// Cuts the file to `length` bytes (`ftruncate(2)`) and moves the file offset there
    /// (`lseek(2)`), so that the next write appends after them.
    public func truncateAndSeek(to length: Int64) throws(PosixError) {
        try Syscall.blocking("ftruncate", ftruncate(rawValue, off_t(length)))
        try Syscall.blocking("lseek", lseek(rawValue, off_t(length), SEEK_SET))
    }

    /// Flushes the file's data and metadata to the device (`fsync(2)`).
    public func synchronize() throws(PosixError) {
        try Syscall.blocking("fsync", fsync(rawValue))
    }

    /// Closes the descriptor and reports a failure (a write that could not be flushed, on some
    /// file systems). `EINTR` is not retried: on Linux the descriptor is released even then.
    public func close() throws(PosixError) {
        guard Glibc.close(rawValue) == 0 else { throw PosixError(code: errno, call: "close") }
    }
}

/// What `stat(2)` says about a file, as far as the library asks.
public struct FileStatus: Hashable, Sendable {
    /// Whether it is a regular file (not a directory, device, socket or pipe).
    public var isRegularFile: Bool
    /// Whether it is a directory.
    public var isDirectory: Bool
    /// Its size in bytes.
    public var size: Int64

    init(_ info: stat) {
        isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
        isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        size = Int64(info.st_size)
    }
}

/// Calls on paths rather than open files.
public enum FileSystem {
    /// The type and size of the file at `path`, following symbolic links (`stat(2)`).
    public static func status(ofPath path: String) throws(PosixError) -> FileStatus {
        var info = stat()
        try Syscall.blocking("stat", stat(path, &info))
        return FileStatus(info)
    }

    /// Whether this process may read the file at `path` (`access(2)` with `R_OK`).
    public static func isReadable(_ path: String) -> Bool {
        (try? Syscall.blocking("access", access(path, R_OK))) != nil
    }

    /// Moves `source` to `destination` in one step, replacing a file already there (`rename(2)`):
    /// a reader sees the old file or the new one, never a mix.
    public static func rename(_ source: String, to destination: String) throws(PosixError) {
        try Syscall.blocking("rename", Glibc.rename(source, destination))
    }

    /// Removes the file at `path` (`unlink(2)`); a failure is ignored (the file may be gone).
    public static func remove(_ path: String) {
        _ = try? Syscall.blocking("unlink", unlink(path))
    }
}
