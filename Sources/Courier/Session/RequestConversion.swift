import CourierClient
import CourierCore
import FoundationEssentials

/// Turns a ``Request`` into the transport's ``HTTPClientRequest``: URL checked (http/https with a
/// host), the session's extra header fields added where the request has none, the body mapped,
/// and the timeouts and TLS settings applied. Redirects are the transport's (the task plugs its
/// redirect hook into the transport's handler).
struct RequestConversion {
    var additionalHeaders: HTTPFields
    /// The transport's connect and TLS handshake timeouts (the session's
    /// `configuration.client.timeouts`, or its shared client's), which each request keeps; its
    /// idle and total timeouts come from the request and the task's deadline.
    var transportTimeouts = HTTPClientTimeouts()

    /// Field names that carry credentials for one origin (as the transport's redirect rules).
    static let credentialFieldNames = ["authorization", "cookie", "proxy-authorization"]

    /// - Parameters:
    ///   - includeCredentials: whether the session's Authorization, Cookie and
    ///     Proxy-Authorization fields are added (not on a redirect to another origin).
    ///   - deadline: the task's deadline; the request's total timeout is what remains of it.
    ///   - phase: the phase to report when the deadline has already passed.
    func convert(
        _ request: Request, includeCredentials: Bool = true, deadline: Deadline? = nil, phase: CourierError.Phase = .connect
    ) throws(CourierError) -> HTTPClientRequest {
        let url: HTTPURL
        switch request.location.parsed {
        case .success(let parsed): url = parsed
        case .failure(let error): throw CourierError(.invalidURL, underlying: error, failingURL: request.url, detail: error.description)
        }
        // `http+unix` (HTTP over a Unix-domain socket, curl's `--unix-socket`) is plain HTTP to
        // a local path: the transport connects to the socket and sends `Host: localhost`.
        guard url.scheme == .http || url.scheme == .https || url.scheme == .unix else {
            throw CourierError(.invalidURL, failingURL: request.url, detail: "only http, https and http+unix URLs are supported")
        }
        var headers = request.headers
        for field in additionalHeaders where !headers.contains(field.name) {
            if !includeCredentials, Self.credentialFieldNames.contains(field.name.lowercased()) { continue }
            // User information in the URL is this request's own credentials (the transport sends
            // them as Basic): more specific than the session's default Authorization.
            if url.user != nil, field.name.lowercased() == "authorization" { continue }
            headers.append(field)
        }
        var body: HTTPClientRequestBody?
        if let requestBody = request.body {
            body = try Self.body(requestBody, headers: &headers, url: request.location)
        } else if let declared = headers[first: "Content-Length"], declared == "0" {
            headers.remove(name: "Content-Length")
        }
        var converted = HTTPClientRequest(method: request.method, url: url, headers: headers, body: body)
        var timeouts = transportTimeouts
        timeouts.total = nil
        timeouts.idleRead = Self.timeAmount(request.timeoutInterval)
        if let deadline {
            let remaining = deadline.remaining()
            guard remaining > .zero else {
                throw CourierError(.resourceTimeout, phase: phase, failingURL: request.url,
                                   detail: "the task's deadline (totalTimeoutInterval or timeoutIntervalForResource) passed before this request")
            }
            timeouts.total = remaining
        }
        converted.timeouts = timeouts
        return converted
    }

    /// Maps the body. A Content-Length set by the caller must agree with a body of known length
    /// (and is then left to the transport to send); for a stream of unknown length it becomes
    /// the stream's length, as NSURLSession does for streamed requests.
    static func body(_ body: RequestBody, headers: inout HTTPFields, url location: RequestURL) throws(CourierError) -> HTTPClientRequestBody {
        let declared = headers[first: "Content-Length"]
        headers.remove(name: "Content-Length")
        let declaredLength: Int64?
        if let declared {
            guard let length = Int64(declared), length >= 0 else {
                throw CourierError(.invalidHeader, failingURL: location.foundation, detail: "Content-Length \"\(declared)\" is not a length")
            }
            declaredLength = length
        } else {
            declaredLength = nil
        }
        let converted: HTTPClientRequestBody
        let length: Int64?
        switch body {
        case .data(let data):
            converted = .bytes(ByteBuffer(bytes: data))
            length = Int64(data.count)
        case .file(let fileURL):
            guard let size = FileSize.of(fileURL.path) else {
                throw CourierError(.bodyFileUnreadable, failingURL: location.foundation, detail: "\(fileURL.path) is not a readable regular file")
            }
            converted = .file(path: fileURL.path)
            length = size
        case .stream(let streamLength, let makeStream):
            let resolved = streamLength ?? declaredLength
            converted = .stream(length: resolved, makeStream: makeStream)
            length = resolved
        }
        if let declaredLength, let length, declaredLength != length {
            throw CourierError(.invalidHeader, failingURL: location.foundation, detail: "Content-Length \(declaredLength) does not match the body's \(length) bytes")
        }
        return converted
    }

    /// Seconds as a ``TimeAmount``; nil for zero, negative or non-finite (no limit).
    static func timeAmount(_ seconds: Double) -> TimeAmount? {
        guard seconds.isFinite, seconds > 0 else { return nil }
        return .nanoseconds(Int64(min(seconds, 1e9) * 1e9))
    }
}
