import FoundationEssentials

/// Validates, then decodes the body as text in the charset of its Content-Type (Alamofire's
/// `StringResponseSerializer`; AFNetworking returns raw data).
///
/// Without a charset, ``defaultEncoding`` applies: UTF-8 by default. RFC 2616 §3.7.1's
/// ISO-8859-1 default for `text/*` was removed by RFC 7231 (Appendix B), JSON is UTF-8 by
/// RFC 8259 §8.1, and UTF-8 is what servers send today. An absent or empty body gives "".
public struct StringResponseSerializer: ValidatingResponseSerializer {
    /// 200–299 and any content type by default.
    public var validator: ResponseValidator
    /// Used when Content-Type has no charset parameter.
    public var defaultEncoding: TextEncoding

    public init(
        acceptableStatusCodes: Set<Int> = Set(200...299), acceptableContentTypes: Set<String>? = nil,
        defaultEncoding: TextEncoding = .utf8
    ) {
        self.validator = ResponseValidator(acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
        self.defaultEncoding = defaultEncoding
    }

    /// - Throws: the validation errors; `.undecodedContentCoding` for a body still
    ///   content-coded (``HTTPResponseSerializer/requireDecodedBody(response:data:)``);
    ///   `.responseSerializationFailed` for a charset this serializer does not know or bytes that
    ///   are invalid in the charset.
    public func serialize(response: Response, data: Data?, validator: ResponseValidator) throws(CourierError) -> String {
        try validator.validate(response: response, data: data)
        try HTTPResponseSerializer.requireDecodedBody(response: response, data: data)
        let encoding: TextEncoding
        if let charset = response.textEncodingName {
            guard let named = TextEncoding(charset: charset) else {
                throw CourierError(.responseSerializationFailed, response: response, body: data, detail: "unsupported charset \"\(charset)\"")
            }
            encoding = named
        } else {
            encoding = defaultEncoding
        }
        guard let data, !data.isEmpty else { return "" }
        guard let text = encoding.decode(data) else {
            throw CourierError(.responseSerializationFailed, response: response, body: data, detail: "the body is not valid \(encoding.rawValue) text")
        }
        return text
    }
}
