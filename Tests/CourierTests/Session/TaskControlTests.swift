import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Cancelling in every phase, invalidating with and without cancelling, and the registry.
@Suite(.serialized) struct TaskControlTests {
    @Test func cancellingBeforeResumeCompletesWithoutARequest() throws {
        try withSession { manager, server in
            server.route("/x") { _, connection in try connection.respond(body: "x") }
            let outcome = Outcome<DataResponse<Data>>()
            let calls = Counter()
            let task = manager.dataTask(with: Request(url: url(server, "/x"))) { calls.add(1); outcome.set($0) }
            task.cancel()
            let response = try #require(outcome.wait())
            #expect(response.error?.code == .cancelled)
            #expect(response.error?.phase == .cancelled)
            #expect(task.state == .completed)
            task.resume()
            #expect(task.state == .completed, "a cancelled task cannot be started")
            _ = try runData(manager, Request(url: url(server, "/x")))
            #expect(server.requests.count == 1, "only the other task reached the server")
            #expect(calls.value == 1)
        }
    }

    @Test func cancellingWhileWaitingForTheHead() throws {
        try withSession { manager, server in
            let release = TestEvent()
            server.route("/stall") { _, connection in
                try connection.stall(until: release)
                try connection.respond(body: "too late")
            }
            defer { release.signal() }
            let outcome = Outcome<DataResponse<Data>>()
            let task = manager.dataTask(with: Request(url: url(server, "/stall"))) { outcome.set($0) }
            task.resume()
            #expect(server.waitForRequests(1))
            #expect(task.state == .running)
            #expect(task.response == nil)
            task.cancel()
            let response = try #require(outcome.wait())
            #expect(response.error?.code == .cancelled)
            #expect(response.response == nil)
            #expect(task.state == .completed)
            #expect(task.error?.code == .cancelled)
        }
    }

