/// A content coding a response body may carry (RFC 9110 §8.4.1).
public enum ContentCoding: String, Hashable, Sendable {
    /// `gzip` or `x-gzip` (RFC 1952), including several concatenated members.
    case gzip
    /// `deflate`: the zlib format (RFC 1950), or raw deflate (RFC 1951) as some servers send it;
    /// which one is detected from the first two bytes.
    case deflate
}

/// What to do with a body given its `Content-Encoding` field values.
///
/// Behaviour, decided here once:
/// - no field, or only `identity`: ``none``;
/// - known codings (`gzip`, `x-gzip`, `deflate`), possibly stacked such as `gzip, gzip`, up to
///   ``maximumLayers``: ``decode(_:)`` with the codings in the order the sender applied them, so
///   the decoder undoes them last-first;
/// - more stacked codings than ``maximumLayers``: ``tooManyLayers`` — a decompression-bomb shape,
///   the caller fails the request;
/// - any other coding (`br`, `zstd`, `compress`, …): ``unsupported(_:)`` — the body is delivered
///   as received, still encoded, and the caller is told which coding it could not undo.
public enum ContentDecodingPlan: Hashable, Sendable {
    case none
    case decode([ContentCoding])
    case unsupported(String)
    case tooManyLayers(Int)

    /// The most stacked codings that are decoded.
    public static let maximumLayers = 2

    /// Builds the plan from the `Content-Encoding` values, in field order (RFC 9110 §8.4).
    public init<S: Sequence>(contentEncoding values: S) where S.Element == String {
        var codings: [ContentCoding] = []
        for value in values {
            for element in value.split(separator: ",") {
                let name = element.trimmingWhitespace().lowercasedASCII()
                switch name {
                case "", "identity": continue
                case "gzip", "x-gzip": codings.append(.gzip)
                case "deflate": codings.append(.deflate)
                default:
                    self = .unsupported(name)
                    return
                }
            }
        }
        if codings.isEmpty {
            self = .none
        } else if codings.count > Self.maximumLayers {
            self = .tooManyLayers(codings.count)
        } else {
            self = .decode(codings)
        }
    }

    /// Builds the plan from a parsed head's `Content-Encoding` fields.
    public init(headers: HTTPHeaderView) {
        self.init(contentEncoding: headers.values(for: "Content-Encoding"))
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
