/// What a ``PathMonitor`` asks the kernel about.
public enum PathTarget: Hashable, Sendable {
    /// The internet in general: routes to ``PathTarget/internetProbes`` (looked up only; no
    /// packet is ever sent to them). Satisfied when either has a route out of a non-loopback
    /// interface.
    case internet
    /// Specific addresses (ports ignored): satisfied when any has a route; the first one in
    /// order that does names the interface.
    case addresses([RouteDestination])

    /// Two well-known global addresses, one per family, used only as route-lookup keys (the
    /// literals are valid addresses, so the unwraps cannot fail).
    public static let internetProbes: [RouteDestination] = [
        RouteDestination("1.1.1.1")!,
        RouteDestination("2606:4700:4700::1111")!,
    ]

    var destinations: [RouteDestination] {
        switch self {
        case .internet: Self.internetProbes
        case .addresses(let list): list
        }
    }

    /// Whether a route out of a loopback interface counts by default: not for the internet
    /// (a default route via `lo` reaches nothing beyond this host), yes for given addresses
    /// (127.0.0.1 or the host's own address are reachable through `lo`).
    var loopbackSatisfiesByDefault: Bool {
        if case .internet = self { return false }
        return true
    }
}
