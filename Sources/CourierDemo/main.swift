import Courier
import Dispatch
import FoundationEssentials
import Glibc

// `make demo`: Courier's main jobs against loopback servers this program starts itself.

struct User: Decodable, Sendable {
    var id: Int
    var name: String
    var languages: [String]
}

func heading(_ text: String) { print("\n▶ \(text)") }
func fail(_ text: String) -> Never {
    print("✘ \(text)")
    exit(1)
}

let servers = try DemoServers()
defer { servers.shutdown() }
print("Courier demo — loopback servers on \(servers.http.baseURL) and \(servers.https.baseURL)")

var configuration = SessionConfiguration()
configuration.client.tls.trustRoots = [.file(DemoCertificates.path("ca.pem"))]  // the demo's own CA
let api = try HTTPSessionManager(baseURL: URL(string: servers.http.baseURL + "/"), configuration: configuration)

// 1. A JSON GET decoded into a Decodable type.
heading("JSON GET decoded into a Decodable type")
do {
    let (user, response, metrics) = try await api.GET("users/42", as: User.self)
    print("  GET /users/42 → \(response.statusCode) \(response.mimeType ?? "") in \(Int(metrics.duration * 1000)) ms")
    print("  User(id: \(user.id), name: \"\(user.name)\", languages: \(user.languages))")
} catch { fail("JSON GET failed: \(error)") }

// 2. A gzip download to a file, with a progress bar.
heading("gzip download to a file, with a progress bar")
let downloads = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(getpid())")
defer { try? FileManager.default.removeItem(at: downloads) }
for (path, label) in [("/archive.txt.gz", "  archive.txt.gz"), ("/report.txt", "  report.txt    ")] {
    let bar = ProgressBar(label: label)
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: DownloadResponse?
    let task = api.session.downloadTask(
        with: Request(url: URL(string: servers.http.baseURL + path)!), progress: { bar.update($0) },
        destination: { _, _ in downloads.appendingPathComponent(String(path.dropFirst())) }
    ) { response in
        result = response
        done.signal()
    }
    task.resume()
    done.wait()
    guard let result, let file = result.fileURL else { fail("download of \(path) failed: \(String(describing: result?.error))") }
    let bytes = try Data(contentsOf: file)
    let content = path.hasSuffix(".gz") ? gunzip(Array(bytes)) : Array(bytes)
    guard content == servers.text else { fail("\(path): the file does not match what the server sent") }
    let encoding = result.response?.value(forHTTPHeaderField: "Content-Encoding").map { "Content-Encoding: \($0), decoded on the fly" }
        ?? "saved as sent, gunzipped here to check"
    print("  → \(file.lastPathComponent): \(bytes.count) bytes (\(encoding)); content verified")
}

// 3. A multipart upload of a file.
heading("multipart upload of a file")
do {
    let file = downloads.appendingPathComponent("photo.jpg")
    try Data(repeating: 0xA5, count: 200_000).write(to: file)
    let (value, response, _) = try await api.POST("upload", parameters: ["caption": "Loopback", "album": "demo"]) { form in
        try form.appendPart(fileURL: file, name: "photo")
    }
    print("  POST /upload → \(response.statusCode); the server saw these parts:")
    for part in (value as? JSONValue)?.arrayValue ?? [] {
        let filename = part["filename"]?.stringValue.map { ", filename \($0)" } ?? ""
        print("    • \(part["name"]?.stringValue ?? "?")\(filename): \(part["bytes"]?.intValue ?? -1) bytes")
    }
} catch { fail("multipart upload failed: \(error)") }

// 4. A request that is cancelled.
heading("a request that is cancelled")
do {
    let request = Task { () async throws -> Void in _ = try await api.GET("slow") }
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { request.cancel() }
    switch await request.result {
    case .success: fail("the slow request was not cancelled")
    case .failure(let error):
        let courier = error as? CourierError
        print("  GET /slow cancelled after 200 ms → \(courier?.code.name ?? "\(error)") (phase: \(courier?.phase.rawValue ?? "?"))")
    }
}

// 5. HTTPS with a pinned public key: the right pin succeeds, a wrong one fails.
heading("HTTPS with SPKI pinning")
do {
    let leaf = try SecurityPolicy.certificates(pemFile: DemoCertificates.path("localhost.pem"))[0]
    let rightPin = SecurityPolicy.publicKeyPin(of: leaf)
    let wrongPin = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
    for (label, pin) in [("right pin", rightPin), ("wrong pin", wrongPin)] {
        let secure = try HTTPSessionManager(
            baseURL: URL(string: servers.https.baseURL)!, configuration: configuration,
            securityPolicy: SecurityPolicy(publicKeyPins: [pin]))
        defer { secure.session.invalidate(cancelingTasks: true) }
        do throws(CourierError) {
            let (value, response, _) = try await secure.GET("/secure")
            print("  \(label) \(pin.prefix(20))… → \(response.statusCode) \((value as? JSONValue)?["secret"]?.stringValue ?? "")")
        } catch {
            print("  \(label) \(pin.prefix(20))… → refused: \(error.code) (phase: \(error.phase))")
            print("    \(error.underlying.map { "\($0)" } ?? "")")
        }
    }
}

// 6. The command line: one `courier -v` transfer with its timings, and a 5-second
// `courier bench` against the same server.
heading("courier -v: one transfer, its request and response heads and Courier's timings")
fflush(nil)  // the child writes to the same terminal: what was printed goes first
let usersURL = servers.http.baseURL + "/users/42"
guard let transferStatus = runCourier(["-v", "-o", "/dev/null", "-w", "%{http_code} in %{time_total}s\n", usersURL]) else {
    fail("the courier executable is not beside the demo (make demo builds it)")
}
guard transferStatus == 0 else { fail("courier -v exited with \(transferStatus)") }
heading("courier bench -c 8 -d 5s: a load test, with HDR percentiles")
fflush(nil)  // the child writes to the same terminal: what was printed goes first
guard let benchStatus = runCourier(["bench", "-c", "8", "-t", "1", "-d", "5s", usersURL]), benchStatus == 0 else {
    fail("courier bench failed")
}

api.session.invalidate(cancelingTasks: true)
print("\n✔ demo finished")
