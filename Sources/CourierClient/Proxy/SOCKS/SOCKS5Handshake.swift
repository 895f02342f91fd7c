/// The client side of a SOCKS5 handshake for a `CONNECT` (RFC 1928), with username/password
/// authentication (RFC 1929) when credentials are given: a value that takes the proxy's bytes
/// and returns what to do. No I/O; the connection sends what it is told and feeds what it reads.
///
/// 1. Send ``greeting`` (RFC 1928 §3: version 5 and the methods offered — "no authentication",
///    and "username/password" when there are credentials, as curl offers them).
/// 2. Feed every byte read with ``receive(_:)`` and perform the actions in order: `send`,
///    until one of `needMoreData`, `done` or `fail`. The method selection may ask for the
///    username/password request (RFC 1929 §2); then comes the `CONNECT` request (RFC 1928 §4)
///    and its reply (§6).
/// 3. `done` carries the bound address from the reply and the bytes that came after it: they
///    already belong to the tunnel (the TLS handshake or the HTTP response) and must be handed on.
///
/// Every reply is checked as soon as the byte that decides it is there, so the outcome does not
/// depend on how the input is cut. Anything unexpected ends in ``SOCKSError``; nothing traps.
public struct SOCKS5Handshake: Sendable {
    public enum Action: Hashable, Sendable {
        /// Write these bytes to the proxy.
        case send([UInt8])
        /// Wait for more bytes (or the end of the input, ``SOCKS5Handshake/receiveEOF()``).
        case needMoreData
        /// The tunnel is open. `bound` and `port` are the proxy's `BND.ADDR` and `BND.PORT`
        /// (RFC 1928 §6); `leftover` are the bytes received after the reply.
        case done(bound: SOCKS5Address, port: UInt16, leftover: [UInt8])
        /// The handshake failed; the connection must be closed.
        case fail(SOCKSError)
    }

    enum State: Hashable, Sendable {
        case awaitingMethod
        case awaitingAuthentication
        case awaitingReply
        case done(bound: SOCKS5Address, port: UInt16)
        case failed(SOCKSError)
    }

    /// The first message: `VER NMETHODS METHODS` (RFC 1928 §3).
    public let greeting: [UInt8]
    /// `VER ULEN UNAME PLEN PASSWD` (RFC 1929 §2), when there are credentials.
    let authentication: [UInt8]?
    /// `VER CMD RSV ATYP DST.ADDR DST.PORT` (RFC 1928 §4), `CMD` = `CONNECT`.
    let request: [UInt8]
    private(set) var state: State = .awaitingMethod
    /// Received bytes not consumed yet.
    private var buffer: [UInt8] = []

    static let version: UInt8 = 0x05
    static let noAuthentication: UInt8 = 0x00
    static let usernamePassword: UInt8 = 0x02
    static let noAcceptableMethods: UInt8 = 0xFF
    static let authenticationVersion: UInt8 = 0x01

    /// Prepares a handshake that asks the proxy to connect to `destination`:`port`.
    ///
    /// - Throws: ``SOCKSError`` for what no SOCKS5 message can carry: a name that is empty or
    ///   longer than 255 bytes, a user name that is empty or longer than 255 bytes, a password
    ///   longer than 255 bytes. (An empty password is sent as it is, `PLEN` 0, as curl does.)
    ///   An address of the wrong size is refused as ``SOCKSError/unsupportedAddressType(_:)``.
    public init(destination: SOCKS5Address, port: UInt16, credentials: ProxyCredentials?) throws(SOCKSError) {
        switch destination {
        case .ipv4(let bytes): guard bytes.count == 4 else { throw .unsupportedAddressType(0x01) }
        case .ipv6(let bytes): guard bytes.count == 16 else { throw .unsupportedAddressType(0x04) }
        case .domain(let name):
            guard !name.isEmpty else { throw .emptyDomainName }
            guard name.count <= 255 else { throw .domainNameTooLong(bytes: name.count) }
        }
        if let credentials {
            try Self.validate(credentials)
            let user = Array(credentials.username.utf8)
            let password = Array(credentials.password.utf8)
            greeting = [Self.version, 2, Self.noAuthentication, Self.usernamePassword]
            authentication = [Self.authenticationVersion, UInt8(user.count)] + user + [UInt8(password.count)] + password
        } else {
            greeting = [Self.version, 1, Self.noAuthentication]
            authentication = nil
        }
        request = [Self.version, 0x01, 0x00] + destination.encoded + [UInt8(port >> 8), UInt8(port & 0xFF)]
    }

