import Courier
#if canImport(Glibc)
import Glibc
#endif

/// A checked `courier bench` command line (``BenchOptions``): the client's configuration, the one
/// request every connection repeats, and the load.
struct BenchPlan {
    let url: String
    let configuration: HTTPClientConfiguration
    let request: HTTPClientRequest
    let connections: Int
    let threads: Int
    /// Exactly this many requests (nil: for ``duration``).
    let requests: Int?
    /// Nanoseconds (nil: for ``requests``).
    let duration: UInt64?
    /// Requests per second, all connections together (nil: closed loop).
    let rate: Double?
    let hdrLog: String?
    let digits: Int
    let interval: UInt64
    /// Bind each loop thread to one CPU.
    let pin: Bool
    /// Nanoseconds each loop lets replies gather before it wakes for them (nil: it wakes for
    /// each at once); ``batchWindow(_:threads:)``.
    let batchWindow: UInt64?

    init(_ options: BenchOptions) throws(BenchError) {
        url = options.url
        var configuration = HTTPClientConfiguration()
        connections = options.connections
        threads = options.threads ?? max(1, min(EventLoopGroup.coreCount, options.connections))
        configuration.eventLoopThreads = threads
        batchWindow = Self.batchWindow(options, threads: threads)
        configuration.batchWindow = batchWindow.map { .nanoseconds(Int64($0)) }
        configuration.maximumConnectionsPerHost = options.connections
        // As wrk: no Accept-Encoding of its own, no redirects followed, each response measured.
        configuration.decompression = false
        configuration.redirects = .disabled
        if options.noKeepAlive { configuration.maximumUsesPerConnection = 1 }
        if let timeout = options.timeout.flatMap(BenchDuration.parse) {
            configuration.timeouts.total = .nanoseconds(Int64(timeout))
            configuration.timeouts.idleRead = .nanoseconds(Int64(timeout))
        }
        if options.insecure { configuration.tls.verification = .none }
        if let cacert = options.cacert { configuration.tls.trustRoots = [.file(cacert)] }
        if let proxy = options.proxy {
            do {
                let server = try ProxyServer(parsing: proxy)
                configuration.proxy = server.scheme.isSOCKS ? .socks5(server) : .http(server)
            } catch {
                throw .setup("-x: \(error)")
            }
        }
        self.configuration = configuration

        var request: HTTPClientRequest
        do {
            request = try HTTPClientRequest(method: HTTPMethod(options.method) ?? .GET, url: options.url)
        } catch {
            throw .setup("\(options.url): \(error)")
        }
        if let socket = options.unixSocket {
            let host: String
            do { (request.url, host) = try UnixSocketURL.rewrite(request.url, socket: socket) } catch { throw .setup(error.message) }
            // As curl and the transfer: the URL's host, unless -H names one.
            if !options.headers.contains(where: { $0.lowercased().hasPrefix("host:") }) {
                do { try request.headers.append(name: "Host", value: host) } catch { throw .setup("\(error)") }
            }
        }
        for header in options.headers {
            guard let colon = header.firstIndex(of: ":") else { throw .setup("-H: not 'Name: value': \(header)") }
            let name = String(header[..<colon])
            var value = header[header.index(after: colon)...]
            while value.first == " " || value.first == "\t" { value = value.dropFirst() }
            do {
                try request.headers.append(name: name, value: String(value))
            } catch {
                throw .setup("-H \(header): \(error)")
            }
        }
        if options.noKeepAlive {
            do { try request.headers.append(name: "Connection", value: "close") } catch { throw .setup("\(error)") }
        }
        if let body = options.body {
            if body.hasPrefix("@") {
                request.body = .bytes(ByteBuffer(bytes: try BenchPlan.readFile(String(body.dropFirst()))))
            } else {
                request.body = .string(body)
            }
        }
        self.request = request
        requests = options.requests
        duration = options.requests == nil ? (options.duration.flatMap(BenchDuration.parse) ?? 10_000_000_000) : nil
        rate = options.rate
        hdrLog = options.hdrLog
        digits = options.hdrDigits
        interval = BenchDuration.parse(options.interval) ?? 1_000_000_000
        pin = !options.noPin
    }

    /// The window `--batch` asks for, or by default 25 µs in a closed loop that keeps at least
    /// 32 connections on each loop thread, else none.
    ///
    /// With many requests in flight and the server the bottleneck, a loop that wakes for each
    /// reply spends a wake-up (4-6 µs of its CPU on a VM, `Benchmarks/Client/wakeup_cost.c`) on
    /// nearly every request; gathering replies for 25 µs (plus the kernel's timer slack) handles
    /// several per wake-up, and the server gets the next requests in bursts, which it also
    /// serves more cheaply. The delay is a few percent of the round trip at 32 connections on
    /// loopback (about 0.6 ms, nginx) and it is in the latency reported, as a wake-up's delay is
    /// in wrk's. Fewer connections per thread, or a constant rate (where a request must leave
    /// when it is due), get none: there the delay would be a large part of what is measured
    /// (Benchmarks/RESULTS.md, "the batch window").
    static func batchWindow(_ options: BenchOptions, threads: Int) -> UInt64? {
        if let batch = options.batch {
            let window = BenchDuration.parseAllowingZero(batch) ?? 0
            return window > 0 ? window : nil
        }
        guard options.rate == nil, options.connections >= 32 * threads else { return nil }
        return 25_000
    }

    /// The longest `--batch` window: every reply may wait this long.
    static let longestBatchWindow: UInt64 = 10_000_000

    /// The bytes of the file at `path`.
    static func readFile(_ path: String) throws(BenchError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .file(path, errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .file(path, errno)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// The requests worker `index` of `workers` sends with `-n` (the total split evenly).
    static func share(of total: Int, worker index: Int, workers: Int) -> Int {
        total / workers + (index < total % workers ? 1 : 0)
    }
}
