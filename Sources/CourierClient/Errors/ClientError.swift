/// The one error type of CourierClient: what failed, in which phase of a request, why (the
/// underlying cause), and whether retrying the request is provably safe.
///
/// A struct over an extensible ``Code`` rather than a public enum, so that new codes can be added
/// without breaking callers that switch over them (DESIGN.md, "Errors").
public struct ClientError: Error, Sendable, CustomStringConvertible {
    /// The phase of a request in which the failure happened. Never "unknown".
    public enum Phase: String, Hashable, Sendable, CaseIterable {
        case resolve, connect, tls, send, receive, parse, decode, redirect, proxy, pool, cancelled
    }

    /// What went wrong. Compare with the static members (`error.code == .readTimeout`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as printed.
        public let name: String
        /// The phase a failure with this code belongs to unless the creator says otherwise.
        public let defaultPhase: Phase

        private init(_ name: String, _ phase: Phase) {
            self.name = name
            self.defaultPhase = phase
        }

        public var description: String { name }

        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.name == rhs.name }
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }

        /// The request was cancelled by its owner.
        public static let cancelled = Code("cancelled", .cancelled)
        /// Connecting (TCP, all addresses) took longer than the connect timeout.
        public static let connectTimeout = Code("connectTimeout", .connect)
        /// The TLS handshake took longer than its timeout.
        public static let tlsHandshakeTimeout = Code("tlsHandshakeTimeout", .tls)
        /// No byte arrived for longer than the idle read timeout.
        public static let readTimeout = Code("readTimeout", .receive)
        /// The whole request took longer than its total timeout.
        public static let totalTimeout = Code("totalTimeout", .receive)
        /// The server closed the connection before the response head was complete.
        public static let remoteClosedBeforeResponse = Code("remoteClosedBeforeResponse", .receive)
        /// The server closed the connection in the middle of a response body (truncation).
        public static let remoteClosedDuringBody = Code("remoteClosedDuringBody", .receive)
        /// The request body sent more or fewer bytes than its declared Content-Length.
        public static let bodyLengthMismatch = Code("bodyLengthMismatch", .send)
        /// The response was malformed (the cause is an `HTTPParserError`).
        public static let parse = Code("parse", .parse)
        /// The response body could not be decoded (gzip/deflate).
        public static let contentDecoding = Code("contentDecoding", .decode)
        /// More redirects than allowed.
        public static let tooManyRedirects = Code("tooManyRedirects", .redirect)
        /// A redirect led back to a request already made.
        public static let redirectLoop = Code("redirectLoop", .redirect)
        /// The URL cannot be requested.
        public static let invalidURL = Code("invalidURL", .resolve)
        /// The request head could not be encoded (invalid target or Host, conflicting framing).
        public static let invalidRequest = Code("invalidRequest", .send)
        /// The connection could not be established (refused, unreachable, reset during connect).
        public static let connectionFailed = Code("connectionFailed", .connect)
        /// The connection was already closed when a request was started on it.
        public static let connectionClosed = Code("connectionClosed", .send)
        /// The host name could not be resolved.
        public static let resolutionFailed = Code("resolutionFailed", .resolve)
        /// The TLS layer failed (handshake, certificate, I/O).
        public static let tls = Code("tls", .tls)
        /// The configured ``ServerTrustEvaluator`` rejected the server after the handshake.
        public static let serverTrustRejected = Code("serverTrustRejected", .tls)
        /// The pool was shut down before the request got a connection.
        public static let poolShutdown = Code("poolShutdown", .pool)
        /// The request waited for a connection longer than it was allowed to.
        public static let poolTimeout = Code("poolTimeout", .pool)
        /// The server sent a response the client cannot handle here (e.g. 101 Switching Protocols).
        public static let unexpectedResponse = Code("unexpectedResponse", .receive)
        /// A socket error while sending or receiving.
        public static let ioError = Code("ioError", .receive)
        /// A SOCKS5 proxy refused or broke its handshake (RFC 1928, RFC 1929): no acceptable
        /// method, rejected credentials, a failure reply, a malformed reply, a close. The cause
        /// is a ``SOCKSError``.
        public static let proxyHandshakeFailed = Code("proxyHandshakeFailed", .proxy)
    }

    /// The fields, boxed: a `ClientError` is one reference wide. It rides in the payloads of the
    /// connection and pool machines' actions, which are copied several times per request; inline,
    /// its 200 bytes made every action that wide, failure or not. Errors are rare, so the
    /// allocation is paid where one happens. Immutable, so copies share it safely.
    private final class Storage: Sendable {
        let code: Code
        let phase: Phase
        let cause: (any Error & Sendable)?
        let detail: String?
        let isSafeToRetry: Bool
        let responseHead: HTTPClientResponseHead?

        init(code: Code, phase: Phase, cause: (any Error & Sendable)?, detail: String?, isSafeToRetry: Bool, responseHead: HTTPClientResponseHead?) {
            self.code = code
            self.phase = phase
            self.cause = cause
            self.detail = detail
            self.isSafeToRetry = isSafeToRetry
            self.responseHead = responseHead
        }
    }

    private let storage: Storage

    /// What went wrong.
    public var code: Code { storage.code }
    /// When it went wrong.
    public var phase: Phase { storage.phase }
    /// The underlying error (an `HTTPParserError`, an errno wrapper, a TLS error...), if any.
    public var cause: (any Error & Sendable)? { storage.cause }
    /// A short human-readable detail, if any.
    public var detail: String? { storage.detail }
    /// Whether the request may be sent again automatically. True only when provably safe: an
    /// idempotent request with a replayable body, on a reused connection that closed before a
    /// single response byte arrived (RFC 9110 §9.2.2, RFC 9112 §9.3.1).
    public var isSafeToRetry: Bool { storage.isSafeToRetry }
    /// The response the error is about, when the request failed because of a head that arrived
    /// (a redirect the configuration refuses: too many, a loop, a refused downgrade).
    public var responseHead: HTTPClientResponseHead? { storage.responseHead }

    public init(
        _ code: Code, phase: Phase? = nil, cause: (any Error & Sendable)? = nil, detail: String? = nil,
        isSafeToRetry: Bool = false, responseHead: HTTPClientResponseHead? = nil
    ) {
        storage = Storage(
            code: code, phase: phase ?? code.defaultPhase, cause: cause, detail: detail, isSafeToRetry: isSafeToRetry,
            responseHead: responseHead)
    }

    public var description: String {
        var s = "ClientError.\(code.name) (\(phase.rawValue))"
        if let detail { s += ": \(detail)" }
        if let cause { s += " caused by \(cause)" }
        if isSafeToRetry { s += " [safe to retry]" }
        return s
    }
}

extension ClientError: Equatable {
    /// Errors are equal when code, phase, detail and retry safety agree and their causes print the
    /// same (causes are arbitrary errors, not `Equatable`). Meant for tests and de-duplication.
    public static func == (lhs: ClientError, rhs: ClientError) -> Bool {
        lhs.code == rhs.code && lhs.phase == rhs.phase && lhs.detail == rhs.detail
            && lhs.isSafeToRetry == rhs.isSafeToRetry
            && lhs.cause.map { "\($0)" } == rhs.cause.map { "\($0)" }
    }
}
