import FoundationEssentials

/// A type that stands for "no body" (Alamofire's `EmptyResponse`): a decoding serializer returns
/// ``emptyValue()`` for an empty body with a status in its `emptyResponseCodes`.
public protocol EmptyResponse {
    static func emptyValue() -> Self
}

/// The value of a response that has no body, e.g. `DecodableResponseSerializer<Empty>` for a
/// `204 No Content`. Decodes from any JSON object too.
public struct Empty: Codable, Sendable, Hashable, EmptyResponse {
    public static let value = Empty()
    public init() {}
    public static func emptyValue() -> Empty { value }
}

/// The empty-body rule shared by the decoding serializers.
enum EmptyBody {
    /// `T`'s empty value when the status allows an empty body, else an error.
    static func value<T>(
        _: T.Type, response: Response, data: Data?, emptyResponseCodes: Set<Int>
    ) throws(CourierError) -> T {
        guard emptyResponseCodes.contains(response.statusCode) else {
            throw CourierError(
                .responseSerializationFailed, response: response, body: data,
                detail: "the body is empty and status \(response.statusCode) is not one of the empty-response codes")
        }
        guard let emptyType = T.self as? any EmptyResponse.Type, let value = emptyType.emptyValue() as? T else {
            throw CourierError(
                .responseSerializationFailed, response: response, body: data,
                detail: "the body is empty and \(T.self) is not an EmptyResponse type (use Empty)")
        }
        return value
    }

    /// The shared steps of the typed serializers: validate, refuse a body still content-coded
    /// (`.undecodedContentCoding`), apply the empty-body rule, then `decode`, whose error
    /// becomes `.responseSerializationFailed` ("the body \(failure)").
    static func decodeValidated<T>(
        _: T.Type, response: Response, data: Data?, validator: ResponseValidator,
        emptyResponseCodes: Set<Int>, failure: String, decode: (Data) throws -> T
    ) throws(CourierError) -> T {
        try validator.validate(response: response, data: data)
        try HTTPResponseSerializer.requireDecodedBody(response: response, data: data)
        guard let data, !data.isEmpty else {
            return try value(T.self, response: response, data: data, emptyResponseCodes: emptyResponseCodes)
        }
        do {
            return try decode(data)
        } catch {
            throw CourierError(.responseSerializationFailed, underlying: error, response: response, body: data, detail: "the body \(failure)")
        }
    }
}
