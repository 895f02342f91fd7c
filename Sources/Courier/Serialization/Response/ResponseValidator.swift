import FoundationEssentials

/// The validation step of response serialization, on its own (AFNetworking's
/// `validateResponse:data:error:`, Alamofire's `validate()`): acceptable status codes,
/// acceptable content types, and any number of custom checks.
///
/// Every built-in serializer holds one (``ValidatingResponseSerializer/validator``) and runs it
/// before it touches the body. A request can carry its own (``Request/validation``), which then
/// takes the place of the serializer's validation for that request only.
public struct ResponseValidator: Sendable {
    /// A custom check (Alamofire's `validate { request, response, data in … }`): throw to fail
    /// the response. Runs after the status and content-type rules pass.
    public typealias Check = @Sendable (Response, Data?) throws(CourierError) -> Void

    /// Acceptable status codes; 200–299 by default (RFC 9110 §15.3: the successful class).
    public var acceptableStatusCodes: Set<Int>
    /// Acceptable media types (`type/subtype`, compared case-insensitively with
    /// ``Response/mimeType``); nil accepts any.
    public var acceptableContentTypes: Set<String>?
    /// Custom checks, in the order they were added.
    public var checks: [Check]

    public init(acceptableStatusCodes: Set<Int> = Set(200...299), acceptableContentTypes: Set<String>? = nil, checks: [Check] = []) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
        self.checks = checks
    }

    /// Accepts every response: no status, type or custom rule (for a request whose caller
    /// handles every status itself).
    public static let acceptingAll = ResponseValidator(acceptableStatusCodes: Set(100...599))

    /// This validator with `check` added after its other rules.
    public func adding(_ check: @escaping Check) -> ResponseValidator {
        var copy = self
        copy.checks.append(check)
        return copy
    }

    /// AFNetworking's `validateResponse:data:error:`, rule for rule, then the custom checks.
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
    ///   Then the first error a custom check throws.
    public func validate(response: Response, data: Data?) throws(CourierError) {
        let bodyLength = data?.count ?? 0
        var contentTypeError: CourierError?
        // The MIME type is worked out (from Content-Type) only when there are types to check.
        if let acceptable = acceptableContentTypes, case let mimeType = response.mimeType, !Self.contains(acceptable, mimeType),
           !(mimeType == nil && bodyLength == 0) {
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
        for check in checks { try check(response, data) }
    }

    private static func contains(_ acceptable: Set<String>, _ mimeType: String?) -> Bool {
        guard let mimeType else { return false }
        return acceptable.contains(mimeType) || acceptable.contains { $0.lowercased() == mimeType }
    }
}
