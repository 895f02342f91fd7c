import FoundationEssentials

/// Validates a response and turns its body into a value (AFNetworking's
/// `AFURLResponseSerialization`). Runs on the session's serialization queue, never on an
/// event loop. `data` is nil when the response had no body (or the task downloaded to a file).
public protocol ResponseSerializer<Output>: Sendable {
    associatedtype Output: Sendable
    func serialize(response: Response, data: Data?) throws(CourierError) -> Output
}
