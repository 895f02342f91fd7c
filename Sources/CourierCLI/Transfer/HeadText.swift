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

    /// A request head as the transport wrote it: request line and fields (RFC 9112 §3), from
    /// the session's `didSendRequestHead` event.
    static func request(_ head: HTTPRequestHead) -> String {
        let target: String
        switch head.target {
        case .origin(let path): target = path
        case .absolute(let uri): target = uri
        case .authority(let host, let port): target = "\(host):\(port)"
        case .asterisk: target = "*"
        }
        var text = "\(head.method.rawValue) \(target) \(head.version)\r\n"
        for field in head.headers { text += "\(field.name): \(field.value)\r\n" }
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
