import CourierCore
import CourierTestSupport
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// What one phase measured, and the acceptance checks over it.
struct PhaseReport {
    let name: String
    let prefix: String
    let duration: TimeAmount
    let state: SoakLedger.State
    let rss: RSSCurve
    let descriptorsBefore: Int
    let descriptorsAfter: Int
    let extraDescriptors: [String]

    /// Runs `body` (which returns once its client is shut down) between two descriptor counts,
    /// with the RSS sampled every second and a progress line every 10 s.
    static func measure(name: String, options: SoakOptions, _ body: (SoakLedger) -> TimeAmount) -> PhaseReport {
        DescriptorCheck.warmUpDispatch()
        let before = FileDescriptors.openCount()
        let ledger = SoakLedger(
            deadline: .milliseconds(Int64(options.deadlineMilliseconds)), slack: .milliseconds(Int64(options.slackMilliseconds)))
        let progress = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "soak.progress"))
        let started = Deadline.now()
        progress.schedule(deadline: .now() + .seconds(10), repeating: .seconds(10))
        progress.setEventHandler {
            let seconds = (Deadline.now() - started).nanoseconds / 1_000_000_000
            print("  \(name): \(ledger.completed) requests after \(seconds) s, RSS \(mib(ProcessMemory.resident)) MiB")
            fflush(nil)  // all streams: the progress shows through a pipe too
        }
        progress.resume()
        let sampler = RSSSampler()
        let duration = body(ledger)
        progress.cancel()
        let samples = sampler.stop()
        let after = DescriptorCheck.after(before: before)
        return PhaseReport(
            name: name, prefix: name == "HTTPClient" ? "c" : "s", duration: duration, state: ledger.snapshot,
            rss: RSSCurve(samples: samples), descriptorsBefore: before, descriptorsAfter: after.count,
            extraDescriptors: after.extra)
    }

    /// Prints the phase's figures and returns the acceptance violations.
    func judge(_ log: FaultLog, _ options: SoakOptions) -> [String] {
        var violations: [String] = []
        let targets = SoakTarget.allCases.compactMap { target in state.byTarget[target].map { (target, $0) } }
        let requests = targets.reduce(0) { $0 + $1.1.requests }
        let seconds = Double(duration.nanoseconds) / 1e9
        print("== \(name): \(requests) requests (c=\(options.concurrency), \(options.probes) idle-close probes) in \(fixed(seconds)) s, \(Int(Double(requests) / max(seconds, 0.001))) requests/s")
        for (target, counts) in targets {
            print("  \(target.rawValue.padding(24)) \(counts.requests) requests, \(counts.succeeded) ok, \(counts.failed) failed; on a reused connection \(counts.reused), retried once \(counts.retried)")
        }

        let injected = log.counts(prefix: prefix)
        print("  faults injected: " + (injected.isEmpty ? "none" : injected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        if requests >= 5000 && injected.isEmpty {
            violations.append("\(name): no fault was injected (the upstream and relay logs have no entry for this phase)")
        }

        // Failures: each typed with its phase; none where the only fault is an idle close; every
        // other one explained by a fault logged for that request.
        print("  failures by kind: " + (state.byKind.isEmpty ? "none" : state.byKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        let idleOnly = state.failures.filter { $0.target.onlyIdleCloses }
        let unexplained = state.failures.filter { !$0.target.onlyIdleCloses && !FaultMatching.explains(log, $0) }
        print("  failures where the only fault is an idle close: \(idleOnly.count)")
        print("  other failures: \(state.failures.count - idleOnly.count), explained by an injected fault: \(state.failures.count - idleOnly.count - unexplained.count), unexplained: \(unexplained.count)")
        for failure in (idleOnly + unexplained).prefix(10) {
            let detail = state.details[failure.id] ?? failure.kind
            print("    \(failure.id) \(failure.target.rawValue) \(failure.upstreamFault.map { "fault=\($0.rawValue) " } ?? "")logged \(log.faults(for: failure.id)): \(detail)")
        }
        if !idleOnly.isEmpty { violations.append("\(name): \(idleOnly.count) requests failed where the only fault is a server closing connections") }
        if !unexplained.isEmpty { violations.append("\(name): \(unexplained.count) failures match no injected fault") }
        if state.failuresDropped > 0 { violations.append("\(name): \(state.failuresDropped) failures were not kept for matching") }

        // Deadlines, on the monotonic clock.
        let limit = options.deadlineMilliseconds + options.slackMilliseconds
        print("  longest request: \(state.longest.nanoseconds / 1_000_000) ms (deadline \(options.deadlineMilliseconds) ms + \(options.slackMilliseconds) ms allowance); over: \(state.overdueCount)")
        for overdue in state.overdue.prefix(5) { print("    \(overdue.id): \(overdue.milliseconds) ms, \(overdue.result)") }
        if state.overdueCount > 0 { violations.append("\(name): \(state.overdueCount) requests outlived their deadline (> \(limit) ms)") }

        // Descriptors, once the client is shut down.
        print("  file descriptors: \(descriptorsBefore) before, \(descriptorsAfter) after shutdown")
        if descriptorsAfter > descriptorsBefore {
            violations.append("\(name): \(descriptorsAfter - descriptorsBefore) file descriptors leaked")
            for line in extraDescriptors.prefix(20) { print("    \(line)") }
        }

        // RSS, sampled every second.
        print("  RSS (MiB): start \(mib(rss.start)), after warm-up \(mib(rss.afterWarmUp)), max \(mib(rss.maximum)), end \(mib(rss.end)); growth after warm-up \(mib(rss.growthAfterWarmUp)) (limit \(options.rssGrowthLimitMiB)); \(rss.samples.count) samples: \(rss.sketch())")
        if rss.growthAfterWarmUp > options.rssGrowthLimitMiB * 1024 * 1024 {
            violations.append("\(name): RSS grew by \(mib(rss.growthAfterWarmUp)) MiB after warm-up")
        }
        return violations
    }
}

func fixed(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self + ":" : self + ":" + String(repeating: " ", count: width - count)
    }
}
