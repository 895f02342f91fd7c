import FoundationEssentials

/// AFNetworking's `AFHTTPResponseSerializer`: validates the status code and content type and
/// returns the body bytes (empty `Data` when there was no body) — as received when a content
/// coding was left undone (``Response/undecodedContentCodings`` names it; nothing is lost).
public struct HTTPResponseSerializer: ResponseSerializer {
    /// Acceptable status codes; 200–299 by default.
    public var acceptableStatusCodes: Set<Int>
    /// Acceptable media types (`type/subtype`, compared case-insensitively with
    /// ``Response/mimeType``); nil accepts any.
    public var acceptableContentTypes: Set<String>?

    public init(acceptableStatusCodes: Set<Int> = Set(200...299), acceptableContentTypes: Set<String>? = nil) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    public func serialize(response: Response, data: Data?) throws(CourierError) -> Data {
        try validate(response: response, data: data)
        return data ?? Data()
    }

    /// AFNetworking's `validateResponse:data:error:`, rule for rule.
    ///
    /// - The content type fails when `acceptableContentTypes` is set, does not contain the
    ///   response's MIME type, and it is not the case that the MIME type is absent *and* the body
    ///   empty. It is reported only when the body is non-empty (AFNetworking marks the response
    ///   invalid but sets no error otherwise, so an empty body never fails on its type).
    /// - The status code fails when it is not in `acceptableStatusCodes`, whatever the body.
    ///
    /// - Throws: ``CourierError`` `.unacceptableStatusCode` ("Request failed: not found (404)")
    ///   when the status fails, with the content-type error as its underlying error when that
    ///   failed too; otherwise `.unacceptableContentType`. Both carry the response and the body.
    public func validate(response: Response, data: Data?) throws(CourierError) {
        let mimeType = response.mimeType
        let bodyLength = data?.count ?? 0
        var contentTypeError: CourierError?
        if let acceptable = acceptableContentTypes, !Self.contains(acceptable, mimeType), !(mimeType == nil && bodyLength == 0) {
            if bodyLength > 0 {
                contentTypeError = CourierError(
                    .unacceptableContentType, response: response, body: data,
                    detail: "Request failed: unacceptable content-type: \(mimeType ?? "(none)")")
            }
        }
        if !acceptableStatusCodes.contains(response.statusCode) {
            throw CourierError(
                .unacceptableStatusCode, underlying: contentTypeError, response: response, body: data,
                detail: "Request failed: \(StatusText.text(for: response.statusCode)) (\(response.statusCode))")
        }
        if let contentTypeError { throw contentTypeError }
    }

    private static func contains(_ acceptable: Set<String>, _ mimeType: String?) -> Bool {
        guard let mimeType else { return false }
        return acceptable.contains(mimeType) || acceptable.contains { $0.lowercased() == mimeType }
    }
}
