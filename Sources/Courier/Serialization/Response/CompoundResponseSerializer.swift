import FoundationEssentials

/// AFNetworking's `AFCompoundResponseSerializer`: tries serializers in order and returns the first
/// non-nil value.
///
/// AFNetworking's rules, and how they map here:
/// - A serializer that returns a non-nil object wins. Here: one that returns without throwing
///   a value that is not `nil` (when `Output` is an optional, or `any Sendable` holding one,
///   a nil result means "try the next", as AFNetworking's nil does).
/// - When none wins, AFNetworking does not report any of their errors: it falls back to its own
///   `AFHTTPResponseSerializer` behaviour, validating the response with the compound's own
///   acceptable status codes and returning the raw data. Here: the compound validates with its
///   own ``validator`` (its acceptable status codes and content types; that error is thrown, as in
///   AFNetworking), then returns ``fallback``'s value when one is set (``withDataFallback(_:)``
///   is AFNetworking's raw-data fallback); without a fallback it returns the nil a serializer
///   produced, if any, and otherwise throws the **last** serializer's error, since a typed
///   output has no raw-data form.
public struct CompoundResponseSerializer<Output: Sendable>: ValidatingResponseSerializer {
    public var serializers: [any ResponseSerializer<Output>]
    /// The compound's own validation, used only when no serializer wins (200–299, any type).
    public var validator: ResponseValidator
    /// What to return when no serializer wins and the compound's validation passes.
    public var fallback: (@Sendable (Response, Data?) throws(CourierError) -> Output)?

    public init(
        _ serializers: [any ResponseSerializer<Output>], acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: Set<String>? = nil,
        fallback: (@Sendable (Response, Data?) throws(CourierError) -> Output)? = nil
    ) {
        self.serializers = serializers
        self.validator = ResponseValidator(acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
        self.fallback = fallback
    }

    /// Each member serializer validates with its own validator; the compound's ``validator``
    /// applies only when none wins.
    public func serialize(response: Response, data: Data?) throws(CourierError) -> Output {
        try serialize(response: response, data: data, memberValidator: nil, validator: validator)
    }

    /// With a request's validator, every member serializer and the compound's own fallback
    /// validation use it in place of their own.
    public func serialize(response: Response, data: Data?, validator: ResponseValidator) throws(CourierError) -> Output {
        try serialize(response: response, data: data, memberValidator: validator, validator: validator)
    }

    private func serialize(
        response: Response, data: Data?, memberValidator: ResponseValidator?, validator: ResponseValidator
    ) throws(CourierError) -> Output {
        var lastError: CourierError?
        var nilResult: Output?
        for serializer in serializers {
            do {
                let value = if let memberValidator {
                    try serializer.serialize(response: response, data: data, validator: memberValidator)
                } else {
                    try serializer.serialize(response: response, data: data)
                }
                if isNil(value) {
                    if nilResult == nil { nilResult = value }
                    continue
                }
                return value
            } catch {
                lastError = error
            }
        }
        try validator.validate(response: response, data: data)
        if let fallback { return try fallback(response, data) }
        if let nilResult { return nilResult }
        throw lastError
            ?? CourierError(.responseSerializationFailed, response: response, body: data, detail: "the compound serializer has no serializers")
    }
}

extension CompoundResponseSerializer where Output == any Sendable {
    /// AFNetworking's behaviour exactly: when no serializer wins, the raw body (`Data`, empty
    /// when there was none) after the compound's status validation.
    public static func withDataFallback(_ serializers: [any ResponseSerializer<any Sendable>]) -> Self {
        CompoundResponseSerializer(serializers, fallback: { (_, data) throws(CourierError) in data ?? Data() })
    }
}

/// Whether `value` is an `Optional.none`, also when it is wrapped in an existential.
private func isNil<T>(_ value: T) -> Bool {
    guard let optional = value as? any _OptionalParameter else { return false }
    return optional._wrappedParameter == nil
}
