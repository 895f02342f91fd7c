// Fuzzes the Courier layer's handling of a response from the network: the Content-Type,
// Content-Length, Content-Encoding, Cache-Control and WWW-Authenticate values a server sends
// and the body, through every response serializer. Nothing may trap; a serializer either returns
// a value or throws a CourierError that carries the response. A non-empty body that still
// carries a content coding (undecodedContentCodings) is never interpreted: every serializer but
// the plain HTTP one throws (a validation error or undecodedContentCoding).
//
// Input layout:
//   byte  0     status code selector (200, 204, 206, 304, 401, 404, 500, or 100 + byte)
//   byte  1     which header value the next string is (bit 0–2) and serializer options (bits 3–7;
//               bit 5: the value's comma-separated elements are content codings left undone)
//   bytes 2…    a length-prefixed header value, then the body (the rest)
import Courier
import FoundationEssentials
import FuzzSupport

struct Decoded: Decodable, Sendable {
    var id: Int?
    var name: String?
    var tags: [String]?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseSerializers(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    let statuses = [200, 204, 206, 304, 401, 404, 500]
    let selector = Int(reader.u8())
    let status = selector < statuses.count * 16 ? statuses[selector % statuses.count] : 100 + selector
    let options = reader.u8()
    let value = String(decoding: reader.lengthPrefixed(), as: UTF8.self)
    let body = Data(reader.rest())

    var headers = HTTPFields()
    let names = ["Content-Type", "Content-Length", "Content-Encoding", "Cache-Control", "WWW-Authenticate", "ETag", "Content-Range", "Expires"]
    // A value the field syntax refuses is what the transport's parser would have refused too.
    try? headers.append(name: names[Int(options & 7)], value: value)
    try? headers.append(name: "Content-Type", value: options & 8 != 0 ? "application/json; charset=\(value)" : "text/plain; charset=\(value)")
    let undecoded = options & 32 != 0 ? value.split(separator: ",").map(String.init) : []
    let response = Response(url: URL(string: "http://fuzz.test/x")!, statusCode: status, headers: headers, undecodedContentCodings: undecoded)
    _ = (response.mimeType, response.textEncodingName, response.expectedContentLength)
    let coded = !undecoded.isEmpty && !body.isEmpty

    func check<S: ResponseSerializer>(_ serializer: S, _ name: String, interprets: Bool = true) {
        do {
            _ = try serializer.serialize(response: response, data: body)
            fuzzCheck(!interprets || !coded, "\(name) interpreted a body still encoded with \(undecoded)")
        } catch {
            fuzzCheck(error.response != nil || error.phase == .decodeBody || error.phase == .validate,
                      "\(name) threw \(error) without the response")
            fuzzCheck(!coded || error.phase == .validate || error.code == .undecodedContentCoding,
                      "\(name) threw \(error) for a body still encoded with \(undecoded)")
        }
    }
    check(HTTPResponseSerializer(), "HTTPResponseSerializer", interprets: false)
    var json = JSONResponseSerializer()
    json.removesKeysWithNullValues = options & 16 != 0
    json.acceptableContentTypes = nil
    check(json, "JSONResponseSerializer")
    check(DecodableResponseSerializer<Decoded>(), "DecodableResponseSerializer")
    check(DecodableResponseSerializer<JSONValue>(), "DecodableResponseSerializer<JSONValue>")
    check(PropertyListResponseSerializer<Decoded>(), "PropertyListResponseSerializer")
    check(StringResponseSerializer(), "StringResponseSerializer")
    check(CompoundResponseSerializer<any Sendable>([json.erased, StringResponseSerializer().erased]), "CompoundResponseSerializer")
    return 0
}
