import Courier
import CourierCore
import CourierTestSupport
import FoundationEssentials
import Synchronization
import Testing

/// The closure API generic over the serializer: `success` gets the serializer's own type.
@Suite(.serialized) struct TypedClosureTests {
    struct Thing: Decodable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    @Test func getAsADecodableHandsSuccessTheValue() throws {
        try withHTTPSession { manager, server in
            server.route("/thing") { _, connection in
                try connection.respond(headers: [("Content-Type", "application/json")], body: #"{"id":7,"name":"typed"}"#)
            }
            let outcome = Outcome<Result<Thing, CourierError>>()
            manager.GET("thing", as: Thing.self, success: { _, thing in outcome.set(.success(thing)) },
                        failure: { _, error in outcome.set(.failure(error)) })
            let result = try #require(outcome.wait())
            #expect(try result.get() == Thing(id: 7, name: "typed"))
        }
    }

    @Test func aSerializersOwnOutputTypeReachesSuccess() throws {
        try withHTTPSession { manager, server in
            server.route("/text") { _, connection in try connection.respond(headers: [("Content-Type", "text/plain")], body: "plain words") }
            let outcome = Outcome<Result<String, CourierError>>()
            manager.dataTask(method: .GET, path: "text", serializer: StringResponseSerializer(),
                             success: { _, text in outcome.set(.success(text)) }, failure: { _, error in outcome.set(.failure(error)) })
            let result = try #require(outcome.wait())
            #expect(try result.get() == "plain words")
        }
    }

    @Test func aBodyOfTheWrongShapeFailsInTheDecodePhase() throws {
        try withHTTPSession { manager, server in
            server.route("/thing") { _, connection in
                try connection.respond(headers: [("Content-Type", "application/json")], body: #"{"id":"seven"}"#)
            }
            let outcome = Outcome<Result<Thing, CourierError>>()
            manager.GET("thing", as: Thing.self, success: { _, thing in outcome.set(.success(thing)) },
                        failure: { _, error in outcome.set(.failure(error)) })
            guard case .failure(let error) = try #require(outcome.wait()) else {
                Issue.record("a body of the wrong shape decoded")
                return
            }
            #expect(error.code == .responseSerializationFailed)
            #expect(error.phase == .decodeBody)
        }
    }
}
