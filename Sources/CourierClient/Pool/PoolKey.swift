import CourierTLS

/// What makes two requests able to share a connection: scheme, host, port, the TLS
/// configuration and the proxy (RFC 9112 §9.3 leaves reuse to the client; these are the
/// properties that change what is on the other end of the socket or how it is secured).
struct PoolKey: Hashable, Sendable, CustomStringConvertible {
    let origin: HTTPOrigin
    let tls: TLSConfiguration?
    let proxy: ProxyServer?

    var description: String {
        "\(origin)" + (proxy.map { " via \($0.host):\($0.port)" } ?? "")
    }
}
