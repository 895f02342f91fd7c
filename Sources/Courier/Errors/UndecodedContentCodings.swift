/// The underlying error of ``CourierError/Code/undecodedContentCoding``: the content codings
/// still applied to a body that a serializer was asked to interpret, in the order the server
/// applied them (RFC 9110 §8.4), as in ``Response/undecodedContentCodings``.
public struct UndecodedContentCodings: Error, Sendable, Hashable, CustomStringConvertible {
    public let codings: [String]

    public init(_ codings: [String]) {
        self.codings = codings
    }

    /// The names, comma-separated as in `Content-Encoding`; at most the first eight (a hostile
    /// field may list thousands), then how many more.
    public var description: String {
        let shown = codings.prefix(8).joined(separator: ", ")
        return codings.count > 8 ? "\(shown), … (\(codings.count - 8) more)" : shown
    }
}
