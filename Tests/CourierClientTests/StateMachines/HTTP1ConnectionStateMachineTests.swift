import CourierCore
import CourierHTTP1
import Testing
@testable import CourierClient

@Suite("HTTP1ConnectionStateMachine: request/response cycles")
struct HTTP1ConnectionCycleTests {
    @Test func contentLengthCycleAndReuse() {
        var h = ConnectionHarness()
        #expect(summary([h.start()]) == ["write(GET / HTTP/1.1\r\nHost: example.com\r\n\r\n, requestComplete)"])
        let response = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello"
        let actions = h.receive(response)
        #expect(summary(actions) == ["head 200", "body hello", "end keepAlive"])
        guard case .forwardHead(let head, _) = actions[0] else { Issue.record("no head"); return }
        #expect(head.reason == "OK")
        #expect(head.headers[first: "x-a"] == "b")
        #expect(h.machine.isReusable)
        #expect(h.machine.uses == 1)
        #expect(h.machine.responseBytesConsumed == response.utf8.count)
        #expect(h.machine.requestBytesSent == Int64(h.written.count))

        _ = h.start(ConnectionHarness.get("/2"))
        #expect(summary(h.receive("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")) == ["head 200", "end keepAlive"])
        #expect(h.machine.uses == 2)
        #expect(h.machine.responseBytesConsumed == response.utf8.count + 38)
    }

    @Test func chunkedWithTrailers() {
        var h = ConnectionHarness()
        _ = h.start()
        let actions = h.receive(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 42\r\n\r\n")
        #expect(summary(actions) == ["head 200", "body hello world", "end X-Sum=42 keepAlive"])
        #expect(h.machine.isReusable)
    }

    @Test func untilCloseEndsAtEOF() {
        var h = ConnectionHarness()
        _ = h.start()
        let first = h.receive("HTTP/1.1 200 OK\r\n\r\nsome body")
        #expect(summary(first) == ["head 200", "body some body"])
        #expect(summary(h.eof()) == ["end close"])
        #expect(h.machine.isClosed)
    }

    @Test func headResponseHasNoBody() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: .HEAD))
        #expect(summary(h.receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")) == ["head 200", "end keepAlive"])
        #expect(h.machine.isReusable)
        // The next response on the same connection is framed normally again.
        _ = h.start()
        #expect(summary(h.receive("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")) == ["head 200", "body ok", "end keepAlive"])
    }

    @Test(arguments: [204, 304])
    func noBodyStatuses(status: Int) {
        var h = ConnectionHarness()
        _ = h.start()
        #expect(summary(h.receive("HTTP/1.1 \(status) X\r\n\r\n")) == ["head \(status)", "end keepAlive"])
        #expect(h.machine.isReusable)
    }

    @Test func interimResponsesAreSkipped() {
        var h = ConnectionHarness()
        _ = h.start()
        let actions = h.receive(
            "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
        #expect(summary(actions) == ["head 200", "body x", "end keepAlive"])
    }

    @Test func switchingProtocolsFailsAndCloses() {
        var h = ConnectionHarness()
        _ = h.start()
        #expect(summary(h.receive("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n")) == ["fail unexpectedResponse close"])
        #expect(h.machine.isClosed)
    }

    @Test func parseErrorFailsAndCloses() {
        var h = ConnectionHarness()
        _ = h.start()
        let actions = h.receive("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n")
        #expect(summary(actions) == ["fail parse close"])
        guard case .failRequest(let error, _) = actions.last else { return }
        #expect((error.cause as? HTTPParserError)?.code == .invalidContentLength)
        #expect(error.phase == .parse)
        #expect(h.machine.isClosed)
        #expect(h.machine.nextInboundAction(&h.buffer) == .none)
    }

    @Test func invalidRequestLeavesConnectionUsable() {
        var h = ConnectionHarness()
        let action = h.machine.startRequest(head: ConnectionHarness.get(), host: nil, body: .none)
        guard case .failRequest(let error, .keepAlive) = action else { Issue.record("\(action)"); return }
        #expect(error.code == .invalidRequest)
        #expect(h.machine.isReusable)
        #expect(h.machine.uses == 0)
    }

    @Test func startOnClosedConnectionFails() {
        var h = ConnectionHarness()
        #expect(h.eof() == [.close])
        #expect(summary([h.start()]) == ["fail connectionClosed close"])
    }

    @Test func connectTunnel() {
        var h = ConnectionHarness()
        _ = h.start(HTTPRequestHead(method: .CONNECT, target: .authority(host: "origin", port: 443)))
        let actions = h.receive("HTTP/1.1 200 Connection Established\r\n\r\n\u{16}\u{03}")
        #expect(summary(actions) == ["head 200", "end tunnel"])
        #expect(h.buffer.readableBytes == 2, "bytes after the head belong to the tunnel")
    }
}

