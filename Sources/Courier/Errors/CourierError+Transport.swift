import FoundationEssentials
import CourierClient

extension CourierError {
    /// Wraps a transport error, keeping its phase (a proxy or pool failure counts as `connect`)
    /// and the ClientError itself as ``underlying``.
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
        default: code = .transport
        }
        return CourierError(code, phase: phase, underlying: error, failingURL: url, detail: error.detail ?? error.code.name)
    }
}
