import FoundationEssentials

/// Validates a response and turns its body into a value (AFNetworking's
/// `AFURLResponseSerialization`). Runs on the session's serialization queue, never on an
/// event loop. `data` is nil when the response had no body (or the task downloaded to a file).
public protocol ResponseSerializer<Output>: Sendable {
    associatedtype Output: Sendable
    func serialize(response: Response, data: Data?) throws(CourierError) -> Output

    /// Whether ``serialize(response:data:)`` is cheap — it looks at the head, or hands the body
    /// over as it is, and decodes nothing — so that a task's completion may run it on the
    /// completion queue instead of hopping to the serialization queue first. Default: false.
    var isInexpensive: Bool { get }
}

extension ResponseSerializer {
    public var isInexpensive: Bool { false }
}
