import CourierClient
import FoundationEssentials

extension HTTPResponseSerializer {
    /// Refuses a body that still carries a content coding Courier did not undo
    /// (``Response/undecodedContentCodings``, RFC 9110 §8.4): `br`, `zstd`, `compress`, an
    /// unknown coding, a deeper stack than is decoded, or any coding when decompression is off.
    /// Such bytes are not the representation's data, so interpreting them (as JSON, text, a
    /// property list) would fail with a misleading error or, worse, succeed on the wrong bytes.
    /// An empty body passes: it has nothing to decode (a HEAD, 204 or 304 response names the
    /// coding its representation would have).
    ///
    /// The serializers that interpret the body call this after ``validate(response:data:)``;
    /// ``HTTPResponseSerializer`` itself does not, and returns the bytes as received. Call it
    /// from a custom serializer that interprets the body.
    ///
    /// - Throws: ``CourierError`` `.undecodedContentCoding` (phase `decodeBody`) with an
    ///   ``UndecodedContentCodings`` naming the codings, the response and the body as received.
    public static func requireDecodedBody(response: Response, data: Data?) throws(CourierError) {
        let codings = response.undecodedContentCodings
        guard !codings.isEmpty, let data, !data.isEmpty else { return }
        let names = UndecodedContentCodings(codings)
        throw CourierError(
            .undecodedContentCoding, underlying: names, response: response, body: data,
            detail: "the body is still encoded with \(names) (Content-Encoding); Courier undoes gzip and deflate, "
                + "up to \(ContentDecodingPlan.maximumLayers) stacked and all or none, when decompression is on")
    }
}
