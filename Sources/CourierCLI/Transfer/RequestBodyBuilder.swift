import Courier
#if canImport(Glibc)
import Glibc
#endif

/// The request body curl's data options describe: `-d` and kin joined with `&` (`--json` parts
/// joined as they are), `-F` as multipart/form-data, `-T` as a file; and with `-G` the data as
/// the URL's query instead.
struct RequestBodyBuilder {
    /// What the data options produced.
    struct Payload {
        var body: RequestBody?
        var contentType: String?
        var accept: String?
        /// The data for the query string under `-G`.
        var query: String?
        /// The body's length when known (for `size_upload` and `-v`).
        var length: Int64?
    }

    let options: CurlOptions

    func payload() throws(CurlExit) -> Payload {
        var payload = Payload()
        if !options.data.isEmpty {
            var joined: [UInt8] = []
            var isJSON = false
            for (index, part) in options.data.enumerated() {
                if case .json = part { isJSON = true }
                let bytes = try bytes(of: part)
                let previousIsJSON: Bool = {
                    guard index > 0, case .json = options.data[index - 1] else { return false }
                    return true
                }()
                if index > 0 && !(isJSONPart(part) && previousIsJSON) { joined.append(UInt8(ascii: "&")) }
                joined += bytes
            }
            if options.get {
                payload.query = String(decoding: joined, as: UTF8.self)
            } else {
                payload.body = .data(Data(joined))
                payload.length = Int64(joined.count)
                payload.contentType = isJSON ? "application/json" : "application/x-www-form-urlencoded"
            }
            if isJSON { payload.accept = "application/json" }
        } else if !options.form.isEmpty {
            let form = MultipartFormData()
            for entry in options.form { try append(entry.field, literal: entry.literal, to: form) }
            // `--limit-rate` bounds the upload too.
            if let rate = options.limitRate { form.throttle(bytesPerSecond: Int(rate)) }
            payload.body = form.makeBody()
            payload.length = form.contentLength
            payload.contentType = form.contentType
        } else if let upload = options.uploadFile {
            if upload == "-" {
                let bytes = try Self.readStandardInput()
                payload.body = .data(Data(bytes))
                payload.length = Int64(bytes.count)
            } else {
                guard let size = LocalFile.size(ofRegularFile: upload) else {
                    throw CurlExit(CurlExit.readError, "Failed to open/read local data (phase serialize): \(upload) is not a readable regular file")
                }
                payload.body = .file(URL(fileURLWithPath: upload))
                payload.length = size
            }
        }
        // `--limit-rate` bounds every upload (a form's is throttled above, with its parts).
        if let rate = options.limitRate, options.form.isEmpty, let body = payload.body {
            payload.body = body.throttled(bytesPerSecond: Int(clamping: rate))
        }
        return payload
    }

    private func isJSONPart(_ part: CurlOptions.DataPart) -> Bool {
        if case .json = part { return true }
        return false
    }

    private func bytes(of part: CurlOptions.DataPart) throws(CurlExit) -> [UInt8] {
        switch part {
        case .raw(let text):
            return Array(text.utf8)
        case .ascii(let text):
            guard text.hasPrefix("@") else { return Array(text.utf8) }
            // `-d @file`: the file without its carriage returns and newlines.
            return try Self.read(String(text.dropFirst())).filter { $0 != 0x0D && $0 != 0x0A }
        case .binary(let text), .json(let text):
            guard text.hasPrefix("@") else { return Array(text.utf8) }
            return try Self.read(String(text.dropFirst()))
        case .urlencode(let text):
            if text.hasPrefix("@") { return Array(Self.percentEncode(try Self.read(String(text.dropFirst()))).utf8) }
            if text.hasPrefix("=") { return Array(Self.percentEncode(Array(text.dropFirst().utf8)).utf8) }
            if let equals = text.firstIndex(of: "=") {
                let name = text[..<equals]
                return Array((name + "=" + Self.percentEncode(Array(text[text.index(after: equals)...].utf8))).utf8)
            }
            if let at = text.firstIndex(of: "@") {
                let name = text[..<at]
                return Array((name + "=" + Self.percentEncode(try Self.read(String(text[text.index(after: at)...])))).utf8)
            }
            return Array(Self.percentEncode(Array(text.utf8)).utf8)
        }
    }

