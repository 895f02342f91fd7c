import CourierCore
import CourierPosix
import CourierTLS

/// What one request cost, in the spirit of URLSessionTaskTransactionMetrics. Times are on the
/// monotonic clock; the phases of a reused connection (resolve, connect, TLS) are nil.
public struct HTTPClientMetrics: Sendable {
    /// When `execute` was called.
    public var fetchStart: Deadline
    public var resolveStart: Deadline? { get { times[.resolveStart] } set { times[.resolveStart] = newValue } }
    public var resolveEnd: Deadline? { get { times[.resolveEnd] } set { times[.resolveEnd] = newValue } }
    public var connectStart: Deadline? { get { times[.connectStart] } set { times[.connectStart] = newValue } }
    public var connectEnd: Deadline? { get { times[.connectEnd] } set { times[.connectEnd] = newValue } }
    public var tlsStart: Deadline? { get { times[.tlsStart] } set { times[.tlsStart] = newValue } }
    public var tlsEnd: Deadline? { get { times[.tlsEnd] } set { times[.tlsEnd] = newValue } }
    /// When the request head was handed to the socket.
    public var requestStart: Deadline? { get { times[.requestStart] } set { times[.requestStart] = newValue } }
    /// When the last request byte was handed to the socket.
    public var requestEnd: Deadline? { get { times[.requestEnd] } set { times[.requestEnd] = newValue } }
    /// When the first response byte arrived.
    public var responseStart: Deadline? { get { times[.responseStart] } set { times[.responseStart] = newValue } }
    /// When the response ended: when the read that brought its last bytes returned (a body
    /// delimited by the close: when the close was read; a body the delegate paused: when
    /// reading resumed, if its last bytes were already buffered), when a held redirect
    /// response was let through, or when the request failed.
    public var responseEnd: Deadline? { get { times[.responseEnd] } set { times[.responseEnd] = newValue } }
    /// Request bytes written (head and body, as framed; before TLS).
    public var bytesSent: Int64 = 0
    /// Response bytes received (head and body, as framed; before TLS and decompression).
    public var bytesReceived: Int64 = 0
    /// Decoded body bytes delivered to the delegate.
    public var bodyBytesDelivered: Int64 = 0
    // The stored properties are declared 8-byte ones first, then the optional times, then the
    // 1-byte ones packed after them: 134 bytes rather than 154 with the padding between, which
    // keeps the hot part of the execution that holds them within 8 cache lines.
    /// Redirects followed before this request (each request of a chain has metrics of its own,
    /// see ``HTTPClientResponseDelegate/didRedirect(_:response:to:metrics:)``).
    public var redirectCount = 0
    /// The facts behind ``connection``, which ``restart(fetchStart:)`` keeps (hidden) for the
    /// next request of a reused execution. Most go to the same connection again (the pool
    /// leases the most recently used first), and attaching it is then a comparison: a retain
    /// and a release of an object nothing else touches were, with many connections, a cache
    /// miss each.
    private var keptConnection: ConnectionFacts?
    /// The optional times above (``CompactTimes``).
    private var times = CompactTimes()
    private var connectionAttached = false
    /// Whether the request was retried once on a fresh connection (stale keep-alive).
    public var retried = false
    public var reusedConnection = false
    /// Where a new connection's addresses came from (the client's DNS cache, another
    /// connection's lookup in flight, a lookup of its own, none for an IP literal); nil on a
    /// reused connection.
    public var resolution: ResolutionSource?
    /// Whether a new connection's addresses were served from the client's DNS cache.
    public var resolvedFromCache: Bool { resolution == .cache }
    public var localAddress: SocketAddress? {
        get { connection?.values.localAddress }
        set { modifyConnection { $0.localAddress = newValue } }
    }
    public var remoteAddress: SocketAddress? {
        get { connection?.values.remoteAddress }
        set { modifyConnection { $0.remoteAddress = newValue } }
    }
    public var tlsVersion: String? {
        get { connection?.values.tlsVersion }
        set { modifyConnection { $0.tlsVersion = newValue } }
    }
    public var tlsCipher: String? {
        get { connection?.values.tlsCipher }
        set { modifyConnection { $0.tlsCipher = newValue } }
    }
    /// Whether the connection's TLS handshake resumed an earlier session (a TLS 1.2 ticket or a
    /// TLS 1.3 PSK) rather than a full handshake.
    public var tlsSessionReused: Bool {
        get { connection?.values.tlsSessionReused ?? false }
        set { modifyConnection { $0.tlsSessionReused = newValue } }
    }
    /// The verified peer chain, leaf first, for a pinning policy to judge.
    public var peerCertificates: [TLSCertificate] {
        get { connection?.values.peerCertificates ?? [] }
        set { modifyConnection { $0.peerCertificates = newValue } }
    }
    /// The addresses and TLS facts above, as the connection that carried the request made them
    /// once for every request it carries: attaching a request to a connection is one reference,
    /// not six fields with their arrays and strings (and so is every copy of the metrics).
    var connection: ConnectionFacts? { connectionAttached ? keptConnection : nil }