    /// Checks that `credentials` fit an RFC 1929 request.
    public static func validate(_ credentials: ProxyCredentials) throws(SOCKSError) {
        let user = credentials.username.utf8.count
        let password = credentials.password.utf8.count
        guard user > 0 else { throw .emptyUsername }
        guard user <= 255 else { throw .usernameTooLong(bytes: user) }
        guard password <= 255 else { throw .passwordTooLong(bytes: password) }
    }

    /// Whether the handshake has ended, either way.
    public var isFinished: Bool {
        switch state {
        case .done, .failed: true
        default: false
        }
    }

    /// Feeds bytes from the proxy. Returns the actions to perform in order; the last is
    /// `needMoreData`, `done` or `fail`. After `done`, further bytes come back as leftover;
    /// after `fail`, the same failure.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [Action] {
        switch state {
        case .done(let bound, let port):
            return [.done(bound: bound, port: port, leftover: Array(bytes))]
        case .failed(let error):
            return [.fail(error)]
        default:
            buffer.append(contentsOf: bytes)
        }
        var actions: [Action] = []
        while true {
            let step = advance()
            actions.append(step)
            guard case .send = step else { return actions }
        }
    }

    /// The proxy closed its side. The handshake fails unless it was already done.
    public mutating func receiveEOF() -> Action {
        switch state {
        case .done(let bound, let port):
            return .done(bound: bound, port: port, leftover: [])
        case .failed(let error):
            return .fail(error)
        default:
            return fail(.closedDuringHandshake)
        }
    }

    /// One step over the buffered bytes.
    private mutating func advance() -> Action {
        switch state {
        case .awaitingMethod:
            // RFC 1928 §3: VER METHOD.
            guard let version = buffer.first else { return .needMoreData }
            guard version == Self.version else { return fail(.unsupportedVersion(version)) }
            guard buffer.count >= 2 else { return .needMoreData }
            let method = buffer[1]
            buffer.removeFirst(2)
            switch method {
            case Self.noAuthentication:
                state = .awaitingReply
                return .send(request)
            case Self.usernamePassword:
                guard let authentication else { return fail(.unexpectedMethod(method)) }
                state = .awaitingAuthentication
                return .send(authentication)
            case Self.noAcceptableMethods:
                return fail(.noAcceptableMethods)
            default:
                return fail(.unexpectedMethod(method))
            }
        case .awaitingAuthentication:
            // RFC 1929 §2: VER STATUS, X'00' is success.
            guard let version = buffer.first else { return .needMoreData }
            guard version == Self.authenticationVersion else { return fail(.unsupportedAuthenticationVersion(version)) }
            guard buffer.count >= 2 else { return .needMoreData }
            let status = buffer[1]
            buffer.removeFirst(2)
            guard status == 0 else { return fail(.authenticationFailed(status: status)) }
            state = .awaitingReply
            return .send(request)
        case .awaitingReply:
            return parseReply()
        case .done(let bound, let port):
            return .done(bound: bound, port: port, leftover: [])
        case .failed(let error):
            return .fail(error)
        }
    }

    /// RFC 1928 §6: VER REP RSV ATYP BND.ADDR BND.PORT. RSV is not checked (curl does not either).
    private mutating func parseReply() -> Action {
        guard let version = buffer.first else { return .needMoreData }
        guard version == Self.version else { return fail(.unsupportedVersion(version)) }
        guard buffer.count >= 2 else { return .needMoreData }
        let reply = buffer[1]
        guard reply == 0 else { return fail(.requestFailed(SOCKS5Reply(code: reply))) }
        guard buffer.count >= 4 else { return .needMoreData }
        let addressLength: Int
        var addressStart = 4
        switch buffer[3] {
        case 0x01: addressLength = 4
        case 0x04: addressLength = 16
        case 0x03:
            guard buffer.count >= 5 else { return .needMoreData }
            addressLength = Int(buffer[4])
            addressStart = 5
        default: return fail(.unsupportedAddressType(buffer[3]))
        }
        let end = addressStart + addressLength + 2
        guard buffer.count >= end else { return .needMoreData }
        let address = Array(buffer[addressStart..<(addressStart + addressLength)])
        let bound: SOCKS5Address
        switch buffer[3] {
        case 0x01: bound = .ipv4(address)
        case 0x04: bound = .ipv6(address)
        default: bound = .domain(address)
        }
        let port = UInt16(buffer[end - 2]) << 8 | UInt16(buffer[end - 1])
        let leftover = Array(buffer[end...])
        buffer = []
        state = .done(bound: bound, port: port)
        return .done(bound: bound, port: port, leftover: leftover)
    }

    private mutating func fail(_ error: SOCKSError) -> Action {
        state = .failed(error)
        buffer = []
        return .fail(error)
    }
}
