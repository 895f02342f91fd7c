import FoundationEssentials

/// A response serializer made from a closure, or one with its output type erased, so that
/// serializers with different outputs can be combined (``ResponseSerializer/erased``).
public struct AnyResponseSerializer<Output: Sendable>: ResponseSerializer {
    private let body: @Sendable (Response, Data?, ResponseValidator?) throws(CourierError) -> Output

    /// A serializer from a closure. It does no validation of its own; with a request's
    /// validator, that runs first.
    public init(_ body: @escaping @Sendable (Response, Data?) throws(CourierError) -> Output) {
        self.body = { (response, data, validator) throws(CourierError) in
            try validator?.validate(response: response, data: data)
            return try body(response, data)
        }
    }

    /// `base` with its output type erased; a request's validator reaches `base`.
    public init<Base: ResponseSerializer>(_ base: Base) where Base.Output == Output {
        self.body = { (response, data, validator) throws(CourierError) in
            if let validator { try base.serialize(response: response, data: data, validator: validator) } else { try base.serialize(response: response, data: data) }
        }
    }

    private init(body: @escaping @Sendable (Response, Data?, ResponseValidator?) throws(CourierError) -> Output) {
        self.body = body
    }

    public func serialize(response: Response, data: Data?) throws(CourierError) -> Output {
        try body(response, data, nil)
    }

    public func serialize(response: Response, data: Data?, validator: ResponseValidator) throws(CourierError) -> Output {
        try body(response, data, validator)
    }

    /// This serializer's steps, then `transform` on the value.
    func mapped<NewOutput: Sendable>(
        _ transform: @escaping @Sendable (Output) throws(CourierError) -> NewOutput
    ) -> AnyResponseSerializer<NewOutput> {
        AnyResponseSerializer<NewOutput>(body: { (response, data, validator) throws(CourierError) in try transform(body(response, data, validator)) })
    }
}

extension ResponseSerializer {
    /// This serializer with its output as `any Sendable`, e.g. to put a
    /// ``JSONResponseSerializer`` and a ``StringResponseSerializer`` in one
    /// ``CompoundResponseSerializer``.
    public var erased: AnyResponseSerializer<any Sendable> {
        AnyResponseSerializer<Output>(self).mapped { $0 as any Sendable }
    }

    /// This serializer with `transform` applied to its output.
    public func map<NewOutput: Sendable>(
        _ transform: @escaping @Sendable (Output) throws(CourierError) -> NewOutput
    ) -> AnyResponseSerializer<NewOutput> {
        AnyResponseSerializer<Output>(self).mapped(transform)
    }
}
