#if canImport(Glibc)
import Glibc
#endif
import Testing
import CourierCore
import Dispatch
@testable import CourierPosix

/// Reads a socket on its loop until `expected` bytes arrived or EOF.
private final class Reader: Selectable {
    let socket: Socket
    let loop: EventLoop
    var buffer = ByteBuffer()
    var registration: RegistrationID?
    let expected: Int
    let done: Box<[UInt8]>

    init(socket: Socket, loop: EventLoop, expected: Int, done: Box<[UInt8]>) throws {
        self.socket = socket
        self.loop = loop
        self.expected = expected
        self.done = done
        registration = try loop.register(socket.descriptor, interest: .read, handler: self)
    }

    func selectorReady(_ events: SelectorEvents) {
        while true {
            guard case .processed(let n)? = try? socket.read(into: &buffer, maximum: 4096) else { return }
            if n == 0 || buffer.readableBytes >= expected {
                loop.deregister(registration!)
                socket.close()
                done.put(buffer.readableBytesArray())
                return
            }
        }
    }
}

@Suite struct ConnectorTests {
    static let resolver = Resolver()

    @Test func connectsWritesAndReadsOverIPv4() throws {
        try expectNoLeakedDescriptors {
        let listener = try TestListener()
        let loop = try EventLoop(name: "t-conn")
        let received = Box<[UInt8]>()
        let serverThread = Thread {
            let fd = listener.accept()
            var bytes = [UInt8](repeating: 0, count: 5)
            _ = recv(fd, &bytes, 5, Int32(MSG_WAITALL))
            _ = send(fd, bytes.reversed(), 5, 0)
            close(fd)
        }
        let box = Box<Bool>()
        loop.execute {
            Connector.connect(host: "127.0.0.1", port: listener.port, deadline: .after(.seconds(5)), on: loop, resolver: Self.resolver) { result in
                guard case .success(let connected) = result else { box.put(false); return }
                #expect(connected.remoteAddress.description == "127.0.0.1:\(listener.port)")
                #expect(connected.socket.localAddress?.host == "127.0.0.1")
                let out = [ByteBuffer(string: "he"), ByteBuffer(string: "llo")]
                #expect(try! connected.socket.write(out) == .processed(5))
                _ = try! Reader(socket: connected.socket, loop: loop, expected: 5, done: received)
                box.put(true)
            }
        }
        #expect(box.take() == true)
        #expect(received.take().map { String(decoding: $0, as: UTF8.self) } == "olleh")
        serverThread.join()
        loop.shutdown()
        }
    }

    @Test func localhostFallsBackToIPv4WhenIPv6Refuses() throws {
        try expectNoLeakedDescriptors {
            let listener = try TestListener()
            let loop = try EventLoop(name: "t-he")
            defer { loop.shutdown() }
            let result = Box<String>()
            loop.execute {
                Connector.connect(host: "localhost", port: listener.port, deadline: .after(.seconds(5)), on: loop, resolver: Self.resolver) { outcome in
                    switch outcome {
                    case .success(let c): result.put(c.remoteAddress.host); c.socket.close()
                    case .failure(let e): result.put("\(e)")
                    }
                }
            }
            #expect(result.take() == "127.0.0.1")
        }
    }

    @Test func ipv6LiteralConnects() throws {
        try expectNoLeakedDescriptors {
            let listener = try TestListener(ipv6: true)
            let loop = try EventLoop(name: "t-v6")
            defer { loop.shutdown() }
            let result = Box<String>()
            loop.execute {
                Connector.connect(host: "::1", port: listener.port, deadline: .after(.seconds(5)), on: loop, resolver: Self.resolver) { outcome in
                    switch outcome {
                    case .success(let c): result.put(c.remoteAddress.description); c.socket.close()
                    case .failure(let e): result.put("\(e)")
                    }
                }
            }
            #expect(result.take() == "[::1]:\(listener.port)")
        }
    }

    @Test func refusedPortIsATypedError() throws {
        try expectNoLeakedDescriptors {
        let port: Int
        do { let l = try TestListener(); port = l.port }   // closed again: nothing listens there
        let loop = try EventLoop(name: "t-refused")
        let result = Box<ConnectError>()
        loop.execute {
            Connector.connect(host: "127.0.0.1", port: port, deadline: .after(.seconds(5)), on: loop, resolver: Self.resolver) { outcome in
                if case .failure(let e) = outcome { result.put(e) }
            }
        }
        #expect(result.take() == .connectionFailed(PosixError(code: ECONNREFUSED, call: "connect")))
        loop.shutdown()
        }
    }

