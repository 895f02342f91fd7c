import CourierCore
import CourierHTTP1

extension HTTP1ConnectionStateMachine {
    /// How the request body will be supplied. The driver feeds the parts.
    public enum RequestBodyKind: Hashable, Sendable {
        /// No body; no Content-Length is sent.
        case none
        /// Exactly this many bytes, sent raw with `Content-Length` (RFC 9112 §6.2). The machine
        /// enforces the count: a byte more or less fails the request.
        case knownLength(Int64)
        /// Unknown length, sent with the chunked transfer coding (RFC 9112 §7.1).
        case chunked
    }

    /// What the driver does after writing the bytes of a ``Action/write(_:then:)``.
    public enum AfterWrite: Hashable, Sendable {
        /// Start (or keep) pulling request body parts and feeding them to
        /// ``HTTP1ConnectionStateMachine/requestBodyPart(_:)``.
        case sendRequestBody
        /// Do not send the body yet: arm the 100-continue timer and wait for the server's
        /// `100 Continue` (RFC 9110 §10.1.1). Either ``Action/sendRequestBody`` comes back from
        /// the inbound side, or the driver reports ``TimeoutKind/continueWait``.
        case waitForContinue
        /// The whole request is written; only the response remains.
        case requestComplete
    }

    /// What happens to the connection once the request is over.
    public enum AfterResponse: Hashable, Sendable {
        /// The connection is idle and may carry another request (return it to the pool).
        case keepAlive
        /// Close the connection; it must never be reused.
        case close
        /// A 2xx answer to CONNECT (RFC 9110 §9.3.6): the connection is now a tunnel and the bytes
        /// left in the read buffer belong to it. The machine is finished with the connection.
        case tunnel
    }

    /// What the driver does with the socket while the machine waits.
    public enum ReadHint: Hashable, Sendable {
        /// Keep reading: append the bytes to the read buffer and call
        /// ``HTTP1ConnectionStateMachine/nextInboundAction(_:)``.
        case read
        /// Stop reading the socket: the response body consumer is paused (backpressure). Resume
        /// after ``HTTP1ConnectionStateMachine/demandMoreResponseBody()``.
        case stopReading
    }

    /// Timers the driver arms for an in-flight request.
    public enum TimeoutKind: Hashable, Sendable {
        /// No byte arrived for the idle read timeout.
        case idleRead
        /// The whole request took too long.
        case total
        /// The 100-continue wait expired: send the body anyway (RFC 9110 §10.1.1).
        case continueWait
    }

    /// What the driver must do next. Every input returns exactly one.
    public enum Action: Equatable, Sendable {
        /// Write these bytes to the socket, then do as `then` says.
        case write(ByteBuffer, then: AfterWrite)
        /// Start sending the request body (after `100 Continue` or the continue timeout).
        case sendRequestBody
        /// Deliver the final response head. When `stopSendingBody` is true the response came
        /// before the request body was sent: stop feeding body parts; the connection will close
        /// after the response.
        case forwardHead(HTTPClientResponseHead, stopSendingBody: Bool)
        /// Deliver response body bytes (after transfer decoding; content decoding is the
        /// driver's). The buffer shares storage with the read buffer.
        case forwardBody(ByteBuffer)
        /// The response is complete.
        case succeedRequest(trailers: HTTPFields, then: AfterResponse)
        /// The request failed. `then` is `.close` whenever anything was written or read;
        /// `.keepAlive` only when the request was refused before a byte went out.
        case failRequest(ClientError, then: AfterResponse)
        /// Nothing to do until more bytes arrive (or, with `.stopReading`, until demand returns).
        case wait(ReadHint)
        /// Response body demand is back: re-enable reading and call
        /// ``HTTP1ConnectionStateMachine/nextInboundAction(_:)`` (bytes may already be buffered).
        case resumeInbound
        /// Close the idle connection: stale (EOF) or hostile (bytes nobody asked for).
        case close
        /// Nothing to do.
        case none
    }
}

