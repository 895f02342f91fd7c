import FoundationEssentials

/// A task's serializer with its request's own validation (``Request/validation``) in place of
/// the serializer's (``ResponseSerializer/serialize(response:data:validator:)``); without one,
/// the serializer as it is. The task's first request decides, as for its other settings.
struct RequestValidatedSerializer<Base: ResponseSerializer>: ResponseSerializer {
    let base: Base
    let validation: ResponseValidator?

    init(_ base: Base, for request: Request) {
        self.base = base
        self.validation = request.validation
    }

    func serialize(response: Response, data: Data?) throws(CourierError) -> Base.Output {
        guard let validation else { return try base.serialize(response: response, data: data) }
        return try base.serialize(response: response, data: data, validator: validation)
    }
}
