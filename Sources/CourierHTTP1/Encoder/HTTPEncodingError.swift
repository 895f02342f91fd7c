/// A request that would be invalid on the wire, or would let user input inject bytes, was refused.
public struct HTTPEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Hashable, Sendable {
        /// The request-target has a control byte, space, non-ASCII byte or `#`, or is not in
        /// the form its method needs (RFC 9112 §3.2).
        case invalidRequestTarget
        /// The Host value is not a valid `uri-host [":" port]` (RFC 9110 §7.2, RFC 3986 §3.2.2):
        /// unbalanced brackets, a `%` not followed by two hex digits, a byte outside the grammar.
        case invalidHost
        /// The fields hold more than one Host field (RFC 9110 §7.2 allows one; RFC 9112 §3.2
        /// has a server reject a request with several). Nothing is dropped silently.
        case multipleHosts
        /// A Content-Length or Transfer-Encoding field disagrees with the body framing.
        case conflictingFraming
        /// Chunked framing was asked for on an HTTP/1.0 request.
        case chunkedRequiresHTTP11
        /// HTTP/1.1 needs a Host field and none was given.
        case missingHost
        /// The version is neither HTTP/1.0 nor HTTP/1.1, the only ones this encoder writes.
        case unsupportedVersion
    }

    public let reason: Reason
    /// What was refused, for the message.
    public let detail: String

    public var description: String { "HTTPEncodingError.\(reason.rawValue): \(detail)" }
}
