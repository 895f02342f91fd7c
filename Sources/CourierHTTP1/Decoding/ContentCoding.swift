/// A content coding a response body may carry (RFC 9110 §8.4.1).
public enum ContentCoding: String, Hashable, Sendable {
    /// `gzip` or `x-gzip` (RFC 1952), including several concatenated members.
    case gzip
    /// `deflate`: the zlib format (RFC 1950), or raw deflate (RFC 1951) as some servers send it;
    /// which one is detected from the first two bytes.
    case deflate
}

/// What to do with a body given its `Content-Encoding` field values (RFC 9110 §8.4).
///
/// Courier undoes a body's codings only when it can undo all of them; otherwise it undoes none.
/// Behaviour, decided here once:
/// - no field, or only `identity`: ``none``;
/// - known codings (`gzip`, `x-gzip`, `deflate`), possibly stacked such as `gzip, gzip`, up to
///   ``maximumLayers``, with decoding on: ``decode(_:)`` with the codings in the order the sender
///   applied them, so the decoder undoes them last-first;
/// - anything else: ``passThrough(_:)`` — an unknown coding anywhere in the list (`br`, `zstd`,
///   `compress`, `x-custom`, …; `gzip, br` cannot be undone since `br` was applied last), more
///   stacked codings than ``maximumLayers``, or decoding turned off. The body is delivered exactly
///   as received, so it is still what the `Content-Encoding` field describes, and the caller must
///   say which codings are left (``undecodedCodings``). Nothing is decompressed, so a deep stack
///   costs nothing.
public enum ContentDecodingPlan: Hashable, Sendable {
    case none
    case decode([ContentCoding])
    /// Every coding still applied, in the order the sender applied them (RFC 9110 §8.4): names
    /// lowercased (coding names are case-insensitive, §8.4.1), `identity` and empty list
    /// elements left out, anything else kept as sent.
    case passThrough([String])

    /// The most stacked codings that are decoded.
    public static let maximumLayers = 2

    /// Builds the plan from the `Content-Encoding` values, in field order (RFC 9110 §8.4).
    /// `decoding: false` (decompression turned off) passes every coding through.
    public init<S: Sequence>(contentEncoding values: S, decoding: Bool = true) where S.Element == String {
        var names: [String] = []
        var codings: [ContentCoding] = []
        var allKnown = true
        for value in values {
            for element in value.split(separator: ",") {
                let name = element.trimmingWhitespace().lowercasedASCII()
                switch name {
                case "", "identity": continue
                case "gzip", "x-gzip": codings.append(.gzip)
                case "deflate": codings.append(.deflate)
                default: allKnown = false
                }
                names.append(name)
            }
        }
        if names.isEmpty {
            self = .none
        } else if decoding, allKnown, codings.count <= Self.maximumLayers {
            self = .decode(codings)
        } else {
            self = .passThrough(names)
        }
    }

    /// Builds the plan from a parsed head's `Content-Encoding` fields.
    public init(headers: HTTPHeaderView, decoding: Bool = true) {
        self.init(contentEncoding: headers.values(for: "Content-Encoding"), decoding: decoding)
    }

    /// The codings left on the body the caller receives, in the order applied: empty unless
    /// the plan is ``passThrough(_:)``.
    public var undecodedCodings: [String] {
        if case .passThrough(let names) = self { names } else { [] }
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        let utf8 = self.utf8
        guard let first = utf8.firstIndex(where: { !ByteClass.isWhitespace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !ByteClass.isWhitespace($0) })!
        return self[first...last]
    }

    func lowercasedASCII() -> String {
        String(decoding: utf8.map(ByteClass.lower), as: UTF8.self)
    }
}
