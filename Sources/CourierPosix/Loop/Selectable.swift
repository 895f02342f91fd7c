/// Something registered with an event loop's selector: a connection, a listener, a connect
/// attempt. Called on the loop's thread only.
public protocol Selectable: AnyObject {
    /// The descriptor became ready for what was asked (or hung up, or has an error).
    func selectorReady(_ events: SelectorEvents)
}
