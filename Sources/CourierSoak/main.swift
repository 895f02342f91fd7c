// `make soak`: drives idempotent GETs through `HTTPClient` and `SessionManager` against nginx
// servers that close connections the way production servers do, an upstream behind nginx that
// resets, closes, truncates and stalls on request, and a relay that drops, resets, cuts and
// delays (Soak/run.sh starts them). Checks docs/RELIABILITY.md's acceptance and exits non-zero
// when one is violated.
#if canImport(Glibc)
import Glibc
#endif

let options = SoakOptions.parse(CommandLine.arguments)
let plan = SoakPlan(seed: options.seed, ports: options.ports)
print("CourierSoak: \(options.requests) requests through HTTPClient, \(options.sessionRequests) through SessionManager, c=\(options.concurrency), seed \(options.seed), deadline \(options.deadlineMilliseconds) ms")

var reports: [PhaseReport] = []
if options.requests > 0 { reports.append(runClientPhase(options, plan: plan)) }
if options.sessionRequests > 0 { reports.append(runSessionPhase(options, plan: plan)) }

let log: FaultLog
do { log = try FaultLog(paths: [options.upstreamLog, options.relayLog]) } catch {
    SoakOptions.fail("\(error)")
}
var violations: [String] = []
for report in reports { violations += report.judge(log, options) }
if violations.isEmpty {
    print("CourierSoak: PASS")
    exit(0)
}
print("CourierSoak: FAIL")
for violation in violations { print("  \(violation)") }
exit(1)
