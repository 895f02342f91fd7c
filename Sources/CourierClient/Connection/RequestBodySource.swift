import CourierCore
import CourierPosix

/// Produces the pieces of one attempt's request body, on the connection's loop.
enum RequestBodySource {
    case bytes(ByteBuffer?)
    case file(FileReader)
    case stream(any HTTPClientBodyStream)
    case sequence(RequestBodyPipe)

    /// The body's framing and a fresh source for it (files are opened here, a sequence's
    /// producer task starts here). `wakeUp` makes how a sequence's pipe wakes the connection
    /// after it found the pipe empty (``waitsForWakeUp``); it is called for such a body only.
    static func make(_ body: HTTPClientRequestBody?, wakeUp makeWakeUp: () -> @Sendable () -> Void) throws(ClientError) -> (HTTP1ConnectionStateMachine.RequestBodyKind, RequestBodySource?) {
        switch body {
        case nil:
            return (.none, nil)
        case .bytes(let buffer):
            return (.knownLength(Int64(buffer.readableBytes)), .bytes(buffer))
        case .file(let path):
            let reader: FileReader
            do {
                reader = try FileReader(path: path)
            } catch {
                switch error {
                case .unreadable(let cause):
                    throw ClientError(.invalidRequest, phase: .send, cause: cause, detail: "cannot open the body file \(path): \(cause.message)")
                case .notARegularFile:
                    throw ClientError(.invalidRequest, phase: .send, detail: "the body file \(path) is not a regular file")
                }
            }
            return (.knownLength(reader.size), .file(reader))
        case .stream(let length, let makeStream):
            return (length.map { .knownLength($0) } ?? .chunked, .stream(makeStream()))
        case .sequence(let length, let makeSequence):
            let pipe = RequestBodyPipe(wakeUp: makeWakeUp())
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
            let piece: ByteBuffer
            do {
                piece = try reader.next(maximum: 65536)
            } catch {
                throw ClientError(.invalidRequest, phase: .send, cause: error, detail: "cannot read the body file \(reader.path): \(error.message)")
            }
            // Empty: the whole size was sent, or the file shrank while being sent (the state
            // machine then reports the length mismatch).
            return piece.readableBytes > 0 ? piece : nil
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
