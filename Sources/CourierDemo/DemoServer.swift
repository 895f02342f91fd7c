import CourierTLS
import FoundationEssentials
import Synchronization

/// The loopback servers the demo talks to: plain HTTP and HTTPS (the demo's certificate for
/// `localhost`, signed by the demo's own root, `Certificates/`). Everything stays on this machine.
struct DemoServers {
    let http: DemoHTTPServer
    let https: DemoHTTPServer
    /// Set at the end so the stalled `/slow` handler returns.
    let release = Release()
    /// The text behind `/archive.txt.gz` and `/report.txt`.
    let text: [UInt8]

    init() throws {
        http = try DemoHTTPServer()
        https = try DemoHTTPServer(tls: TLSServerConfiguration(
            certificateChainFile: DemoCertificates.path("localhost.pem"), privateKeyFile: DemoCertificates.path("localhost.key")))
        text = Self.makeText(lines: 400_000)
        let compressed = gzip(text)
        let text = self.text
        let release = self.release

        http.route("/users/42") { _, connection in
            try connection.respond(
                headers: [("Content-Type", "application/json")],
                body: #"{"id":42,"name":"Ada Lovelace","languages":["en","fr"],"active":true}"#)
        }
        // A .gz file: its length is known, so the progress bar has a real percentage.
        http.route("/archive.txt.gz") { _, connection in
            try connection.sendHead(headers: [("Content-Type", "application/gzip"), ("Content-Length", "\(compressed.count)")])
            try Self.sendInPieces(compressed, connection)
        }
        // The same text with Content-Encoding: gzip, chunked: decoded on the fly; its decoded size is unknown.
        http.route("/report.txt") { _, connection in
            try connection.sendChunkedHead(headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")])
            var offset = 0
            while offset < compressed.count {
                let end = min(offset + 32 * 1024, compressed.count)
                try connection.sendChunk(Array(compressed[offset..<end]))
                offset = end
            }
            try connection.endChunks()
        }
        http.route("/upload") { request, connection in
            let parts = Self.multipartSummary(request)
            try connection.respond(headers: [("Content-Type", "application/json")], body: parts)
        }
        http.route("/slow") { _, connection in
            connection.stall(until: release)
        }
        https.route("/secure") { _, connection in
            try connection.respond(headers: [("Content-Type", "application/json")], body: #"{"secret":"pinned hello"}"#)
        }
        _ = text
    }

    func shutdown() {
        release.flag.store(true, ordering: .releasing)
        http.shutdown()
        https.shutdown()
    }

    static func sendInPieces(_ bytes: [UInt8], _ connection: DemoConnection) throws {
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + 64 * 1024, bytes.count)
            try connection.send(Array(bytes[offset..<end]))
            offset = end
        }
    }

    static func makeText(lines: Int) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(lines * 48)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for line in 0..<lines {
            // A pseudo-random word per line keeps the text from compressing to almost nothing.
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            text.append(contentsOf: "line \(line) \(String(state >> 20, radix: 36)): the quick brown fox jumps over the lazy dog\n".utf8)
        }
        return text
    }

    /// `[{"name":…,"filename":…,"bytes":…}]` for a multipart/form-data body (RFC 7578).
    static func multipartSummary(_ request: DemoRequest) -> String {
        guard let type = request.headers[first: "Content-Type"], let range = type.firstRange(of: "boundary=") else { return "[]" }
        let delimiter = Array("--\(type[range.upperBound...])".utf8)
        let body = request.body
        var starts: [Int] = []
        var index = 0
        while index + delimiter.count <= body.count {
            if body[index..<index + delimiter.count].elementsEqual(delimiter) { starts.append(index); index += delimiter.count } else { index += 1 }
        }
        var entries: [String] = []
        for (first, next) in zip(starts, starts.dropFirst()) {
            let part = Array(body[(first + delimiter.count + 2)..<(next - 2)])  // after CRLF, before CRLF
            guard let split = (0..<max(0, part.count - 3)).first(where: { part[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }) else { continue }
            let headers = String(decoding: part[0..<split], as: UTF8.self)
            let name = Self.parameter("name", in: headers) ?? "?"
            let file = Self.parameter("filename", in: headers).map { #","filename":"\#($0)""# } ?? ""
            entries.append(#"{"name":"\#(name)"\#(file),"bytes":\#(part.count - split - 4)}"#)
        }
        return "[" + entries.joined(separator: ",") + "]"
    }

    static func parameter(_ name: String, in headers: String) -> String? {
        guard let range = headers.firstRange(of: " \(name)=\"") else { return nil }
        return String(headers[range.upperBound...].prefix { $0 != "\"" })
    }
}

/// The flag the `/slow` route waits on.
final class Release: Sendable {
    let flag = Atomic<Bool>(false)
}

/// The demo's certificates, found next to this source file (`#filePath`), so no machine path is
/// committed.
enum DemoCertificates {
    static func path(_ name: String) -> String {
        let file = "\(#filePath)"
        let directory = file[..<(file.lastIndex(of: "/") ?? file.startIndex)]
        return "\(directory)/Certificates/\(name)"
    }
}
