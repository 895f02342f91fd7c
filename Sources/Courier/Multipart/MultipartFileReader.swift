import CourierClient
import CourierCore

/// Reads one file part through the library's one file reader (`FileReader`, CourierPosix's
/// `pread` over its syscall wrapper), checking that the file still has the size it had when the
/// part was appended: the body's Content-Length was computed from that size, so a file that
/// shrank or grew would make the request lie about its length (RFC 9112 §6.2).
///
/// The reader is a class, so copies of the stream that owns this share one descriptor, closed
/// exactly once (at the end of the part, or when the last copy goes away). Confined to whoever
/// pulls the stream: the connection's event loop, or the thread running `writeBody(to:)`.
struct MultipartFileReader {
    let path: String
    let expectedSize: Int64
    private let reader: FileReader

    init(path: String, expectedSize: Int64) throws(CourierError) {
        do {
            reader = try FileReader(path: path)
        } catch {
            switch error {
            case .unreadable(let cause): throw Self.failure("cannot open \(path): \(cause.message)")
            case .notARegularFile: throw Self.failure("\(path) is no longer a regular file")
            }
        }
        guard reader.size == expectedSize else {
            reader.close()
            throw Self.failure("\(path) changed size since it was appended (\(expectedSize) → \(reader.size) bytes)")
        }
        self.path = path
        self.expectedSize = expectedSize
    }

    var offset: Int64 { reader.offset }

    var isFinished: Bool { reader.isFinished }

    /// Up to `maximum` (≥ 1) more bytes of the file. Throws if the file ends early; at the end of
    /// the expected size, checks that the file did not grow meanwhile.
    func read(maximum: Int) throws(CourierError) -> ByteBuffer {
        let piece: ByteBuffer
        do {
            piece = try reader.next(maximum: maximum)
        } catch {
            close()
            throw Self.failure("cannot read \(path): \(error.message)")
        }
        guard piece.readableBytes > 0 else {
            close()
            throw Self.failure("\(path) ended after \(offset) of its \(expectedSize) bytes (it shrank while being sent)")
        }
        if isFinished {
            let size = (try? reader.currentSize()) ?? -1
            close()
            guard size == expectedSize else {
                throw Self.failure("\(path) changed size while being sent (\(expectedSize) → \(size) bytes)")
            }
        }
        return piece
    }

    func close() { reader.close() }

    static func failure(_ detail: String) -> CourierError {
        CourierError(.bodyFileUnreadable, phase: .send, detail: "multipart file part: " + detail)
    }
}
