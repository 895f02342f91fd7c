import CourierCore

extension SessionManager {
    /// Runs the task `make` builds for an `async` caller and returns its response: the outcome is
    /// handed off to this Swift task when nothing needs the completion queue (one thread hop from
    /// the event loop) and serialized here; otherwise it comes through the queues already
    /// serialized, after the hooks ran (``TaskCompletion``). Cancelling the Swift task cancels the
    /// task.
    func awaitResponse<Serializer: ResponseSerializer, Task: SessionTask>(
        _ serializer: Serializer, _ make: (TaskCompletion.Route) -> Task
    ) async -> DataResponse<Serializer.Output> {
        let arrival: TaskCompletion.Arrival<Serializer.Output> = await awaitCompletion { deliver in
            // A task's completion takes exactly one of the two routes.
            make(TaskCompletion.Route.serializing(
                with: serializer, handler: { deliver(.throughQueues($0)) }, handOff: { deliver(.handedOff($0)) }))
        }
        switch arrival {
        case .handedOff(let outcome): return outcome.dataResponse(serializedBy: serializer)
        case .throughQueues(let response): return response
        }
    }

    /// Makes a task with `make` (given what its completion calls), resumes it and waits for that
    /// call; cancelling the Swift task cancels the task, whenever it happens.
    func awaitCompletion<Value: Sendable>(_ make: (_ deliver: @escaping @Sendable (Value) -> Void) -> SessionTask) async -> Value {
        let link = TaskCompletion.CancellationLink()
        let value = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = make { value in
                    TSanHandoff.release(link)
                    continuation.resume(returning: value)
                }
                link.set(task)
                task.resume()
            }
        } onCancel: {
            link.cancel()
        }
        TSanHandoff.acquire(link)  // the value was made on the thread that resumed us
        return value
    }
}
