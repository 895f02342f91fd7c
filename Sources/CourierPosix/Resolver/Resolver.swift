#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Why a name could not be resolved.
public enum ResolverError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `getaddrinfo` failed: its `EAI_*` code and `gai_strerror` text.
    case lookupFailed(host: String, code: Int32, message: String)
    /// The lookup succeeded but returned no usable address.
    case noAddresses(host: String)
    case cancelled

    public var description: String {
        switch self {
        case .lookupFailed(let host, _, let message): "cannot resolve \(host): \(message)"
        case .noAddresses(let host): "\(host) has no addresses"
        case .cancelled: "resolution cancelled"
        }
    }
}

/// A handle to cancel one lookup. After ``cancel()`` the completion runs once, promptly, with
/// `.cancelled`; a late `getaddrinfo` result is dropped.
public final class ResolveHandle: Sendable {
    private let delivered = Atomic<Bool>(false)
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

    /// Claims the right to deliver the one result; false if something was delivered already.
    func claim() -> Bool {
        !delivered.exchange(true, ordering: .acquiringAndReleasing)
    }

    public func cancel() {
        if claim() { onCancel() }
    }
}

/// Runs `getaddrinfo` off the event loops, on a concurrent dispatch queue (it blocks, and a
/// slow DNS server must never stall a loop), and delivers the result back on the loop.
///
/// With a ``DNSCache`` (``init(queue:cache:)``), answers are kept for its TTL and one lookup in
/// flight serves every caller asking for the same (host, port, family).
public final class Resolver: Sendable {
    private let queue: DispatchQueue
    /// The cache every lookup goes through; nil: every lookup calls `getaddrinfo`.
    public let cache: DNSCache?

    public init(
        queue: DispatchQueue = DispatchQueue(label: "courier.resolver", attributes: .concurrent),
        cache configuration: DNSCacheConfiguration? = nil
    ) {
        self.queue = queue
        self.cache = configuration.map { configuration in
            DNSCache(configuration: configuration, start: { queue.async(execute: $0) }) { key in
                Resolver.lookup(host: key.host, port: key.port, family: key.family)
            }
        }
    }

    /// Resolves `host` (a name or an IP literal) for TCP on `port`. `family` nil asks for any.
    /// `completion` runs on `loop`, exactly once.
    @discardableResult
    public func resolve(
        host: String,
        port: Int,
        family: SocketAddress.Family? = nil,
        on loop: EventLoop,
        _ completion: @escaping @Sendable (Result<[SocketAddress], ResolverError>) -> Void
    ) -> ResolveHandle {
        resolveWithSource(host: host, port: port, family: family, on: loop) { result, _ in completion(result) }
    }

    /// ``resolve(host:port:family:on:_:)``, also telling where the answer came from (the cache,
    /// another caller's lookup, a lookup of its own, or nothing for an IP literal).
    @discardableResult
    public func resolveWithSource(
        host: String,
        port: Int,
        family: SocketAddress.Family? = nil,
        on loop: EventLoop,
        _ completion: @escaping @Sendable (Result<[SocketAddress], ResolverError>, ResolutionSource) -> Void
    ) -> ResolveHandle {
        if let literal = try? SocketAddress(ipAddress: host, port: port) {
            let handle = ResolveHandle(onCancel: { loop.execute { completion(.failure(.cancelled), .literal) } })
            let matches = family == nil || family == literal.family
            loop.execute {
                guard handle.claim() else { return }
                completion(matches ? .success([literal]) : .failure(.noAddresses(host: host)), .literal)
            }
            return handle
        }
        guard let cache else {
            let handle = ResolveHandle(onCancel: { loop.execute { completion(.failure(.cancelled), .lookup) } })
            queue.async {
                let result = Self.lookup(host: host, port: port, family: family)
                guard handle.claim() else { return }
                loop.execute { completion(result, .lookup) }
            }
            return handle
        }
        let ticket = cache.ticket(for: DNSCacheKey(host: host, port: port, family: family))
        let handle = ResolveHandle(onCancel: {
            cache.cancel(ticket)
            loop.execute { completion(.failure(.cancelled), .lookup) }
        })
        cache.resolve(ticket) { result, source in
            guard handle.claim() else { return }
            loop.execute { completion(result, source) }
        }
        return handle
    }

    /// The blocking lookup, in the order getaddrinfo returns (RFC 6724 sorted by glibc).
    static func lookup(host: String, port: Int, family: SocketAddress.Family?) -> Result<[SocketAddress], ResolverError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_family = family.map(\.rawValue) ?? AF_UNSPEC
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0 else {
            let message = String(cString: gai_strerror(code))
            return .failure(.lookupFailed(host: host, code: code, message: message))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            // Safe: getaddrinfo filled ai_addr with ai_addrlen valid bytes; copied at once.
            if let raw = entry.pointee.ai_addr, let address = SocketAddress(raw, length: entry.pointee.ai_addrlen),
               !addresses.contains(address) {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(.noAddresses(host: host)) : .success(addresses)
    }
}
