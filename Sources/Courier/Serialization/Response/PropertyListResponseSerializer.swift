import FoundationEssentials

/// AFNetworking's `AFPropertyListResponseSerializer`, typed: validates (acceptable type
/// `application/x-plist`), then decodes an XML or binary property list into `T` with
/// `PropertyListDecoder`.
///
/// An empty body follows the rule of ``DecodableResponseSerializer``: accepted only for a status
/// in ``emptyResponseCodes`` and an ``EmptyResponse`` type (AFNetworking returns nil).
public struct PropertyListResponseSerializer<T: Decodable & Sendable>: ValidatingResponseSerializer {
    /// 200–299 and `application/x-plist` by default.
    public var validator: ResponseValidator
    public var emptyResponseCodes: Set<Int>

    public init(
        _ type: T.Type = T.self, acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: Set<String>? = ["application/x-plist"], emptyResponseCodes: Set<Int> = [204, 205]
    ) {
        self.validator = ResponseValidator(acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
        self.emptyResponseCodes = emptyResponseCodes
    }

    /// - Throws: the validation errors; `.undecodedContentCoding` for a body still content-coded
    ///   (``HTTPResponseSerializer/requireDecodedBody(response:data:)``);
    ///   `.responseSerializationFailed` for a refused empty body
    ///   or, with the `DecodingError` as underlying error, a body that does not decode.
    public func serialize(response: Response, data: Data?, validator: ResponseValidator) throws(CourierError) -> T {
        try EmptyBody.decodeValidated(
            T.self, response: response, data: data, validator: validator, emptyResponseCodes: emptyResponseCodes,
            failure: "is not a property list of \(T.self)") { data in try PropertyListDecoder().decode(T.self, from: data) }
    }
}
