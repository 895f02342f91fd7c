// The delegate-based transport API (``HTTPClient/execute(_:delegate:)``) and the loops it runs on,
// re-exported so that `import Courier` is enough to drive requests one callback at a time, as the
// `courier bench` load generator does (no task, no allocation of its own per request).
@_exported import protocol CourierClient.HTTPClientResponseDelegate
@_exported import class CourierClient.HTTPRequestExecution
@_exported import struct CourierClient.HTTPClientResponseHead
@_exported import enum CourierClient.HTTPClientBodyDemand
@_exported import enum CourierClient.HTTPClientRequestBody
@_exported import class CourierClient.EventLoopGroup
@_exported import class CourierClient.EventLoop
