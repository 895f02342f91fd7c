import CourierClient
import CourierCore
import FoundationEssentials

/// The bytes of a multipart body, laid out once when the body is made: runs of framing and
/// in-memory content, file parts, stream parts. Immutable and shared by every stream made
/// from it (the byte runs are copy-on-write buffers, sliced rather than copied).
struct MultipartLayout: Sendable {
    enum Segment: Sendable {
        case bytes(ByteBuffer)
        case file(path: String, size: Int64)
        case stream(length: Int64, make: @Sendable () -> any HTTPClientBodyStream)
    }

    let segments: [Segment]
    let contentLength: Int64

    /// The RFC 2046 §5.1.1 framing as AFNetworking writes it: `--B CRLF` before the first part,
    /// `CRLF --B CRLF` between parts, `CRLF --B-- CRLF` after the last; each part is its header
    /// lines, an empty line, then its content. No parts: an empty body (AFNetworking then sends
    /// no body at all).
    /// Segments sent as they are, with no framing: one body paced by the stream's token bucket
    /// (``RequestBody/throttled(bytesPerSecond:)``).
    init(segments: [Segment]) {
        self.segments = segments
        self.contentLength = segments.reduce(0) { total, segment in
            switch segment {
            case .bytes(let run): total + Int64(run.readableBytes)
            case .file(_, let size): total + size
            case .stream(let length, _): total + length
            }
        }
    }

    init(boundary: String, parts: [MultipartPart]) {
        var segments: [Segment] = []
        var run = ByteBuffer()
        var length: Int64 = 0
        func flush() {
            if run.readableBytes > 0 { segments.append(.bytes(run)) }
            length += Int64(run.readableBytes)
            run = ByteBuffer()
        }
        for (index, part) in parts.enumerated() {
            run.writeString(index == 0 ? "--\(boundary)\r\n" : "\r\n--\(boundary)\r\n")
            run.writeBuffer(part.encodedHeaders())
            switch part.body {
            case .bytes(let content):
                run.writeBuffer(content)
            case .file(let path, let size):
                flush()
                segments.append(.file(path: path, size: size))
                length += size
            case .stream(let streamLength, let make):
                flush()
                segments.append(.stream(length: streamLength, make: make))
                length += streamLength
            }
        }
        if !parts.isEmpty { run.writeString("\r\n--\(boundary)--\r\n") }
        flush()
        self.segments = segments
        self.contentLength = length
    }
}

/// Produces a multipart body piece by piece for the connection (or `writeBody(to:)`): never
/// more than `pieceSize` bytes at a time, files read from disk as it goes, at most one file open.
///
/// Every piece is checked against the layout: a file that changed size, or a stream part that
/// produces more or fewer bytes than declared, throws (the client then fails the request in the
/// `send` phase) instead of sending a body whose length differs from its Content-Length.
struct MultipartBodyStream: HTTPClientBodyStream {
    private let segments: [MultipartLayout.Segment]
    let pieceSize: Int
    let contentLength: Int64
    private var index = 0
    /// Bytes of the current segment already produced.
    private var segmentOffset: Int64 = 0
    private var file: MultipartFileReader?
    private var inner: (any HTTPClientBodyStream)?
    /// The part of an inner stream's piece that did not fit in the last piece.
    private var innerLeftover: ByteBuffer?
    private var bucket: MultipartTokenBucket?
    private(set) var produced: Int64 = 0
    /// Set with an empty piece: how long the connection should wait before asking again.
    private(set) var waitAfterEmptyPiece: TimeAmount?

    init(layout: MultipartLayout, pieceSize: Int = MultipartFormData.pieceSize, bytesPerSecond: Int? = nil) {
        precondition(pieceSize > 0, "pieces must hold at least one byte")
        self.segments = layout.segments
        self.pieceSize = pieceSize
        self.contentLength = layout.contentLength
        self.bucket = bytesPerSecond.map { MultipartTokenBucket(bytesPerSecond: $0, pieceSize: pieceSize) }
    }

    mutating func next() throws -> ByteBuffer? {
        waitAfterEmptyPiece = nil
        guard index < segments.count else { return nil }
        var limit = pieceSize
        if var bucket {
            let remaining = contentLength - produced
            if remaining > 0 {
                switch bucket.request(Int(min(Int64(pieceSize), remaining))) {
                case .granted(let amount):
                    limit = amount
                case .wait(let delay):
                    self.bucket = bucket
                    waitAfterEmptyPiece = delay
                    return ByteBuffer()
                }
            }
            self.bucket = bucket
        }
        let piece = try produce(maximum: limit)
        if let piece {
            produced += Int64(piece.readableBytes)
            bucket?.consume(piece.readableBytes)
        }
        return piece
    }

    /// The next bytes (1 to `maximum`), an empty piece when an inner stream has nothing yet,
    /// or nil at the end of the body.
    private mutating func produce(maximum: Int) throws -> ByteBuffer? {
        while index < segments.count {
            switch segments[index] {
            case .bytes(let run):
                let remaining = run.readableBytes - Int(segmentOffset)
                if remaining == 0 { advance(); continue }
                let count = min(maximum, remaining)
                let piece = run.slice(offset: Int(segmentOffset), count: count)
                segmentOffset += Int64(count)
                return piece
            case .file(let path, let size):
                // Opened (and its size checked) even when empty, so a file that grew is caught.
                if file == nil, segmentOffset == 0 { file = try MultipartFileReader(path: path, expectedSize: size) }
                if segmentOffset == size { file = nil; advance(); continue }
                // Opened above when the segment started; it stays open until the segment ends.
                guard let reader = file else {
                    throw CourierError(.bodyFileUnreadable, phase: .send, detail: "\(path) is no longer open")
                }
                let piece = try reader.read(maximum: maximum)
                segmentOffset += Int64(piece.readableBytes)
                return piece
            case .stream(let length, let make):
                if inner == nil, segmentOffset == 0, innerLeftover == nil { inner = make() }
                if var leftover = innerLeftover {
                    let piece = leftover.readSlice(count: min(maximum, leftover.readableBytes))
                    innerLeftover = leftover.readableBytes > 0 ? leftover : nil
                    segmentOffset += Int64(piece.readableBytes)
                    return piece
                }
                guard var stream = inner else { advance(); continue }
                let next = try stream.next()
                inner = stream
                guard var piece = next else {
                    inner = nil
                    guard segmentOffset == length else {
                        throw Self.streamFailure("ended after \(segmentOffset) of its declared \(length) bytes")
                    }
                    advance()
                    continue
                }
                if piece.readableBytes == 0 {
                    waitAfterEmptyPiece = stream.waitAfterEmptyPiece
                    return piece
                }
                guard segmentOffset + Int64(piece.readableBytes) <= length else {
                    inner = nil
                    throw Self.streamFailure("produced more than its declared \(length) bytes")
                }
                if piece.readableBytes > maximum {
                    let first = piece.readSlice(count: maximum)
                    innerLeftover = piece
                    piece = first
                }
                segmentOffset += Int64(piece.readableBytes)
                return piece
            }
        }
        return nil
    }

    private mutating func advance() {
        index += 1
        segmentOffset = 0
    }

    static func streamFailure(_ detail: String) -> CourierError {
        CourierError(.requestSerializationFailed, phase: .send, detail: "multipart stream part " + detail)
    }
}