    @Test func cancellingMidBody() throws {
        try withSession { manager, server in
            let release = TestEvent()
            server.route("/partial") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "100000")])
                try connection.send(patternBytes(1_000))
                try connection.stall(until: release)
            }
            defer { release.signal() }
            let gotBytes = TestEvent()
            let outcome = Outcome<DataResponse<Data>>()
            let task = manager.dataTask(with: Request(url: url(server, "/partial")), downloadProgress: { snapshot in
                if snapshot.completedUnitCount > 0 { gotBytes.signal() }
            }) { outcome.set($0) }
            task.resume()
            #expect(gotBytes.wait(timeout: .seconds(20)))
            task.cancel()
            #expect([.canceling, .completed].contains(task.state))
            let response = try #require(outcome.wait())
            #expect(response.error?.code == .cancelled)
            #expect(response.response?.statusCode == 200, "the head that arrived is reported")
            #expect(response.error?.bodyPrefix == Data(patternBytes(1_000)), "with the bytes received")
        }
    }

    @Test func cancellingAfterCompletionDoesNothing() throws {
        try withSession { manager, server in
            server.route("/x") { _, connection in try connection.respond(body: "done") }
            let calls = Counter()
            let outcome = Outcome<DataResponse<Data>>()
            let task = manager.dataTask(with: Request(url: url(server, "/x"))) { calls.add(1); outcome.set($0) }
            task.resume()
            let response = try #require(outcome.wait())
            task.cancel()
            task.cancel()
            manager.completionQueue.sync {}
            #expect(response.error == nil)
            #expect(task.state == .completed)
            #expect(task.error == nil, "the completed task keeps its success")
            #expect(calls.value == 1, "the completion ran once")
        }
    }

    @Test func invalidatingWithCancellationCancelsRunningTasksAndRefusesNewOnes() throws {
        try withSession { manager, server in
            let release = TestEvent()
            server.route("/stall") { _, connection in
                try connection.stall(until: release)
                try connection.respond(body: "late")
            }
            defer { release.signal() }
            let running = Outcome<DataResponse<Data>>()
            manager.dataTask(with: Request(url: url(server, "/stall"))) { running.set($0) }.resume()
            let unstarted = Outcome<DataResponse<Data>>()
            let neverResumed = manager.dataTask(with: Request(url: url(server, "/stall"))) { unstarted.set($0) }
            #expect(server.waitForRequests(1))
            let order = Recorder<String>()
            let invalid = TestEvent()
            manager.updateHooks { hooks in
                hooks.taskDidComplete = { _, error in order.append("completed \(error?.code.name ?? "ok")") }
                hooks.sessionDidBecomeInvalid = { _ in order.append("invalid"); invalid.signal() }
            }
            manager.invalidate(cancelingTasks: true)
            let response = try #require(running.wait())
            #expect(response.error?.code == .cancelled)
            #expect(try #require(unstarted.wait()).error?.code == .cancelled)
            #expect(invalid.wait(timeout: .seconds(20)))
            #expect(order.all == ["completed cancelled", "completed cancelled", "invalid"])
            #expect(manager.tasks.isEmpty)
            _ = neverResumed

            let later = try runData(manager, Request(url: url(server, "/stall")))
            #expect(later.error?.code == .sessionInvalidated)
            #expect(later.error?.phase == .cancelled)
            #expect(manager.tasks.isEmpty, "a task made after invalidation is not listed")
            #expect(server.requests.count == 1)
        }
    }

    @Test func invalidatingWithoutCancellationLetsRunningTasksFinish() throws {
        try withSession { manager, server in
            let release = TestEvent()
            server.route("/slow") { _, connection in
                try connection.stall(until: release)
                try connection.respond(body: "finished")
            }
            defer { release.signal() }
            let order = Recorder<String>()
            let invalid = TestEvent()
            manager.updateHooks { hooks in
                hooks.sessionDidBecomeInvalid = { _ in order.append("invalid"); invalid.signal() }
            }
            let outcome = Outcome<DataResponse<Data>>()
            let task = manager.dataTask(with: Request(url: url(server, "/slow"))) { response in
                order.append("completed")
                outcome.set(response)
            }
            task.resume()
            #expect(server.waitForRequests(1))
            manager.invalidate(cancelingTasks: false)
            let refused = try runData(manager, Request(url: url(server, "/slow")))
            #expect(refused.error?.code == .sessionInvalidated, "new tasks fail at once")
            #expect(!invalid.isSignaled, "the session waits for its running task")
            #expect(task.state == .running)
            #expect(manager.tasks.map(\.taskIdentifier) == [task.taskIdentifier])
            release.signal()
            let response = try #require(outcome.wait())
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "finished")
            #expect(invalid.wait(timeout: .seconds(20)))
            #expect(order.all == ["completed", "invalid"])
        }
    }

    @Test func theRegistryListsTasksByKindUntilTheyComplete() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            server.route("/x") { _, connection in try connection.respond(body: "x") }
            let done = Recorder<Int>()
            let allDone = TestEvent()
            let finished: @Sendable (Int) -> Void = { id in
                done.append(id)
                if done.count == 3 { allDone.signal() }
            }
            #expect(manager.tasks.isEmpty)
            var data: DataTask?
            data = manager.dataTask(with: Request(url: url(server, "/x"))) { _ in finished(1) }
            let upload = manager.uploadTask(with: Request(url: url(server, "/x"), method: .POST), fromData: Data("up".utf8)) { _ in finished(2) }
            let download = manager.downloadTask(with: Request(url: url(server, "/x"))) { _ in finished(3) }
            let dataTask = try #require(data)
            #expect(manager.tasks.map(\.taskIdentifier) == [dataTask, upload, download].map(\.taskIdentifier), "in creation order")
            #expect(manager.dataTasks.map(\.taskIdentifier) == [dataTask.taskIdentifier])
            #expect(manager.uploadTasks.map(\.taskIdentifier) == [upload.taskIdentifier])
            #expect(manager.downloadTasks.map(\.taskIdentifier) == [download.taskIdentifier])
            #expect(manager.task(withIdentifier: upload.taskIdentifier) === upload)
            #expect(manager.task(withIdentifier: download.taskIdentifier) === download)
            #expect(manager.task(withIdentifier: -1) == nil)
            #expect(Set([dataTask.taskIdentifier, upload.taskIdentifier, download.taskIdentifier]).count == 3)

            let downloadDone = TestEvent()
            let downloadID = download.taskIdentifier
            manager.addObserver { event in
                if case .taskCompleted(let completion) = event, completion.task.taskIdentifier == downloadID { downloadDone.signal() }
            }
            download.resume()
            #expect(downloadDone.wait(timeout: .seconds(20)))
            #expect(manager.downloadTasks.isEmpty, "a completed task leaves the registry")
            #expect(manager.tasks.count == 2)
            #expect(manager.task(withIdentifier: download.taskIdentifier) == nil)

            dataTask.resume()
            upload.resume()
            #expect(allDone.wait(timeout: .seconds(20)))
            #expect(manager.tasks.isEmpty && manager.dataTasks.isEmpty && manager.uploadTasks.isEmpty)
            #expect(Set(done.all) == [1, 2, 3])

            // The registry does not keep an unstarted task alive.
            data = nil
            weak var dropped: DataTask?
            do {
                let temporary = manager.dataTask(with: Request(url: url(server, "/x"))) { _ in }
                dropped = temporary
                #expect(manager.dataTasks.count == 1)
            }
            #expect(dropped == nil)
            #expect(manager.dataTasks.isEmpty)
        }
    }
}
