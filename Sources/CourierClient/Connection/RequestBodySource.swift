#if canImport(Glibc)
import Glibc
#endif
import CourierCore

/// Produces the pieces of one attempt's request body, on the connection's loop.
enum RequestBodySource {
    case bytes(ByteBuffer?)
    case file(FileReader)
    case stream(any HTTPClientBodyStream)
    case sequence(RequestBodyPipe)

    /// The body's framing and a fresh source for it (files are opened here, a sequence's
    /// producer task starts here). `wakeUp` is how a sequence's pipe wakes the connection
    /// after it found the pipe empty (``waitsForWakeUp``).
    static func make(_ body: HTTPClientRequestBody?, wakeUp: @escaping @Sendable () -> Void) throws(ClientError) -> (HTTP1ConnectionStateMachine.RequestBodyKind, RequestBodySource?) {
        switch body {
        case nil:
            return (.none, nil)
        case .bytes(let buffer):
            return (.knownLength(Int64(buffer.readableBytes)), .bytes(buffer))
        case .file(let path):
            let reader = try FileReader(path: path)
            return (.knownLength(reader.size), .file(reader))
        case .stream(let length, let makeStream):
            return (length.map { .knownLength($0) } ?? .chunked, .stream(makeStream()))
        case .sequence(let length, let makeSequence):
            let pipe = RequestBodyPipe(wakeUp: wakeUp)
            pipe.start(makeSequence())
            return (length.map { .knownLength($0) } ?? .chunked, .sequence(pipe))
        }
    }

    /// The next piece, nil at the end.
    mutating func next() throws(ClientError) -> ByteBuffer? {
        switch self {
        case .bytes(let buffer):
            self = .bytes(nil)
            return buffer
        case .file(let reader):
            return try reader.next()
        case .stream(var stream):
            do {
                let piece = try stream.next()
                self = .stream(stream)
                return piece
            } catch {
                throw ClientError(.invalidRequest, phase: .send, cause: error, detail: "the request body stream failed: \(error)")
            }
        case .sequence(let pipe):
            switch try pipe.read() {
            case .piece(let piece): return piece
            case .end: return nil
            case .empty: return ByteBuffer()
            }
        }
    }

    /// After an empty piece: whether the source wakes the connection itself when it has more
    /// (a sequence's pipe does), rather than being asked again.
    var waitsForWakeUp: Bool {
        if case .sequence = self { return true }
        return false
    }

    /// After an empty piece: how long to wait before asking again (nil: at once).
    var waitAfterEmptyPiece: TimeAmount? {
        if case .stream(let stream) = self { return stream.waitAfterEmptyPiece }
        return nil
    }

    /// Releases what the source holds (closes a file).
    func close() {
        switch self {
        case .file(let reader): reader.close()
        case .sequence(let pipe): pipe.close()
        case .bytes, .stream: break
        }
    }
}

/// Reads a regular file in 64 KiB pieces. Loop-confined.
final class FileReader {
    private var descriptor: Int32
    let size: Int64
    private var offset: Int64 = 0

    init(path: String) throws(ClientError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ClientError(.invalidRequest, phase: .send, detail: "cannot open the body file \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw ClientError(.invalidRequest, phase: .send, detail: "the body file \(path) is not a regular file")
        }
        descriptor = fd
        size = Int64(info.st_size)
    }

    deinit { close() }

    func next() throws(ClientError) -> ByteBuffer? {
        guard offset < size, descriptor >= 0 else { return nil }
        var piece = ByteBuffer(capacity: 65536)
        let fd = descriptor, at = offset
        let count = min(65536, Int(size - offset))
        let n = piece.withUnsafeMutableWritableBytes(minimumCapacity: count) { region in
            // Safe: pread writes at most `count` bytes into the buffer's own writable region.
            max(0, pread(fd, region.baseAddress, count, off_t(at)))
        }
        // A file that shrank while being sent: the state machine reports the length mismatch.
        guard n > 0 else { return nil }
        offset += Int64(n)
        return piece
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
