import CourierCore
import FoundationEssentials

extension RequestBody {
    /// This body, handed to the connection at no more than `bytesPerSecond` bytes a second:
    /// curl's `--limit-rate` for an upload, and AFNetworking's multipart throttle
    /// (``MultipartFormData/throttle(bytesPerSecond:)``) for any body, through the same token
    /// bucket, which never sleeps a loop (an empty piece with a wait instead). The bytes and the
    /// length are unchanged; the body is sent with Content-Length (RFC 9112 §6.2).
    ///
    /// A stream of unknown length is returned as it is (it has no length to pace against), and
    /// so is a file that cannot be read now (sending it fails as it would have).
    public func throttled(bytesPerSecond: Int) -> RequestBody {
        precondition(bytesPerSecond > 0, "the rate must be positive")
        let segment: MultipartLayout.Segment
        switch self {
        case .data(let data):
            segment = .bytes(ByteBuffer(bytes: data))
        case .file(let url):
            guard let size = FileSize.of(url.path) else { return self }
            segment = .file(path: url.path, size: size)
        case .stream(let length?, let makeStream):
            segment = .stream(length: length, make: makeStream)
        case .stream(nil, _):
            return self
        }
        let layout = MultipartLayout(segments: [segment])
        return .stream(length: layout.contentLength) { MultipartBodyStream(layout: layout, bytesPerSecond: bytesPerSecond) }
    }
}