@Suite("HTTP1ConnectionStateMachine: request bodies")
struct HTTP1ConnectionRequestBodyTests {
    @Test func knownLengthBody() {
        var h = ConnectionHarness()
        #expect(summary([h.start(ConnectionHarness.get(method: .POST), body: .knownLength(8))])
            == ["write(POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 8\r\n\r\n, sendRequestBody)"])
        #expect(summary([h.part("abcd")]) == ["write(abcd, sendRequestBody)"])
        #expect(summary([h.part("")]) == ["none"])
        #expect(summary([h.part("efgh")]) == ["write(efgh, requestComplete)"])
        #expect(h.end() == .none)
        #expect(summary(h.receive("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")) == ["head 201", "end keepAlive"])
        #expect(h.machine.requestBytesSent == Int64(h.written.count))
    }

    @Test func chunkedBody() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: .POST), body: .chunked)
        #expect(String(decoding: h.written, as: UTF8.self).hasSuffix("Transfer-Encoding: chunked\r\n\r\n"))
        #expect(summary([h.part("hello world!")]) == ["write(c\r\nhello world!\r\n, sendRequestBody)"])
        #expect(summary([h.end(trailers: ["X-T": "1"])]) == ["write(0\r\nX-T: 1\r\n\r\n, requestComplete)"])
        #expect(summary(h.receive("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")) == ["head 200", "end keepAlive"])
    }

    @Test func tooManyBytes() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: .PUT), body: .knownLength(3))
        #expect(summary([h.part("abcd")]) == ["fail bodyLengthMismatch close"])
        #expect(h.machine.isClosed)
    }

    @Test func bytesAfterCompleteBody() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: .PUT), body: .knownLength(3))
        _ = h.part("abc")
        #expect(summary([h.part("d")]) == ["fail bodyLengthMismatch close"])
    }

    @Test func tooFewBytes() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: .PUT), body: .knownLength(3))
        _ = h.part("ab")
        #expect(summary([h.end()]) == ["fail bodyLengthMismatch close"])
    }

    @Test func zeroLengthBodyIsCompleteAtOnce() {
        var h = ConnectionHarness()
        let action = h.start(ConnectionHarness.get(method: .POST), body: .knownLength(0), expectContinue: true)
        #expect(summary([action]) == ["write(POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\r\n, requestComplete)"])
    }

    @Test func earlyResponseWhileSendingBody() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: .POST), body: .chunked)
        _ = h.part("first")
        #expect(h.machine.isSendingRequestBody)
        let actions = h.receive("HTTP/1.1 413 Content Too Large\r\nContent-Length: 3\r\n\r\nbig")
        #expect(summary(actions) == ["head 413 stop", "body big", "end close"])
        #expect(!h.machine.isSendingRequestBody)
        #expect(h.part("more") == .none)
        #expect(h.end() == .none)
        #expect(h.machine.isClosed)
    }

    @Test func earlyHeadThenBodyPartsAreDropped() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: .POST), body: .knownLength(10))
        #expect(summary(h.receive("HTTP/1.1 401 Unauthorized\r\nContent-Length: 2\r\n\r\n")) == ["head 401 stop"])
        #expect(h.part("0123456789") == .none)
        #expect(summary(h.receive("no")) == ["body no", "end close"])
    }
}

