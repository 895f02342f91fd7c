import CourierCore

/// The four timeouts, each optional (nil: no limit). Defaults: connect 10 s, TLS handshake
/// 10 s, idle read 60 s, total none.
public struct HTTPClientTimeouts: Sendable, Hashable {
    /// Resolution plus TCP connect (all Happy Eyeballs attempts), per connection. Through a
    /// SOCKS5 proxy it also bounds the SOCKS5 handshake (and, for `socks5`, the lookup of the
    /// origin's name): a timeout there is `connectTimeout` in the `proxy` phase.
    public var connect: TimeAmount?
    /// The TLS handshake (and a proxy CONNECT exchange), per connection.
    public var tlsHandshake: TimeAmount?
    /// The longest silence while waiting for response bytes.
    public var idleRead: TimeAmount?
    /// The whole request, redirects and retries included, from `execute` to the end.
    public var total: TimeAmount?

    public init(connect: TimeAmount? = .seconds(10), tlsHandshake: TimeAmount? = .seconds(10), idleRead: TimeAmount? = .seconds(60), total: TimeAmount? = nil) {
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.idleRead = idleRead
        self.total = total
    }

    public static let `default` = HTTPClientTimeouts()
}
