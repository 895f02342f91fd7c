import Courier

/// Request and response heads as text, for `-i`, `-D` and `-v`'s `> `/`< ` lines.
enum HeadText {
    /// The status line and fields of a response, CRLF-terminated, with the empty line.
    static func response(_ response: Response) -> String {
        // The status line as the server sent it: its version and its reason phrase (none is
        // made up for a server that sent none).
        var text = "\(response.version) \(response.statusCode) \(response.reasonPhrase)".trimmingTrailingSpace + "\r\n"
        for field in response.headers { text += "\(field.name): \(field.value)\r\n" }
        return text + "\r\n"
    }

    /// The request head as Courier sends it: request line, Host, the request's fields and the
    /// framing of its body.
    static func request(_ request: Request, bodyLength: Int64?, compressed: Bool) -> String {
        guard let url = request.httpURL else { return "" }
        var text = "\(request.method.rawValue) \(url.requestTarget) HTTP/1.1\r\n"
        if request.value(forHTTPHeaderField: "Host") == nil { text += "Host: \(url.hostHeader)\r\n" }
        for field in request.headers { text += "\(field.name): \(field.value)\r\n" }
        if compressed && request.value(forHTTPHeaderField: "Accept-Encoding") == nil { text += "Accept-Encoding: gzip, deflate\r\n" }
        if let bodyLength, request.body != nil { text += "Content-Length: \(bodyLength)\r\n" }
        return text + "\r\n"
    }

    /// Each line of a head with a prefix (`> ` or `< `), LF-terminated as curl prints them.
    static func prefixed(_ head: String, with prefix: String) -> String {
        head.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast().map { prefix + $0 + "\n" }.joined()
    }
}

extension String {
    var trimmingTrailingSpace: String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
