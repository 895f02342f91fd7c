import FoundationEssentials

/// Validates, then decodes the body as JSON into `T` with a `JSONDecoder` (Alamofire's
/// `DecodableResponseSerializer`; AFNetworking has no typed serializer).
///
/// An empty body is accepted only when the status is in ``emptyResponseCodes`` (204 and 205 by
/// default) and `T` is an ``EmptyResponse`` type such as ``Empty``; otherwise it is an error.
public struct DecodableResponseSerializer<T: Decodable & Sendable>: ValidatingResponseSerializer {
    /// 200–299 and any content type by default, as in Alamofire: JSON APIs use many media types
    /// (`application/problem+json`, `application/vnd.api+json`, …).
    public var validator: ResponseValidator
    public var emptyResponseCodes: Set<Int>
    /// Makes the decoder for each response (`JSONDecoder` is not `Sendable`, so the serializer
    /// keeps a factory rather than an instance). Set date, key and data strategies here.
    public var makeDecoder: @Sendable () -> JSONDecoder

    public init(
        _ type: T.Type = T.self, acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: Set<String>? = nil, emptyResponseCodes: Set<Int> = [204, 205],
        makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) {
        self.validator = ResponseValidator(acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
        self.emptyResponseCodes = emptyResponseCodes
        self.makeDecoder = makeDecoder
    }

    /// - Throws: the validation errors of ``ResponseValidator/validate(response:data:)``;
    ///   `.undecodedContentCoding` for a body still content-coded
    ///   (``HTTPResponseSerializer/requireDecodedBody(response:data:)``);
    ///   `.responseSerializationFailed` for an empty body that the rule above refuses, or with
    ///   the `DecodingError` as underlying error when decoding fails.
    public func serialize(response: Response, data: Data?, validator: ResponseValidator) throws(CourierError) -> T {
        try EmptyBody.decodeValidated(
            T.self, response: response, data: data, validator: validator, emptyResponseCodes: emptyResponseCodes,
            failure: "does not decode as \(T.self)") { data in try makeDecoder().decode(T.self, from: data) }
    }
}
