/// Why a SOCKS5 handshake (RFC 1928, with RFC 1929 username/password authentication) failed or
/// could not be started. A request that fails with one carries it as the cause of a
/// ``ClientError`` in the `proxy` phase: ``ClientError/Code/proxyHandshakeFailed`` for what the
/// proxy answered, ``ClientError/Code/invalidRequest`` for input that cannot be sent.
public enum SOCKSError: Error, Hashable, Sendable, CustomStringConvertible {
    // What the proxy sent.

    /// The proxy answered with a version other than 5 (RFC 1928 §3, §6): not a SOCKS5 proxy.
    case unsupportedVersion(UInt8)
    /// The proxy accepted none of the offered methods (`X'FF'`, RFC 1928 §3): it wants
    /// credentials that were not configured, or a method Courier does not speak (GSSAPI).
    case noAcceptableMethods
    /// The proxy chose a method that was not offered (RFC 1928 §3).
    case unexpectedMethod(UInt8)
    /// The username/password reply has a version other than 1 (RFC 1929 §2).
    case unsupportedAuthenticationVersion(UInt8)
    /// The proxy rejected the username and password (a non-zero `STATUS`, RFC 1929 §2).
    case authenticationFailed(status: UInt8)
    /// The proxy refused or could not make the connection (a non-zero `REP`, RFC 1928 §6).
    case requestFailed(SOCKS5Reply)
    /// The reply's bound address has an address type other than 1, 3 or 4 (RFC 1928 §5, §6).
    case unsupportedAddressType(UInt8)
    /// The proxy closed the connection before the handshake was complete.
    case closedDuringHandshake

    // What the user asked for (refused before anything is sent).

    /// A destination name longer than the 255 bytes a SOCKS5 request can carry (RFC 1928 §5).
    case domainNameTooLong(bytes: Int)
    /// An empty destination name (RFC 1928 §5 has no empty name).
    case emptyDomainName
    /// A user name longer than 255 bytes (RFC 1929 §2: `ULEN` is one byte).
    case usernameTooLong(bytes: Int)
    /// An empty user name (RFC 1929 §2: `UNAME` is 1 to 255 bytes).
    case emptyUsername
    /// A password longer than 255 bytes (RFC 1929 §2: `PLEN` is one byte).
    case passwordTooLong(bytes: Int)

    public var description: String {
        switch self {
        case .unsupportedVersion(let v): "SOCKSError.unsupportedVersion: the proxy answered with version \(v), not 5"
        case .noAcceptableMethods: "SOCKSError.noAcceptableMethods: the proxy accepted none of the offered authentication methods"
        case .unexpectedMethod(let m): "SOCKSError.unexpectedMethod: the proxy chose method \(m), which was not offered"
        case .unsupportedAuthenticationVersion(let v):
            "SOCKSError.unsupportedAuthenticationVersion: the username/password reply has version \(v), not 1"
        case .authenticationFailed(let status): "SOCKSError.authenticationFailed: the proxy rejected the credentials (status \(status))"
        case .requestFailed(let reply): "SOCKSError.requestFailed: \(reply)"
        case .unsupportedAddressType(let t): "SOCKSError.unsupportedAddressType: the reply has address type \(t)"
        case .closedDuringHandshake: "SOCKSError.closedDuringHandshake: the proxy closed the connection during the SOCKS5 handshake"
        case .domainNameTooLong(let n): "SOCKSError.domainNameTooLong: the host name has \(n) bytes; SOCKS5 carries at most 255"
        case .emptyDomainName: "SOCKSError.emptyDomainName: the host name is empty"
        case .usernameTooLong(let n): "SOCKSError.usernameTooLong: the proxy user name has \(n) bytes; SOCKS5 carries at most 255"
        case .emptyUsername: "SOCKSError.emptyUsername: SOCKS5 username/password authentication needs a user name"
        case .passwordTooLong(let n): "SOCKSError.passwordTooLong: the proxy password has \(n) bytes; SOCKS5 carries at most 255"
        }
    }
}

/// The `REP` field of a SOCKS5 reply other than success (RFC 1928 §6).
public enum SOCKS5Reply: Hashable, Sendable, CustomStringConvertible {
    /// `X'01'` general SOCKS server failure.
    case generalFailure
    /// `X'02'` connection not allowed by ruleset.
    case connectionNotAllowed
    /// `X'03'` network unreachable.
    case networkUnreachable
    /// `X'04'` host unreachable.
    case hostUnreachable
    /// `X'05'` connection refused.
    case connectionRefused
    /// `X'06'` TTL expired.
    case ttlExpired
    /// `X'07'` command not supported.
    case commandNotSupported
    /// `X'08'` address type not supported.
    case addressTypeNotSupported
    /// `X'09'` to `X'FF'`: unassigned.
    case unassigned(UInt8)

    /// The reply for a non-zero `REP` byte.
    public init(code: UInt8) {
        switch code {
        case 1: self = .generalFailure
        case 2: self = .connectionNotAllowed
        case 3: self = .networkUnreachable
        case 4: self = .hostUnreachable
        case 5: self = .connectionRefused
        case 6: self = .ttlExpired
        case 7: self = .commandNotSupported
        case 8: self = .addressTypeNotSupported
        default: self = .unassigned(code)
        }
    }

    /// The `REP` byte.
    public var code: UInt8 {
        switch self {
        case .generalFailure: 1
        case .connectionNotAllowed: 2
        case .networkUnreachable: 3
        case .hostUnreachable: 4
        case .connectionRefused: 5
        case .ttlExpired: 6
        case .commandNotSupported: 7
        case .addressTypeNotSupported: 8
        case .unassigned(let code): code
        }
    }

    public var description: String {
        switch self {
        case .generalFailure: "general SOCKS server failure (1)"
        case .connectionNotAllowed: "connection not allowed by ruleset (2)"
        case .networkUnreachable: "network unreachable (3)"
        case .hostUnreachable: "host unreachable (4)"
        case .connectionRefused: "connection refused (5)"
        case .ttlExpired: "TTL expired (6)"
        case .commandNotSupported: "command not supported (7)"
        case .addressTypeNotSupported: "address type not supported (8)"
        case .unassigned(let code): "unassigned reply code \(code)"
        }
    }
}