    /// `-F name=content`, `-F name=@file;type=…;filename=…`, `-F name=<file`.
    private func append(_ field: String, literal: Bool, to form: MultipartFormData) throws(CurlExit) {
        guard let equals = field.firstIndex(of: "=") else {
            throw CurlExit(CurlExit.badFunctionArgument, "Illegally formatted input field (phase serialize): \(field)")
        }
        let name = String(field[..<equals])
        let value = String(field[field.index(after: equals)...])
        // The name goes into a quoted Content-Disposition parameter.
        guard !name.contains(where: { $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw CurlExit(CurlExit.badFunctionArgument, "Illegally formatted input field (phase serialize): \(field)")
        }
        do {
            if literal {
                try form.appendPart(data: Data(value.utf8), name: name)
            } else if value.hasPrefix("@") || value.hasPrefix("<") {
                var parameters = value.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                let path = parameters.removeFirst()
                var type: String?
                var fileName: String?
                for parameter in parameters {
                    if parameter.hasPrefix("type=") { type = String(parameter.dropFirst(5)) }
                    if parameter.hasPrefix("filename=") { fileName = String(parameter.dropFirst(9)).trimmingQuotes }
                }
                let bytes = try Self.read(path)
                if value.hasPrefix("<") {
                    if let type {
                        var headers = HTTPFields()
                        try? headers.set(name: "Content-Disposition", value: "form-data; name=\"\(name)\"")
                        try? headers.set(name: "Content-Type", value: type)
                        form.appendPart(headers: headers, body: Data(bytes))
                    } else {
                        try form.appendPart(data: Data(bytes), name: name)
                    }
                } else {
                    let base = fileName ?? String(path.split(separator: "/").last ?? Substring(path))
                    try form.appendPart(data: Data(bytes), name: name, fileName: base, mimeType: type ?? "application/octet-stream")
                }
            } else {
                var text = value
                var type: String?
                if let semicolon = value.firstRange(of: ";type=") {
                    text = String(value[..<semicolon.lowerBound])
                    type = String(value[semicolon.upperBound...])
                }
                if let type {
                    var headers = HTTPFields()
                    try? headers.set(name: "Content-Disposition", value: "form-data; name=\"\(name)\"")
                    try? headers.set(name: "Content-Type", value: type)
                    form.appendPart(headers: headers, body: Data(text.utf8))
                } else {
                    try form.appendPart(data: Data(text.utf8), name: name)
                }
            }
        } catch let error as CurlExit {
            throw error
        } catch {
            throw CurlExit(CurlExit.badFunctionArgument, "Illegally formatted input field (phase serialize): \(field): \(error)")
        }
    }

    /// A local file's bytes (`-` is stdin); unreadable: curl's exit 26.
    static func read(_ path: String) throws(CurlExit) -> [UInt8] {
        if path == "-" { return try readStandardInput() }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CurlExit(CurlExit.readError, "Failed to open/read local data (phase serialize): \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        return try readAll(descriptor, name: path)
    }

    static func readStandardInput() throws(CurlExit) -> [UInt8] { try readAll(0, name: "stdin") }

    private static func readAll(_ descriptor: Int32, name: String) throws(CurlExit) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CurlExit(CurlExit.readError, "Failed to open/read local data (phase serialize): \(name): \(String(cString: strerror(errno)))")
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// curl's escaping: everything but RFC 3986's unreserved characters as %XX.
    static func percentEncode(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    var trimmingQuotes: String {
        hasPrefix("\"") && hasSuffix("\"") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}

/// Local files by path (`stat(2)`).
enum LocalFile {
    /// The size of a regular file; nil when there is none at `path`.
    static func size(ofRegularFile path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}