/// A response head owned by the client: copied out of the read buffer, so holding it does not pin
/// the connection's buffer (``HTTPResponseHead`` is a zero-copy view into it).
public struct HTTPClientResponseHead: Hashable, Sendable {
    public var version: HTTPVersion
    /// The status code (RFC 9110 §15).
    public var status: Int
    /// The reason phrase (RFC 9112 §4) as text, decoded like a field value (UTF-8 when valid,
    /// else ISO-8859-1); informative only.
    public var reason: String
    /// The reason phrase's exact bytes (it may hold obs-text, RFC 9112 §4): `reason`'s UTF-8
    /// unless the phrase was not UTF-8 (then `reason` is its ISO-8859-1 reading).
    public var reasonBytes: [UInt8] {
        get { otherReasonBytes ?? Array(reason.utf8) }
        set { otherReasonBytes = newValue.elementsEqual(reason.utf8) ? nil : newValue }
    }
    /// The reason's bytes when they are not `reason`'s UTF-8; nil (nothing allocated) otherwise.
    private var otherReasonBytes: [UInt8]?
    /// The header fields; each keeps its exact bytes (``HTTPField/valueBytes``, RFC 9110 §5.5).
    public var headers: HTTPFields {
        didSet { contentEncodingAbsent = false }
    }
    /// How the body was delimited.
    public var framing: BodyFraming
    /// Whether the server allowed the connection to be reused (RFC 9112 §9.3).
    public var isKeepAlive: Bool
    /// The content codings still applied to the body the delegate receives, in the order the
    /// sender applied them (RFC 9110 §8.4); empty when the body has none or all were undone.
    /// Set by ``HTTPRequestExecution`` when a coding cannot be undone (`br`, `zstd`, an unknown one,
    /// more layers than `ContentDecodingPlan.maximumLayers`) or decompression is off: then no
    /// coding is undone and the body arrives exactly as received (`ContentDecodingPlan`).
    public var undecodedContentCodings: [String] = []
    /// The parser saw no `Content-Encoding` among `headers` (RFC 9110 §8.4), so the client need
    /// not search for one. False when not known: a head made by hand, or once `headers` changed.
    /// Not part of `==`: it only says something about `headers`.
    private(set) var contentEncodingAbsent: Bool

    /// - Parameter reasonBytes: the reason phrase's bytes; nil means `reason`'s UTF-8.
    public init(
        version: HTTPVersion, status: Int, reason: String, headers: HTTPFields, framing: BodyFraming,
        isKeepAlive: Bool, reasonBytes: [UInt8]? = nil
    ) {
        self.version = version
        self.status = status
        self.reason = reason
        self.otherReasonBytes = reasonBytes.flatMap { $0.elementsEqual(reason.utf8) ? nil : $0 }
        self.headers = headers
        self.framing = framing
        self.isKeepAlive = isKeepAlive
        self.contentEncodingAbsent = false
    }

    /// Copies a parsed head out of the read buffer.
    public init(_ head: HTTPResponseHead) {
        var storage = ByteBuffer()
        self.init(head, reusing: &storage)
    }

    /// Copies a parsed head out of the read buffer into `storage` when nothing else holds it
    /// (``HTTPHeaderView/owned(reusing:)``).
    init(_ head: HTTPResponseHead, reusing storage: inout ByteBuffer) {
        // Member by member rather than through the public initializer, which copied the whole
        // head once more and compared the reason's bytes with its own UTF-8 again.
        let reason = head.reasonText
        let headers = head.headers.owned(reusing: &storage)
        version = head.version
        status = head.status
        self.reason = reason.text
        otherReasonBytes = reason.otherBytes
        self.headers = headers
        framing = head.framing
        isKeepAlive = head.isKeepAlive
        contentEncodingAbsent = !head.hasContentEncoding
    }

    public static func == (lhs: HTTPClientResponseHead, rhs: HTTPClientResponseHead) -> Bool {
        lhs.version == rhs.version && lhs.status == rhs.status && lhs.reason == rhs.reason
            && lhs.otherReasonBytes == rhs.otherReasonBytes && lhs.headers == rhs.headers && lhs.framing == rhs.framing
            && lhs.isKeepAlive == rhs.isKeepAlive && lhs.undecodedContentCodings == rhs.undecodedContentCodings
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(status)
        hasher.combine(reason)
        hasher.combine(otherReasonBytes)
        hasher.combine(headers)
        hasher.combine(framing)
        hasher.combine(isKeepAlive)
        hasher.combine(undecodedContentCodings)
    }
}
