import FoundationEssentials

/// A response serializer made from a closure, or one with its output type erased, so that
/// serializers with different outputs can be combined (``ResponseSerializer/erased``).
public struct AnyResponseSerializer<Output: Sendable>: ResponseSerializer {
    private let body: @Sendable (Response, Data?) throws(CourierError) -> Output

    public init(_ body: @escaping @Sendable (Response, Data?) throws(CourierError) -> Output) {
        self.body = body
    }

    public init<Base: ResponseSerializer>(_ base: Base) where Base.Output == Output {
        self.body = { (response, data) throws(CourierError) in try base.serialize(response: response, data: data) }
    }

    public func serialize(response: Response, data: Data?) throws(CourierError) -> Output {
        try body(response, data)
    }
}

extension ResponseSerializer {
    /// This serializer with its output as `any Sendable`, e.g. to put a
    /// ``JSONResponseSerializer`` and a ``StringResponseSerializer`` in one
    /// ``CompoundResponseSerializer``.
    public var erased: AnyResponseSerializer<any Sendable> {
        AnyResponseSerializer { (response, data) throws(CourierError) in try self.serialize(response: response, data: data) }
    }

    /// This serializer with `transform` applied to its output.
    public func map<NewOutput: Sendable>(
        _ transform: @escaping @Sendable (Output) throws(CourierError) -> NewOutput
    ) -> AnyResponseSerializer<NewOutput> {
        AnyResponseSerializer { (response, data) throws(CourierError) in try transform(self.serialize(response: response, data: data)) }
    }
}
