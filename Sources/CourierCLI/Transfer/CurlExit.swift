import Courier

/// curl's exit status for a failure (curl(1), "EXIT CODES"), with the one-line message
/// `courier: (CODE) message` that names the phase that failed.
struct CurlExit: Error, Sendable {
    let code: Int32
    let message: String

    static let unsupportedProtocol: Int32 = 1
    static let usage: Int32 = 2
    static let malformedURL: Int32 = 3
    static let couldNotResolveProxy: Int32 = 5
    static let couldNotResolveHost: Int32 = 6
    static let couldNotConnect: Int32 = 7
    static let weirdServerReply: Int32 = 8
    static let partialFile: Int32 = 18
    static let httpReturnedError: Int32 = 22
    static let writeError: Int32 = 23
    static let readError: Int32 = 26
    static let operationTimedOut: Int32 = 28
    static let rangeError: Int32 = 33
    static let sslConnectError: Int32 = 35
    static let abortedByCallback: Int32 = 42
    static let badFunctionArgument: Int32 = 43
    static let tooManyRedirects: Int32 = 47
    static let gotNothing: Int32 = 52
    static let sendError: Int32 = 55
    static let receiveError: Int32 = 56
    static let peerFailedVerification: Int32 = 60
    static let badContentEncoding: Int32 = 61
    static let fileSizeExceeded: Int32 = 63
    static let sslCertificateProblem: Int32 = 58
    static let sslPinnedPublicKeyMismatch: Int32 = 90
    static let authenticationError: Int32 = 94
    static let proxyError: Int32 = 97

    init(_ code: Int32, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The status and message for a task's error.
    init(_ error: CourierError) {
        let phase = error.phase.rawValue
        let detail = Self.detail(of: error)
        func make(_ code: Int32, _ text: String) -> CurlExit { CurlExit(code, "\(text) (phase \(phase)): \(detail)") }
        let client = error.underlying as? ClientError
        switch error.code {
        case .invalidURL: self = make(Self.malformedURL, "URL rejected")
        case .bodyFileUnreadable: self = make(Self.readError, "Failed to open/read local data")
        case .fileWriteFailed, .fileMoveFailed: self = make(Self.writeError, "Failure writing output")
        case .resourceTimeout: self = make(Self.operationTimedOut, "Operation timed out")
        case .bodyTooLarge: self = make(Self.fileSizeExceeded, "Maximum file size exceeded")
        case .unsupportedAuthenticationScheme: self = make(Self.authenticationError, "Authentication failed")
        case .redirectRefused: self = make(Self.tooManyRedirects, "Redirect refused")
        case .cancelled, .sessionInvalidated: self = make(Self.abortedByCallback, "Aborted")
        case .serverTrustRejected:
            self = Self.trust(error, client: client, make: make)
        case .invalidSecurityPolicy: self = make(Self.badFunctionArgument, "Invalid TLS settings")
        default:
            if let client { self = Self.transport(client, make: make) } else { self = make(Self.weirdServerReply, "Failed") }
        }
    }

    private static func trust(_ error: CourierError, client: ClientError?, make: (Int32, String) -> CurlExit) -> CurlExit {
        let failure = (error.underlying as? TrustFailure) ?? (client?.cause as? TrustFailure)
        switch failure {
        case .noPinnedPublicKeyInChain, .noPinnedFingerprintInChain, .noPinnedCertificateInChain:
            return make(sslPinnedPublicKeyMismatch, "SSL: public key does not match pinned public key")
        default:
            return make(peerFailedVerification, "SSL certificate problem")
        }
    }

    private static func transport(_ error: ClientError, make: (Int32, String) -> CurlExit) -> CurlExit {
        switch error.code {
        case .resolutionFailed:
            return error.phase == .proxy ? make(couldNotResolveProxy, "Could not resolve proxy") : make(couldNotResolveHost, "Could not resolve host")
        case .invalidURL: return make(malformedURL, "URL rejected")
        case .connectionFailed: return make(couldNotConnect, "Failed to connect")
        case .proxyHandshakeFailed: return make(proxyError, "Proxy handshake failed")
        case .connectTimeout, .tlsHandshakeTimeout, .readTimeout, .totalTimeout, .poolTimeout:
            return make(operationTimedOut, "Operation timed out")
        case .tls:
            if let tls = error.cause as? TLSError, case .certificateVerificationFailed = tls.reason {
                return make(peerFailedVerification, "SSL certificate problem")
            }
            if let tls = error.cause as? TLSError, tls.reason == .configuration {
                return make(sslCertificateProblem, "Problem with the local SSL certificate")
            }
            return make(sslConnectError, "SSL connect error")
        case .serverTrustRejected:
            if error.cause is TrustFailure, case .noPinnedPublicKeyInChain = error.cause as? TrustFailure {
                return make(sslPinnedPublicKeyMismatch, "SSL: public key does not match pinned public key")
            }
            return make(peerFailedVerification, "SSL certificate problem")
        case .remoteClosedBeforeResponse: return make(gotNothing, "Empty reply from server")
        case .remoteClosedDuringBody: return make(partialFile, "Transferred a partial file")
        case .parse, .unexpectedResponse: return make(weirdServerReply, "Weird server reply")
        case .contentDecoding: return make(badContentEncoding, "Unrecognized or bad HTTP Content or Transfer-Encoding")
        case .tooManyRedirects, .redirectLoop: return make(tooManyRedirects, "Maximum redirects followed")
        case .bodyLengthMismatch: return make(readError, "Failed to read the request body")
        case .connectionClosed: return make(sendError, "Failure when sending data to the peer")
        case .cancelled: return make(abortedByCallback, "Aborted")
        case .ioError:
            return error.phase == .send ? make(sendError, "Failure when sending data to the peer")
                : make(receiveError, "Failure when receiving data from the peer")
        default:
            return error.phase == .send ? make(sendError, "Failure when sending data to the peer")
                : make(receiveError, "Failure when receiving data from the peer")
        }
    }

    /// The most specific text the error carries: the transport's cause, the trust failure, or
    /// the detail.
    private static func detail(of error: CourierError) -> String {
        if let client = error.underlying as? ClientError {
            if let cause = client.cause { return "\(client.code.name): \(cause)" }
            return client.detail ?? client.code.name
        }
        if let underlying = error.underlying { return "\(underlying)" }
        return error.detail ?? error.code.name
    }

    /// The line curl prints: `courier: (CODE) message`.
    var line: String { "courier: (\(code)) \(message)\n" }
}
