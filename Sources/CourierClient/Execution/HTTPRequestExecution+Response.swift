import CourierCore
import CourierHTTP1

/// The response on its way to the delegate: the final head (a redirect to follow goes to the
/// redirect extension instead) and the body parts, decoded per the head's Content-Encoding.
extension HTTPRequestExecution {
    /// The final head arrived. Returns an error to fail the request with, or nil.
    func receivedHead(_ head: HTTPClientResponseHead) -> ClientError? {
        hold.reset()
        if redirects.follow, RedirectConfiguration.isFollowable(status: head.status) {
            switch redirectDecision(for: head) {
            case .failure(let error):
                return error
            case .success(let next?):
                return startRedirect(head, proposed: next)
            case .success(nil):
                break
            }
        }
        deliverHead(head)
        return nil
    }

    /// Hands the final response head to the delegate, with the body's decoding set up.
    func deliverHead(_ head: HTTPClientResponseHead) {
        // Most responses have no Content-Encoding (the plan `.none`): the parser says so, or one
        // pass over the names finds it, and no list of values is made.
        guard !head.contentEncodingAbsent, head.headers.contains("Content-Encoding") else {
            delegate.didReceiveHead(self, head)
            return
        }
        let plan = ContentDecodingPlan(
            contentEncoding: head.headers.values(for: "Content-Encoding"), decoding: client.configuration.decompression)
        switch plan {
        case .decode(let codings):
            decoder = ContentDecoder(codings: codings, limits: client.configuration.decompressionLimits)
        case .passThrough(let undecoded):
            // Delivered as received; the head says what is left (RFC 9110 §8.4).
            var head = head
            head.undecodedContentCodings = undecoded
            delegate.didReceiveHead(self, head)
            return
        case .none:
            break
        }
        delegate.didReceiveHead(self, head)
    }

    func receivedBody(_ part: ByteBuffer) -> BodyDisposition {
        switch hold.bodyPart(part) {
        case .deliver: return deliverBody(part)
        case .drop: return .more
        case .holdAndPause: return .pause
        }
    }

    /// Hands a body part to the delegate, decoded.
    func deliverBody(_ part: ByteBuffer) -> BodyDisposition {
        guard let decoder else {
            metrics.bodyBytesDelivered += Int64(part.readableBytes)
            return delegate.didReceiveBodyPart(self, part) == .pause ? .pause : .more
        }
        decoded.clear()
        do {
            try decoder.decode(part, into: &decoded)
        } catch {
            return .abort(ClientError(.contentDecoding, cause: error, detail: error.description))
        }
        guard decoded.readableBytes > 0 else { return .more }
        metrics.bodyBytesDelivered += Int64(decoded.readableBytes)
        return delegate.didReceiveBodyPart(self, decoded) == .pause ? .pause : .more
    }
}
