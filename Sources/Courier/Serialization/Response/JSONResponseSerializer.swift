import FoundationEssentials

/// AFNetworking's `AFJSONResponseSerializer`: validates, then parses the body as an untyped
/// ``JSONValue``.
///
/// An absent body, an empty one, or exactly one space (what Rails sends for `head :ok`) gives
/// nil without an error, as in AFNetworking. Top-level scalars are accepted (RFC 8259 §2;
/// AFNetworking's default reading options refuse them).
///
/// Unlike AFNetworking, which parses the body of a response with an unacceptable status and
/// returns the object together with the error, a failed validation throws at once; the error
/// carries the body (``CourierError/bodyPrefix``) for callers that want to decode it.
public struct JSONResponseSerializer: ValidatingResponseSerializer {
    /// 200–299; `application/json`, `text/json`, `text/javascript` by default.
    public var validator: ResponseValidator
    /// Removes `null` object members and array elements at every depth
    /// (``JSONValue/removingKeysWithNullValues()``). Off by default.
    public var removesKeysWithNullValues: Bool

    public static let defaultContentTypes: Set<String> = ["application/json", "text/json", "text/javascript"]

    public init(
        acceptableStatusCodes: Set<Int> = Set(200...299), acceptableContentTypes: Set<String>? = defaultContentTypes,
        removesKeysWithNullValues: Bool = false
    ) {
        self.validator = ResponseValidator(acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
        self.removesKeysWithNullValues = removesKeysWithNullValues
    }

    /// - Throws: the validation errors of ``ResponseValidator/validate(response:data:)``;
    ///   `.undecodedContentCoding` for a body still content-coded
    ///   (``HTTPResponseSerializer/requireDecodedBody(response:data:)``);
    ///   `.responseSerializationFailed` with the `DecodingError` as underlying error for a body
    ///   that is not JSON.
    public func serialize(response: Response, data: Data?, validator: ResponseValidator) throws(CourierError) -> JSONValue? {
        try validator.validate(response: response, data: data)
        try HTTPResponseSerializer.requireDecodedBody(response: response, data: data)
        guard let data, !data.isEmpty, data != Data(" ".utf8) else { return nil }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw CourierError(.responseSerializationFailed, underlying: error, response: response, body: data, detail: "the body is not valid JSON")
        }
        return removesKeysWithNullValues ? value.removingKeysWithNullValues() : value
    }
}
