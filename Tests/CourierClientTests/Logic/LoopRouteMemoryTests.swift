import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing
@testable import CourierClient

/// The route a loop derived last (`LoopRouteMemory`): executions that derive a route on that loop
/// for the same request share one, so with hundreds of connections the route stays in the cache.
/// Routes are compared by identity while both are held, so a freed route's address taken again
/// cannot pass for the same route.
@Suite("LoopRouteMemory: a loop's executions share the route of one request")
struct LoopRouteMemoryTests {
    /// Runs `body` on the client's first loop with that loop's memory (only its loop touches it).
    private static func onLoop<T: Sendable>(
        _ client: HTTPClient, _ body: @escaping @Sendable (LoopRouteMemory) throws -> T
    ) throws -> T {
        let result: Result<T, any Error> = client.eventLoopGroup.loops[0].submitAndWait {
            Result { try body(#require(client.routeMemory(), "a loop of the client has a route memory")) }
        }
        return try result.get()
    }

    private final class WeakRoute: @unchecked Sendable {
        weak var route: RequestRoute?
    }

    @Test func theSameRequestGetsTheSameRouteWithItsKeysEntry() throws {
        try withClient { client in
            let request = try get("http://127.0.0.1:9/a")
            let (same, entry, head) = try Self.onLoop(client) { memory in
                let first = try memory.route(of: request, client: client)
                let second = try memory.route(of: request, client: client)
                return (first === second, first.entry === client.pool.entry(for: first.key), first.head(proxied: false)?.target)
            }
            #expect(same, "the loop's last route serves the same request again")
            #expect(entry, "the route carries its key's pool entry")
            #expect(head == .origin("/a"))
        }
        // Off the client's loops there is no memory to share.
        try withClient { client in #expect(client.routeMemory() == nil) }
    }

    @Test func anotherRequestGetsItsOwnRouteAndReplacesTheLast() throws {
        try withClient { client in
            // Two requests alike but built apart: two boxes, so two requests to a route.
            let one = try get("http://127.0.0.1:9/a")
            let two = try get("http://127.0.0.1:9/a")
            let (separate, twoAgain, oneAfresh) = try Self.onLoop(client) { memory in
                let first = try memory.route(of: one, client: client)
                let second = try memory.route(of: two, client: client)
                let secondAgain = try memory.route(of: two, client: client)
                let firstAgain = try memory.route(of: one, client: client)
                return (first !== second, secondAgain === second, firstAgain !== first && firstAgain.serves(one))
            }
            #expect(separate, "a route serves only the request it was made from")
            #expect(twoAgain, "the last route made is the one kept")
            #expect(oneAfresh, "a route replaced is not found again")
        }
    }

    @Test func aRequestHoldingMoreThanValuesIsNotKept() throws {
        try withClient { client in
            var withBody = try get("http://127.0.0.1:9/upload")
            withBody.body = .bytes(ByteBuffer(string: "payload"))
            var withHandler = try get("http://127.0.0.1:9/redirecting")
            withHandler.redirectHandler = HTTPClientRedirectHandler { _, _, reply in reply.answer(.follow) }
            let plain = try get("http://127.0.0.1:9/plain")
            let (body, handler) = (withBody, withHandler)
            let (bodyKept, handlerKept, plainKept, plainSurvives) = try Self.onLoop(client) { memory in
                let plainRoute = try memory.route(of: plain, client: client)
                let bodyKept = try memory.route(of: body, client: client) === memory.route(of: body, client: client)
                let handlerKept = try memory.route(of: handler, client: client) === memory.route(of: handler, client: client)
                // Neither replaced the plain request's route.
                let plainSurvives = try memory.route(of: plain, client: client) === plainRoute
                let plainKept = try memory.route(of: plain, client: client) === plainRoute
                return (bodyKept, handlerKept, plainKept, plainSurvives)
            }
            #expect(!bodyKept, "a route holding a body is not kept for the client's life")
            #expect(!handlerKept, "a redirect handler could hold the client: not kept")
            #expect(plainSurvives && plainKept)
        }
    }

    /// What the loop's memories may keep (``HTTPClientRequest/holdsOnlyValues``).
    @Test func onlyARequestOfValuesMayBeKept() throws {
        #expect(try get("http://127.0.0.1:9/a").holdsOnlyValues)
        var withBody = try get("http://127.0.0.1:9/a")
        withBody.body = .bytes(ByteBuffer(string: "x"))
        #expect(!withBody.holdsOnlyValues)
        var withHandler = try get("http://127.0.0.1:9/a")
        withHandler.redirectHandler = HTTPClientRedirectHandler { _, _, reply in reply.answer(.follow) }
        #expect(!withHandler.holdsOnlyValues)
        var withEvaluator = try get("http://127.0.0.1:9/a")
        withEvaluator.serverTrustEvaluator = SharedServerTrustEvaluator { _ in true }
        #expect(!withEvaluator.holdsOnlyValues)
    }

    @Test func shuttingTheClientDownLetsGoOfTheLastRoute() throws {
        try FileDescriptors.exclusively {
            var configuration = HTTPClientConfiguration()
            configuration.eventLoopThreads = 1
            let client = try HTTPClient(configuration: configuration)
            let held = WeakRoute()
            let request = try get("http://127.0.0.1:9/a")
            try Self.onLoop(client) { memory in held.route = try memory.route(of: request, client: client) }
            #expect(held.route != nil, "the memory keeps the route while the client runs")
            client.shutdown()
            // The client itself is still here: its loops' last jobs let go of the route.
            #expect(held.route == nil, "shutdown let go of it")
            withExtendedLifetime(client) {}
        }
    }
}
