import CourierClient
import CourierCore
import FoundationEssentials
import Synchronization

/// A multipart/form-data request body (RFC 7578), built part by part and streamed with an exact
/// Content-Length: AFNetworking's `AFMultipartFormData`.
///
/// Parts are appended in order; files are checked (and their size read with `stat`) when they
/// are appended but read only while the body is sent, in pieces of ``pieceSize`` bytes, so a
/// large upload never sits in memory. ``makeBody()`` returns a ``RequestBody/stream(length:makeStream:)``
/// that can be produced again for a retry or a 307/308 redirect.
///
/// Framing is AFNetworking's (RFC 2046 §5.1.1): `--boundary CRLF` before the first part,
/// `CRLF --boundary CRLF` between parts, `CRLF --boundary-- CRLF` at the end; each part's header
/// lines (Content-Disposition, then Content-Type) are followed by an empty line.
///
/// Sendable: a reference type whose mutable state (the parts and the throttle) is kept in a
/// `Mutex`, so it can be filled from a request-building closure on any thread. ``makeBody()``
/// and ``writeBody(to:)`` take a snapshot; parts appended afterwards do not change that body.
public final class MultipartFormData: Sendable {
    /// The most bytes one piece of the body holds (files are read this much at a time).
    public static let pieceSize = 64 * 1024

    /// The boundary delimiter (RFC 2046 §5.1.1); random unless given to ``init(boundary:)``.
    public let boundary: String

    private struct State {
        var parts: [MultipartPart] = []
        var bytesPerSecond: Int?
    }

    private let state = Mutex(State())

    /// A form with a random boundary in AFNetworking's style, `Boundary+` and 16 hex digits.
    public init() {
        func hex() -> String {
            let text = String(UInt32.random(in: .min ... .max), radix: 16, uppercase: true)
            return String(repeating: "0", count: 8 - text.count) + text
        }
        boundary = "Boundary+" + hex() + hex()
    }

    /// A form with a chosen boundary (tests, reproducible bodies). It must be 1 to 70 of RFC
    /// 2046 §5.1.1's `bchars` and not end with a space. The caller is responsible for it not
    /// occurring in any part's content.
    public init(boundary: String) throws(CourierError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=? ".utf8)
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.allSatisfy(allowed.contains),
              boundary.utf8.last != UInt8(ascii: " ") else {
            throw CourierError(.invalidParameters, detail: "invalid multipart boundary (RFC 2046 §5.1.1)")
        }
        self.boundary = boundary
    }

    /// `multipart/form-data; boundary=…`, the request's Content-Type (RFC 7578 §4.1). The
    /// boundary is quoted when it is not a token (RFC 9110 §5.6.6).
    public var contentType: String {
        let tokenOnly = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~".utf8)
        let value = boundary.utf8.allSatisfy(tokenOnly.contains) ? boundary : "\"\(boundary)\""
        return "multipart/form-data; boundary=" + value
    }

    /// The number of parts appended so far.
    public var partCount: Int { state.withLock { $0.parts.count } }

    /// The exact length of the body in bytes (framing, headers and content), computed without
    /// reading any file: file sizes come from `stat` at append time.
    public var contentLength: Int64 { layout().contentLength }

    // MARK: - Appending parts

    /// Appends a file part named `name`, with the file's last path component as its filename and
    /// a MIME type from its extension (``MIMETypes``; `application/octet-stream` when unknown).
    ///
    /// - Throws: `CourierError(.bodyFileUnreadable)` when the URL is not a file URL or the file is
    ///   missing, unreadable or not a regular file; `.invalidHeader` for a name with NUL or other
    ///   control characters.
    public func appendPart(fileURL: URL, name: String) throws(CourierError) {
        let fileName = fileURL.lastPathComponent
        try appendPart(fileURL: fileURL, name: name, fileName: fileName, mimeType: MIMETypes.mimeType(forFileName: fileName))
    }

    /// Appends a file part with an explicit filename and MIME type (RFC 7578 §4.2, §4.4). The
    /// file is checked now and read only while the body is sent.
    public func appendPart(fileURL: URL, name: String, fileName: String, mimeType: String) throws(CourierError) {
        guard fileURL.isFileURL else {
            throw CourierError(.bodyFileUnreadable, detail: "\(fileURL.absoluteString) is not a file URL")
        }
        let path = fileURL.path
        let info: FileStatus
        do {
            info = try FileSystem.status(ofPath: path)
        } catch {
            throw CourierError(.bodyFileUnreadable, detail: "\(path): \(error.message)")
        }
        guard info.isRegularFile else {
            throw CourierError(.bodyFileUnreadable, detail: "\(path) is not a regular file")
        }
        guard FileSystem.isReadable(path) else {
            throw CourierError(.bodyFileUnreadable, detail: "\(path) is not readable")
        }
        let headers = [
            try MultipartHeaderText.contentDisposition(name: name, fileName: fileName),
            try MultipartHeaderText.contentType(mimeType),
        ]
        append(MultipartPart(headers: headers, body: .file(path: path, size: info.size)))
    }

