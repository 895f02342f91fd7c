import CourierClient
import FoundationEssentials

/// A response head as the Courier layer reports it (AFNetworking's `NSHTTPURLResponse`).
public struct Response: Sendable, Hashable {
    /// The URL that produced this response, parsed once (``RequestURL``).
    var location: RequestURL

    /// The URL that produced this response (the last one after redirects), as Foundation's `URL`.
    public var url: URL {
        get { location.foundation }
        set { location = RequestURL(newValue) }
    }

    /// The URL that produced this response as the transport sent it; nil only for a response
    /// made by hand with a URL that has no ``HTTPURL`` form.
    public var httpURL: HTTPURL? { location.httpURL }
    /// The status code (RFC 9110 §15).
    public var statusCode: Int
    /// The header fields as received. Each value's exact bytes are in ``HTTPField/valueBytes``
    /// (obs-text included, RFC 9110 §5.5); its `String` is UTF-8 when the bytes are valid UTF-8,
    /// else ISO-8859-1 (one scalar per byte).
    public var headers: HTTPFields
    /// The content codings still applied to the body, in the order the server applied them
    /// (RFC 9110 §8.4); empty when it had none or Courier undid them all. Courier undoes `gzip`
    /// and `deflate` (up to two stacked) when decompression is on; a body with any other coding
    /// (`br`, `zstd`, `compress`, an unknown one), a deeper stack, or any coding when
    /// decompression is off is delivered exactly as received and its codings are named here.
    /// The serializers that interpret a body then fail with
    /// ``CourierError/Code/undecodedContentCoding``.
    public var undecodedContentCodings: [String]
    /// The status line's HTTP version as received (RFC 9112 §4, §2.3); HTTP/1.1 for a response
    /// made here (the cache's, one made by hand).
    public var version: HTTPVersion = .http1_1
    /// The status line's reason phrase as received (RFC 9112 §4): informative only, and ""
    /// when the server sent none or the response was made here. Decoded like a field value
    /// (UTF-8 when valid, else ISO-8859-1).
    public var reasonPhrase: String = ""

    public init(url: URL, statusCode: Int, headers: HTTPFields, undecodedContentCodings: [String] = []) {
        self.init(location: RequestURL(url), statusCode: statusCode, headers: headers, undecodedContentCodings: undecodedContentCodings)
    }

    init(location: RequestURL, statusCode: Int, headers: HTTPFields, undecodedContentCodings: [String] = []) {
        self.location = location
        self.statusCode = statusCode
        self.headers = headers
        self.undecodedContentCodings = undecodedContentCodings
    }

    /// The transport's head for `location`, status line included.
    init(location: RequestURL, head: HTTPClientResponseHead) {
        self.init(location: location, statusCode: head.status, headers: head.headers, undecodedContentCodings: head.undecodedContentCodings)
        version = head.version
        reasonPhrase = head.reason
    }

    /// The first value of a header field (case-insensitive name).
    public func value(forHTTPHeaderField name: String) -> String? { headers[first: name] }

    /// The exact bytes of the first header field named `name` (case-insensitive), or nil
    /// (RFC 9110 §5.5: obs-text is opaque data, so these are what the server sent).
    public func valueBytes(forHTTPHeaderField name: String) -> [UInt8]? { headers.firstValueBytes(for: name) }

    /// The media type of Content-Type, lowercased, without parameters (RFC 9110 §8.3.1), e.g.
    /// `application/json`; nil when absent.
    public var mimeType: String? {
        guard let value = headers[first: "Content-Type"] else { return nil }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = type.trimmingOWS.lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The `charset` parameter of Content-Type, lowercased and unquoted, e.g. `utf-8`.
    public var textEncodingName: String? {
        guard let value = headers[first: "Content-Type"] else { return nil }
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingOWS.lowercased() == "charset" else { continue }
            var charset = pair[1].trimmingOWS
            if charset.count >= 2, charset.hasPrefix("\""), charset.hasSuffix("\"") {
                charset = String(charset.dropFirst().dropLast())
            }
            return charset.isEmpty ? nil : charset.lowercased()
        }
        return nil
    }

    /// The body length the server announced in Content-Length (of the encoded body, RFC 9110
    /// §8.6), or -1 when absent or chunked.
    public var expectedContentLength: Int64 {
        guard let value = headers[first: "Content-Length"], let length = Int64(value), length >= 0 else { return -1 }
        return length
    }
}
