/// Whether the kernel has a route to a monitor's target, and through which interface.
public enum PathStatus: Hashable, Sendable, CustomStringConvertible {
    /// Nothing evaluated yet.
    case unknown
    /// The kernel routes the target out of `interface` (e.g. `"eth0"`, `"lo"`).
    case satisfied(interface: String)
    /// No route (the lookup failed with ENETUNREACH/EHOSTUNREACH, or only excluded routes exist).
    case unsatisfied

    public var isSatisfied: Bool {
        if case .satisfied = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .satisfied(let interface): "satisfied via \(interface)"
        case .unsatisfied: "unsatisfied"
        }
    }
}
