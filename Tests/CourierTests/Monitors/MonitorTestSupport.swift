import Courier
import CourierCore
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// A monitor that writes every event it sees as a short line, on a queue of its own, and
/// signals when a given number of tasks completed.
final class RecordingMonitor: EventMonitor {
    let marker = QueueMarker(label: "courier.tests.recording-monitor")
    var queue: DispatchQueue { marker.queue }
    private let lines = Mutex<[String]>([])
    private let offQueue = Mutex(0)
    private let completions = Mutex(0)
    private let expected: Int
    let done = TestEvent()
    /// Signalled at every response head.
    let responded = TestEvent()

    init(completions expected: Int = 1) { self.expected = expected }

    var all: [String] { lines.withLock { $0 } }
    /// The lines with consecutive `data` lines merged into one (how a body is split is the
    /// transport's business).
    var merged: [String] { all.reduce(into: []) { if !($1 == "data" && $0.last == "data") { $0.append($1) } } }
    /// Events delivered anywhere but on ``queue``.
    var deliveredOffQueue: Int { offQueue.withLock { $0 } }

    private func record(_ line: String) {
        if !marker.isCurrent { offQueue.withLock { $0 += 1 } }
        lines.withLock { $0.append(line) }
    }

    func taskCreated(_ task: SessionTask) { record("created") }
    func taskResumed(_ task: SessionTask) { record("resumed") }
    func taskSuspended(_ task: SessionTask) { record("suspended") }
    func taskCancelled(_ task: SessionTask) { record("cancelled") }
    func task(_ task: SessionTask, didAdapt request: Request, to adapted: Request) { record("adapted") }
    func task(_ task: SessionTask, didFailToAdapt request: Request, error: CourierError) { record("adaptation failed \(error.code)") }
    func task(_ task: SessionTask, didStartAttempt attempt: Int, request: Request) {
        record("attempt \(attempt) \(request.method) \(request.url.path)")
    }
    func task(_ task: SessionTask, didFollowRedirect response: Response, to request: Request) {
        record("redirect \(response.statusCode) -> \(request.url.path)")
    }
    func task(_ task: SessionTask, didReceiveChallenge challenge: AuthenticationChallenge) { record("challenge \(challenge.scheme)") }
    /// Each request head sent, with what the connection had measured by then.
    let sentHeads = Mutex<[(head: HTTPRequestHead, metrics: HTTPClientMetrics)]>([])
    func task(_ task: SessionTask, didSendRequestHead head: HTTPRequestHead, metrics: HTTPClientMetrics) {
        sentHeads.withLock { $0.append((head, metrics)) }
        guard case .origin(let target) = head.target else { return record("head \(head.method) \(head.target)") }
        record("head \(head.method) \(target)")
    }
    func task(_ task: SessionTask, didReceiveResponse response: Response) {
        record("response \(response.statusCode)")
        responded.signal()
    }
    func task(_ task: SessionTask, didReceiveData data: Data) { record("data") }
    func task(_ task: SessionTask, didDecideRetry delay: Double?, after error: CourierError) {
        record("retry \(delay.map { "after \($0)" } ?? "no") (\(error.code))")
    }
    func task(_ task: SessionTask, didFinishCollecting metrics: TaskMetrics) { record("metrics \(metrics.transactionMetrics.count)") }
    func taskCompleted(_ completion: TaskCompletion) {
        record("completed \(completion.error.map { "\($0.code)" } ?? "\(completion.response?.statusCode ?? 0)")")
        let count = completions.withLock { count in
            count += 1
            return count
        }
        if count == expected { done.signal() }
    }
    func sessionInvalidated(_ error: CourierError?) { record("invalidated") }
}

