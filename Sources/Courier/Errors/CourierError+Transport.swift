import FoundationEssentials
import CourierClient

extension CourierError {
    /// Wraps a transport error, keeping its phase (a proxy or pool failure counts as `connect`)
    /// and the ClientError itself as ``underlying``. The transport's total timeout is the task's
    /// deadline and becomes ``Code/resourceTimeout``.
    static func transport(_ error: ClientError, url: URL?) -> CourierError {
        let phase: Phase
        switch error.phase {
        case .resolve: phase = .resolve
        case .connect, .proxy, .pool: phase = .connect
        case .tls: phase = error.code == .serverTrustRejected ? .trust : .tls
        case .send: phase = .send
        case .receive: phase = .receive
        case .parse: phase = .parse
        case .decode: phase = .decode
        case .redirect: phase = .redirect
        case .cancelled: phase = .cancelled
        }
        let code: Code
        switch error.code {
        case .cancelled: code = .cancelled
        case .serverTrustRejected: code = .serverTrustRejected
        // The task's deadline (the transport's total timeout is what remained of it).
        case .totalTimeout: code = .resourceTimeout
        default: code = .transport
        }
        return CourierError(code, phase: phase, underlying: error, failingURL: url, detail: error.detail ?? error.code.name)
    }
}

extension CourierError {
    /// A transport failure as the session reports it for a request to `url`: a redirect the
    /// configuration refused (with the refused 3xx as the response), a failure of one of this
    /// layer's own body streams (its own error), a trust failure judged by the security policy,
    /// or the transport error as it is (``transport(_:url:)``).
    static func session(from error: ClientError, url: URL) -> CourierError {
        if error.phase == .redirect, let refused = error.responseHead, let redirectError = error.cause as? RedirectError {
            let response = Response(url: url, statusCode: refused.status, headers: refused.headers)
            return CourierError(.redirectRefused, underlying: redirectError, response: response, failingURL: url, detail: redirectError.description)
        }
        if let own = error.cause as? CourierError {
            return CourierError(own.code, phase: .send, underlying: error, failingURL: url, detail: own.detail)
        }
        return SecurityPolicy.courierError(from: error, host: url.host())?.with(response: nil, body: nil, failingURL: url)
            ?? CourierError.transport(error, url: url)
    }
}
