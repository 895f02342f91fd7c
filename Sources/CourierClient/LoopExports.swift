// The event loops a client runs on (``HTTPClient/eventLoopGroup``, and the group a caller may hand
// to ``HTTPClient/init(configuration:eventLoopGroup:)``), re-exported so that code above
// CourierClient can name them: a caller that drives requests from the loops themselves (a load
// generator starting its next request from a timer on the loop, or setting a loop thread's CPU
// affinity) needs `EventLoop.execute` and `EventLoop.scheduleTimer(at:_:)`.
@_exported import class CourierPosix.EventLoopGroup
@_exported import class CourierPosix.EventLoop
