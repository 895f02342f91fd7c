import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Dispatch
import Synchronization
import Testing

/// `HTTPClient.execute(_:) async` and its streaming body (issue 10, §4): backpressure,
/// cancellation in each phase, an early drop of the body, the `collect(upTo:)` limit, errors in
/// the middle of a body, trailers and metrics at the end.
@Suite(.serialized) struct AsyncStreamingTests {
    /// The byte at `offset` of the patterned bodies below.
    static func byte(at offset: Int) -> UInt8 { UInt8(truncatingIfNeeded: offset &* 7 &+ offset >> 16) }
    static func pattern(_ range: Range<Int>) -> [UInt8] { range.map(byte(at:)) }

    @Test func theSocketIsNotReadWhileTheConsumerDoesNotAsk() throws {
        try withClientAndServer { client, server in
            let total = 64 * 1024 * 1024
            let piece = 64 * 1024
            let written = Atomic<Int>(0)
            let allSent = TestEvent()
            // The pieces repeat one pattern: piece boundaries are multiples of 64 KiB.
            let chunk = Self.pattern(0..<piece)
            server.route("/big") { _, connection in
                try connection.sendHead(status: 200, headers: [("Content-Length", "\(total)")])
                while written.load(ordering: .relaxed) < total {
                    try connection.send(chunk)
                    written.add(piece, ordering: .relaxed)
                }
                allSent.signal()
            }
            let headArrived = TestEvent()
            let go = TestEvent()
            let url = "\(server.baseURL)/big"
            let call = AsyncCall { () async throws(ClientError) -> (count: Int, mismatches: Int, trailers: Bool) in
                let response = try await client.execute(try! get(url))
                headArrived.signal()
                _ = go.wait(timeout: .seconds(30))
                var count = 0
                var mismatches = 0
                for try await part in response.body {
                    let bytes = part.readableBytesArray()
                    if bytes.first != chunk[count % piece] || bytes.last != chunk[(count + bytes.count - 1) % piece] { mismatches += 1 }
                    count += bytes.count
                }
                return (count, mismatches, response.body.trailers != nil)
            }
            #expect(headArrived.wait(timeout: .seconds(20)))
            // Nobody reads the body: the server must stay blocked by TCP flow control. (Waiting
            // for something that must not happen needs a bound; a client that kept reading
            // would take 64 MiB off a loopback socket well within it.)
            #expect(!allSent.wait(timeout: .milliseconds(500)))
            let stalledAt = written.load(ordering: .relaxed)
            #expect(stalledAt < total / 2, "the server wrote \(stalledAt) of \(total) bytes while the client did not read")
            go.signal()
            let result = try #require(call.wait(seconds: 60)).get()
            #expect(result.count == total)
            #expect(result.mismatches == 0)
            #expect(result.trailers)
            #expect(allSent.isSignaled)
        }
    }

    @Test func trailersAndMetricsAreThereAtTheEnd() throws {
        try withClientAndServer { client, server in
            server.route("/t") { _, connection in
                try connection.sendChunked(chunks: [Array("hello ".utf8), Array("world".utf8)], trailers: [("Checksum", "abc")])
            }
            let url = "\(server.baseURL)/t"
            let call = AsyncCall { () async throws(ClientError) -> (String, HTTPFields?, HTTPFields?, HTTPClientMetrics?, HTTPClientMetrics?) in
                let response = try await client.execute(try! get(url))
                let before = response.body.trailers
                let metricsBefore = response.body.metrics
                var text = ""
                for try await part in response.body { text += String(decoding: part.readableBytesArray(), as: UTF8.self) }
                return (text, before, response.body.trailers, metricsBefore, response.body.metrics)
            }
            let (text, before, trailers, _, metrics) = try #require(call.wait()).get()
            #expect(text == "hello world")
            #expect(before == nil, "no trailers before the body was read")
            #expect(trailers?[first: "Checksum"] == "abc")
            #expect(metrics?.bodyBytesDelivered == 11)
        }
    }