@Suite("HTTP1ConnectionStateMachine: 100-continue")
struct HTTP1ConnectionContinueTests {
    @Test func continueReleasesBody() {
        var h = ConnectionHarness()
        let start = h.start(ConnectionHarness.get(method: .PUT), body: .knownLength(2), expectContinue: true)
        #expect(summary([start]) == [
            "write(PUT / HTTP/1.1\r\nHost: example.com\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n, waitForContinue)"
        ])
        #expect(summary(h.receive("HTTP/1.1 100 Continue\r\n\r\n")) == ["sendRequestBody"])
        #expect(summary([h.part("ok")]) == ["write(ok, requestComplete)"])
        #expect(summary(h.receive("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")) == ["head 200", "end keepAlive"])
        #expect(h.machine.isReusable)
    }

    @Test func continueTimeoutSendsBodyAnyway() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: .PUT), body: .chunked, expectContinue: true)
        #expect(h.machine.timeout(.continueWait) == .sendRequestBody)
        #expect(h.machine.timeout(.continueWait) == .none)
        _ = h.part("x")
        _ = h.end()
        // A late 100 is skipped.
        let actions = h.receive("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")
        #expect(summary(actions) == ["head 204", "end keepAlive"])
    }

    @Test func finalResponseInsteadOfContinue() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: .PUT), body: .knownLength(100), expectContinue: true)
        let actions = h.receive("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n")
        #expect(summary(actions) == ["head 417 stop", "end close"])
        #expect(h.machine.timeout(.continueWait) == .none)
    }
}

@Suite("HTTP1ConnectionStateMachine: keep-alive decisions")
struct HTTP1ConnectionKeepAliveTests {
    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"

    @Test func serverSaysClose() {
        var h = ConnectionHarness()
        _ = h.start()
        #expect(summary(h.receive("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")) == ["head 200", "end close"])
    }

    @Test func http10WithoutKeepAlive() {
        var h = ConnectionHarness()
        _ = h.start()
        #expect(summary(h.receive("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")) == ["head 200", "end close"])
        var k = ConnectionHarness()
        _ = k.start()
        #expect(summary(k.receive("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n")) == ["head 200", "end keepAlive"])
    }

    @Test func requestSaysClose() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(headers: ["Connection": "foo, Close"]))
        #expect(summary(h.receive(Self.ok)) == ["head 200", "end close"])
    }

    @Test func http10Request() {
        var h = ConnectionHarness()
        _ = h.start(HTTPRequestHead(method: .GET, target: .origin("/"), version: .http1_0))
        #expect(summary(h.receive(Self.ok)) == ["head 200", "end close"])
        var k = ConnectionHarness()
        _ = k.start(HTTPRequestHead(method: .GET, target: .origin("/"), version: .http1_0, headers: ["Connection": "keep-alive"]))
        #expect(summary(k.receive(Self.ok)) == ["head 200", "end keepAlive"])
    }

    @Test func maximumUses() {
        var h = ConnectionHarness(maximumUses: 2)
        _ = h.start()
        #expect(summary(h.receive(Self.ok)) == ["head 200", "end keepAlive"])
        _ = h.start()
        #expect(summary(h.receive(Self.ok)) == ["head 200", "end close"])
        #expect(h.machine.isClosed)
    }

    @Test func unexpectedBytesAfterResponse() {
        var h = ConnectionHarness()
        _ = h.start()
        #expect(summary(h.receive(Self.ok + "HTTP/1.1 200 OK\r\n")) == ["head 200", "end close"])
    }

    @Test func bodyNotFullySent() {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: .POST), body: .chunked)
        #expect(summary(h.receive(Self.ok)) == ["head 200 stop", "end close"])
    }

    @Test func eofRightAfterResponseCloses() {
        var h = ConnectionHarness()
        _ = h.start()
        h.buffer.writeString(Self.ok)
        #expect(summary(h.eof()) == ["head 200", "end close"])
    }
}

@Suite("HTTP1ConnectionStateMachine: EOF, errors, timeouts, cancel")
struct HTTP1ConnectionFailureTests {
    /// A harness whose connection already served one request.
    static func reused() -> ConnectionHarness {
        var h = ConnectionHarness()
        _ = h.start()
        _ = h.receive("HTTP/1.1 204 No Content\r\n\r\n")
        return h
    }

    static func eofBeforeResponse(
        reused: Bool, method: HTTPMethod, replayable: Bool, partial: String = ""
    ) -> ClientError? {
        var h = reused ? Self.reused() : ConnectionHarness()
        let body: HTTP1ConnectionStateMachine.RequestBodyKind = method == .GET || method == .HEAD ? .none : .knownLength(1)
        _ = h.start(ConnectionHarness.get(method: method), body: body, bodyReplayable: replayable)
        if body != .none { _ = h.part("x") }
        if !partial.isEmpty { _ = h.receive(partial) }
        guard case .failRequest(let error, .close)? = h.eof().last else { return nil }
        return error
    }

