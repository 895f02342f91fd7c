import CourierClient
import FoundationEssentials

/// The one error type of the Courier layer: which phase of a task failed, why (the underlying
/// error), and, when a response arrived, the response and the first bytes of its body.
///
/// A struct over an extensible ``Code`` rather than a public enum, so that new codes can be added
/// without breaking callers that switch over them (DESIGN.md, "Errors").
public struct CourierError: Error, Sendable, CustomStringConvertible {
    /// Where in a task's life the failure happened. Never "unknown".
    public enum Phase: String, Hashable, Sendable, CaseIterable {
        /// Building the request: URL, headers, parameters, body.
        case serialize
        /// A ``RequestAdapter`` changing the request before an attempt.
        case adapt
        /// Name resolution.
        case resolve
        /// Opening the TCP connection (or proxy tunnel).
        case connect
        /// The TLS handshake.
        case tls
        /// The security policy (pinning) judged the server.
        case trust
        /// Writing the request.
        case send
        /// Reading the response.
        case receive
        /// The response bytes broke HTTP/1.1 framing.
        case parse
        /// Content decoding (gzip, deflate) in the transport.
        case decode
        /// Following a redirect.
        case redirect
        /// The response serializer refused the status code or content type.
        case validate
        /// The response serializer could not turn the body into a value.
        case decodeBody
        /// Writing or moving a downloaded file.
        case file
        /// The task was cancelled (by the caller, a hook, or invalidation).
        case cancelled
    }

    /// What went wrong. Compare with the static members (`error.code == .unacceptableStatusCode`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        /// The phase an error with this code is in unless its creator says otherwise.
        public let defaultPhase: Phase

        public init(_ name: String, _ phase: Phase) {
            self.name = name
            self.defaultPhase = phase
        }