    @Test func theBodyIsSinglePass() throws {
        try withClientAndServer { client, server in
            server.route("/x") { _, connection in try connection.respond(body: "x") }
            let url = "\(server.baseURL)/x"
            let call = AsyncCall { () async throws(ClientError) -> ClientError? in
                let response = try await client.execute(try! get(url))
                var first = response.body.makeAsyncIterator()
                var second = response.body.makeAsyncIterator()
                do throws(ClientError) {
                    _ = try await second.next()
                    return nil
                } catch {
                    let part = try await first.next()
                    let end = try await first.next()
                    #expect(part?.readableBytes == 1)
                    #expect(end == nil)
                    return error
                }
            }
            let error = try #require(call.wait()).get()
            #expect(error?.code == .invalidRequest)
        }
    }

    @Test func collectWithinTheLimit() throws {
        try withClientAndServer { client, server in
            let body = Self.pattern(0..<300_000)
            server.route("/x") { _, connection in try connection.respond(body: body) }
            let url = "\(server.baseURL)/x"
            let call = AsyncCall { () async throws(ClientError) -> [UInt8] in
                let response = try await client.execute(try! get(url))
                return try await response.body.collect(upTo: 300_000).readableBytesArray()
            }
            #expect(try #require(call.wait()).get() == body)
            // Read to its end: the connection stays for the next request.
            let next = run(client, try get(url))
            #expect(next.metrics?.reusedConnection == true)
        }
    }