/// Checks a HAR document against the HAR 1.2 field rules: every required field present with
/// its type, sizes -1 or more, timings -1 only where allowed, `time` the sum of the timings that
/// apply (`ssl` is part of `connect`). Returns what is wrong.
enum HARValidation {
    static func problems(in document: JSONValue) -> [String] {
        var problems: [String] = []
        func need(_ condition: Bool, _ message: @autoclosure () -> String) { if !condition { problems.append(message()) } }
        func string(_ value: JSONValue?, _ path: String) { need(value?.stringValue != nil, "\(path) is not a string") }
        func integer(_ value: JSONValue?, _ path: String, minimum: Int = -1) {
            guard let int = value?.intValue else { return need(false, "\(path) is not an integer") }
            need(int >= minimum, "\(path) is \(int), below \(minimum)")
        }
        func pairs(_ value: JSONValue?, _ path: String) {
            guard let list = value?.arrayValue else { return need(false, "\(path) is not an array") }
            for (index, item) in list.enumerated() {
                string(item["name"], "\(path)[\(index)].name")
                string(item["value"], "\(path)[\(index)].value")
            }
        }

        guard let log = document["log"], log.objectValue != nil else { return ["no log object"] }
        need(log["version"]?.stringValue == "1.2", "log.version is not 1.2")
        string(log["creator"]?["name"], "log.creator.name")
        string(log["creator"]?["version"], "log.creator.version")
        guard let entries = log["entries"]?.arrayValue else { return problems + ["log.entries is not an array"] }
        for (index, entry) in entries.enumerated() {
            let at = "entries[\(index)]"
            let started = entry["startedDateTime"]?.stringValue ?? ""
            need(isISO8601(started), "\(at).startedDateTime \(started) is not ISO 8601")
            need(entry["cache"]?.objectValue != nil, "\(at).cache is not an object")

            let request = entry["request"]
            for field in ["method", "url", "httpVersion"] { string(request?[field], "\(at).request.\(field)") }
            for field in ["cookies", "headers", "queryString"] { pairs(request?[field], "\(at).request.\(field)") }
            integer(request?["headersSize"], "\(at).request.headersSize")
            integer(request?["bodySize"], "\(at).request.bodySize")
            if let post = request?["postData"] {
                string(post["mimeType"], "\(at).request.postData.mimeType")
                need(post["text"]?.stringValue != nil || post["params"]?.arrayValue != nil, "\(at).request.postData has no text or params")
            }

            let response = entry["response"]
            integer(response?["status"], "\(at).response.status", minimum: 0)
            for field in ["statusText", "httpVersion", "redirectURL"] { string(response?[field], "\(at).response.\(field)") }
            for field in ["cookies", "headers"] { pairs(response?[field], "\(at).response.\(field)") }
            integer(response?["headersSize"], "\(at).response.headersSize")
            integer(response?["bodySize"], "\(at).response.bodySize")
            let content = response?["content"]
            integer(content?["size"], "\(at).response.content.size", minimum: 0)
            string(content?["mimeType"], "\(at).response.content.mimeType")
            if let text = content?["text"] { string(text, "\(at).response.content.text") }
            if let encoding = content?["encoding"] { string(encoding, "\(at).response.content.encoding") }

            let timings = entry["timings"]
            var sum = 0.0
            for field in ["blocked", "dns", "connect", "send", "wait", "receive", "ssl"] {
                guard let value = timings?[field]?.doubleValue else {
                    need(false, "\(at).timings.\(field) is not a number")
                    continue
                }
                let optional = ["blocked", "dns", "connect", "ssl"].contains(field)
                need(value >= 0 || (optional && value == -1), "\(at).timings.\(field) is \(value)")
                if field != "ssl", value >= 0 { sum += value }
            }
            if let ssl = timings?["ssl"]?.doubleValue, ssl >= 0, let connect = timings?["connect"]?.doubleValue {
                need(connect >= ssl, "\(at).timings.ssl \(ssl) is not within connect \(connect)")
            }
            guard let time = entry["time"]?.doubleValue else {
                need(false, "\(at).time is not a number")
                continue
            }
            need(time >= 0 && abs(time - sum) < 0.001, "\(at).time \(time) is not the sum of its timings \(sum)")
        }
        return problems
    }

    /// `YYYY-MM-DDThh:mm:ss(.fff)(Z|±hh:mm)`.
    static func isISO8601(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return false }
        func digits(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
        guard digits(0..<4), bytes[4] == UInt8(ascii: "-"), digits(5..<7), bytes[7] == UInt8(ascii: "-"), digits(8..<10),
              bytes[10] == UInt8(ascii: "T"), digits(11..<13), bytes[13] == UInt8(ascii: ":"), digits(14..<16),
              bytes[16] == UInt8(ascii: ":"), digits(17..<19) else { return false }
        return bytes.last == UInt8(ascii: "Z") || text.dropLast(6).count >= 19 && ["+", "-"].contains(text.dropLast(5).last.map(String.init))
    }
}
