import CourierClient
import FoundationEssentials

extension Request {
    /// A `curl` command line that makes this request again, for a shell (POSIX `sh`): every
    /// argument single-quoted, a `'` inside written `'\''`.
    ///
    /// - The method as `-X` unless curl implies it (GET without a body, POST with one; HEAD is
    ///   `--head`), the URL (RFC 9110 §4.2; `--globoff`, so `[` `]` of an IPv6 literal are not
    ///   a curl glob), `--http1.1` (what Courier speaks, RFC 9112), and each header field as `-H`
    ///   (a field with an empty value as `Name;`, curl's spelling for it).
    /// - The fields curl adds by itself that the request does not have (`Accept`, `User-Agent`,
    ///   and `Content-Type` for a body) are turned off with `-H 'Name:'`, so the server sees the
    ///   request's own fields (RFC 9110 §6.3), plus the framing curl adds (`Host`,
    ///   `Content-Length`).
    /// - A body in memory is `--data-binary '…'`; one curl could not take as an argument (a NUL
    ///   byte, bytes that are not UTF-8, or a leading `@`) is written with `printf` in octal
    ///   escapes and piped to `--data-binary @-`. A file body is `--data-binary @path`. A stream
    ///   cannot be written down: the command ends with a `#` comment saying so.
    /// - `--compressed` when the request's `Accept-Encoding` asks for gzip, deflate or br
    ///   (RFC 9110 §12.5.3), so that curl decodes what it asked for; `--max-time` from
    ///   ``totalTimeoutInterval``.
    /// - Credentials are redacted unless `includingCredentials` is true: the values of
    ///   `Authorization`, `Proxy-Authorization` (RFC 9110 §11.6.2, §11.7.2) and `Cookie`
    ///   (RFC 6265 §5.4) become `<redacted>`, and the URL's user information is redacted as
    ///   ``HTTPURL/description`` does.
    public func cURLDescription(includingCredentials: Bool = false) -> String {
        cURLDescription(includingCredentials: includingCredentials, addedFields: [])
    }

    /// The command, with the fields the transport adds (`addedFields`, e.g. its
    /// `Accept-Encoding`) where the request has none of that name.
    func cURLDescription(includingCredentials: Bool, addedFields: [HTTPField]) -> String {
        var prefix = ""
        var arguments: [String] = ["--http1.1", "--globoff"]
        var suffix = ""

        // The method and the body.
        var bodyArgument: String?
        switch body {
        case .data(let data):
            let bytes = [UInt8](data)
            if ShellText.isArgumentSafe(bytes) {
                bodyArgument = "--data-binary " + ShellText.quoted(bytes)
            } else {
                prefix = "printf " + ShellText.printfFormat(bytes) + " | "
                bodyArgument = "--data-binary @-"
            }
        case .file(let url):
            bodyArgument = "--data-binary " + ShellText.quoted("@" + url.path)
        case .stream(let length, _):
            suffix = " # the body, a stream of " + (length.map { "\($0) bytes" } ?? "unknown length") + ", is not reproduced"
        case nil:
            break
        }
        switch method {
        case .HEAD where body == nil:
            arguments.append("--head")
        case .GET where body == nil, .POST where bodyArgument != nil:
            break
        default:
            arguments.append("-X " + ShellText.quoted(method.rawValue))
        }

        // The URL.
        if let url = httpURL {
            if let socket = url.unixSocketPath {
                arguments.append("--unix-socket " + ShellText.quoted(socket))
                arguments.append(ShellText.quoted("http://localhost" + url.requestTarget))
            } else {
                arguments.append(ShellText.quoted(includingCredentials ? url.absoluteString : url.description))
            }
        } else {
            arguments.append(ShellText.quoted(includingCredentials ? self.url.absoluteString : self.url.redactedForDisplay))
        }

        // The header fields.
        var fields = Array(headers)
        for field in addedFields where !headers.contains(field.name) { fields.append(field) }
        let redacted: Set<String> = ["authorization", "proxy-authorization", "cookie"]
        for field in fields {
            let value = !includingCredentials && redacted.contains(field.name.lowercased()) ? "<redacted>" : field.value
            arguments.append("-H " + ShellText.quoted(value.isEmpty ? field.name + ";" : field.name + ": " + value))
        }
        var curlsOwn = ["Accept", "User-Agent"]
        if bodyArgument != nil { curlsOwn.append("Content-Type") }
        for name in curlsOwn where !fields.contains(where: { $0.name.lowercased() == name.lowercased() }) {
            arguments.append("-H " + ShellText.quoted(name + ":"))
        }
        let acceptEncoding = fields.filter { $0.name.lowercased() == "accept-encoding" }.map { $0.value.lowercased() }.joined(separator: ",")
        if ["gzip", "deflate", "br"].contains(where: { acceptEncoding.contains($0) }) {
            arguments.append("--compressed")
        }

        if let bodyArgument { arguments.append(bodyArgument) }
        if let total = totalTimeoutInterval, total.isFinite, total > 0 {
            arguments.append("--max-time " + ShellText.quoted(total.rounded() == total ? String(Int64(total)) : String(total)))
        }
        return prefix + "curl " + arguments.joined(separator: " \\\n  ") + suffix
    }
}

extension SessionTask {
    /// ``Request/cURLDescription(includingCredentials:)`` of ``currentRequest`` (after
    /// redirects and authentication retries), with the `Accept-Encoding` the transport adds when
    /// the session decompresses (and so `--compressed`).
    public func cURLDescription(includingCredentials: Bool = false) -> String {
        var added: [HTTPField] = []
        if manager.configuration.client.decompression, let field = try? HTTPField(name: "Accept-Encoding", value: "gzip, deflate") {
            added.append(field)
        }
        return currentRequest.cURLDescription(includingCredentials: includingCredentials, addedFields: added)
    }
}

/// Text for a POSIX shell.
enum ShellText {
    /// `'…'`, with each `'` written `'\''` (close, escaped quote, reopen): inside single quotes
    /// a shell takes every byte as it is (POSIX.1-2017 XCU §2.2.2).
    static func quoted(_ text: String) -> String { quoted(Array(text.utf8)) }

    static func quoted(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = [UInt8(ascii: "'")]
        for byte in bytes {
            if byte == UInt8(ascii: "'") { out += Array(#"'\''"#.utf8) } else { out.append(byte) }
        }
        out.append(UInt8(ascii: "'"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `bytes` can be one argument curl sends as it is: valid UTF-8 (so the command is
    /// text), no NUL (which ends an argument), not starting with `@` (curl would read a file).
    static func isArgumentSafe(_ bytes: [UInt8]) -> Bool {
        !bytes.contains(0) && bytes.first != UInt8(ascii: "@") && String(validating: bytes, as: UTF8.self) != nil
    }

    /// A single-quoted `printf` format that prints exactly `bytes`: printable ASCII as it is,
    /// every other byte (and `'`, `\`, `%`) as a three-digit octal escape (POSIX `printf`).
    static func printfFormat(_ bytes: [UInt8]) -> String {
        var out = "'"
        for byte in bytes {
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "'"), byte != UInt8(ascii: "\\"), byte != UInt8(ascii: "%") {
                out.append(Character(Unicode.Scalar(byte)))
            } else {
                let octal = String(byte, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return out + "'"
    }
}
