import Courier
import CourierClient
import CourierCore
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Testing

/// Response serializers run on the session's serialization queue: not on an event loop thread
/// (named `courier-loop-N` by CourierPosix) and not on the completion queue.
@Suite(.serialized) struct SerializationThreadTests {
    /// Where a serializer ran.
    struct Place: Sendable {
        var threadName: String
        var onCompletionQueue: Bool
    }

    /// Records where it runs, then returns the body as text.
    struct RecordingSerializer: ResponseSerializer {
        let marker: QueueMarker
        let places: Recorder<Place>

        func serialize(response: Response, data: Data?) throws(CourierError) -> String {
            places.append(Place(threadName: currentThreadName(), onCompletionQueue: marker.isCurrent))
            return String(decoding: data ?? Data(), as: UTF8.self)
        }
    }

    /// A request body stream that records the thread it is read on: the connection's event loop.
    struct NamingStream: HTTPClientBodyStream {
        let names: Recorder<String>
        var sent = false

        mutating func next() throws -> ByteBuffer? {
            names.append(currentThreadName())
            guard !sent else { return nil }
            sent = true
            return ByteBuffer(bytes: Array("payload".utf8))
        }
    }

    @Test func serializersRunOffTheLoopsAndOffTheCompletionQueue() throws {
        let marker = QueueMarker()
        try withHTTPSession(completionQueue: marker.queue) { manager, server in
            HTTPSessionFixtures.echo(server, "/s")
            let places = Recorder<Place>()
            let loopNames = Recorder<String>()
            manager.responseSerializer = RecordingSerializer(marker: marker, places: places).erased

            // The closure API, with a streamed body so that the loop thread's name is seen too.
            let outcome = Outcome<(String?, Bool)>()
            manager.POST("s", parameters: nil, constructingBodyWith: { (form) throws(CourierError) in
                try form.appendPart(stream: { NamingStream(names: loopNames) }, length: 7, name: "p", fileName: "p.bin", mimeType: "application/octet-stream")
            }, success: { _, value in outcome.set((value as? String, marker.isCurrent)) }, failure: { _, error in
                Issue.record("\(error)")
                outcome.set((nil, marker.isCurrent))
            })
            let (text, onQueue) = try #require(outcome.wait())
            #expect(text?.contains("\"method\":\"POST\"") == true)
            #expect(onQueue, "the success closure itself runs on the completion queue")

            // The async API with a serializer of its own.
            let (value, _, _) = try runAsync { () async throws(CourierError) in
                try await manager.send(.GET, "s", serializer: RecordingSerializer(marker: marker, places: places))
            }.get()
            #expect(value.contains("\"method\":\"GET\""))

            // The evidence is only worth something if loop threads really carry the prefix.
            let names = loopNames.all
            #expect(!names.isEmpty)
            #expect(names.allSatisfy { $0.hasPrefix(eventLoopThreadPrefix) }, "body streams are read on the loops: \(names)")
            #expect(places.count == 2)
            for place in places.all {
                #expect(!place.threadName.hasPrefix(eventLoopThreadPrefix), "a serializer ran on \(place.threadName)")
                #expect(!place.onCompletionQueue, "a serializer ran on the completion queue")
            }
        }
    }
}
