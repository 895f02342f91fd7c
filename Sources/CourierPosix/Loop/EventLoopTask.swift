/// Work an object runs on an ``EventLoop``, queued with ``EventLoop/execute(task:)``.
///
/// Queueing an object instead of a closure allocates nothing: a closure that captures state
/// gets a heap context each time it is made, and a request that hops to its loop once per
/// request would pay that allocation on every request.
public protocol EventLoopTask: AnyObject, Sendable {
    /// Called on the loop's thread, once per ``EventLoop/execute(task:)``.
    func runOnEventLoop()
}
