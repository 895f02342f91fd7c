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