    @Test func eofOnFreshConnectionIsNotRetryable() {
        let error = Self.eofBeforeResponse(reused: false, method: .GET, replayable: true)
        #expect(error?.code == .remoteClosedBeforeResponse)
        #expect(error?.isSafeToRetry == false)
    }

    @Test(arguments: [HTTPMethod.GET, .HEAD, .PUT, .DELETE, .OPTIONS, .TRACE])
    func eofOnReusedConnectionIdempotent(method: HTTPMethod) {
        let error = Self.eofBeforeResponse(reused: true, method: method, replayable: true)
        #expect(error?.code == .remoteClosedBeforeResponse)
        #expect(error?.isSafeToRetry == true)
    }

    @Test(arguments: [HTTPMethod.POST, .PATCH, HTTPMethod("LOCK")!])
    func eofOnReusedConnectionNonIdempotent(method: HTTPMethod) {
        let error = Self.eofBeforeResponse(reused: true, method: method, replayable: true)
        #expect(error?.code == .remoteClosedBeforeResponse)
        #expect(error?.isSafeToRetry == false)
    }

    @Test func eofOnReusedConnectionNotReplayable() {
        let error = Self.eofBeforeResponse(reused: true, method: .PUT, replayable: false)
        #expect(error?.isSafeToRetry == false)
    }

    @Test func eofAfterSomeResponseBytes() {
        let error = Self.eofBeforeResponse(reused: true, method: .GET, replayable: true, partial: "HTTP/1.1 2")
        #expect(error?.code == .remoteClosedBeforeResponse)
        #expect(error?.isSafeToRetry == false)
        #expect((error?.cause as? HTTPParserError)?.code == .truncatedMessage)
    }

    @Test func eofAfterInterimResponse() {
        let error = Self.eofBeforeResponse(reused: true, method: .GET, replayable: true, partial: "HTTP/1.1 103 Early Hints\r\n\r\n")
        #expect(error?.code == .remoteClosedBeforeResponse)
        #expect(error?.isSafeToRetry == false)
    }

    @Test func eofDuringBody() {
        var h = ConnectionHarness()
        _ = h.start()
        _ = h.receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        let actions = h.eof()
        #expect(summary(actions) == ["fail remoteClosedDuringBody close"])
        var c = ConnectionHarness()
        _ = c.start()
        #expect(summary(c.receive("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab")) == ["head 200", "body ab"])
        #expect(summary(c.eof()) == ["fail remoteClosedDuringBody close"])
    }

    @Test func socketError() {
        var h = ConnectionHarness()
        _ = h.start()
        let error = ClientError(.ioError, detail: "ECONNRESET")
        #expect(h.machine.errorCaught(error) == .failRequest(error, then: .close))
        #expect(h.machine.errorCaught(error) == .none)
        var idle = ConnectionHarness()
        #expect(idle.machine.errorCaught(error) == .close)
    }

    @Test func timeouts() {
        var h = ConnectionHarness()
        _ = h.start()
        #expect(summary([h.machine.timeout(.idleRead)]) == ["fail readTimeout close"])
        var t = ConnectionHarness()
        _ = t.start()
        _ = t.receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        #expect(summary([t.machine.timeout(.total)]) == ["fail totalTimeout close"])
        var idle = ConnectionHarness()
        #expect(idle.machine.timeout(.idleRead) == .none)
    }

    /// The total deadline names the phase it ran out in (issue 9, item 2.3): `send` while the
    /// request is still going out, `receive` once it is sent.
    @Test func totalTimeoutNamesItsPhase() {
        func failure(_ action: ConnAction) -> ClientError? {
            if case .failRequest(let error, then: .close) = action { return error }
            return nil
        }
        var continueWait = ConnectionHarness()
        _ = continueWait.start(ConnectionHarness.get(method: .PUT), body: .chunked, expectContinue: true)
        var sending = ConnectionHarness()
        _ = sending.start(ConnectionHarness.get(method: .PUT), body: .knownLength(10))
        _ = sending.part("abc")
        var waitingForHead = ConnectionHarness()
        _ = waitingForHead.start()
        var inBody = ConnectionHarness()
        _ = inBody.start()
        _ = inBody.receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        for (harness, phase) in [(continueWait, ClientError.Phase.send), (sending, .send), (waitingForHead, .receive), (inBody, .receive)] {
            var h = harness
            let error = failure(h.machine.timeout(.total))
            #expect(error?.code == .totalTimeout)
            #expect(error?.phase == phase)
        }
    }

