/// Whether a host, an address or the internet is reachable, as AFNetworking's
/// `AFNetworkReachabilityStatus` (`Unknown`, `NotReachable`, `ReachableViaWWAN`,
/// `ReachableViaWiFi`).
///
/// Linux has no cellular/Wi-Fi distinction to report: ``reachable(via:)`` names the network
/// interface the kernel would send through instead (`"eth0"`, `"wlan0"`, `"lo"`).
public enum ReachabilityStatus: Hashable, Sendable, CustomStringConvertible {
    /// Not determined yet (before monitoring starts and its first evaluation).
    case unknown
    /// The kernel has no route to the target.
    case notReachable
    /// The kernel routes the target out of this interface.
    case reachable(via: String)

    /// Whether the status is ``reachable(via:)`` (AFN's `isReachable`).
    public var isReachable: Bool {
        if case .reachable = self { return true }
        return false
    }

    /// The interface packets to the target would leave by, when reachable.
    public var interface: String? {
        if case .reachable(let interface) = self { return interface }
        return nil
    }

    /// AFN's `AFStringFromNetworkReachabilityStatus` / `localizedNetworkReachabilityStatusString`:
    /// `"Unknown"`, `"Not Reachable"`, or `"Reachable via eth0"`.
    public var description: String {
        switch self {
        case .unknown: "Unknown"
        case .notReachable: "Not Reachable"
        case .reachable(let interface): "Reachable via \(interface)"
        }
    }
}

/// Why a ``ReachabilityManager`` could not be made.
public enum ReachabilityError: Error, Hashable, Sendable, CustomStringConvertible {
    /// ``ReachabilityManager/init(address:)`` takes an IPv4 or IPv6 literal (no brackets, no port).
    case notAnIPAddress(String)

    public var description: String {
        switch self {
        case .notAnIPAddress(let text): "not an IP address: \(text)"
        }
    }
}
