/// The route a loop derived last, which the executions deriving one on that loop take when it
/// serves their request: then all of a load generator's executions on the loop share one
/// (``RequestRoute``). One per loop of a client's group; touched only on its loop's thread.
final class LoopRouteMemory: @unchecked Sendable {
    // @unchecked: loop-confined (`HTTPClient/routeMemory`), and the route itself is immutable.
    private var last: RequestRoute?

    /// The route of `request` on `client`: the last one when it serves the request, else a new
    /// one, kept as the last if the request holds only values (``HTTPClientRequest/holdsOnlyValues``:
    /// the memory lasts as long as the client, and a route holds its request).
    func route(of request: HTTPClientRequest, client: HTTPClient) throws(ClientError) -> RequestRoute {
        if let last, last.serves(request) { return last }
        let made = try RequestRoute(request, client: client)
        if request.holdsOnlyValues { last = made }
        return made
    }

    /// Drops the last route (the client is shutting down).
    func forget() {
        last = nil
    }
}
