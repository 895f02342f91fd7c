import CourierClient
import FoundationEssentials

/// Builds the header fields of body parts without ever letting a caller's text inject a line.
enum MultipartHeaderText {
    /// `value` as a quoted-string for a Content-Disposition parameter, escaped the way RFC 7578
    /// §4.2 and the WHATWG HTML "multipart/form-data encoding algorithm" do: `"` → `%22`,
    /// CR → `%0D`, LF → `%0A`. Other UTF-8 is sent as it is (RFC 7578 §5.1.1). NUL and other
    /// control bytes (except HTAB) have no escape there and are refused.
    static func quoted(_ value: String, what: String) throws(CourierError) -> String {
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            case "\t": escaped.unicodeScalars.append(scalar)
            default:
                guard scalar.value >= 0x20, scalar.value != 0x7F else {
                    throw CourierError(.invalidHeader, detail: "multipart \(what) contains a control character")
                }
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    /// `form-data; name="…"` and, for files, `; filename="…"` (RFC 7578 §4.2).
    static func contentDisposition(name: String, fileName: String?) throws(CourierError) -> HTTPField {
        var value = "form-data; name=" + (try quoted(name, what: "field name"))
        if let fileName { value += "; filename=" + (try quoted(fileName, what: "file name")) }
        return try field("Content-Disposition", value)
    }

    /// A validated field: a token name and a value without CR, LF, NUL or other controls
    /// (RFC 9110 §5.5), so that no value can start a new header line or end the part's headers.
    static func field(_ name: String, _ value: String) throws(CourierError) -> HTTPField {
        do {
            return try HTTPField(name: name, value: value)
        } catch {
            throw CourierError(.invalidHeader, underlying: error, detail: "multipart part header \(name)")
        }
    }

    /// A Content-Type field for a part; the MIME type must be a plain header value.
    static func contentType(_ mimeType: String) throws(CourierError) -> HTTPField {
        try field("Content-Type", mimeType)
    }
}