    @Test func collectPastTheLimitFailsInTheReceivePhaseAndClosesTheConnection() throws {
        try withClientAndServer { client, server in
            // Half the body, then the server holds the rest: the limit is passed mid-response.
            let hold = Hold()
            server.route("/x") { _, connection in
                try connection.sendHead(status: 200, headers: [("Content-Length", "10000")])
                try connection.send(Self.pattern(0..<5000))
                try hold.wait(connection)
            }
            let url = "\(server.baseURL)/x"
            let call = AsyncCall { () async throws(ClientError) -> ByteBuffer in
                let response = try await client.execute(try! get(url))
                return try await response.body.collect(upTo: 1000)
            }
            guard case .failure(let error) = try #require(call.wait()) else {
                Issue.record("a body past the limit was collected")
                return
            }
            #expect(error.code == .unexpectedResponse)
            #expect(error.phase == .receive)
            hold.release()
            expectAllConnectionsClosed(client, server)
        }
    }

    @Test func collectPastTheLimitOfABodyAlreadyReceivedFailsToo() throws {
        try withClientAndServer { client, server in
            server.route("/x") { _, connection in try connection.respond(body: Self.pattern(0..<10_000)) }
            let url = "\(server.baseURL)/x"
            let call = AsyncCall { () async throws(ClientError) -> ByteBuffer in
                let response = try await client.execute(try! get(url))
                return try await response.body.collect(upTo: 9_999)
            }
            guard case .failure(let error) = try #require(call.wait()) else {
                Issue.record("a body past the limit was collected")
                return
            }
            #expect(error.code == .unexpectedResponse)
            #expect(error.phase == .receive)
        }
    }

    @Test func anErrorInTheMiddleOfTheBodyComesAfterThePartsBeforeIt() throws {
        try withClientAndServer { client, server in
            let sent = Self.pattern(0..<500)
            server.route("/cut") { _, connection in
                try connection.sendHead(status: 200, headers: [("Content-Length", "1000")])
                try connection.send(sent)
                connection.close()
            }
            let url = "\(server.baseURL)/cut"
            let call = AsyncCall { () async throws(ClientError) -> ([UInt8], ClientError?, HTTPClientMetrics?) in
                let response = try await client.execute(try! get(url))
                var received: [UInt8] = []
                do throws(ClientError) {
                    for try await part in response.body { received += part.readableBytesArray() }
                    return (received, nil, response.body.metrics)
                } catch {
                    return (received, error, response.body.metrics)
                }
            }
            let (received, error, metrics) = try #require(call.wait()).get()
            #expect(received == sent, "every byte before the failure is delivered")
            #expect(error?.code == .remoteClosedDuringBody)
            #expect(metrics != nil, "metrics are there once the request ended")
            expectAllConnectionsClosed(client, server)
        }
    }

    @Test func cancellingTheTaskThatIteratesCancelsTheRequest() throws {
        try withClientAndServer { client, server in
            let gotPart = TestEvent()
            let hold = Hold()
            server.route("/half") { _, connection in
                try connection.sendHead(status: 200, headers: [("Content-Length", "10000")])
                try connection.send(Array(repeating: 1, count: 1000))
                try hold.wait(connection)
            }
            let url = "\(server.baseURL)/half"
            let call = AsyncCall { () async throws(ClientError) -> Int in
                let response = try await client.execute(try! get(url))
                var count = 0
                for try await part in response.body {
                    count += part.readableBytes
                    if count == 1000 { gotPart.signal() }
                }
                return count
            }
            #expect(gotPart.wait(timeout: .seconds(20)))
            // The iterating task now waits for bytes the server holds back.
            call.cancel()
            let result = try #require(call.wait(seconds: 20), "cancelling the Swift task did not end the iteration")
            guard case .failure(let error) = result else {
                Issue.record("a cancelled iteration ended normally")
                return
            }
            #expect(error.code == .cancelled)
            #expect(error.phase == .cancelled)
            hold.release()
            expectAllConnectionsClosed(client, server)
        }
    }

    @Test func cancellingWhileWaitingForAConnectionStartsNothingOnTheWire() throws {
        try withClientAndServer(configure: { $0.maximumConnectionsPerHost = 1 }) { client, server in
            let hold = server.holdingRoute("/first") { connection in try connection.respond(body: "1") }
            server.route("/second") { _, connection in try connection.respond(body: "2") }
            let first = start(client, try get("\(server.baseURL)/first")).1
            #expect(hold.arrived.wait())
            let url = "\(server.baseURL)/second"
            let call = AsyncCall { () async throws(ClientError) in try await client.execute(try! get(url)) }
            settle(client)
            call.cancel()
            let result = try #require(call.wait())
            guard case .failure(let error) = result else {
                Issue.record("a request cancelled in the pool queue succeeded")
                return
            }
            #expect(error.code == .cancelled)
            hold.release()
            #expect(first.wait())
            settle(client)
            #expect(server.requests.map(\.target) == ["/first"], "the cancelled request was never sent")
        }
    }

    @Test(arguments: [false, true]) func droppingTheBodyBeforeItsEndCancelsTheRequest(iterateFirst: Bool) throws {
        try withClientAndServer { client, server in
            let hold = Hold()
            server.route("/long") { _, connection in
                try connection.sendHead(status: 200, headers: [("Content-Length", "\(4 * 1024 * 1024)")])
                try connection.send(Array(repeating: 2, count: 1024))
                try hold.wait(connection)
            }
            let url = "\(server.baseURL)/long"
            let call = AsyncCall { () async throws(ClientError) -> Int in
                let response = try await client.execute(try! get(url))
                guard iterateFirst else { return response.status }
                for try await part in response.body where part.readableBytes > 0 { break }
                return response.status
            }
            let status = try #require(call.wait()).get()
            #expect(status == 200)
            // The response (and its iterator) are gone: the request is cancelled, its connection
            // closed rather than left paused.
            #expect(hold.arrived.wait())
            hold.release()
            expectAllConnectionsClosed(client, server)
        }
    }

    @Test func aRedirectedStreamStartsAtTheFinalResponse() throws {
        try withClientAndServer { client, server in
            server.route("/from") { _, connection in try connection.respond(status: 302, headers: [("Location", "/to")], body: "moved") }
            server.route("/to") { _, connection in try connection.respond(body: "final") }
            let url = "\(server.baseURL)/from"
            let call = AsyncCall { () async throws(ClientError) -> (Int, String, Int?) in
                let response = try await client.execute(try! get(url))
                let body = try await response.body.collect(upTo: 100)
                return (response.status, String(decoding: body.readableBytesArray(), as: UTF8.self), response.body.metrics?.redirectCount)
            }
            let (status, body, redirects) = try #require(call.wait()).get()
            #expect(status == 200)
            #expect(body == "final")
            #expect(redirects == 1)
        }
    }
}
