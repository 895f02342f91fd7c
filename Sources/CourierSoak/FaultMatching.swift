/// Which failures each injected fault explains. A failure is accepted only when the upstream or
/// the relay logged a fault for that very request whose known consequences include it.
enum FaultMatching {
    /// What the client sees when a fault hits its request.
    static func consequences(of fault: String) -> Set<String> {
        switch fault {
        // nginx answers for an upstream that failed before its response head.
        case "reset", "close": ["status 502"]
        // nginx has sent the head with the upstream's Content-Length; the body stops short.
        case "truncate": ["remoteClosedDuringBody"]
        // Nothing arrives: the request's total deadline ends it.
        case "stall", "relay-stall": ["totalTimeout"]
        // The connection ends before the request reached nginx. On a reused connection the one
        // safe retry covers it; on a new one (or when the retry meets a fault too) it fails.
        case "relay-rst", "relay-close": ["remoteClosedBeforeResponse"]
        // Cut inside the head or inside the body.
        case "relay-cut": ["remoteClosedBeforeResponse", "remoteClosedDuringBody"]
        // A reset 5-50 ms after the last response byte: on an idle connection the client sees
        // it while the connection is parked, or its next request meets it and takes the one safe
        // retry — that next request must not fail (this fault is logged under the id whose
        // response it followed). Only a response still in transit after that quiet time is cut.
        case "relay-idle-rst": ["remoteClosedBeforeResponse", "remoteClosedDuringBody"]
        // A delay is far shorter than the deadline; on a loaded machine it may still end it.
        case "relay-delay", "slow": ["totalTimeout"]
        default: []
        }
    }

    /// Whether `failure` is explained by a fault logged for its request. A request the plan
    /// sent to the upstream must also have been logged with the fault the plan asked for.
    static func explains(_ log: FaultLog, _ failure: SoakFailure) -> Bool {
        let faults = log.faults(for: failure.id)
        if let asked = failure.upstreamFault, asked != .none, asked != .chunked, !faults.contains(asked.rawValue) {
            return false
        }
        if failure.wrongLength { return false }  // a body silently cut or altered is never explained
        return faults.contains { consequences(of: $0).contains(failure.kind) }
    }
}
