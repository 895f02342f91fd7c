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