    @Test func connectTimeoutFiresWhenNoAttemptCompletes() throws {
        try expectNoLeakedDescriptors {
            // 192.0.2.0/24 (TEST-NET-1) is never routed; a connect either hangs or fails at once
            // with ENETUNREACH on machines without a default route. Both must end by the deadline.
            let loop = try EventLoop(name: "t-timeout")
            defer { loop.shutdown() }
            let result = Box<ConnectError>()
            let start = Deadline.now()
            loop.execute {
                Connector.connect(host: "192.0.2.1", port: 9, deadline: .after(.milliseconds(200)), on: loop, resolver: Self.resolver) { outcome in
                    if case .failure(let e) = outcome { result.put(e) }
                }
            }
            let error = try #require(result.take())
            if case .connectionFailed = error {} else { #expect(error == .timeout) }
            #expect(Deadline.now() - start < .seconds(3))
        }
    }

    @Test func cancelEndsTheConnectOnce() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-cancel")
            defer { loop.shutdown() }
            let result = Box<ConnectError>()
            let calls = Box<Int>()
            loop.execute {
                let count = Counter()
                let connector = Connector.connect(host: "192.0.2.1", port: 9, deadline: .after(.seconds(30)), on: loop, resolver: Self.resolver) { outcome in
                    count.value += 1
                    if case .failure(let e) = outcome { result.put(e) }
                }
                connector.cancel()
                connector.cancel()
                loop.execute { [bound = LoopBound(count, loop: loop)] in calls.put(bound.value.value) }
            }
            let error = try #require(result.take())
            if case .connectionFailed = error {} else { #expect(error == .cancelled) }
            #expect(calls.take() == 1)
        }
    }

    @Test func unixDomainSocket() throws {
        try expectNoLeakedDescriptors {
            let directory = getenv("TMPDIR").map { String(cString: $0) } ?? P_tmpdir
            let path = "\(directory)/courier-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
            let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(server); unlink(path) }
            let address = try SocketAddress(unixPath: path)
            #expect(address.withSockAddr { bind(server, $0, $1) } == 0)
            #expect(listen(server, 4) == 0)
            let loop = try EventLoop(name: "t-unix")
            defer { loop.shutdown() }
            let result = Box<String>()
            loop.execute {
                Connector.connect(unixPath: path, deadline: .after(.seconds(5)), on: loop, resolver: Self.resolver) { outcome in
                    switch outcome {
                    case .success(let c): result.put(c.remoteAddress.description); c.socket.close()
                    case .failure(let e): result.put("\(e)")
                    }
                }
            }
            #expect(result.take() == "unix:\(path)")
        }
    }

    @Test func resolverCancellationDeliversCancelled() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-resolve")
            defer { loop.shutdown() }
            let result = Box<Result<[SocketAddress], ResolverError>>()
            // A suspended queue holds the lookup back, so the cancel surely comes first.
            let queue = DispatchQueue(label: "t-held")
            queue.suspend()
            let held = Resolver(queue: queue)
            loop.execute {
                let handle = held.resolve(host: "localhost", port: 80, on: loop) { result.put($0) }
                handle.cancel()
            }
            let outcome = try #require(result.take())
            queue.resume()
            if case .failure(.cancelled) = outcome {} else { Issue.record("expected .cancelled, got \(outcome)") }
            let ok = Box<Result<[SocketAddress], ResolverError>>()
            loop.execute { Self.resolver.resolve(host: "localhost", port: 80, family: .ipv4, on: loop) { ok.put($0) } }
            #expect(try #require(ok.take()).get().map(\.description).contains("127.0.0.1:80"))
        }
    }
}

/// A Thread without Foundation.
final class Thread: @unchecked Sendable {
    // @unchecked: `handle` is written once before start returns and read by join on the same thread.
    private var handle = pthread_t()

    init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(BodyBox(body))
        pthread_create(&handle, nil, { raw in
            let body = Unmanaged<BodyBox>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, box.toOpaque())
    }

    func join() { pthread_join(handle, nil) }

    private final class BodyBox {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}

struct SendableBox<T>: @unchecked Sendable {
    // @unchecked: test helper moving a value out of a loop job the test then waits for.
    let value: T
    init(_ value: T) { self.value = value }
}

final class Counter { var value = 0 }