    init(fetchStart: Deadline) { self.fetchStart = fetchStart }

    /// The metrics of a new request: as `init(fetchStart:)` makes them, but keeping the
    /// connection facts, hidden until ``attach(_:)``.
    mutating func restart(fetchStart: Deadline) {
        var fresh = HTTPClientMetrics(fetchStart: fetchStart)
        // Moved, not copied: no retain and release of the facts.
        swap(&fresh.keptConnection, &keptConnection)
        self = fresh
    }

    /// The request runs on the connection whose facts these are.
    mutating func attach(_ facts: ConnectionFacts?) {
        if keptConnection !== facts { keptConnection = facts }
        connectionAttached = facts != nil
    }

    /// Sets one connection fact through a new box: boxes are shared by requests and never change.
    private mutating func modifyConnection(_ change: (inout ConnectionFacts.Values) -> Void) {
        var values = connection?.values ?? ConnectionFacts.Values()
        change(&values)
        attach(ConnectionFacts(values))
    }
}

/// What a connection is, for the metrics of each request it carries (``HTTPClientMetrics``):
/// made once, when the connection carries its first request, and never changed.
final class ConnectionFacts: Sendable {
    struct Values: Sendable {
        var localAddress: SocketAddress?
        var remoteAddress: SocketAddress?
        var tlsVersion: String?
        var tlsCipher: String?
        var tlsSessionReused = false
        var peerCertificates: [TLSCertificate] = []
    }

    let values: Values

    init(_ values: Values) {
        self.values = values
    }

    /// The facts of a connection established as `establishment` says.
    convenience init(_ establishment: ConnectionEstablishment) {
        var values = Values(localAddress: establishment.localAddress, remoteAddress: establishment.remoteAddress)
        if let info = establishment.tlsInfo {
            values.tlsVersion = info.version
            values.tlsCipher = info.cipher
            values.tlsSessionReused = info.sessionReused
            values.peerCertificates = info.verifiedChain
        }
        self.init(values)
    }
}

/// The ten optional times of ``HTTPClientMetrics``, 8 bytes each with one bit each for
/// presence, where optionals took 16 each: the metrics are reset and copied for every request,
/// and 80 bytes fewer are more than a cache line less of the execution that holds them.
private struct CompactTimes: Sendable {
    enum Time: Int {
        case resolveStart, resolveEnd, connectStart, connectEnd, tlsStart, tlsEnd
        case requestStart, requestEnd, responseStart, responseEnd
    }

    private var values = InlineArray<10, UInt64>(repeating: 0)
    private var present: UInt16 = 0

    subscript(time: Time) -> Deadline? {
        get {
            present & (1 << time.rawValue) != 0 ? Deadline(uptimeNanoseconds: values[time.rawValue]) : nil
        }
        set {
            values[time.rawValue] = newValue?.uptimeNanoseconds ?? 0
            if newValue != nil { present |= 1 << time.rawValue } else { present &= ~(1 << time.rawValue) }
        }
    }
}
