import FoundationEssentials

/// Validates a response and turns its body into a value (AFNetworking's
/// `AFURLResponseSerialization`). Runs on the session's serialization queue, never on an
/// event loop. `data` is nil when the response had no body (or the task downloaded to a file).
public protocol ResponseSerializer<Output>: Sendable {
    associatedtype Output: Sendable
    func serialize(response: Response, data: Data?) throws(CourierError) -> Output
    /// The same, with `validator` in place of the serializer's own validation — how a request's
    /// ``Request/validation`` applies. The default runs `validator`, then
    /// ``serialize(response:data:)`` (right for a serializer that does not validate; one that
    /// validates should conform to ``ValidatingResponseSerializer``).
    func serialize(response: Response, data: Data?, validator: ResponseValidator) throws(CourierError) -> Output
}

extension ResponseSerializer {
    public func serialize(response: Response, data: Data?, validator: ResponseValidator) throws(CourierError) -> Output {
        try validator.validate(response: response, data: data)
        return try serialize(response: response, data: data)
    }
}

/// A serializer whose validation is a ``ResponseValidator`` step: it implements
/// ``ResponseSerializer/serialize(response:data:validator:)``, and
/// ``ResponseSerializer/serialize(response:data:)`` runs that with its own ``validator``.
public protocol ValidatingResponseSerializer: ResponseSerializer {
    /// The validation run before the body is interpreted.
    var validator: ResponseValidator { get set }
}

extension ValidatingResponseSerializer {
    public func serialize(response: Response, data: Data?) throws(CourierError) -> Output {
        try serialize(response: response, data: data, validator: validator)
    }

    /// Acceptable status codes (``ResponseValidator/acceptableStatusCodes``).
    public var acceptableStatusCodes: Set<Int> {
        get { validator.acceptableStatusCodes }
        set { validator.acceptableStatusCodes = newValue }
    }

    /// Acceptable media types (``ResponseValidator/acceptableContentTypes``); nil accepts any.
    public var acceptableContentTypes: Set<String>? {
        get { validator.acceptableContentTypes }
        set { validator.acceptableContentTypes = newValue }
    }

    /// This serializer with `check` added to its validation (Alamofire's `validate(_:)`).
    public func validating(_ check: @escaping ResponseValidator.Check) -> Self {
        var copy = self
        copy.validator = validator.adding(check)
        return copy
    }
}
