/// Work an object runs on an ``EventLoop``, queued with ``EventLoop/execute(task:)``. Package
/// access, so a public type (a request execution) can conform without making its hook public.
///
/// Queueing an object instead of a closure allocates nothing: a closure that captures state
/// gets a heap context each time it is made, and a request that hops to its loop once per
/// request would pay that allocation on every request.
package protocol EventLoopTask: AnyObject, Sendable {
    /// Called on the loop's thread, once per ``EventLoop/execute(task:)``.
    func runOnEventLoop()
}
