import Courier

/// Request and response heads as text, for `-i`, `-D` and `-v`'s `> `/`< ` lines.
enum HeadText {
    /// The status line and fields of a response, CRLF-terminated, with the empty line.
    static func response(_ response: Response) -> String {
        var text = "HTTP/1.1 \(response.statusCode) \(reason(response.statusCode))".trimmingTrailingSpace + "\r\n"
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

    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}

extension String {
    var trimmingTrailingSpace: String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