        public var description: String { name }
        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.name == rhs.name }
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }

        // Request building.
        public static let invalidURL = Code("invalidURL", .serialize)
        public static let invalidHeader = Code("invalidHeader", .serialize)
        public static let invalidParameters = Code("invalidParameters", .serialize)
        public static let requestSerializationFailed = Code("requestSerializationFailed", .serialize)
        public static let bodyFileUnreadable = Code("bodyFileUnreadable", .serialize)
        /// A ``RequestAdapter`` threw an error other than a ``CourierError`` (the underlying error).
        public static let requestAdaptationFailed = Code("requestAdaptationFailed", .adapt)
        /// An ``AuthenticationInterceptor`` has no credential to apply.
        public static let authenticationCredentialMissing = Code("authenticationCredentialMissing", .adapt)
        /// An ``AuthenticationInterceptor``'s refresh threw (the underlying error).
        public static let authenticationRefreshFailed = Code("authenticationRefreshFailed", .adapt)
        /// An ``AuthenticationInterceptor`` refreshed more often than its window allows.
        public static let excessiveAuthenticationRefresh = Code("excessiveAuthenticationRefresh", .adapt)
        /// A credential was given for an authentication challenge Courier cannot answer: a
        /// scheme other than Basic (RFC 7617) and Digest (RFC 7616), or a Digest challenge with
        /// an algorithm or `qop` it does not compute. The detail names the scheme; nothing was
        /// sent (RFC 9110 §11.6).
        public static let unsupportedAuthenticationScheme = Code("unsupportedAuthenticationScheme", .serialize)
        // Transport (the underlying error is the CourierClient.ClientError).
        public static let transport = Code("transport", .receive)
        public static let serverTrustRejected = Code("serverTrustRejected", .trust)
        /// A `SecurityPolicy` that would be unsafe or cannot work (pinning without pins, invalid
        /// certificates allowed with name validation but no pins, a malformed pin, pins used
        /// over plain `http`, an unreadable pinned certificate).
        public static let invalidSecurityPolicy = Code("invalidSecurityPolicy", .trust)
        public static let cancelled = Code("cancelled", .cancelled)
        public static let sessionInvalidated = Code("sessionInvalidated", .cancelled)
        public static let bodyTooLarge = Code("bodyTooLarge", .receive)
        /// One event of a `text/event-stream` needed more than its bound
        /// (``EventStreamParser/maximumEventBytes``, ``EventSourceConfiguration/maximumEventBytes``).
        public static let eventTooLarge = Code("eventTooLarge", .receive)
        /// The task's deadline passed: the request's ``Request/totalTimeoutInterval`` or the
        /// session's `timeoutIntervalForResource`, whichever is sooner. The phase says where:
        /// `connect` (waiting for a connection), `send`, `receive`, or `redirect` (between two
        /// requests of a chain). During a request the underlying error is the transport's
        /// `ClientError` with code `totalTimeout`.
        public static let resourceTimeout = Code("resourceTimeout", .receive)
        public static let redirectRefused = Code("redirectRefused", .redirect)
        // Response validation and serialization.
        public static let unacceptableStatusCode = Code("unacceptableStatusCode", .validate)
        public static let unacceptableContentType = Code("unacceptableContentType", .validate)
        public static let responseSerializationFailed = Code("responseSerializationFailed", .decodeBody)
        /// The body still carries a content coding Courier did not undo
        /// (``Response/undecodedContentCodings``), so a serializer that interprets it refuses
        /// it; the underlying error is an ``UndecodedContentCodings`` naming them (RFC 9110 §8.4).
        public static let undecodedContentCoding = Code("undecodedContentCoding", .decodeBody)
        public static let noResponse = Code("noResponse", .validate)
        // Downloads.
        public static let fileWriteFailed = Code("fileWriteFailed", .file)
        public static let fileMoveFailed = Code("fileMoveFailed", .file)
        public static let invalidResumeData = Code("invalidResumeData", .file)
    }

    /// How many body bytes an error keeps (``bodyPrefix``).
    public static let bodyPrefixLimit = 64 * 1024

    public let code: Code
    public let phase: Phase
    /// The error this one wraps: a `ClientError` from the transport, a `DecodingError`, a
    /// `TrustFailure`, a file system error, …
    public let underlying: (any Error & Sendable)?
    /// The response, when one arrived.
    public let response: Response?
    /// At most ``bodyPrefixLimit`` bytes of the response body, when one arrived.
    public let bodyPrefix: Data?
    /// The URL of the request that failed.
    public let failingURL: URL?
    public let detail: String?

    public init(
        _ code: Code, phase: Phase? = nil, underlying: (any Error & Sendable)? = nil, response: Response? = nil,
        body: Data? = nil, failingURL: URL? = nil, detail: String? = nil
    ) {
        self.code = code
        self.phase = phase ?? code.defaultPhase
        self.underlying = underlying
        self.response = response
        self.bodyPrefix = body.map { $0.count > Self.bodyPrefixLimit ? Data($0.prefix(Self.bodyPrefixLimit)) : $0 }
        self.failingURL = failingURL ?? response?.url
        self.detail = detail
    }

    /// The same error with the response, body and URL of the task filled in where missing.
    public func with(response: Response?, body: Data?, failingURL: URL?) -> CourierError {
        CourierError(
            code, phase: phase, underlying: underlying, response: self.response ?? response, body: bodyPrefix ?? body,
            failingURL: self.failingURL ?? failingURL, detail: detail)
    }

    public var isCancelled: Bool { phase == .cancelled }

    public var description: String {
        var text = "CourierError.\(code) (\(phase.rawValue))"
        if let detail { text += ": \(detail)" }
        // URLs are printed with their user information (credentials) redacted.
        if let response { text += " [HTTP \(response.statusCode) \(response.url.redactedForDisplay)]" }
        else if let failingURL { text += " [\(failingURL.redactedForDisplay)]" }
        if let underlying { text += " ← \(underlying)" }
        return text
    }
}
