import CourierCore
import FoundationEssentials
import Glibc

/// Reads one file part in pieces with `pread`, checking that the file still has the size it had
/// when the part was appended: the body's Content-Length was computed from that size, so a file
/// that shrank or grew would make the request lie about its length (RFC 9112 §6.2).
///
/// A class so that the descriptor is closed exactly once, when the last copy of the stream that
/// owns it goes away (or at the end of the part). Confined to whoever pulls the stream: the
/// connection's event loop, or the thread running `writeBody(to:)`.
final class MultipartFileReader {
    let path: String
    let expectedSize: Int64
    private var descriptor: Int32
    private(set) var offset: Int64 = 0

    init(path: String, expectedSize: Int64) throws(CourierError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw Self.failure("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw Self.failure("\(path) is no longer a regular file")
        }
        guard Int64(info.st_size) == expectedSize else {
            Glibc.close(fd)
            throw Self.failure("\(path) changed size since it was appended (\(expectedSize) → \(info.st_size) bytes)")
        }
        self.path = path
        self.expectedSize = expectedSize
        self.descriptor = fd
    }

    deinit { close() }

    var isFinished: Bool { offset == expectedSize }

    /// Up to `maximum` (≥ 1) more bytes of the file. Throws if the file ends early; at the end of
    /// the expected size, checks that the file did not grow meanwhile.
    func read(maximum: Int) throws(CourierError) -> ByteBuffer {
        let count = Int(min(Int64(maximum), expectedSize - offset))
        var piece = ByteBuffer(capacity: count)
        let fd = descriptor, at = offset
        var readError: Int32 = 0
        let n = piece.withUnsafeMutableWritableBytes(minimumCapacity: count) { region in
            // Safe: pread writes at most `count` bytes into the buffer's own writable region.
            var result: Int
            repeat { result = pread(fd, region.baseAddress, count, off_t(at)) } while result < 0 && errno == EINTR
            if result < 0 { readError = errno; return 0 }
            return result
        }
        guard n > 0 else {
            close()
            if readError != 0 { throw Self.failure("cannot read \(path): \(String(cString: strerror(readError)))") }
            throw Self.failure("\(path) ended after \(offset) of its \(expectedSize) bytes (it shrank while being sent)")
        }
        offset += Int64(n)
        if isFinished {
            var info = stat()
            let size = fstat(descriptor, &info) == 0 ? Int64(info.st_size) : -1
            close()
            guard size == expectedSize else {
                throw Self.failure("\(path) changed size while being sent (\(expectedSize) → \(size) bytes)")
            }
        }
        return piece
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    static func failure(_ detail: String) -> CourierError {
        CourierError(.bodyFileUnreadable, phase: .send, detail: "multipart file part: " + detail)
    }
}