    /// Appends a form field: `Content-Disposition: form-data; name="…"` and the bytes, with no
    /// filename and no Content-Type (AFNetworking's `appendPartWithFormData:name:`; RFC 7578
    /// §4.4 makes such a part `text/plain`).
    public func appendPart(data: Data, name: String) throws(CourierError) {
        let headers = [try MultipartHeaderText.contentDisposition(name: name, fileName: nil)]
        append(MultipartPart(headers: headers, body: .bytes(Self.buffer(data))))
    }

    /// Appends in-memory bytes as a file part with a filename and MIME type.
    public func appendPart(data: Data, name: String, fileName: String, mimeType: String) throws(CourierError) {
        let headers = [
            try MultipartHeaderText.contentDisposition(name: name, fileName: fileName),
            try MultipartHeaderText.contentType(mimeType),
        ]
        append(MultipartPart(headers: headers, body: .bytes(Self.buffer(data))))
    }

    /// Appends a file part whose content comes from a stream of exactly `length` bytes
    /// (AFNetworking's `appendPartWithInputStream:name:fileName:length:mimeType:`). `stream` is
    /// called once each time the body is produced (each attempt), on the connection's event
    /// loop: the stream it returns must not block. A stream that produces more or fewer bytes
    /// than `length` fails the request in the `send` phase.
    public func appendPart(
        stream: @escaping @Sendable () -> any HTTPClientBodyStream, length: Int64, name: String, fileName: String, mimeType: String
    ) throws(CourierError) {
        guard length >= 0 else {
            throw CourierError(.invalidParameters, detail: "negative multipart stream length \(length)")
        }
        let headers = [
            try MultipartHeaderText.contentDisposition(name: name, fileName: fileName),
            try MultipartHeaderText.contentType(mimeType),
        ]
        append(MultipartPart(headers: headers, body: .stream(length: length, make: stream)))
    }

    /// Appends a part with the caller's own header fields, in the given order, and bytes
    /// (AFNetworking's `appendPartWithHeaders:body:`). `HTTPFields` has already refused names
    /// that are not tokens and values with CR, LF or NUL, so no field can inject a line.
    public func appendPart(headers: HTTPFields, body: Data) {
        append(MultipartPart(headers: Array(headers), body: .bytes(Self.buffer(body))))
    }

    // MARK: - Throttling

    /// Limits how fast the body is handed to the connection, in bytes per second (nil: no
    /// limit). A token bucket: the stream never sleeps; when it is ahead of the rate it returns
    /// an empty piece and asks the connection to wait (`waitAfterEmptyPiece`), which arms a
    /// timer on the event loop. Bursts are at most a quarter of a second's worth.
    /// ``writeBody(to:)`` is not throttled.
    public func throttle(bytesPerSecond: Int?) {
        precondition(bytesPerSecond.map { $0 > 0 } ?? true, "the rate must be positive")
        state.withLock { $0.bytesPerSecond = bytesPerSecond }
    }

    /// AFNetworking's `throttleBandwidthWithPacketSize:delay:`: `packetSize` bytes every `delay`
    /// seconds, expressed as the equivalent rate for ``throttle(bytesPerSecond:)``.
    public func throttleBandwidth(packetSize: Int, delay: Double) {
        precondition(packetSize > 0 && delay > 0, "packet size and delay must be positive")
        let rate = (Double(packetSize) / delay).rounded()
        throttle(bytesPerSecond: rate >= Double(Int.max) ? Int.max : max(1, Int(rate)))
    }

    /// The rate set by ``throttle(bytesPerSecond:)``, if any.
    public var bytesPerSecond: Int? { state.withLock { $0.bytesPerSecond } }

    // MARK: - The body

    /// The body as a request body: `.stream(length: contentLength, …)`. Each call of its
    /// `makeStream` starts over from the first byte, so the request can be retried; files are
    /// opened then, read in ``pieceSize`` pieces, and checked for size changes (a file that no
    /// longer has the size it had when appended fails the request in the `send` phase).
    public func makeBody() -> RequestBody {
        let (layout, rate) = state.withLock { (MultipartLayout(boundary: boundary, parts: $0.parts), $0.bytesPerSecond) }
        return .stream(length: layout.contentLength) { MultipartBodyStream(layout: layout, bytesPerSecond: rate) }
    }

    /// A request body stream for the current parts (tests and ``writeBody(to:)``).
    func makeStream(pieceSize: Int = MultipartFormData.pieceSize, throttled: Bool = true) -> MultipartBodyStream {
        let (layout, rate) = state.withLock { (MultipartLayout(boundary: boundary, parts: $0.parts), $0.bytesPerSecond) }
        return MultipartBodyStream(layout: layout, pieceSize: pieceSize, bytesPerSecond: throttled ? rate : nil)
    }

    private func layout() -> MultipartLayout {
        state.withLock { MultipartLayout(boundary: boundary, parts: $0.parts) }
    }

    private func append(_ part: MultipartPart) {
        state.withLock { $0.parts.append(part) }
    }

    private static func buffer(_ data: Data) -> ByteBuffer {
        var buffer = ByteBuffer(capacity: data.count)
        data.withUnsafeBytes { buffer.writeBytes($0) }
        return buffer
    }
}
