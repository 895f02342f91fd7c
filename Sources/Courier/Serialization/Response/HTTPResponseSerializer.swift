import FoundationEssentials

/// AFNetworking's `AFHTTPResponseSerializer`: validates the status code and content type and
/// returns the body bytes (empty `Data` when there was no body) — as received when a content
/// coding was left undone (``Response/undecodedContentCodings`` names it; nothing is lost).
public struct HTTPResponseSerializer: ValidatingResponseSerializer {
    /// 200–299 and any content type by default.
    public var validator: ResponseValidator

    public init(acceptableStatusCodes: Set<Int> = Set(200...299), acceptableContentTypes: Set<String>? = nil) {
        self.validator = ResponseValidator(acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
    }

    public func serialize(response: Response, data: Data?, validator: ResponseValidator) throws(CourierError) -> Data {
        try validator.validate(response: response, data: data)
        return data ?? Data()
    }

    /// The serializer's validation on its own (``ResponseValidator/validate(response:data:)``,
    /// AFNetworking's `validateResponse:data:error:`, rule for rule).
    public func validate(response: Response, data: Data?) throws(CourierError) {
        try validator.validate(response: response, data: data)
    }
}