    enum CancelPhase: String, CaseIterable, Sendable {
        case waitingForContinue, sendingBody, waitingForHead, partialHead, receivingBody, paused
    }

    @Test(arguments: CancelPhase.allCases)
    func cancelInFlight(phase: CancelPhase) {
        var h = ConnectionHarness()
        switch phase {
        case .waitingForContinue:
            _ = h.start(ConnectionHarness.get(method: .PUT), body: .chunked, expectContinue: true)
        case .sendingBody:
            _ = h.start(ConnectionHarness.get(method: .PUT), body: .chunked)
            _ = h.part("abc")
        case .waitingForHead:
            _ = h.start()
        case .partialHead:
            _ = h.start()
            _ = h.receive("HTTP/1.1 200 OK\r\nContent-")
        case .receivingBody:
            _ = h.start()
            _ = h.receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        case .paused:
            _ = h.start()
            _ = h.receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
            h.machine.pauseResponseBody()
        }
        #expect(h.machine.cancel() == .failRequest(ClientError(.cancelled), then: .close))
        #expect(h.machine.isClosed)
        #expect(h.machine.cancel() == .none)
        #expect(h.part("x") == .none)
        #expect(h.receive("late") == [.none])
    }

    @Test func cancelIdleOrAfterResponse() {
        var h = ConnectionHarness()
        #expect(h.machine.cancel() == .none)
        _ = h.start()
        _ = h.receive("HTTP/1.1 204 No Content\r\n\r\n")
        #expect(h.machine.cancel() == .none)
        #expect(h.machine.isReusable)
    }

    @Test func idleConnectionReceivingBytesIsClosed() {
        var h = ConnectionHarness()
        _ = h.start()
        _ = h.receive("HTTP/1.1 204 No Content\r\n\r\n")
        #expect(h.receive([]) == [.wait(.read)])
        #expect(h.receive("HTTP/1.1 200 OK\r\n\r\n") == [.close])
        #expect(h.machine.isClosed)
        #expect(!h.machine.isReusable)
    }

    @Test func idleConnectionEOFIsStale() {
        var h = ConnectionHarness()
        #expect(h.eof() == [.close])
        #expect(h.machine.isClosed)
        #expect(h.eof() == [.none])
    }
}

@Suite("HTTP1ConnectionStateMachine: backpressure")
struct HTTP1ConnectionBackpressureTests {
    @Test func pauseAndResume() {
        var h = ConnectionHarness()
        _ = h.start()
        #expect(summary(h.receive("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n")) == ["head 200"])
        h.machine.pauseResponseBody()
        #expect(h.machine.isPaused)
        let before = h.machine.responseBytesConsumed
        #expect(h.receive("abc") == [.wait(.stopReading)])
        #expect(h.machine.responseBytesConsumed == before, "nothing is parsed while paused")
        #expect(h.machine.demandMoreResponseBody() == .resumeInbound)
        #expect(h.machine.demandMoreResponseBody() == .none)
        #expect(summary(h.drain(h.machine.nextInboundAction(&h.buffer))) == ["body abc"])
        #expect(summary(h.receive("def")) == ["body def", "end keepAlive"])
    }

    @Test func eofWhilePausedIsDeliveredAfterResume() {
        var h = ConnectionHarness()
        _ = h.start()
        _ = h.receive("HTTP/1.1 200 OK\r\n\r\n")
        h.machine.pauseResponseBody()
        h.buffer.writeString("tail")
        #expect(h.eof() == [.wait(.stopReading)])
        #expect(h.machine.demandMoreResponseBody() == .resumeInbound)
        #expect(summary(h.drain(h.machine.nextInboundAction(&h.buffer))) == ["body tail", "end close"])
    }
}
