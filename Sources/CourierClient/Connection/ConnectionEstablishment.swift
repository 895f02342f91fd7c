import CourierCore
import CourierPosix
import CourierTLS

/// How a connection came to be: the phase times and what TLS negotiated. Copied into the
/// metrics of the first request on the connection.
struct ConnectionEstablishment {
    var resolveStart: Deadline?
    var resolveEnd: Deadline?
    var resolution: ResolutionSource?
    var connectStart: Deadline?
    var connectEnd: Deadline?
    var tlsStart: Deadline?
    var tlsEnd: Deadline?
    var localAddress: SocketAddress?
    var remoteAddress: SocketAddress?
    var tlsInfo: TLSConnectionInfo?
}
