/// Carries a loop-confined value across a `@Sendable` boundary that ends on the same loop
/// (a job passed to ``EventLoop/execute(_:)``, a resolver completion delivered to the loop).
///
/// `@unchecked Sendable`: the value is only read through ``value``, which asserts that the
/// caller is on `loop`; so it is only ever touched by that one thread.
public struct LoopBound<Value>: @unchecked Sendable {
    public let loop: EventLoop
    private let _value: Value

    /// Wraps `value`; must be created on `loop`.
    public init(_ value: Value, loop: EventLoop) {
        loop.assertInEventLoop()
        self.loop = loop
        self._value = value
    }

    /// The value; traps off the loop thread.
    public var value: Value {
        loop.assertInEventLoop()
        return _value
    }
}
