import CCourierOpenSSL

/// A TLS protocol version Courier can negotiate. Older versions (SSL 3.0, TLS 1.0, TLS 1.1) are
/// deprecated by RFC 8996 and cannot be selected.
public enum TLSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// TLS 1.2 (RFC 5246).
    case tls1_2
    /// TLS 1.3 (RFC 8446).
    case tls1_3

    /// The protocol version number OpenSSL uses (`TLS1_2_VERSION`, `TLS1_3_VERSION`).
    var openSSLValue: Int {
        switch self {
        case .tls1_2: Int(TLS1_2_VERSION)
        case .tls1_3: Int(TLS1_3_VERSION)
        }
    }

    /// The version for an OpenSSL protocol number, or nil for versions Courier does not speak.
    init?(openSSLValue: Int32) {
        switch openSSLValue {
        case TLS1_2_VERSION: self = .tls1_2
        case TLS1_3_VERSION: self = .tls1_3
        default: return nil
        }
    }

    /// The name OpenSSL prints: "TLSv1.2" or "TLSv1.3".
    public var description: String {
        switch self {
        case .tls1_2: "TLSv1.2"
        case .tls1_3: "TLSv1.3"
        }
    }
}
